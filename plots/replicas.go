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

// MaxReplicaSteps is the most changes a replicas figure draws as they
// are. A pool that scales more often over the run (a scale-to-zero pool
// that wakes for each of thousands of sparse requests) changes more than
// once per pixel, and its curves, drawn change by change, fill the area
// between 0 and 1 as a solid block; ReplicasData then gives each curve's
// time-weighted mean over MaxReplicaSteps equal parts of the run.
const MaxReplicaSteps = 200

// ReplicasData returns the replicas over time of an autoscaled pool, p
// (p.Autoscale not nil), to the run's end (Autoscale.RunSeconds; ignored
// when it is not after the last change). With more than MaxReplicaSteps
// changes, each curve is instead its time-weighted mean over each of
// MaxReplicaSteps equal parts of the span from the first change to the
// end (replicas, a step per part), and the title says so.
func ReplicasData(p *sim.PoolResult) Replicas {
	end := p.Autoscale.RunSeconds
	d := Replicas{Title: fmt.Sprintf("pool %s: replicas over the run (%s, %d to %d)", p.Provider, p.Autoscale.Policy, p.Autoscale.Min, p.Autoscale.Max)}
	s := p.Autoscale.Series
	if n := len(s); n > MaxReplicaSteps && end > s[0].T {
		end = max(end, s[n-1].T)
		d.Up, d.Started = meanSteps(s, end, MaxReplicaSteps)
		d.Title = fmt.Sprintf("pool %s: mean replicas over each 1/%d of the run (%s, %d to %d; %d changes)",
			p.Provider, MaxReplicaSteps, p.Autoscale.Policy, p.Autoscale.Min, p.Autoscale.Max, n)
		return d
	}
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

// meanSteps returns the time-weighted means of the replicas up, and up or
// starting, of series s (each point held until the next, the last until
// end > s[0].T) over each of parts equal parts of [s[0].T, end]: a point
// at the start of each part, and one at end holding the last part's
// value. O(len(s) + parts).
func meanSteps(s []sim.ScalePoint, end float64, parts int) (up, started []XY) {
	t0 := s[0].T
	w := (end - t0) / float64(parts)
	sumUp := make([]float64, parts)
	sumStarted := make([]float64, parts)
	for i, pt := range s {
		a, b := pt.T, end
		if i+1 < len(s) {
			b = s[i+1].T
		}
		// Spread [a, b) over the parts it overlaps.
		for k := min(int((a-t0)/w), parts-1); k < parts && a < b; k++ {
			hi := t0 + float64(k+1)*w
			if k == parts-1 {
				hi = end
			}
			dt := min(b, hi) - a
			if dt > 0 {
				sumUp[k] += dt * float64(pt.Ready)
				sumStarted[k] += dt * float64(pt.Ready+pt.Starting)
				a += dt
			}
		}
	}
	for k := range parts {
		x := t0 + float64(k)*w
		up = append(up, XY{x, sumUp[k] / w})
		started = append(started, XY{x, sumStarted[k] / w})
	}
	up = append(up, XY{end, up[parts-1].Y})
	started = append(started, XY{end, started[parts-1].Y})
	return up, started
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
				color, name := blue, "up or starting"
				if i == 1 {
					color, name = red, "up"
				}
				for j, piece := range stepPieces(pts, strokePoints) {
					l, err := plotter.NewLine(xys(piece))
					if err != nil {
						return nil, err
					}
					l.StepStyle = plotter.PostStep
					l.Width = vg.Points(1.5)
					l.Color = color
					p.Add(l)
					if j == 0 {
						p.Legend.Add(name, l)
					}
				}
				for _, q := range pts {
					top = max(top, q.Y)
				}
			}
			p.Legend.Top = true
			p.Y.Min, p.Y.Max = 0, max(1.25*top, 1)
			p.X.Tick.Marker = plot.TickerFunc(linearTicks)
			fitTitles(dc, p)
			p.Draw(padded(dc))
			return nil, nil
		},
	}
}

// strokePoints is the most points of a replicas curve stroked as one
// path: the rasterizer's cost for a path grows with the square of the
// cells it covers in a row, so a curve of hundreds of scale events drawn
// as one path took seconds (12 s for 840 points) where pieces of 32 take
// a quarter of a second.
const strokePoints = 32

// stepPieces splits a post-step curve (each value held until the next
// point) into curves of at most n+1 points (n ≥ 2) that together draw
// the same steps: each piece but the last ends halfway along the level
// stretch after its last point, where the next one starts, so the pieces
// meet on a straight run and not at a corner.
func stepPieces(pts []XY, n int) [][]XY {
	var out [][]XY
	var lead []XY // where the next piece starts: the last one's end
	for {
		take := n - len(lead)
		if len(pts) <= take {
			return append(out, append(lead, pts...))
		}
		mid := XY{X: (pts[take-1].X + pts[take].X) / 2, Y: pts[take-1].Y}
		piece := make([]XY, 0, n+1)
		piece = append(append(append(piece, lead...), pts[:take]...), mid)
		out = append(out, piece)
		lead, pts = []XY{mid}, pts[take:]
	}
}
