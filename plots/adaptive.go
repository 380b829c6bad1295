package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hedgesim/hedgesim/sim"
)

// AdaptiveDelayData returns the adaptive hedge delay of a run as a step
// curve: (time in s, delay in s), each delay held until the next point and
// the last one to end, the run's length in seconds (ignored when it is not
// after the last point).
func AdaptiveDelayData(samples []sim.DelaySample, end float64) []XY {
	out := make([]XY, 0, len(samples)+1)
	for _, s := range samples {
		out = append(out, XY{s.At, s.Delay})
	}
	if n := len(samples); n > 0 && end > samples[n-1].At {
		out = append(out, XY{end, samples[n-1].Delay})
	}
	return out
}

// AdaptiveDelayFigure draws a class's adaptive hedge delay over simulated
// time, from AdaptiveDelayData; its Name is "adaptive-delay".
func AdaptiveDelayFigure(class string, pts []XY) Figure {
	return Figure{
		Name: "adaptive-delay", Width: plotWidth * vg.Inch, Height: plotHeight * vg.Inch,
		draw: func(dc draw.Canvas) ([]placed, error) {
			if len(pts) == 0 {
				return nil, fmt.Errorf("no adaptive delay to draw")
			}
			p := newPlot(class+": adaptive hedge delay over the run", "simulated time (s)", "hedge delay (s)")
			l, err := plotter.NewLine(xys(pts))
			if err != nil {
				return nil, err
			}
			l.StepStyle = plotter.PostStep
			l.Color = red
			l.Width = vg.Points(1.5)
			p.Add(l)
			p.Y.Min = 0
			p.Y.Max = max(p.Y.Max*1.1, 1e-3)
			p.X.Tick.Marker = plot.TickerFunc(linearTicks)
			fitTitles(dc, p)
			p.Draw(padded(dc))
			return nil, nil
		},
	}
}
