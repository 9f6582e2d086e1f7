package site

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestRoomsConfig checks the rooms' settings: defaults, the environment, and a clear error naming
// the setting when a value cannot work.
func TestRoomsConfig(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	c, err := LoadConfig(nil, env(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rooms.MaxMembers != 100 || c.Rooms.MaxOpenRooms != 200 || c.Rooms.MaxPins != 20 || c.Rooms.MaxBoard != 200 || c.Rooms.MaxRounds != 100 ||
		c.Rooms.IdleClose != 24*time.Hour || c.Rooms.DeleteAfter != 30*24*time.Hour || c.PublicOrigin != "" {
		t.Errorf("defaults: %+v, origin %q", c.Rooms, c.PublicOrigin)
	}
	c, err = LoadConfig([]string{"-public-origin", "https://eo.example.org/"}, env("ROOM_MEMBERS", "30", "ROOM_IDLE_CLOSE", "2h"), io.Discard)
	if err != nil || c.PublicOrigin != "https://eo.example.org" || c.Rooms.MaxMembers != 30 || c.Rooms.IdleClose != 2*time.Hour {
		t.Errorf("set: %v %q %+v", err, c.PublicOrigin, c.Rooms)
	}
	if c, err := LoadConfig([]string{"-room-members", "500"}, env(), io.Discard); err != nil || c.Rooms.MaxMembers != 500 {
		t.Errorf("a lecture hall of 500: %v %d", err, c.Rooms.MaxMembers)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"-public-origin", "eo.example.org"}, "public-origin"},
		{[]string{"-public-origin", "https://eo.example.org/notebook"}, "public-origin"},
		{[]string{"-room-members", "0"}, "room-members"},
		{[]string{"-room-members", "501"}, "room-members"},
		{[]string{"-room-rounds", "0"}, "room-rounds"},
		{[]string{"-room-board", "-1"}, "room-board"},
		{[]string{"-room-idle-close", "2h", "-room-delete-after", "1h"}, "room-delete-after"},
	} {
		if _, err := LoadConfig(bad.args, env(), io.Discard); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v: err %v, want one naming %s", bad.args, err, bad.want)
		}
	}
}

// TestPublicOriginIsTrusted checks the proxy case: a browser's form reaches the site through a
// proxy that rewrote Host, so its Origin is the public one; that origin is trusted, another is not.
func TestPublicOriginIsTrusted(t *testing.T) {
	cfg := testConfig()
	cfg.PublicOrigin = "https://eo.example.org"
	s := newTestServer(t, cfg)
	post := func(origin string) response {
		b := newBrowser(t, s)
		return b.send("POST", "/rooms", url.Values{"title": {"Behind a proxy"}}, false, "Origin", origin, "Sec-Fetch-Site", "")
	}
	if got := post("https://eo.example.org"); got.status != http.StatusSeeOther {
		t.Errorf("a form from the public origin: %d", got.status)
	}
	if got := post("https://evil.example"); got.status != http.StatusForbidden {
		t.Errorf("a form from another origin: %d", got.status)
	}
	b := newBrowser(t, s)
	r := b.get(b.post("/rooms", url.Values{"title": {"Links"}}).header.Get("Location"))
	if !strings.Contains(r.body, `>https://eo.example.org/rooms/`) {
		t.Error("the host link does not use the public origin")
	}
}
