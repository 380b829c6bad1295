package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hedgesim/hedgesim/sim"
)

// Replicas is the data of an autoscaled pool's replicas figure: step
// curves of (time in s, replicas) — those up, and those up or starting —
// each value held until the next point and the last one until End.
type Replicas struct {
	Title       string
	Up, Started []XY
}

// ReplicasData returns the replicas over time of an autoscaled pool, p
// (p.Autoscale not nil), to the run's end (Autoscale.RunSeconds; ignored
// when it is not after the last change).
func ReplicasData(p *sim.PoolResult) Replicas {
	end := p.Autoscale.RunSeconds
	d := Replicas{Title: fmt.Sprintf("pool %s: replicas over the run (%s, %d to %d)", p.Provider, p.Autoscale.Policy, p.Autoscale.Min, p.Autoscale.Max)}
	s := p.Autoscale.Series
	for _, pt := range s {
		d.Up = append(d.Up, XY{pt.T, float64(pt.Ready)})
		d.Started = append(d.Started, XY{pt.T, float64(pt.Ready + pt.Starting)})
	}
	if n := len(s); n > 0 && end > s[n-1].T {
		d.Up = append(d.Up, XY{end, float64(s[n-1].Ready)})
		d.Started = append(d.Started, XY{end, float64(s[n-1].Ready + s[n-1].Starting)})
	}
	return d
}

// ReplicasFigure draws d: the replicas up, and up or starting, over
// simulated time; its Name is "replicas".
func ReplicasFigure(d Replicas) Figure {
	return Figure{
		Name: "replicas", Width: plotWidth * vg.Inch, Height: plotHeight * vg.Inch,
		draw: func(dc draw.Canvas) ([]placed, error) {
			if len(d.Up) == 0 {
				return nil, fmt.Errorf("no replicas to draw")
			}
			p := newPlot(d.Title, "simulated time (s)", "replicas")
			top := 0.0
			for i, pts := range [][]XY{d.Started, d.Up} {
				l, err := plotter.NewLine(xys(pts))
				if err != nil {
					return nil, err
				}
				l.StepStyle = plotter.PostStep
				l.Width = vg.Points(1.5)
				l.Color = blue
				name := "up or starting"
				if i == 1 {
					l.Color, name = red, "up"
				}
				p.Add(l)
				p.Legend.Add(name, l)
				for _, q := range pts {
					top = max(top, q.Y)
				}
			}
			p.Legend.Top = true
			p.Y.Min, p.Y.Max = 0, max(1.25*top, 1)
			p.X.Tick.Marker = plot.TickerFunc(linearTicks)
			p.Draw(padded(dc))
			return nil, nil
		},
	}
}
