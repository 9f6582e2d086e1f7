package pages

import (
	"fmt"
	"strings"

	qrcode "github.com/piglig/go-qr"
)

// QR is a QR code as the data of one SVG path: dark modules only, one unit square each, drawn on
// a light square so that phones read it in a dark theme too.
type QR struct {
	Size int    // modules per side, quiet zone included
	Path string // the d attribute
	Text string // what it encodes, shown beside it for those who type instead
}

// quietZone is the light margin a reader needs around the code, in modules (the standard's 4).
const quietZone = 4

// NewQR encodes text (a join link) with medium error correction, enough for a projector's glare.
func NewQR(text string) (QR, error) {
	c, err := qrcode.EncodeText(text, qrcode.Medium)
	if err != nil {
		return QR{}, fmt.Errorf("qr code for %q: %w", text, err)
	}
	n := c.Size()
	var b strings.Builder
	for y := range n {
		for x := 0; x < n; x++ {
			if !c.Module(x, y) {
				continue
			}
			run := 1 // draw a row's dark run as one rectangle: a tenth of the path's size
			for x+run < n && c.Module(x+run, y) {
				run++
			}
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", x+quietZone, y+quietZone, run, run)
			x += run - 1
		}
	}
	return QR{Size: n + 2*quietZone, Path: b.String(), Text: text}, nil
}
