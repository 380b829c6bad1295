package plots

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// classReports returns the classes of the default scenario (10 000
// requests per candidate) and of variants that exercise the layout: no
// cost cap, several copy counts, a pick that fails the verdict rule.
func classReports(t *testing.T) []*optimize.ClassReport {
	t.Helper()
	cachedOnce.Do(func() { cached, cachedErr = runClassReports() })
	if cachedErr != nil {
		t.Fatal(cachedErr)
	}
	return cached
}

var (
	cachedOnce sync.Once
	cached     []*optimize.ClassReport
	cachedErr  error
)

func runClassReports() ([]*optimize.ClassReport, error) {
	sc, err := scenario.LoadFS(scenarios.FS, scenarios.Default)
	if err != nil {
		return nil, err
	}
	var out []*optimize.ClassReport
	for _, v := range []func(*optimize.Settings){
		func(*optimize.Settings) {},
		func(s *optimize.Settings) { s.Search.Objective.MaxAddedCostPct = math.Inf(1) },
		func(s *optimize.Settings) {
			s.Search.Copies = []int{1, 2}
			s.Only = []string{"medium"}
		},
		func(s *optimize.Settings) { s.Requests = 80 }, // no intervals
	} {
		s := sc.Optimize
		s.Requests = 10_000
		v(&s)
		rep, err := optimize.Run(&sc.Config, s, optimize.Options{})
		if err != nil {
			return nil, err
		}
		for i := range rep.Classes {
			out = append(out, &rep.Classes[i])
		}
	}
	return out, nil
}

// TestLegendsCoverNoData draws every figure and checks that each legend
// found a spot covering no curve, band, marker or label, inside its plot.
func TestLegendsCoverNoData(t *testing.T) {
	for _, cr := range classReports(t) {
		for _, f := range ClassFigures(cr, 0.95) {
			c := vgsvg.New(f.Width, f.Height) // vector: quicker than rasterising
			dc := draw.New(c)
			legends, err := f.draw(dc)
			if err != nil {
				t.Errorf("%s %s: %v", cr.Class, f.Name, err)
				continue
			}
			for _, l := range legends {
				if l.hits != 0 {
					t.Errorf("%s %s (%s): the legend covers %d marks", cr.Class, f.Name, cr.Objective, l.hits)
				}
				if b := l.frame; !b.within(canvasBox(dc)) || b.x1-b.x0 < vg.Points(40) {
					t.Errorf("%s %s: legend frame %+v outside the figure %+v", cr.Class, f.Name, b, canvasBox(dc))
				}
			}
		}
	}
}

// TestCostLabels: shown labels stay inside the data area and cover no
// other label, no marker and not the frontier; the legend lists the
// frontier only when it is drawn.
func TestCostLabels(t *testing.T) {
	for _, cr := range classReports(t) {
		d := CostData(cr)
		p, m, l, err := costPlot(d)
		if err != nil {
			t.Fatal(err)
		}
		da := p.DataCanvas(figureCanvas(plotWidth, plotHeight))
		trX, trY := p.Transforms(&da)
		sty := labelStyle()
		var labels []box
		shown := 0
		for _, c := range d.Candidates {
			if !c.Shown {
				continue
			}
			shown++
			w, h := textBox(sty, c.Text)
			x, y := trX(c.X)+vg.Length(c.DX), trY(c.Y)+vg.Length(c.DY)
			labels = append(labels, box{x, y, x + w, y + h})
		}
		name := fmt.Sprintf("%s (%s, pick %s)", cr.Class, cr.Objective, cr.Picked().Label)
		if shown < 8 || !d.Candidates[0].Shown || !d.Candidates[cr.Pick].Shown {
			t.Errorf("%s: %d labels shown, no hedging's %v, the pick's %v", name, shown, d.Candidates[0].Shown, d.Candidates[cr.Pick].Shown)
		}
		// Markers and the frontier, without the labels' own boxes.
		bare := &marks{lines: m.lines}
		for _, c := range d.Candidates {
			bare.point(c.X, c.Y, vg.Points(dotRadius))
		}
		o := bare.resolve(p, da)
		for i, b := range labels {
			if !b.within(canvasBox(da)) || o.hits(b) != 0 {
				t.Errorf("%s: label %d %+v leaves the data area or covers %d marks", name, i, b, o.hits(b))
			}
			for _, q := range labels[:i] {
				if b.overlaps(q) {
					t.Errorf("%s: labels %+v and %+v overlap", name, b, q)
				}
			}
		}
		legend := strings.Join(l.texts, "; ")
		if strings.Contains(legend, "frontier") != (len(d.Frontier) >= 2) {
			t.Errorf("%s: legend %q with a frontier of %d points", name, legend, len(d.Frontier))
		}
		if strings.Contains(legend, "pick: ") != cr.Picked().Hedging {
			t.Errorf("%s: legend %q", name, legend)
		}
	}
	// A frontier of no hedging alone is not drawn, nor listed.
	cr := &optimize.ClassReport{
		Class: "x", Objective: optimize.DefaultSettings().Search.Objective,
		Candidates: []optimize.Candidate{
			{Label: "none", Latency: latency(2)},
			{Label: "1s", Hedging: true, Delay: time.Second, AddedCostPct: 50, Latency: latency(2.5)},
		},
		Frontier: []int{0},
	}
	_, _, l, err := costPlot(CostData(cr))
	if err != nil || strings.Contains(strings.Join(l.texts, ";"), "frontier") {
		t.Errorf("one-point frontier: legend %q, %v", l.texts, err)
	}
}

func TestSegmentHits(t *testing.T) {
	b := box{0, 0, 10, 10}
	for _, c := range []struct {
		a, b vg.Point
		want bool
	}{
		{vg.Point{X: -5, Y: 5}, vg.Point{X: 15, Y: 5}, true},    // across
		{vg.Point{X: 2, Y: 2}, vg.Point{X: 3, Y: 3}, true},      // inside
		{vg.Point{X: -5, Y: -5}, vg.Point{X: -1, Y: 20}, false}, // left of it
		{vg.Point{X: -5, Y: 12}, vg.Point{X: 12, Y: 11}, false}, // above it
		{vg.Point{X: -5, Y: 6}, vg.Point{X: 6, Y: -5}, true},    // cuts a corner
	} {
		if got := segmentHits(c.a, c.b, b); got != c.want {
			t.Errorf("segment %v–%v: %v; want %v", c.a, c.b, got, c.want)
		}
	}
	tri := []vg.Point{{X: 0, Y: 0}, {X: 10, Y: 0}, {X: 0, Y: 10}}
	if !inside(vg.Point{X: 2, Y: 2}, tri) || inside(vg.Point{X: 8, Y: 8}, tri) {
		t.Error("inside: wrong side of the triangle")
	}
}

// latency is a latency summary with p95 q seconds (and p99 2q), whose
// intervals are real.
func latency(q float64) sim.Latency {
	return sim.Latency{P95: q, P95CI95: [2]float64{q, q}, P99: 2 * q, P99CI95: [2]float64{2 * q, 2 * q}}
}
