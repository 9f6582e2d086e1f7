package pages

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"

	qrcode "github.com/piglig/go-qr"

	"effectivelyonce/rooms"
)

// TestQRPathDecodes draws the SVG path NewQR makes onto a bitmap and reads it back with the
// library's decoder: the rectangles we write are the code a phone's camera will see.
func TestQRPathDecodes(t *testing.T) {
	const link = "https://eo.example.org/notebook/j/7K3QXM"
	q, err := NewQR(link)
	if err != nil {
		t.Fatal(err)
	}
	const scale = 6
	img := image.NewGray(image.Rect(0, 0, q.Size*scale, q.Size*scale))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for _, cmd := range strings.Split(strings.TrimSuffix(q.Path, "z"), "z") {
		var x, y, run, back int
		if _, err := fmt.Sscanf(cmd, "M%d %dh%dv1h-%d", &x, &y, &run, &back); err != nil || run != back {
			t.Fatalf("path command %q: %v", cmd, err)
		}
		for dx := range run * scale {
			for dy := range scale {
				img.SetGray(x*scale+dx, y*scale+dy, color.Gray{})
			}
		}
	}
	got, err := qrcode.Decode(img)
	if err != nil || got != link {
		t.Fatalf("decoded %q (%v), want %q", got, err, link)
	}
}

// TestHistogram checks that every guess is in a bar, the measured value is on the drawing even
// when every guess is far from it, and the alternative text states the numbers drawn.
func TestHistogram(t *testing.T) {
	res := &rooms.Result{Measured: 195, Median: 250, Min: 90, Max: 500,
		Guesses: []rooms.GuessView{{Value: 90}, {Value: 120}, {Value: 250}, {Value: 260}, {Value: 500}}}
	h := NewHistogram(res)
	n := 0
	for _, b := range h.Bars {
		n += b.Count
	}
	if n != len(res.Guesses) {
		t.Errorf("bars hold %d guesses, want %d", n, len(res.Guesses))
	}
	if h.TruthX <= 0 || h.TruthX >= float64(h.Width) || !strings.Contains(h.Alt, "195") || !strings.Contains(h.Alt, "250") {
		t.Errorf("truth at x=%v of %d, alt %q", h.TruthX, h.Width, h.Alt)
	}
	far := NewHistogram(&rooms.Result{Measured: 1e6, Median: 3, Min: 1, Max: 5,
		Guesses: []rooms.GuessView{{Value: 1}, {Value: 5}}})
	if far.TruthX <= 0 || far.TruthX > float64(far.Width) {
		t.Errorf("a truth far from every guess is drawn at x=%v, off a drawing %d wide", far.TruthX, far.Width)
	}
	if none := NewHistogram(&rooms.Result{Measured: 7}); !strings.Contains(none.Alt, "Nobody guessed") {
		t.Errorf("no guesses: alt %q", none.Alt)
	}
}
