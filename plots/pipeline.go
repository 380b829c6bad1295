package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hedgesim/hedgesim/sim"
)

// Breakdown is the data of a pipeline's step breakdown figure: per step,
// the mean seconds the slowest requests (end-to-end at or above its p95)
// and the median requests (between its p45 and p55) spent in it.
type Breakdown struct {
	Title          string
	Steps          []string
	Slow, Median   []float64
	NSlow, NMedian int
}

// BreakdownData returns the breakdown of pipeline class c of a run report.
func BreakdownData(c *sim.ClassReport) Breakdown {
	d := Breakdown{
		Title:   fmt.Sprintf("%s: where the time goes, step by step", c.Class),
		NSlow:   c.Pipeline.SlowRequests,
		NMedian: c.Pipeline.MedianRequests,
	}
	for _, s := range c.Pipeline.Steps {
		d.Steps = append(d.Steps, s.Step)
		d.Slow = append(d.Slow, s.SlowMean)
		d.Median = append(d.Median, s.MedianMean)
	}
	return d
}

// BreakdownFigure draws d as grouped bars, one group per step: the slowest
// requests' mean time in the step beside the median requests'; its Name
// is "steps".
func BreakdownFigure(d Breakdown) Figure {
	return Figure{
		Name: "steps", Width: plotWidth * vg.Inch, Height: plotHeight * vg.Inch,
		draw: func(dc draw.Canvas) ([]placed, error) {
			p, _, err := breakdownPlot(d, padded(dc))
			if err != nil {
				return nil, err
			}
			p.Draw(padded(dc))
			return nil, nil
		},
	}
}

// breakdownPad is the room, in steps, left on the step axis beyond the
// first and the last step, so that their bars (and names) are drawn whole
// inside the data area rather than at its edges.
const breakdownPad = 0.5

// breakdownPlot returns the plot of BreakdownFigure to be drawn on c, and
// the width of each bar: 22 points, or less when the steps are so many
// that a pair of bars would take more than 80 % of a step's room.
func breakdownPlot(d Breakdown, c draw.Canvas) (*plot.Plot, vg.Length, error) {
	if len(d.Steps) == 0 {
		return nil, 0, fmt.Errorf("no steps to draw")
	}
	p := newPlot(d.Title, "step", "mean time in the step (s)")
	steps := d.Steps
	if raster(c) {
		// Step names are tick labels, drawn in the tick font.
		steps = make([]string, len(d.Steps))
		for i, n := range d.Steps {
			steps[i] = glyphSafe(n, p.X.Tick.Label)
		}
	}
	p.NominalX(steps...)
	fitTitles(c, p)
	p.X.Min, p.X.Max = -breakdownPad, float64(len(d.Steps)-1)+breakdownPad
	top := 0.0
	for i := range d.Slow {
		top = max(top, d.Slow[i], d.Median[i])
	}
	p.Y.Min, p.Y.Max = 0, max(1.25*top, 1e-3) // room for the legend
	p.Y.Tick.Marker = plot.TickerFunc(linearTicks)
	da := p.DataCanvas(c)
	step := (da.Max.X - da.Min.X) / vg.Length(p.X.Max-p.X.Min)
	w := min(vg.Points(22), 0.4*step)
	slow, err := plotter.NewBarChart(plotter.Values(d.Slow), w)
	if err != nil {
		return nil, 0, err
	}
	slow.Color, slow.LineStyle.Width, slow.Offset = red, 0, -w/2
	med, err := plotter.NewBarChart(plotter.Values(d.Median), w)
	if err != nil {
		return nil, 0, err
	}
	med.Color, med.LineStyle.Width, med.Offset = blue, 0, w/2
	p.Add(slow, med)
	p.Legend.Add(fmt.Sprintf("slowest 5%% (%d requests)", d.NSlow), slow)
	p.Legend.Add(fmt.Sprintf("median requests (%d)", d.NMedian), med)
	p.Legend.Top = true
	// The bar charts widen the axes to their own range, [0, steps − 1]:
	// keep the padded one.
	p.X.Min, p.X.Max = -breakdownPad, float64(len(d.Steps)-1)+breakdownPad
	return p, w, nil
}
