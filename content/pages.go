package content

import (
	"strconv"
	"strings"
)

// Entry is one page of the notebook in the table of contents: the markdown file that holds its
// prose, the URL it is served at (below the site's base path) and its name in the contents, which
// is the page's own title ("Block 4: X" is "4 · X"; TestContentsAgreeWithTitles holds them to it).
type Entry struct {
	Slug string
	Path string
	Nav  string
}

// Block returns the block number of a block page ("blocks/4" is 4), or 0 for any other page.
func (e Entry) Block() int {
	s, ok := strings.CutPrefix(e.Slug, "blocks/")
	n, err := strconv.Atoi(s)
	if !ok || err != nil || n < 1 || strconv.Itoa(n) != s {
		return 0
	}
	return n
}

// Contents is the notebook's pages in reading order. It is the one table of pages: the routes, the
// contents, previous/next links, the number of blocks and every test's list of pages come from it,
// so a new page is one line here and one markdown file.
func Contents() []Entry {
	return []Entry{
		{"index", "/", "Start here"},
		{"semantics", "/semantics", "Delivery semantics"},
		{"blocks/1", "/blocks/1", "1 · Ack before work"},
		{"blocks/2", "/blocks/2", "2 · Ack after work"},
		{"blocks/3", "/blocks/3", "3 · Exactly-once does not exist"},
		{"blocks/4", "/blocks/4", "4 · The bounded dedup window"},
		{"blocks/5", "/blocks/5", "5 · The dual write"},
		{"blocks/6", "/blocks/6", "6 · The lease and its heartbeat"},
		{"assembly", "/assembly", "The assembly"},
		{"boundaries", "/boundaries", "Across system boundaries"},
		{"systems", "/systems", "In the systems you run"},
		{"lab", "/lab", "The live lab"},
		{"workbench", "/workbench", "The workbench"},
		{"verify", "/verify", "Verify the claims"},
		{"glossary", "/glossary", "Glossary"},
	}
}

// Blocks is the number of block pages in the contents.
func Blocks() int {
	n := 0
	for _, e := range Contents() {
		if e.Block() > 0 {
			n++
		}
	}
	return n
}
