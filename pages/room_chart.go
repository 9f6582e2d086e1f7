package pages

import (
	"fmt"
	"math"

	"effectivelyonce/present"
	"effectivelyonce/rooms"
)

// Histogram is a revealed round drawn as inline SVG: bars of how many guesses fell in each range,
// a line at the measured value and a dashed one at the median. It is drawn on the server so that
// a fragment the event stream swaps in needs no script to show it; the numbers it draws are also
// written out beside it, for a screen reader and for anyone who wants them exact.
type Histogram struct {
	Width, Height, Base int // the drawing's size and the y of its baseline
	Bars                []HistBar
	TruthX, MedianX     float64
	TruthLabel          string
	TruthAnchor         string // "start" or "end": the label sits on the side with room
	Lo, Hi              string // the axis' end values, written under the drawing
	Alt                 string
}

// HistBar is one range of guesses.
type HistBar struct {
	X, Y, W, H float64
	Count      int
	Range      string
	Tip        string // the bar in words, for its tooltip: "1 guess from 0 to 10"
}

const (
	histW, histH, histTop, histBottom, histSide = 600, 180, 34, 2, 14
)

// NewHistogram bins the guesses of a revealed round. The axis spans the guesses and the measured
// value, so the truth is always on the drawing however wild the guesses were.
func NewHistogram(res *rooms.Result) Histogram { return NewHistogramOver(res, nil) }

// NewHistogramOver is NewHistogram on an axis that spans also's guesses as well: the two votes of
// a round drawn side by side on one scale, so that the eye compares like with like.
func NewHistogramOver(res, also *rooms.Result) Histogram {
	h := Histogram{Width: histW, Height: histH, Base: histH - histBottom}
	lo, hi := res.Measured, res.Measured
	for _, g := range res.Guesses {
		lo, hi = math.Min(lo, g.Value), math.Max(hi, g.Value)
	}
	if also != nil {
		for _, g := range also.Guesses {
			lo, hi = math.Min(lo, g.Value), math.Max(hi, g.Value)
		}
	}
	if hi == lo {
		pad := math.Max(1, math.Abs(lo)*0.1)
		lo, hi = lo-pad, hi+pad
	}
	n := len(res.Guesses)
	k := min(12, max(4, int(math.Ceil(math.Sqrt(float64(n))))+2))
	counts := make([]int, k)
	step := (hi - lo) / float64(k)
	for _, g := range res.Guesses {
		i := min(k-1, int((g.Value-lo)/step))
		counts[i]++
	}
	top := 1
	for _, c := range counts {
		top = max(top, c)
	}
	span := float64(histW - 2*histSide)
	x := func(v float64) float64 { return histSide + (v-lo)/(hi-lo)*span }
	plot := float64(h.Base - histTop)
	for i, c := range counts {
		bh := plot * float64(c) / float64(top)
		a, b := lo+float64(i)*step, lo+float64(i+1)*step
		r := fmt.Sprintf("%s to %s", Num(roundTo(a)), Num(roundTo(b)))
		h.Bars = append(h.Bars, HistBar{X: x(a) + 1, W: span/float64(k) - 2, Y: float64(h.Base) - bh, H: bh, Count: c,
			Range: r, Tip: present.Plural(int64(c), "guess", "guesses") + " from " + r})
	}
	h.TruthX, h.MedianX = x(res.Measured), x(res.Median)
	h.TruthLabel = "measured " + Num(res.Measured)
	h.TruthAnchor = "start"
	if h.TruthX > histW/2 {
		h.TruthAnchor = "end"
	}
	h.Lo, h.Hi = Num(roundTo(lo)), Num(roundTo(hi))
	h.Alt = fmt.Sprintf("Histogram of %s from %s to %s; the measured value is %s and the median guess %s.",
		present.Plural(int64(n), "guess", "guesses"), Num(res.Min), Num(res.Max), Num(res.Measured), Num(res.Median))
	if n == 0 {
		h.Alt = "Nobody guessed; the measured value is " + Num(res.Measured) + "."
	}
	return h
}

// LabelX places the measured value's label just beside its line, on the side with room.
func (h Histogram) LabelX() float64 {
	if h.TruthAnchor == "end" {
		return h.TruthX - 6
	}
	return h.TruthX + 6
}

// roundTo keeps a bin edge to three significant digits: the edges are only a guide.
func roundTo(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}
