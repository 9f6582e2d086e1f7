package site

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserWorkbenchLab is Run on the real lab as a reader meets it, on a desktop and on a
// phone: under ack-after-work's result, pick fewer jobs, press Run on the real lab, watch the box
// poll, and read the lab's table, real beside the model, the same in every row; nothing sticks out
// sideways on the phone, nothing breaks the CSP. It leaves a screenshot of the control and its
// table for a person to look at.
func TestBrowserWorkbenchLab(t *testing.T) {
	b := startBrowserSuite(t)
	dir := os.Getenv("ARTIFACTS_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata-artifacts", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, vp := range []struct {
		width, height int64
		mobile        bool
	}{{1280, 900, false}, {390, 844, true}} {
		// One after the other: the lab runs one run at a time.
		t.Run(fmt.Sprint(vp.width), func(t *testing.T) {
			tb := b.newTab(t, tabOption{ownStorage: true, deadline: 120 * time.Second})
			tb.emulate(vp.width, vp.height, vp.mobile, "light")
			tb.open("/workbench")
			tb.waitFor("the lab control", `document.querySelector("#wb-lab #wb-lab-run")`)
			if got := browserEval[string](tb, `document.getElementById("wb-lab-point").value`); got != "1" {
				t.Errorf("the lab control starts at crash point %q, want ack-after-work's failing 1", got)
			}
			tb.retype("#wb-lab-jobs", "300")
			tb.do(chromedp.Click(chromedp.CSS("#wb-lab-run")))
			tb.waitFor("the owner's progress box", `document.querySelector('#wb-lab #lab-status[data-whose="yours"]')`)
			if err := tb.poll(`document.querySelector('#wb-lab #lab-status [data-ended]') && document.querySelector("#wb-lab #lab-handler")`, 90*time.Second); err != nil {
				t.Fatalf("the run's table did not arrive: %v; box %q", err, browserEval[string](tb, `(document.querySelector("#lab-status") || {}).innerText || "no box"`))
			}
			rows := browserEval[[][]string](tb, `[...document.querySelectorAll("#lab-handler tbody tr")].map(r => [...r.children].map(c => c.textContent.trim()))`)
			if len(rows) != 4 {
				t.Fatalf("the table has rows %v, want lost, duplicated, exactly once, killed at the crash point", rows)
			}
			for _, r := range rows {
				if len(r) != 4 || r[1] != r[2] || r[3] != "Same" {
					t.Errorf("row %v: the real count is not the model's", r)
				}
			}
			if ended := browserEval[string](tb, `document.querySelector("#lab-status [data-ended]").textContent`); !strings.Contains(ended, "Finished: your handler on 300 jobs") {
				t.Errorf("the box ends with %q", ended)
			}
			if vp.mobile {
				for _, w := range browserEval[[]string](tb, tb.script("sideways-overflow.js")) {
					t.Errorf("at %dpx: overflows sideways: %s", vp.width, w)
				}
			}
			png, err := chromedp.Run(tb.ctx, chromedp.Screenshot(chromedp.CSS("#wb-lab")))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("workbench-lab-%d.png", vp.width)), png, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, p := range tb.takeProblems() {
				t.Errorf("at %dpx: %s", vp.width, p)
			}
		})
	}
}
