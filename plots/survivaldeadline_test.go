package plots_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/plots"
	"github.com/hedgesim/hedgesim/sim"
)

// TestSurvivalReachesTheDeadline: half the calls take 5–10 s against a 3 s
// deadline, so half of the requests without hedging, and an eighth with
// two copies 300 ms apart, are never answered. A user's figure ended at
// the slowest answer (0.92 s), the deadline and what stays above it off
// the chart, and marked only the first copy. Now the x axis passes the
// deadline, which is marked, every curve runs flat at its miss share to
// the axis's end, and both copies' sends are marked; without a deadline
// there is no marker.
func TestSurvivalReachesTheDeadline(t *testing.T) {
	lat, err := dist.NewMixture([]float64{0.5, 0.5}, []dist.Continuous{dist.Uniform{Min: 0.1, Max: 0.3}, dist.Uniform{Min: 5, Max: 10}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sim.Config{
		Name: "half-slow", Seed: 3, Requests: 1000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models:   []sim.Model{{Name: "m", Latency: lat, PriceInputPerMTok: 1}},
		Classes: []sim.Class{{
			Name: "c", Share: 1, Deadline: 3 * time.Second,
			InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 0},
			Policy: sim.Policy{CancelBilling: sim.BillInput},
		}},
	}
	_, cr := reportOf(t, cfg, 20_000, []time.Duration{300 * time.Millisecond}, []int{2}, math.Inf(1))
	if !cr.Picked().Hedging {
		t.Fatalf("the pick does not hedge: %s", cr.Picked().Label)
	}
	d := plots.SurvivalData(cr)
	if d.Deadline != 3 || !(d.XMax >= 3.15) {
		t.Errorf("deadline %v, axis to %v; want the 3 s deadline marked and the axis past it", d.Deadline, d.XMax)
	}
	if !slices.Equal(d.Sends, []float64{0.3, 0.6}) {
		t.Errorf("sends %v, want both copies' [0.3 0.6]", d.Sends)
	}
	// Each curve ends at the axis's end at its miss share: about 1/2 and
	// 1/8 (20 000 requests: a standard error under 0.004; 0.03 is over 7 of them).
	for name, c := range map[string]struct {
		xy   []plots.XY
		miss float64
	}{"no hedging": {d.Baseline, 0.5}, "pick": {d.Other, 0.125}} {
		last := c.xy[len(c.xy)-1]
		if last.X != d.XMax || math.Abs(last.Y-c.miss) > 0.03 {
			t.Errorf("%s ends at %v; want (%v, ≈%v)", name, last, d.XMax, c.miss)
		}
	}
	cfg.Classes[0].Deadline = 0
	_, cr = reportOf(t, cfg, 20_000, []time.Duration{300 * time.Millisecond}, []int{1}, math.Inf(1))
	if d := plots.SurvivalData(cr); !math.IsNaN(d.Deadline) || d.Sends != nil {
		t.Errorf("no deadline, one copy: deadline %v, sends %v; want NaN and none", d.Deadline, d.Sends)
	}
	// The figures draw with the markers, and the SVG names the deadline
	// and both sends in its legend.
	_, cr = reportOf(t, func() *sim.Config {
		c := *cfg
		c.Classes = []sim.Class{cfg.Classes[0]}
		c.Classes[0].Deadline = 3 * time.Second
		return &c
	}(),
		20_000, []time.Duration{300 * time.Millisecond}, []int{2}, math.Inf(1))
	for _, f := range plots.ClassFigures(cr, 0.95) {
		if f.Name != "survival" {
			continue
		}
		svg, err := f.Render("svg")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"copies sent (300ms, 600ms)", "deadline (3s)"} {
			if !strings.Contains(string(svg), w) {
				t.Errorf("the survival SVG lacks %q", w)
			}
		}
	}
}
