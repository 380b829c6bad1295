package sim_test

import (
	"math"
	"slices"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// dueScenario is a class hedging model a at 1 s with a copy to b; limit,
// when not empty, gives a's provider that concurrency limit.
func dueScenario(t *testing.T, limit string) *sim.Config {
	t.Helper()
	src := `seed = 3
requests = 5000
[arrivals]
rate = 6.0
[providers.pa]
` + limit + `
[providers.pb]
[models.a]
provider = "pa"
latency = { kind = "lognormal", median = 0.3, p95 = 1.5 }
[models.b]
provider = "pb"
latency = { kind = "lognormal", median = 0.3, p95 = 1.5 }
[[classes]]
name = "c"
share = 1.0
[classes.hedge]
primary = "a"
targets = ["b"]
delay = "680ms"
max_copies = 1
`
	sc, err := scenario.Parse("due.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return &sc.Config
}

// TestTraceDueIsTheDrawnEnd: with no queue, every attempt to a starts
// service when sent, and Due − Start is its drawn latency whether it
// completed or its request cancelled it: Due is End for a completed
// attempt and after End for a cancelled one, and Due − Start over all of
// a's attempts follows a's latency model. The one-sample
// Kolmogorov–Smirnov distance must be under 1.95/√n, its critical value at
// level 0.001 (n = 5000: 0.028); the cancelled attempts' End − Start in its
// place (a's calls slower than 680 ms cut short, about a fifth) lies far
// beyond it.
func TestTraceDueIsTheDrawnEnd(t *testing.T) {
	cfg := dueScenario(t, "")
	var xs []float64
	cancelled := 0
	if _, err := sim.RunTrace(cfg, func(a *sim.AttemptRecord) {
		if a.Model != "a" {
			return
		}
		switch a.Outcome {
		case "completed":
			if a.Due != a.End {
				t.Errorf("request %d: completed, due %v, end %v; want due = end", a.Request, a.Due, a.End)
			}
		case "cancelled":
			cancelled++
			if a.Due <= a.End {
				t.Errorf("request %d: cancelled at %v, due %v; want due after the cancel", a.Request, a.End, a.Due)
			}
		default:
			t.Errorf("request %d: outcome %s", a.Request, a.Outcome)
		}
		xs = append(xs, (a.Due - a.Start).Seconds())
	}); err != nil {
		t.Fatal(err)
	}
	if cancelled < len(xs)/10 {
		t.Fatalf("%d of %d attempts cancelled; the test needs the hedge to cancel about a fifth", cancelled, len(xs))
	}
	slices.Sort(xs)
	lat := cfg.Models[0].Latency
	n := float64(len(xs))
	ks := 0.0
	for i, x := range xs {
		f := lat.CDF(x)
		ks = max(ks, math.Abs(f-float64(i)/n), math.Abs(f-float64(i+1)/n))
	}
	if crit := 1.95 / math.Sqrt(n); ks > crit {
		t.Errorf("Kolmogorov–Smirnov distance of Due − Start from a's latency %.4f over %d attempts; want under %.4f", ks, len(xs), crit)
	}
}

// TestTraceDueQueued: at a provider with 4 slots near saturation, an
// attempt cancelled while still queued never started service and has Due
// 0; one cancelled in service has Due after End, its wait and drawn
// service time from Start; both happen in this run.
func TestTraceDueQueued(t *testing.T) {
	cfg := dueScenario(t, "concurrency = 4")
	inService, queued := 0, 0
	if _, err := sim.RunTrace(cfg, func(a *sim.AttemptRecord) {
		if a.Model != "a" || a.Outcome != "cancelled" {
			return
		}
		switch {
		case a.Due == 0:
			queued++
		case a.Due > a.End:
			inService++
		default:
			t.Errorf("request %d: cancelled at %v, due %v; want 0 or after the cancel", a.Request, a.End, a.Due)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if inService == 0 || queued == 0 {
		t.Errorf("%d cancelled in service, %d while queued; want some of each", inService, queued)
	}
}
