package content

// What the book's pages say: one number per prediction, the blocks' and the concept page's
// wording, the timeline's steps, the glossary's links and the systems table's anchors.

import (
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

var tagRE = regexp.MustCompile(`<[^>]*>`)

// questions returns the sentences of a markdown text that end in a question mark.
func questions(text string) []string {
	var out []string
	for _, s := range regexp.MustCompile(`[^.?!:\n]*\?`).FindAllString(text, -1) {
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// TestPredictionsAskOneNumberEach holds issue 8 item 3: each of the five questions asks for one
// number and gives away no other question's answer (398 lost, 398 doubled, 0 caught, 195 escaped,
// 2,448 run twice). The second guesses they used to ask live on the pages that answer them.
func TestPredictionsAskOneNumberEach(t *testing.T) {
	p, _ := loadBook(t).Page("predictions")
	if p == nil || len(p.Sections) != 5 {
		t.Fatal("predictions.md must ask five questions")
	}
	for _, s := range p.Sections {
		text := s.Title + " " + tagRE.ReplaceAllString(s.HTML, " ")
		if qs := questions(text); len(qs) != 1 {
			t.Errorf("question %q asks %d things, want one: %q", s.Title, len(qs), qs)
		}
		for _, answer := range []string{"398", "195", "2,448", "2448", "1.99", "0.97"} {
			if strings.Contains(text, answer) {
				t.Errorf("question %q gives away the answer %s", s.Title, answer)
			}
		}
		for _, second := range []string{"guess", "ask yourself", "while you are at it", "how large"} {
			if strings.Contains(strings.ToLower(text), second) {
				t.Errorf("question %q asks a second guess (%q) with no input for it", s.Title, second)
			}
		}
	}
	for slug, about := range map[string]string{"blocks/1": "error", "blocks/2": "same jobs", "blocks/4": "how large"} {
		found := false
		for _, q := range questions(source(t, slug)) {
			found = found || strings.Contains(q, about)
		}
		if !found {
			t.Errorf("%s: the moved second guess, a question about %q, is missing", slug, about)
		}
	}
}

// section returns the markdown between a page's "## heading" and the next second-level heading.
func section(src, heading string) string {
	_, rest, ok := strings.Cut(src, "\n## "+heading+"\n")
	if !ok {
		return ""
	}
	body, _, _ := strings.Cut(rest, "\n## ")
	return body
}

// TestBlock1NamesItsTwoCrashModels holds issue 8 item 6: block 1 runs two experiments with two
// crash rules. The page says which rule each uses, why 2% loses 398 in one and 402 in the other,
// and no longer claims the prime rule spreads crashes evenly (at 5 jobs and 50% it crashes all 5).
func TestBlock1NamesItsTwoCrashModels(t *testing.T) {
	src := source(t, "blocks/1")
	run, try, mech := section(src, "Run it"), section(src, "Try it yourself"), section(src, "The mechanism")
	for _, want := range []string{"random", "seed 13", "398"} {
		if !strings.Contains(run, want) {
			t.Errorf("Run it does not say %q about the random stream it uses", want)
		}
	}
	for _, want := range []string{"7919", "398", "402"} {
		if !strings.Contains(try, want) {
			t.Errorf("Try it yourself does not say %q: which rule the sweep uses and why its count differs", want)
		}
	}
	for _, want := range []string{"100,000", "prime", "all five"} {
		if !strings.Contains(mech, want) {
			t.Errorf("the mechanism does not explain the prime rule's limits (%q)", want)
		}
	}
	for _, s := range regexp.MustCompile(`[^.?!]*\bevenly\b[^.?!]*`).FindAllString(src, -1) {
		if !strings.Contains(s, "not") {
			t.Errorf("block 1 still claims an even spread: %q", strings.TrimSpace(s))
		}
	}
}

// TestBlock6LabelsTheRenewalQuirk holds issue 8 item 7: the document counts every job as doubled
// when renewal is slower than the lease. Block 6 keeps that 20,000, calls it the document's
// simplification, and says what a real queue does: a late renewal is no renewal, so a job shorter
// than the timeout still finishes in time (2,448 doubled at 5 s, as with no renewal at all).
func TestBlock6LabelsTheRenewalQuirk(t *testing.T) {
	src := source(t, "blocks/6")
	run := section(src, "Run it")
	for _, want := range []string{"20,000", "document's simplification", "column for a real queue", "shorter than the timeout", "no renewal at all"} {
		if !strings.Contains(run, want) {
			t.Errorf("Run it does not say %q", want)
		}
	}
	if strings.Count(run, "2,448") < 2 {
		t.Error("Run it should give 2,448 for no renewal and again for the real queue's late renewal")
	}
	for _, lesson := range []string{"worse than none", "even a two-second job loses it"} {
		if strings.Contains(src, lesson) {
			t.Errorf("block 6 still teaches the model's quirk as a lesson: %q", lesson)
		}
	}
}

// TestReadingSitsUnderChartAndTable holds issue 8 item 12: an experiment's reading is rendered after
// its chart and its table on every screen, so prose that places it says so, in the same words on
// every page: under the chart and table (under the table where, as on /verify, there is no chart).
func TestReadingSitsUnderChartAndTable(t *testing.T) {
	where := regexp.MustCompile(`(?i)\b(under|below|beneath|above|beside|next to|after)\s+(each|the|its)\s+(chart|table|graph)s?(\s+and\s+(its\s+|the\s+)?(chart|table)s?)?`)
	sentence := regexp.MustCompile(`[^.?!]*[.?!]`)
	want := map[string]string{
		"index": "under the chart and table", "blocks/1": "under the chart and table",
		"blocks/2": "under the chart and table", "blocks/4": "under the chart and table",
		"blocks/6": "under the chart and table", "assembly": "under the chart and table",
		"verify": "under the table",
	}
	for _, e := range Contents() {
		src := source(t, e.Slug)
		found := false
		for _, s := range sentence.FindAllString(src, -1) {
			if !strings.Contains(strings.ToLower(s), "reading") {
				continue
			}
			for _, m := range where.FindAllString(s, -1) {
				if w := want[e.Slug]; w == "" || !strings.EqualFold(m, w) {
					t.Errorf("%s places the reading %q, want %q: %s", e.Slug, m, want[e.Slug], strings.TrimSpace(s))
				} else {
					found = true
				}
			}
		}
		if want[e.Slug] != "" && !found {
			t.Errorf("%s never says where the reading is (%q)", e.Slug, want[e.Slug])
		}
	}
}

// TestSemanticsClarifiesTheContract holds issue 8 item 22: the concept page states what the design
// must do, what it need not (exactly-once delivery, dedup forever), and that replays and backfills
// re-running safely is a requirement.
func TestSemanticsClarifiesTheContract(t *testing.T) {
	body := strings.ToLower(section(source(t, "boundaries"), "Clarify the contract"))
	if body == "" {
		t.Fatal(`boundaries.md has no "## Clarify the contract" section`)
	}
	for _, want := range []string{"need not", "exactly once", "forever", "ttl", "replay", "backfill", "requirement", "outbox", "per workload"} {
		if !strings.Contains(body, want) {
			t.Errorf("the contract does not mention %q", want)
		}
	}
}

// TestKafkaAutoCommitStatedPrecisely holds issue 8 item 26: enable.auto.commit=true is not by
// itself at-most-once. The Java consumer commits, inside poll(), the offsets of records an earlier
// poll returned, so a loop that finishes each batch before polling again stays at-least-once; loss
// needs records handed to another thread, or a crash after a commit that covered unfinished ones.
func TestKafkaAutoCommitStatedPrecisely(t *testing.T) {
	src := source(t, "blocks/1")
	i := strings.Index(src, "enable.auto.commit")
	if i < 0 {
		t.Fatal("block 1 lost its Kafka auto-commit remark")
	}
	item, _, _ := strings.Cut(src[i:], "\n")
	for _, want := range []string{"poll", "earlier", "at-least-once", "another thread", "at-most-once"} {
		if !strings.Contains(item, want) {
			t.Errorf("the auto-commit remark does not say %q: %s", want, item)
		}
	}
	if strings.Contains(item, "behaves like at-most-once") {
		t.Error("the auto-commit remark still calls the setting at-most-once outright")
	}
}

// TestTimelineStepsCarryState holds issue 8 item 25 on the prose side: every step of the crash
// window names its track and the state the concept document draws after it (the broker's committed
// offset, the effect's database rows, the processed keys), none of which is rendered as prose; and
// no title carries a time label of its own, since the fix track's "t1" restarted the count.
func TestTimelineStepsCarryState(t *testing.T) {
	tl, _ := loadBook(t).Page("timeline")
	if tl == nil || len(tl.Sections) < 6 {
		t.Fatal("timeline.md needs its steps")
	}
	timeLabel := regexp.MustCompile(`^t\d`)
	var last map[string]string
	for _, s := range tl.Sections {
		if timeLabel.MatchString(s.Title) {
			t.Errorf("step %q numbers itself; the timeline numbers steps continuously", s.Title)
		}
		for _, key := range []string{"track", "offset", "rows", "keys"} {
			if s.Attrs[key] == "" {
				t.Errorf("step %q has no %s line", s.Title, key)
			}
			if strings.Contains(strings.ToLower(s.HTML), key+":") {
				t.Errorf("step %q renders its %s line as prose", s.Title, key)
			}
		}
		last = s.Attrs
	}
	// The walk ends with the fix: offset 42 committed, one row, one key.
	if last["offset"] != "42" || last["rows"] != "1" || last["keys"] != "42" {
		t.Errorf("the last step's state is %v, want offset 42, one row, key 42", last)
	}
}

// glossaryTerms are the glossary's entries as the prose writes them: each heading id of glossary.md
// with the words that count as a use of the term.
var glossaryTerms = map[string]string{
	"at-most-once":         `at-most-once`,
	"at-least-once":        `at-least-once`,
	"effectively-once":     `effectively-once`,
	"ack":                  `acks?|acked|acking|acknowledg\w*`,
	"offset-commit":        `offset commits?|commit(s|ted|ting)? (its |the |an )?offsets?`,
	"crash-window":         `crash[- ]windows?`,
	"idempotent":           `idempotent|idempotence`,
	"dedup-key":            `dedup(e)?[- ](keys?|ids?)`,
	"natural-key":          `natural (keys?|ids?)`,
	"idempotency-key":      `idempotency[- ]keys?`,
	"ttl":                  `TTLs?|time to live`,
	"bloom-filter":         `Bloom filters?`,
	"dual-write":           `dual[- ]writes?`,
	"lost-event":           `lost events?`,
	"phantom-event":        `phantom events?`,
	"outbox":               `outbox(es)?`,
	"relay":                `relays?`,
	"change-data-capture":  `change data capture|CDC`,
	"lease":                `leases?`,
	"visibility-timeout":   `visibility timeouts?`,
	"heartbeat":            `heartbeats?`,
	"zombie":               `zombies?`,
	"fencing-token":        `fencing`,
	"dead-letter-queue":    `dead[- ]letter\w*|DLQs?`,
	"poison-message":       `poison messages?`,
	"retry-budget":         `retry budgets?`,
	"metastable-failure":   `metastable`,
	"saga":                 `sagas?`,
	"compensation":         `compensat\w*`,
	"two-generals-problem": `two generals`,
	"flp-result":           `FLP|Fischer, Lynch and Paterson`,
}

var (
	mdLinkRE     = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)\)`)
	codeSpanRE   = regexp.MustCompile("`[^`]*`")
	glossaryLink = regexp.MustCompile(`^/glossary#(.+)$`)
	// rowAnchorMark is a table row's "{#id}" anywhere in a page's source (see cutRowAnchor).
	rowAnchorMark = regexp.MustCompile(`\{#[a-z0-9]+(?:-[a-z0-9]+)*\}`)
)

// proseOnly blanks what is not running prose a term could be linked in (fenced code, code spans,
// headings and card questions, marker and attribute lines, table rows' anchors, link targets, the
// text of links to other pages), keeping every offset; and returns the glossary links of the source by the id they name.
func proseOnly(src string) (string, []glossaryUse) {
	b := []byte(src)
	blank := func(i, j int) {
		for k := i; k < j; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	fence, off := false, 0
	for _, line := range strings.SplitAfter(src, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			fence = !fence
			blank(off, off+len(line))
		} else if fence || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ":::") || attrRE.MatchString(t) {
			blank(off, off+len(line))
		}
		off += len(line)
	}
	for _, m := range codeSpanRE.FindAllStringIndex(string(b), -1) {
		blank(m[0], m[1])
	}
	for _, m := range rowAnchorMark.FindAllStringIndex(string(b), -1) {
		blank(m[0], m[1])
	}
	var uses []glossaryUse
	for _, m := range mdLinkRE.FindAllStringSubmatchIndex(string(b), -1) {
		target := src[m[4]:m[5]]
		blank(m[3], m[1]) // "](target)"
		if g := glossaryLink.FindStringSubmatch(target); g != nil {
			uses = append(uses, glossaryUse{id: g[1], from: m[2], to: m[3]})
		} else {
			blank(m[2], m[3])
		}
	}
	return string(b), uses
}

type glossaryUse struct {
	id       string
	from, to int // the link text's offsets
}

// TestGlossaryLinksResolve holds issue 8 item 24: every /glossary#id link on any page names a
// heading of glossary.md, and the glossary defines every term the prose is checked for.
func TestGlossaryLinksResolve(t *testing.T) {
	b := loadBook(t)
	g, _ := b.Page("glossary")
	ids := map[string]bool{}
	for _, h := range g.Headings {
		ids[h.ID] = true
	}
	for id := range glossaryTerms {
		if !ids[id] {
			t.Errorf("the glossary has no entry #%s", id)
		}
	}
	for _, slug := range b.Slugs() {
		for _, m := range mdLinkRE.FindAllStringSubmatch(source(t, slug), -1) {
			if l := glossaryLink.FindStringSubmatch(m[2]); l != nil && !ids[l[1]] {
				t.Errorf("%s links [%s] to %s, which is no heading of glossary.md", slug, m[1], m[2])
			}
		}
	}
	// Anchors into other pages name one of their headings, a table row's anchor, or an element the
	// page always has.
	pathSlug := map[string]string{}
	for _, e := range Contents() {
		pathSlug[e.Path] = e.Slug
	}
	for _, slug := range b.Slugs() {
		for _, m := range mdLinkRE.FindAllStringSubmatch(source(t, slug), -1) {
			path, frag, ok := strings.Cut(m[2], "#")
			if i := strings.IndexByte(path, '?'); i >= 0 {
				path = path[:i]
			}
			target, known := pathSlug[path]
			if !ok || !known || path == "/glossary" || frag == "timeline" || frag == "predictions" || strings.HasPrefix(frag, "exp-") {
				continue
			}
			p, _ := b.Page(target)
			found := false
			for _, h := range p.Headings {
				found = found || h.ID == frag
			}
			for _, part := range p.Parts {
				found = found || strings.Contains(part.HTML, `<tr id="`+frag+`">`)
			}
			if !found {
				t.Errorf("%s links [%s] to %s, which is no heading of %s.md", slug, m[1], m[2], target)
			}
		}
	}
}

// TestGlossaryTermsLinkedAtFirstUse holds issue 8 item 24: on every page of the contents, the first
// use of a glossary term in running prose is a link to its entry.
func TestGlossaryTermsLinkedAtFirstUse(t *testing.T) {
	for _, e := range Contents() {
		if e.Slug == "glossary" {
			continue
		}
		prose, uses := proseOnly(source(t, e.Slug))
		for id, words := range glossaryTerms {
			m := regexp.MustCompile(`(?i)\b(` + words + `)\b`).FindStringIndex(prose)
			if m == nil {
				continue
			}
			linked := false
			for _, u := range uses {
				linked = linked || (u.id == id && u.from <= m[0] && m[1] <= u.to)
			}
			if !linked {
				line := strings.Count(prose[:m[0]], "\n") + 1
				t.Errorf("%s.md:%d: first use of %q is not a link to /glossary#%s", e.Slug, line, prose[m[0]:m[1]], id)
			}
		}
	}
}

// TestEntryBlock reads a block's number whole, so a tenth block would count as one.
func TestEntryBlock(t *testing.T) {
	for slug, want := range map[string]int{"blocks/1": 1, "blocks/10": 10, "blocks/01": 0, "blocks/0": 0, "blocks/x": 0, "index": 0} {
		if got := (Entry{Slug: slug}).Block(); got != want {
			t.Errorf("Entry{%q}.Block() = %d, want %d", slug, got, want)
		}
	}
}

// TestRowAnchors: a table row whose first cell ends in "{#id}" is rendered with that id and
// without the marker, so prose elsewhere can link one row; a marker anywhere else stays text, and
// the width that decides whether the table stacks on a phone leaves the marker out.
func TestRowAnchors(t *testing.T) {
	src := "# T\n\nThe lede.\n\n| Knob | Default |\n| --- | --- |\n" +
		"| SQS `VisibilityTimeout` {#sqs-visibility-timeout} | 30 s |\n" +
		"| {#bare-anchor} | none |\n" +
		"| Kafka [docs](/x) {#Bad_ID} | 5 s |\n" +
		"| plain | mid {#not-first} cell |\n"
	b, err := Load(fstest.MapFS{"x.md": {Data: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := b.Page("x")
	html := p.Parts[0].HTML
	for _, want := range []string{
		`<tr id="sqs-visibility-timeout">`,
		`<td data-label="Knob">SQS <code>VisibilityTimeout</code></td>`,
		`<tr id="bare-anchor">`,
		`{#Bad_ID}`,
		`{#not-first}`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("rendered table lacks %s:\n%s", want, html)
		}
	}
	if strings.Contains(html, "{#sqs-visibility-timeout}") || strings.Contains(html, "{#bare-anchor}") {
		t.Errorf("a row's anchor marker is still in its text:\n%s", html)
	}
	if strings.Count(html, "<tr id=") != 2 {
		t.Errorf("want exactly two anchored rows:\n%s", html)
	}
	if strings.Contains(html, `class="stack"`) {
		t.Errorf("a two-column table of short cells stacks on a phone: the anchor was counted in its width")
	}
}
