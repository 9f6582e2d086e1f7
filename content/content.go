// Package content holds the notebook's prose, one markdown file per page, embedded in the binary and
// rendered once at start-up. Interactive parts are placed by marker lines (`::: experiment window`),
// so a writer decides where a chart goes without touching Go.
package content

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Files is every markdown page of the notebook.
//
//go:embed *.md blocks/*.md
var Files embed.FS

// Part is one piece of a page in reading order: rendered prose, or a marker naming an interactive
// component (experiment, source, timeline, predictions, contents, lab), or a run of cards, or
// prose that discusses the results of the experiments it names (MarkerAfter, its HTML rendered).
type Part struct {
	HTML   string
	Marker string
	Arg    string
	Cards  []Card
}

// Name is the first word of the marker's argument: the experiment of "::: experiment assembly
// upto=at-least-once", the first function of a source marker.
func (p Part) Name() string {
	name, _, _ := strings.Cut(strings.TrimSpace(p.Arg), " ")
	return name
}

// Names are the words of the marker's argument: the experiments whose results an after part
// discusses, the functions of a source marker.
func (p Part) Names() []string { return strings.Fields(p.Arg) }

// Option returns the value of a "key=value" word of the marker's argument, and whether it is there.
func (p Part) Option(key string) (string, bool) {
	for _, w := range strings.Fields(p.Arg) {
		if k, v, ok := strings.Cut(w, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// The options an experiment marker may carry after the experiment's name, as key=value words. They
// say how this page shows the experiment's result; the run itself is the same everywhere.
const (
	OptionUpTo  = "upto"  // show the result's rows up to and including this one (those introduced so far)
	OptionFocus = "focus" // mark this row of the result as the one the page is about
	OptionTitle = "title" // "none": the page's own heading names the experiment, so it shows no title of its own
)

// experimentOptions are the option keys an experiment marker accepts.
var experimentOptions = []string{OptionUpTo, OptionFocus, OptionTitle}

// The markers a page may hold, each on a line of its own as "::: name [arg]". Code that places
// an interactive part compares a Part's Marker with these, never with a string of its own.
const (
	MarkerExperiment  = "experiment"  // an experiment's form and result; arg: the experiment's name
	MarkerSource      = "source"      // functions of the experiments package; arg: their names
	MarkerTimeline    = "timeline"    // the crash-window walk-through
	MarkerPredictions = "predictions" // the five questions to answer before reading
	MarkerContents    = "contents"    // the table of contents
	MarkerLab         = "lab"         // the live lab's form, progress and results
	MarkerWorkbench   = "workbench"   // the workbench's editor, parameters and result
	MarkerCards       = "cards"       // opens a run of question cards, closed by MarkerEnd
	MarkerAfter       = "after"       // opens prose that discusses results, closed by MarkerEnd; arg: the experiments
	MarkerEnd         = "end"
)

// Card is a question whose answer a reader reveals on demand.
type Card struct {
	ID       string
	Question string
	Answer   string
}

// Heading is a second-level heading, for a page's own table of contents.
type Heading struct {
	ID   string
	Text string
}

// Section is a second-level heading with its body, for pages whose sections are data (the timeline
// steps, the prediction questions, the glossary entries).
type Section struct {
	ID    string
	Title string
	HTML  string
	// Attrs are "Key: value" lines that open the section's body (a key and a one-word value
	// each); they tag the section as data (the timeline's "Track: fix") and are not rendered.
	Attrs map[string]string
}

// Page is one rendered markdown file.
type Page struct {
	Slug     string
	Title    string
	Lede     string
	Parts    []Part
	Headings []Heading
	Sections []Section
	// Words counts the prose a reader sees, markers and markup excluded.
	Words int
}

// Book is every page, keyed by slug ("index", "semantics", "blocks/4").
type Book struct {
	pages map[string]*Page
}

// Page returns the page with the slug.
func (b *Book) Page(slug string) (*Page, bool) {
	p, ok := b.pages[slug]
	return p, ok
}

// Slugs lists every page's slug.
func (b *Book) Slugs() []string {
	out := make([]string, 0, len(b.pages))
	for s := range b.pages {
		out = append(out, s)
	}
	return out
}

var (
	markerRE = regexp.MustCompile(`^::: ([a-z][a-z-]*)(?: +(\S.*))?$`)
	attrRE   = regexp.MustCompile(`^([A-Z][a-z]+): ([a-z0-9][a-z0-9-]*)$`)
)

// Option changes how Load renders the book.
type Option func(*options)

type options struct{ base string }

// WithBase serves the book under a sub-path: every root-relative link in the prose (/blocks/2,
// /glossary#lease) gets the base in front, so a site behind a reverse proxy at /notebook links
// within itself. The prose is written as if served at the root.
func WithBase(base string) Option {
	return func(o *options) { o.base = strings.TrimSuffix(base, "/") }
}

// Load renders every markdown file of fsys. A malformed marker is an error, so a typo in the prose
// stops the server at start-up instead of silently dropping a chart.
func Load(fsys fs.FS, opts ...Option) (*Book, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(baseLinks(o.base), 100), util.Prioritized(tableCards{}, 200))),
	)
	b := &Book{pages: map[string]*Page{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".md" {
			return err
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		slug := strings.TrimSuffix(p, ".md")
		page, err := parsePage(md, slug, string(src))
		if err != nil {
			return fmt.Errorf("content %s: %w", p, err)
		}
		b.pages[slug] = page
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// checkOptions accepts an experiment marker's words after the name only as known key=value
// options, each once, so a typo in an option stops the server instead of showing every row.
func checkOptions(arg string) error {
	seen := map[string]bool{}
	for _, w := range strings.Fields(arg)[1:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok || v == "" {
			return fmt.Errorf("option %q is not key=value", w)
		}
		if !slices.Contains(experimentOptions, k) {
			return fmt.Errorf("unknown option %q (known: %s)", k, strings.Join(experimentOptions, ", "))
		}
		if seen[k] {
			return fmt.Errorf("option %q given twice", k)
		}
		seen[k] = true
	}
	return nil
}

// parsePage splits the source at marker lines and renders the prose between them. Fenced code is
// passed through untouched so a marker-like line inside an example is not taken as a marker.
func parsePage(md goldmark.Markdown, slug, src string) (*Page, error) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	lines := strings.Split(src, "\n")
	page := &Page{Slug: slug}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "# ") {
		return nil, fmt.Errorf("first line must be '# Title'")
	}
	page.Title = strings.TrimSpace(strings.TrimPrefix(lines[0], "# "))
	lines = lines[1:]

	// The lede is the first paragraph after the title.
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	var lede []string
	for i < len(lines) && strings.TrimSpace(lines[i]) != "" && !strings.HasPrefix(lines[i], "#") && !strings.HasPrefix(strings.TrimSpace(lines[i]), ":::") {
		lede = append(lede, lines[i])
		i++
	}
	if len(lede) > 0 {
		h, err := render(md, strings.Join(lede, "\n"), newIDs())
		if err != nil {
			return nil, err
		}
		page.Lede = h
		page.Words += countWords(strings.Join(lede, " "))
	}
	lines = lines[i:]

	ids := newIDs()
	var buf []string
	flush := func() error {
		chunk := strings.Join(buf, "\n")
		buf = buf[:0]
		if strings.TrimSpace(chunk) == "" {
			return nil
		}
		h, err := render(md, chunk, ids)
		if err != nil {
			return err
		}
		page.Parts = append(page.Parts, Part{HTML: h})
		page.Words += countWords(chunk)
		return nil
	}
	fence := false
	var cards *Part
	var card *Card
	var answer []string
	// after is an open ::: after part and body its lines: prose that discusses results, which a
	// page hides with them while a reader has still to guess (see MarkerAfter).
	var after *Part
	var body []string
	closeAfter := func() error {
		h, err := render(md, strings.Join(body, "\n"), ids)
		if err != nil {
			return err
		}
		after.HTML = h
		page.Words += countWords(strings.Join(body, " "))
		page.Parts = append(page.Parts, *after)
		after, body = nil, nil
		return nil
	}
	closeCard := func() error {
		if card == nil {
			return nil
		}
		h, err := render(md, strings.Join(answer, "\n"), newIDs())
		if err != nil {
			return err
		}
		card.Answer = h
		page.Words += countWords(card.Question + " " + strings.Join(answer, " "))
		cards.Cards = append(cards.Cards, *card)
		card, answer = nil, nil
		return nil
	}
	for n, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		m := markerRE.FindStringSubmatch(strings.TrimSpace(line))
		if fence || m == nil {
			if after != nil {
				// A heading inside would vanish from the page's contents with the results.
				if !fence && strings.HasPrefix(line, "#") {
					return nil, fmt.Errorf("line %d: a heading inside ::: after; close it with ::: end first", n+2)
				}
				body = append(body, line)
				continue
			}
			if cards != nil {
				if q, ok := strings.CutPrefix(line, "### "); ok {
					if err := closeCard(); err != nil {
						return nil, err
					}
					card = &Card{ID: ids.slug(q), Question: strings.TrimSpace(q)}
					continue
				}
				if card == nil {
					if strings.TrimSpace(line) != "" {
						return nil, fmt.Errorf("line %d: text inside ::: cards must follow a ### question", n+2)
					}
					continue
				}
				answer = append(answer, line)
				continue
			}
			if h, ok := strings.CutPrefix(line, "## "); ok {
				page.Headings = append(page.Headings, Heading{ID: ids.peek(h), Text: strings.TrimSpace(h)})
			}
			buf = append(buf, line)
			continue
		}
		name, arg := m[1], strings.TrimSpace(m[2])
		if after != nil && name != MarkerEnd {
			return nil, fmt.Errorf("line %d: ::: %s inside ::: after; close it with ::: end first", n+2, name)
		}
		switch name {
		case MarkerAfter:
			if cards != nil {
				return nil, fmt.Errorf("line %d: ::: after inside ::: cards", n+2)
			}
			if arg == "" {
				return nil, fmt.Errorf("line %d: ::: after needs the experiments whose results it discusses", n+2)
			}
			if err := flush(); err != nil {
				return nil, err
			}
			after = &Part{Marker: MarkerAfter, Arg: arg}
		case MarkerCards:
			if cards != nil {
				return nil, fmt.Errorf("line %d: ::: cards inside ::: cards", n+2)
			}
			if err := flush(); err != nil {
				return nil, err
			}
			cards = &Part{Marker: MarkerCards}
		case MarkerEnd:
			if after != nil {
				if err := closeAfter(); err != nil {
					return nil, err
				}
				continue
			}
			if cards == nil {
				return nil, fmt.Errorf("line %d: ::: end without ::: cards or ::: after", n+2)
			}
			if err := closeCard(); err != nil {
				return nil, err
			}
			page.Parts = append(page.Parts, *cards)
			cards = nil
		case MarkerExperiment, MarkerSource:
			if arg == "" {
				return nil, fmt.Errorf("line %d: ::: %s needs a name", n+2, name)
			}
			if name == MarkerExperiment {
				if err := checkOptions(arg); err != nil {
					return nil, fmt.Errorf("line %d: ::: %s: %w", n+2, name, err)
				}
			}
			fallthrough
		case MarkerTimeline, MarkerPredictions, MarkerContents, MarkerLab, MarkerWorkbench:
			if cards != nil {
				return nil, fmt.Errorf("line %d: ::: %s inside ::: cards", n+2, name)
			}
			if err := flush(); err != nil {
				return nil, err
			}
			page.Parts = append(page.Parts, Part{Marker: name, Arg: arg})
		default:
			return nil, fmt.Errorf("line %d: unknown marker ::: %s", n+2, name)
		}
	}
	if cards != nil {
		return nil, fmt.Errorf("::: cards is never closed with ::: end")
	}
	if after != nil {
		return nil, fmt.Errorf("::: after %s is never closed with ::: end", after.Arg)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if err := checkAfters(page); err != nil {
		return nil, err
	}
	secs, err := sections(md, lines)
	if err != nil {
		return nil, err
	}
	page.Sections = secs
	return page, nil
}

// checkAfters fails when an after part names an experiment the page does not show: its prose
// would never be hidden with a result, which is the part's whole point.
func checkAfters(page *Page) error {
	var shown []string
	for _, p := range page.Parts {
		if p.Marker == MarkerExperiment {
			shown = append(shown, p.Name())
		}
	}
	for _, p := range page.Parts {
		if p.Marker != MarkerAfter {
			continue
		}
		for _, name := range p.Names() {
			if !slices.Contains(shown, name) {
				return fmt.Errorf("::: after %s: the page shows no experiment %q", p.Arg, name)
			}
		}
	}
	return nil
}

// sections splits the page at its ## headings, for pages whose sections are data.
func sections(md goldmark.Markdown, lines []string) ([]Section, error) {
	var out []Section
	ids := newIDs()
	var cur *Section
	var body []string
	done := func() error {
		if cur == nil {
			return nil
		}
		text := strings.TrimSpace(strings.Join(body, "\n"))
		for {
			line, rest, _ := strings.Cut(text, "\n")
			m := attrRE.FindStringSubmatch(strings.TrimSpace(line))
			if m == nil {
				break
			}
			if cur.Attrs == nil {
				cur.Attrs = map[string]string{}
			}
			cur.Attrs[strings.ToLower(m[1])] = m[2]
			text = strings.TrimSpace(rest)
		}
		h, err := render(md, text, newIDs())
		if err != nil {
			return err
		}
		cur.HTML = h
		out = append(out, *cur)
		body = nil
		return nil
	}
	for _, line := range lines {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			if err := done(); err != nil {
				return nil, err
			}
			cur = &Section{ID: ids.slug(h), Title: strings.TrimSpace(h)}
			continue
		}
		if markerRE.MatchString(strings.TrimSpace(line)) {
			continue
		}
		body = append(body, line)
	}
	return out, done()
}

func render(md goldmark.Markdown, src string, ids *headingIDs) (string, error) {
	ctx := parser.NewContext(parser.WithIDs(ids))
	doc := md.Parser().Parse(text.NewReader([]byte(src)), parser.WithContext(ctx))
	var buf bytes.Buffer
	if err := md.Renderer().Render(&buf, []byte(src), doc); err != nil {
		return "", err
	}
	// A code block scrolls sideways on a narrow screen; tabindex lets a keyboard reach and scroll it.
	return strings.ReplaceAll(buf.String(), "<pre>", `<pre tabindex="0">`), nil
}

func countWords(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.ContainsAny(f, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") {
			n++
		}
	}
	return n
}

// headingIDs gives headings stable, unique, readable anchors shared across the chunks of a page.
type headingIDs struct{ used map[string]int }

func newIDs() *headingIDs { return &headingIDs{used: map[string]int{}} }

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func baseSlug(s string) string {
	s = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if s == "" {
		s = "section"
	}
	return s
}

// peek returns the id the next heading with this text will get, without taking it.
func (h *headingIDs) peek(text string) string {
	s := baseSlug(text)
	if n := h.used[s]; n > 0 {
		return fmt.Sprintf("%s-%d", s, n)
	}
	return s
}

func (h *headingIDs) slug(text string) string {
	s := h.peek(text)
	h.used[baseSlug(text)]++
	return s
}

// Generate implements parser.IDs.
func (h *headingIDs) Generate(value []byte, _ ast.NodeKind) []byte {
	return []byte(h.slug(string(value)))
}

// Put implements parser.IDs.
func (h *headingIDs) Put(value []byte) { h.used[string(value)]++ }

// baseLinks puts the site's base path in front of every root-relative link and image of a page.
type baseLinks string

// Transform implements parser.ASTTransformer.
func (b baseLinks) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	if b == "" {
		return
	}
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest *[]byte
		switch l := n.(type) {
		case *ast.Link:
			dest = &l.Destination
		case *ast.Image:
			dest = &l.Destination
		}
		if dest != nil && len(*dest) > 0 && (*dest)[0] == '/' && (len(*dest) == 1 || (*dest)[1] != '/') {
			*dest = append([]byte(b), *dest...)
		}
		return ast.WalkContinue, nil
	})
}
