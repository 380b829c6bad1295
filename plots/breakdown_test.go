package plots

import (
	"fmt"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// TestBreakdownBarsWhole: the step figure's bars lie wholly inside the
// data area, the first and the last step's too, with room to spare, each
// step's pair clear of the next one's, and each step's name inside the
// figure — for 1 to 30 steps. (Before, the axis ended at the first and the
// last step, so their outer bars were drawn half over the axis and the
// edge, and the last name was cut.)
func TestBreakdownBarsWhole(t *testing.T) {
	for _, n := range []int{1, 2, 4, 12, 30} {
		d := Breakdown{Title: fmt.Sprintf("%d steps", n), NSlow: 5, NMedian: 10}
		for i := range n {
			d.Steps = append(d.Steps, fmt.Sprintf("guard-answer-%d", i))
			d.Slow = append(d.Slow, float64(i+1))
			d.Median = append(d.Median, float64(i+1)/2)
		}
		f := BreakdownFigure(d)
		dc := padded(draw.New(vgsvg.New(f.Width, f.Height)))
		p, w, err := breakdownPlot(d, dc)
		if err != nil {
			t.Fatal(err)
		}
		da := p.DataCanvas(dc)
		trX, _ := p.Transforms(&da)
		prevRight := da.Min.X
		for i, name := range d.Steps {
			x := trX(float64(i))
			left, right := x-w, x+w // the slow bar left of x, the median right of it
			if left <= prevRight || right >= da.Max.X {
				t.Errorf("%d steps: step %d's bars span [%.1f, %.1f] pt; want inside (%.1f, %.1f), clear of the step before", n, i, left, right, prevRight, da.Max.X)
			}
			prevRight = right
			if half := p.X.Tick.Label.Width(name) / 2; n <= 4 && (x-half < dc.Min.X || x+half > dc.Max.X) {
				t.Errorf("%d steps: the name of step %d spans [%.1f, %.1f] pt, outside the figure [%.1f, %.1f]", n, i, x-half, x+half, dc.Min.X, dc.Max.X)
			}
		}
	}
}
