package site

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"effectivelyonce/pages"
)

// TestRoomWatchesALabRun: the host starts a lab run from the room's page; the lab's refusals come
// back to the form with the values kept (with script and without); the room records the run, so a
// member's open stream receives the lab's progress box and their room page and bar show it, with
// Cancel for the host's browser alone; presenting /lab shows the same run there (the bar then
// leaves it to the page); and when the run ends, every page shows its table.
func TestRoomWatchesALabRun(t *testing.T) {
	s, w, _ := newLabServer(t, testConfig())
	base := serveLoopback(t, s)
	host, ada := newBrowser(t, s), newBrowser(t, s)
	roomPath, _ := startRoom(t, host, "Lab together")
	code := codeOf(t, host, roomPath)
	joinAs(t, ada, code, "Ada")
	ada.get(roomPath)

	page := host.get(roomPath)
	for _, want := range []string{`action="` + roomPath + `/lab"`, "Start a lab run the room watches", `id="room-lab-jobs"`, `id="room-lab-crash-rate"`,
		`value="ack-after-work" checked`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the host's room page lacks %q", want)
		}
	}
	if strings.Contains(page.body, `id="room-lab-workers"`) {
		t.Error("the room's lab form offers more than the designs, jobs and crash rate")
	}
	if strings.Contains(ada.get(roomPath).body, "Start a lab run") {
		t.Error("a member is offered the lab form")
	}
	if r := ada.post(roomPath+"/lab", url.Values{"design": {"ack-after-work"}, "jobs": {"100"}}); r.status != http.StatusForbidden {
		t.Errorf("a member starting a lab run: %d, want 403", r.status)
	}

	// Wrong values: every one named, the values kept; nothing runs and nothing is recorded.
	bad := url.Values{"jobs": {"0"}, "crash_rate": {"2"}}
	r := host.send("POST", roomPath+"/lab", bad, true)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "design") || !strings.Contains(r.body, "jobs") || !strings.Contains(r.body, "crash_rate") {
		t.Errorf("refused values with script: %d %s", r.status, r.body)
	}
	r = host.post(roomPath+"/lab", bad)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "Nothing was run.") || !strings.Contains(r.body, `id="room-lab-jobs" name="jobs"`) ||
		!strings.Contains(r.body, `value="0"`) || !strings.Contains(r.body, `value="2"`) || !strings.Contains(r.body, "Back to the room") {
		t.Fatalf("refused values without script: %d %.3000s", r.status, r.body)
	}
	if w.Started() != 0 {
		t.Fatalf("a refused form started %d workers", w.Started())
	}

	// A member's stream, open before the run, hears of it.
	var bo struct {
		Key string `json:"member_key"`
	}
	mustAPI(t, memberClient(), "POST", base+"/api/rooms/"+code+"/members", "", `{"name":"Bo"}`, http.StatusCreated, &bo)
	status, stream, err := openStream(t.Context(), streamClient(), base+"/api/rooms/"+code+"/events", bo.Key)
	if err != nil || status != http.StatusOK {
		t.Fatalf("Bo's stream: %d %v", status, err)
	}
	defer stream.Close()
	if _, err := stream.Snapshot(10*time.Second, pages.RoomParts); err != nil {
		t.Fatal(err)
	}

	r = host.post(roomPath+"/lab", url.Values{"design": {"ack-after-work"}, "jobs": {"300"}, "crash_rate": {"0.05"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != roomPath {
		t.Fatalf("start the run: %d %s", r.status, r.body)
	}
	// The room's box asks once a second, not at the lab's own pace: every member's page has one.
	// Its polls say whose it is in the room's words: the host's.
	if _, _, err := stream.Until(10*time.Second, named(pages.PartLab, `id="lab-status"`, `hx-get="/lab/progress?every=1s&amp;room=member"`, "The host&#39;s run")); err != nil {
		t.Fatalf("the member's stream did not carry the run: %v", err)
	}
	// A second run while it goes is the lab's refusal, said beside the form.
	if r := host.send("POST", roomPath+"/lab", url.Values{"design": {"ack-after-work"}, "jobs": {"100"}}, true); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.body, "your run is still under way") || strings.Count(r.body, " in about ")+strings.Count(r.body, "Try again") != 1 ||
		r.header.Get("Retry-After") == "" {
		t.Errorf("a second run: %d %s", r.status, r.body)
	}

	var st struct {
		LabRun string `json:"lab_run"`
	}
	mustAPI(t, memberClient(), "GET", base+"/api/rooms/"+code, bo.Key, "", http.StatusOK, &st)
	if run := s.lab.Runner().Current(); run == nil || st.LabRun != run.ID {
		t.Errorf("the API's lab_run is %q, not the lab's current run", st.LabRun)
	}
	hostPage, adaPage := host.get(roomPath).body, ada.get(roomPath).body
	if !strings.Contains(hostPage, `data-whose="yours"`) || !strings.Contains(hostPage, ">Cancel</button>") {
		t.Error("the host's room page does not show their run with Cancel")
	}
	if !strings.Contains(adaPage, `id="lab-status"`) || strings.Contains(adaPage, ">Cancel</button>") {
		t.Error("the member's room page does not show the run, or offers Cancel")
	}
	for who, p := range map[string]string{"host": hostPage, "member": adaPage} {
		if strings.Contains(p, `data-running="true"`) && (!strings.Contains(p, `every 1000ms"`) || !strings.Contains(p, `every=1s`)) {
			t.Errorf("the %s's room page polls the running lab at another pace than once a second", who)
		}
	}
	// Each poll's answer keeps the room's pace, drawn for the browser that asks: Cancel for the
	// owner alone.
	for who, b := range map[string]*browser{"host": host, "member": ada} {
		box := b.get("/lab/progress?every=1s").body
		if strings.Contains(box, `data-running="true"`) && (!strings.Contains(box, `hx-trigger="every 1000ms"`) || !strings.Contains(box, `hx-get="/lab/progress?every=1s"`)) {
			t.Errorf("the %s's poll at a room's pace answers a box at another pace", who)
		}
		if strings.Contains(box, `data-running="true"`) && strings.Contains(box, ">Cancel</button>") != (who == "host") {
			t.Errorf("the %s's poll offers Cancel: %v", who, strings.Contains(box, ">Cancel</button>"))
		}
	}
	// A poll of the box's moving part, while nothing else has changed, answers that part alone:
	// Cancel beside it is never replaced. Once the run has ended, the whole box, in its place.
	if run := s.lab.Runner().Current(); run != nil {
		r := host.send("GET", "/lab/progress?every=1s&room=host&part=live&yours=1&results=0&run="+run.ID, nil, true)
		if r.header.Get("HX-Retarget") != "" {
			if r.header.Get("HX-Retarget") != "closest .lab-status" || !strings.Contains(r.body, "data-ended") {
				t.Errorf("the moving part's poll answered the whole box while the run went on: %s %.500s", r.header.Get("HX-Retarget"), r.body)
			}
		} else if !strings.HasPrefix(strings.TrimSpace(r.body), `<div class="lab-live"`) || strings.Contains(r.body, "Cancel") || strings.Contains(r.body, `class="lab-status"`) {
			t.Errorf("the moving part's poll of a running run is not that part alone: %.600s", r.body)
		}
	}
	for who, b := range map[string]*browser{"host": host, "member": ada} {
		box := b.get("/lab/progress?every=1s&room=" + who).body
		if want := map[string]string{"host": "<strong>Your run</strong>", "member": "<strong>The host&#39;s run</strong>"}[who]; !strings.Contains(box, want) {
			t.Errorf("the %s's poll does not say %s: %.300s", who, want, box)
		}
	}
	if b := ada.get("/blocks/1").body; !strings.Contains(b, `class="roombar-lab"`) || !strings.Contains(b, `id="lab-status"`) || !strings.Contains(b, "The host&#39;s run") {
		t.Error("the member's bar does not show the run")
	}

	// Presenting /lab: the member's /lab shows the host's run, and the bar leaves it to the page.
	if r := host.post(roomPath+"/present", url.Values{"path": {"/lab"}}); r.status != http.StatusSeeOther {
		t.Fatalf("present /lab: %d %s", r.status, r.body)
	}
	lab := ada.get("/lab")
	if lab.status != http.StatusOK || strings.Count(lab.body, `id="lab-status"`) != 1 || strings.Contains(lab.body, `class="roombar-lab"`) ||
		!strings.Contains(lab.body, "Only the browser that started it can cancel it") {
		t.Errorf("the presented /lab for a member: %d, %d boxes", lab.status, strings.Count(lab.body, `id="lab-status"`))
	}

	box, _ := waitLab(t, ada, time.Now())
	if !strings.Contains(box, "Finished: 1 design on 300 jobs.") {
		t.Fatalf("the run did not finish: %s", box)
	}
	for who, b := range map[string]*browser{"host": host, "member": ada} {
		if p := b.get(roomPath).body; !strings.Contains(p, `data-design-result=`) || strings.Contains(p, `hx-trigger="every `) {
			t.Errorf("the %s's room page after the run lacks its table, or still polls", who)
		}
	}
	if left := w.Alive(); len(left) > 0 {
		t.Errorf("worker processes %v outlived the run", left)
	}
}
