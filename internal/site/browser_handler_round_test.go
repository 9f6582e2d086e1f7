package site

// A handler round in a browser: a host, a projector and two members, each in a browser context of
// their own. The host puts a workbench challenge to the room; Alice (on a phone, in the dark)
// opens it in the workbench from her room bar, edits the template into a handler that survives
// and submits it, with the form's stream set to other parameters than the round's; Bob, without
// JavaScript, submits the template as it is. The host's board shows both verdicts live, the
// reveal shows the reference handler, the host puts Alice's handler on the projector with its
// check, and the export carries both submissions.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// survivor is ack-after-work made to survive: the dedup key in the effect's transaction, as Alice
// writes it. Its six operations are six crash points (ack-after-work has two, and three points).
const survivor = "def handle(job, queue, db, bus):\n    tx = db.begin()\n    if tx.remember(job.id): tx.apply(job.id)\n    tx.commit()\n    queue.ack()\n"

func TestBrowserHandlerRound(t *testing.T) {
	b := startBrowserSuite(t)
	host, roomPath, code := hostRoomTab(t, b, "Handlers")
	streamOpen(host)
	screen := siblingTab(t, host)
	screen.open(roomPath + "/projector")
	streamOpen(screen)

	alice := openRoomTab(t, b)
	alice.emulate(390, 844, true, "dark")
	bob := b.newTab(t, tabOption{ownStorage: true, noScript: true, deadline: 90 * time.Second})
	for name, m := range map[string]*browserTab{"Alice": alice, "Bob": bob} {
		m.open("/j/" + code)
		m.retype("#join-name", name)
		m.do(chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
		m.waitFor("the member's room page", `!!document.querySelector(".you strong")`)
	}
	streamOpen(alice)
	within(host, "both members on the roster", `document.querySelectorAll("#room-roster .roster li").length === 2`)

	// The challenge: ack-after-work, on a stream of 2,000 jobs, with the suggested reference.
	host.do(chromedp.Click(chromedp.CSS(".room-new-round summary")))
	within(host, "the challenge's form", `!!document.querySelector("#challenge-template")`)
	if got := browserEval[string](host, `document.querySelector("#challenge-template").value`); got != "ack-after-work" {
		t.Errorf("the challenge's form starts from %q, want the first rung's template", got)
	}
	host.do(chromedp.SendKeys(chromedp.CSS("#challenge-params"), "jobs=2000"),
		chromedp.Click(chromedp.CSS(`.room-new-round form:has(input[name=kind][value=handler]) button[type=submit]`)))
	within(host, "the handler round open", `document.querySelector('#room-round [data-kind="handler"]')?.dataset.state === "open"`)
	const challenge = "Write a handler that survives: jobs=2,000"
	within(screen, "the challenge on the projector, 0 of 2 submitted",
		`/0 of 2\s+submitted/.test(document.querySelector("#room-screen [data-count]")?.textContent) && document.querySelector("#room-screen .question")?.textContent === `+jsString(challenge))

	// Alice: the bar on a notebook page shows the challenge and leads into the workbench.
	alice.open("/blocks/2")
	within(alice, "the challenge in Alice's bar", `document.querySelector(".roombar [data-challenge]")?.textContent === `+jsString(challenge))
	// The bar's round is unfolded, since a round waits for her.
	within(alice, "the bar's round unfolded", `document.querySelector(".roombar details.roombar-round").open`)
	href := browserEval[string](alice, `document.querySelector(".roombar a[data-open-workbench]").getAttribute("href")`)
	if href != "/workbench?template=ack-after-work&jobs=2000" {
		t.Errorf("Open in the workbench leads to %s", href)
	}
	alice.do(chromedp.Click(chromedp.CSS(".roombar a[data-open-workbench]")))
	alice.waitFor("the workbench with the round's button", `location.pathname === "/workbench" && !!document.querySelector("#wb-submit-round") && `+wbRoot+`?.querySelector(".cm-editor .cm-line")`)
	if p := browserEval[string](alice, `document.querySelector("#wb-jobs").value`); p != "2000" {
		t.Errorf("the workbench opened with jobs %q, want the round's 2000", p)
	}
	// She edits the template into a handler that survives, and checks it on a shorter stream.
	browserEval[chromedp.Void](alice, wbRoot+`.querySelector(".cm-content").focus()`)
	alice.do(chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.KeyEvent(kb.Delete))
	// Typed in as an input method or a paste would: keys would add the editor's indentation to
	// the handler's own.
	alice.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, input.InsertText, input.InsertTextParams{Text: survivor})
		return err
	}))
	if err := alice.poll(wbArea+`.value.trim() === `+jsString(strings.TrimSpace(survivor)), 15*time.Second); err != nil {
		t.Fatalf("the handler in the textarea:\n%s", browserEval[string](alice, wbArea+`.value`))
	}
	alice.retype("#wb-jobs", "300")
	alice.do(chromedp.Click(chromedp.CSS("#wb-check")))
	alice.waitFor("her check on 300 jobs", `/survives every crash point/.test(document.querySelector(".wb-verdict")?.textContent)`)
	alice.do(chromedp.Click(chromedp.CSS("#wb-submit-round")))
	alice.waitFor("the round's answer", `!!document.querySelector('[data-round-note="submitted"]')`)
	note := browserEval[string](alice, `document.querySelector('[data-round-note]').textContent`)
	if !strings.Contains(note, "Submitted to round 1") || !strings.Contains(note, "survives all 6 crash points") {
		t.Errorf("Alice's answer: %q", note)
	}
	if p := browserEval[string](alice, `document.querySelector("#wb-jobs").value`); p != "2000" {
		t.Errorf("after the submission the form shows jobs %q, want the round's 2000, which it was checked at", p)
	}
	if !strings.Contains(browserEval[string](alice, wbArea+`.value`), "tx.remember") {
		t.Error("the submission swapped Alice's handler away")
	}
	within(alice, "her verdict in the bar", `/survives all 6 crash points/.test(document.querySelector(".roombar [data-your-verdict]")?.textContent)`)
	shot(t, alice, "handler-round-workbench-member-390-dark")

	// Bob, without script: the room page's link, the form posted whole, the page again.
	bob.open(roomPath)
	bobHref := browserEval[string](bob, `document.querySelector("#room-round a[data-open-workbench]").getAttribute("href")`)
	bob.open(bobHref)
	bob.do(chromedp.Click(chromedp.CSS("#wb-submit-round")))
	bob.waitFor("Bob's answer", `!!document.querySelector('[data-round-note="submitted"]')`)
	if note := browserEval[string](bob, `document.querySelector('[data-round-note]').textContent`); !strings.Contains(note, "survives 2 of 3 crash points") {
		t.Errorf("Bob's answer: %q", note)
	}

	// The board: 2 of 2 submitted, live; the host sees both verdicts with names, members their own.
	within(host, "2 of 2 submitted", `/2 of 2\s+submitted/.test(document.querySelector("#room-count").textContent)`)
	within(host, "both verdicts on the host's board", `document.querySelectorAll('#room-round table.submissions tbody tr').length === 2 && /Alice/.test(document.querySelector('#room-round table.submissions').textContent) && /Bob/.test(document.querySelector('#room-round table.submissions').textContent)`)
	within(screen, "2 of 2 submitted on the projector", `/2 of 2\s+submitted/.test(document.querySelector("#room-screen [data-count]")?.textContent)`)
	alice.open(roomPath)
	streamOpen(alice)
	mark(alice, "before the reveal")
	within(alice, "Alice's own verdict", `/survives all 6/.test(document.querySelector("#room-round [data-your-verdict]")?.textContent) && !!document.querySelector("#room-round [data-others-later]")`)
	if browserEval[bool](alice, `!!document.querySelector("#room-round table.submissions")`) {
		t.Error("a member sees others' verdicts before the reveal")
	}
	roundShots(t, map[string]*browserTab{"host": host, "member": alice, "projector": screen}, "handler-open")

	// The reveal: the reference's source and verdict, every verdict.
	host.do(chromedp.Click(chromedp.CSS(`#room-round form[action$="/reveal"] button`)))
	revealed := `document.querySelector('#room-round [data-kind="handler"]')?.dataset.state === "revealed" && /tx\.remember/.test(document.querySelector("#room-round .reference-handler pre")?.textContent) && document.querySelectorAll('#room-round table.submissions tbody tr').length === 2`
	for _, m := range []*browserTab{host, alice} {
		if err := m.poll(revealed, 30*time.Second); err != nil {
			t.Errorf("the reveal: %v", err)
		}
	}
	assertMarked(alice, "before the reveal")
	if text := browserEval[string](alice, `document.querySelector("#room-round table.submissions").textContent`); strings.Contains(text, "Bob") {
		t.Error("a member sees another's name though the host shows none")
	}
	within(screen, "the reveal on the projector", `/survive/.test(document.querySelector("#room-screen [data-survive]")?.parentElement.textContent) && document.querySelector("#room-screen [data-survive]").textContent.trim() === "1 of 2"`)

	// Alice's handler on the projector, with the workbench's table; no name, no control.
	host.do(chromedp.Click(chromedp.CSS(`#room-round table.submissions tbody tr:first-child form[action$="/projector"] button`)))
	within(host, "the host told what the projector shows", `/Alice's handler/.test(document.querySelector("#room-round [data-shown]")?.textContent)`)
	if err := screen.poll(`/tx\.remember/.test(document.querySelector("#room-screen [data-shown-handler] pre")?.textContent) && document.querySelectorAll("#room-screen [data-shown-handler] table.wb-points tbody tr").length === 6`, 30*time.Second); err != nil {
		t.Fatalf("Alice's handler on the projector: %v", err)
	}
	if text := browserEval[string](screen, `document.querySelector("main").textContent`); strings.Contains(text, "Alice") || strings.Contains(text, "Bob") {
		t.Errorf("the projector shows a name: %.300s", text)
	}
	if n := browserEval[int](screen, `document.querySelectorAll("main form, main button").length`); n != 0 {
		t.Errorf("the projector has %d controls", n)
	}
	roundShots(t, map[string]*browserTab{"host": host, "member": alice, "projector": screen}, "handler-revealed")
	roomAxe(t, map[string]*browserTab{"host after a handler round": host, "member after a handler round": alice, "projector showing a handler": screen})

	// The export has both submissions, each with its share and verdict.
	var ex struct {
		Rounds []struct {
			Challenge   struct{ Template, Params, Reference string } `json:"challenge"`
			Submissions []struct {
				Name, Hash string
				Verdict    struct {
					Points, Survived int
					Survives         bool
				}
			} `json:"submissions"`
		} `json:"rounds"`
	}
	raw := browserEval[string](host, `fetch(`+jsString(roomPath+"/export?format=json")+`).then(r => r.text())`, chromedp.EvalAwaitPromise)
	if err := json.Unmarshal([]byte(raw), &ex); err != nil {
		t.Fatalf("the export: %v: %.200s", err, raw)
	}
	if len(ex.Rounds) != 1 || ex.Rounds[0].Challenge.Template != "ack-after-work" || ex.Rounds[0].Challenge.Params != "jobs=2000" ||
		ex.Rounds[0].Challenge.Reference != "dedup-in-tx" || len(ex.Rounds[0].Submissions) != 2 {
		t.Fatalf("the export's handler round: %+v", ex.Rounds)
	}
	byName := map[string]bool{}
	for _, s := range ex.Rounds[0].Submissions {
		byName[s.Name] = s.Verdict.Survives
		if len(s.Hash) != 12 || s.Verdict.Points < 3 {
			t.Errorf("a submission in the export: %+v", s)
		}
	}
	if !byName["Alice"] || byName["Bob"] || len(byName) != 2 {
		t.Errorf("the export's verdicts by name: %v", byName)
	}
	csv := browserEval[string](host, `fetch(`+jsString(roomPath+"/export?format=csv")+`).then(r => r.text())`, chromedp.EvalAwaitPromise)
	if strings.Count(csv, "\nsubmission,") != 2 {
		t.Errorf("the CSV export has %d submission rows:\n%s", strings.Count(csv, "\nsubmission,"), csv)
	}

	for who, tb := range map[string]*browserTab{"host": host, "Alice": alice, "projector": screen, "Bob": bob} {
		if p := tb.takeProblems(); len(p) > 0 {
			t.Errorf("%s's tab reported: %v", who, p)
		}
	}
}

// shot writes a screenshot of the whole page in tb as name.png, for a person to look at.
func shot(t *testing.T, tb *browserTab, name string) {
	t.Helper()
	png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shotDir(t), fmt.Sprintf("%s.png", name)), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
