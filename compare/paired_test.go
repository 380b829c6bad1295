package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// mm1 is an M/M/1 queue (Poisson arrivals at lambda/s, exponential service
// at mu/s, one slot) of n requests on seed, with no hedging, whose
// requests go to the classes named, in that order, with equal shares.
func mm1(n int, seed uint64, lambda, mu float64, classes ...string) *sim.Config {
	cfg := &sim.Config{
		Name: "queue", Seed: seed, Requests: n,
		Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: lambda},
		Models:    []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: mu}, PricePerRequest: 1}},
		Providers: []sim.Provider{{Name: "p", Concurrency: 1}},
	}
	for _, c := range classes {
		cfg.Classes = append(cfg.Classes, sim.Class{Name: c, Share: 1 / float64(len(classes)),
			InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}})
	}
	return cfg
}

// runJSONOf runs cfg (no hedging: the run is its own baseline) and parses
// its report as `hedgesim run --json` writes it.
func runJSONOf(t *testing.T, cfg *sim.Config) *Report {
	t.Helper()
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(sim.NewReportPerBatch(cfg, res, res))
	if err != nil {
		t.Fatal(err)
	}
	return mustParse(t, data)
}

// delta returns the delta of metric in the comparison's only row.
func delta(t *testing.T, c *Comparison, metric string) Delta {
	t.Helper()
	for _, d := range c.Rows[0].Deltas {
		if d.Metric == metric {
			return d
		}
	}
	t.Fatalf("no %s delta", metric)
	return Delta{}
}

// TestPairedTwinPolicies mirrors sim's TestPairedDifferenceOfTwinClasses at
// compare's level: two classes with the same policy share an M/M/1 queue
// at ρ = 0.9 (2·10⁵ requests); report A is that run, report B the same
// scenario with the classes listed in the other order, so that request i
// goes to the other class and B's class c is A's class d — the same
// policy under the same queue at the same times, on other requests. The
// true difference of their p95s is 0: the paired interval compare marks
// by must hold it in ≥ 36 of 40 seeds (a 95 % interval holds it in 38 on
// average; 36 is two binomial standard deviations, √(40·.05·.95) ≈ 1.4,
// below), and be at least 3 × narrower than the unpaired √(h_A² + h_B²)
// of the two reports' own batched intervals.
func TestPairedTwinPolicies(t *testing.T) {
	if testing.Short() {
		t.Skip("80 runs of 2·10⁵ requests")
	}
	t.Parallel() // single-threaded queue runs: the two long tests share the cores
	holds, paired := 0, 0
	var pw, uw float64
	for seed := uint64(1); seed <= 40; seed++ {
		a := runJSONOf(t, mm1(200_000, seed, 0.9, 1, "c", "d"))
		b := runJSONOf(t, mm1(200_000, seed, 0.9, 1, "d", "c"))
		c := Compare(a, b)
		if len(c.Rows) != 2 {
			t.Fatalf("seed %d: %d rows, want 2", seed, len(c.Rows))
		}
		d := delta(t, c, "p95")
		if !d.Paired {
			t.Fatalf("seed %d: the p95 of a queue was not paired (per_batch missing?)", seed)
		}
		paired++
		if d.DiffCI[0] <= 0 && 0 <= d.DiffCI[1] {
			holds++
			if d.Mark != Same {
				t.Errorf("seed %d: interval %v holds 0 but the mark is %v", seed, d.DiffCI, d.Mark)
			}
		}
		pw += (d.DiffCI[1] - d.DiffCI[0]) / 2
		uw += math.Hypot((d.CIA[1]-d.CIA[0])/2, (d.CIB[1]-d.CIB[0])/2)
	}
	t.Logf("paired interval holds 0 in %d/40 seeds; mean half-widths: paired %.3f s, unpaired %.3f s (%.1f×)", holds, pw/40, uw/40, uw/pw)
	if holds < 36 {
		t.Errorf("the paired interval holds 0 in %d/40 seeds, want ≥ 36", holds)
	}
	if uw < 3*pw {
		t.Errorf("paired half-width %.3f s is not 3× narrower than the unpaired %.3f s", pw/40, uw/40)
	}
}

// TestPairedFindsWhatOverlapMisses: one M/M/1 queue at λ = 0.9/s, served
// at μ = 1/s in A and 1.01/s in B on the same seed (common random numbers:
// each request's service draw is the same exponential scaled by 1/μ). The
// sojourn time is exponential with rate μ − λ, so the p95 falls from
// ln 20/0.1 = 29.96 s to ln 20/0.11 = 27.23 s, by 2.72 s (9 %). At 4·10⁵
// requests (batches of 13 333), over 40 seeds: the paired interval holds
// the true difference in ≥ 36 (the bar of TestPairedTwinPolicies) and
// excludes 0 in more seeds than the reports' own intervals are disjoint.
// At 10⁵ requests (batches of 3 333) a batch's own p95 is biased against
// the queue's memory, and an interval centred on the mean batch
// difference held the true one in 15 of 40 seeds, its centres 0.55 s
// (11 standard errors) short on average. Centred on the pooled
// difference (linearised batch percentiles), the centres' mean over the
// 40 seeds is within 3 standard errors (their spread over seeds ÷ √40) of
// the true difference, and the interval holds it in ≥ 30 of 40 (32 when
// written: short of 36, the spread of 30 batch differences being itself
// uncertain when a few long busy periods make the difference —
// docs/report.md says so).
func TestPairedFindsWhatOverlapMisses(t *testing.T) {
	if testing.Short() {
		t.Skip("80 runs of 4·10⁵ requests and 80 of 10⁵")
	}
	t.Parallel() // single-threaded queue runs: the two long tests share the cores
	want := math.Log(20)/0.11 - math.Log(20)/0.1
	for _, n := range []int{400_000, 100_000} {
		holds, pairedSig, disjoint := 0, 0, 0
		var centres []float64
		for seed := uint64(1); seed <= 40; seed++ {
			a := runJSONOf(t, mm1(n, seed, 0.9, 1, "c"))
			b := runJSONOf(t, mm1(n, seed, 0.9, 1.01, "c"))
			d := delta(t, Compare(a, b), "p95")
			if !d.Paired {
				t.Fatal("the p95 of a queue was not paired")
			}
			if d.DiffCI[0] <= want && want <= d.DiffCI[1] {
				holds++
			}
			if d.Mark == Significant {
				pairedSig++
			}
			if d.CIA[1] < d.CIB[0] || d.CIB[1] < d.CIA[0] {
				disjoint++
			}
			centres = append(centres, (d.DiffCI[0]+d.DiffCI[1])/2)
		}
		m, sd := stat.MeanStdDev(centres, nil)
		se := sd / math.Sqrt(float64(len(centres)))
		t.Logf("%d requests, true difference %.3f s: paired interval holds it in %d/40 seeds and excludes 0 in %d; the reports' own intervals are disjoint in %d; centres %.3f s on average (standard error %.3f s)", n, want, holds, pairedSig, disjoint, m, se)
		if math.Abs(m-want) > 3*se {
			t.Errorf("%d requests: the intervals' centres average %.3f s, %.1f standard errors from the true %.3f s: biased", n, m, math.Abs(m-want)/se, want)
		}
		if n == 100_000 {
			if holds < 30 {
				t.Errorf("at 10⁵ requests the paired interval holds the true difference in %d/40 seeds, want ≥ 30", holds)
			}
			continue
		}
		if holds < 36 {
			t.Errorf("the paired interval holds the true difference in %d/40 seeds, want ≥ 36", holds)
		}
		if pairedSig <= disjoint {
			t.Errorf("paired test significant in %d/40 seeds, overlap test in %d: pairing should find more", pairedSig, disjoint)
		}
	}
}

// batchedReport is a one-class run report with per_batch figures: p95s
// of base + shift[j] in batch j of 4, answered shares and costs alike,
// the first first batches before the warm-up cut.
func batchedReport(t *testing.T, p95 float64, shift []float64, first int) *Report {
	t.Helper()
	var p50s, p95s, p99s, shares, costs []any
	for _, s := range shift {
		p50s = append(p50s, 0.5+s)
		p95s = append(p95s, p95+s)
		p99s = append(p99s, 2*p95+s)
		shares = append(shares, 0.9+s/1000) // within [0, 1] for shifts up to 100
		costs = append(costs, 1+s)
	}
	b, err := json.Marshal(map[string]any{
		"scenario": "s", "seed": 1, "requests": 100_000,
		"classes": []any{map[string]any{
			"class": "chat", "requests": 100_000, "answered_share": 0.9,
			"latency_s": map[string]any{
				"p50": 0.5, "p95": p95, "p99": 2 * p95, "p95_ci95": [2]float64{p95 - 1, p95 + 1}, "p99_ci95": [2]float64{2*p95 - 2, 2*p95 + 2},
				"p95_ci95_ok": true, "p99_ci95_ok": true,
			},
			"cost_per_1k_usd": map[string]any{"total": 1},
			"per_batch": map[string]any{"count": len(shift), "first_kept": first,
				"p50": p50s, "p95": p95s, "p99": p99s, "answered_share": shares, "cost_per_1k_usd": costs},
		}},
		"overall": map[string]any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	return mustParse(t, b)
}

// TestPairedMechanics: per-batch differences of 0.1 s ± 0.01 s make the
// p95's paired interval exclude 0 where the two reports' intervals (±1 s)
// overlap; the pairing starts at the later first kept batch (a batch
// before it, with a difference of 50 s, would move the interval); reports
// whose grids differ, or whose batch lacks the figure, keep the overlap
// test; JSON and text show the test and the difference's interval.
func TestPairedMechanics(t *testing.T) {
	a := batchedReport(t, 10, []float64{0, 0, 0, 0, 0}, 0)
	b := batchedReport(t, 10.1, []float64{50, 0.01, -0.01, 0.01, -0.01}, 1)
	c := Compare(a, b)
	d := delta(t, c, "p95")
	if !d.Paired || d.Mark != Significant || d.PairedBatches != 4 {
		t.Fatalf("p95: paired %v, mark %v over %d batches; want a significant paired difference over 4", d.Paired, d.Mark, d.PairedBatches)
	}
	if !(d.DiffCI[0] > 0.05 && d.DiffCI[1] < 0.15) {
		t.Errorf("p95 difference interval %v, want about 0.1 ± 0.02", d.DiffCI)
	}
	for _, m := range []string{"p50", "p99", "answered", "cost/1k"} {
		if x := delta(t, c, m); !x.Paired {
			t.Errorf("%s not paired", m)
		}
	}
	var js bytes.Buffer
	if err := c.WriteJSON(&js, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if s := js.String(); !strings.Contains(s, `"test": "paired_batches"`) || !strings.Contains(s, `"difference_ci95"`) {
		t.Errorf("JSON lacks the paired test:\n%s", s)
	}
	var txt bytes.Buffer
	if err := c.WriteText(&txt, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if s := txt.String(); !strings.Contains(s, "paired difference B − A") || !strings.Contains(s, "chat: paired B − A over 4 batches: p50 [-18ms, +18ms], p95 [+82ms, +118ms]") {
		t.Errorf("text lacks the paired test:\n%s", s)
	}

	// Another grid: no pairing, the intervals overlap.
	other := batchedReport(t, 10.1, []float64{0, 0.01, -0.01}, 0)
	if d := delta(t, Compare(a, other), "p95"); d.Paired || d.Mark != Same {
		t.Errorf("grids of 5 and 3 batches: paired %v, mark %v; want the overlap test's ~", d.Paired, d.Mark)
	}
	// A batch without an answered share (null: an empty batch).
	empty := batchedReport(t, 10.1, []float64{0, 0.01, -0.01, 0.01, -0.01}, 0)
	empty.Classes[0].perBatch.AnsweredShare[2] = math.NaN()
	if d := delta(t, Compare(a, empty), "answered"); d.Paired {
		t.Error("an answered share paired over a batch without one")
	}
	// Independent requests (no per_batch): the text keeps its old legend.
	var plain bytes.Buffer
	ind := mustParse(t, runReport(2.0, [2]float64{1.9, 2.1}, 0.9, 2000, 1))
	if err := Compare(ind, ind).WriteText(&plain, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "paired") {
		t.Errorf("a comparison of independent requests mentions pairing:\n%s", plain.String())
	}
}

// TestHedgedShareUntestedUnderLoad: where requests interact (per_batch in
// both run reports) the hedged share's two-proportion z test, which
// assumes independent requests, is dropped (no test); for independent
// requests it stays.
func TestHedgedShareUntestedUnderLoad(t *testing.T) {
	hedged := func(delay time.Duration, queue bool) *sim.Config {
		c := mm1(20_000, 1, 0.5, 1, "c")
		c.Classes[0].Policy = sim.Policy{Copies: 1, Delays: []time.Duration{delay}}
		if !queue {
			c.Providers[0].Concurrency = 0
		}
		return c
	}
	for _, queue := range []bool{true, false} {
		d := delta(t, Compare(runJSONOf(t, hedged(2*time.Second, queue)), runJSONOf(t, hedged(3*time.Second, queue))), "hedged")
		if untested := d.Mark == NoTest; untested != queue {
			t.Errorf("queue %v: hedged share %.3f → %.3f marked %v", queue, d.A, d.B, d.Mark)
		}
	}
}

// TestPairedUsesLinearised: two run reports of a queue give linearised
// percentiles per batch, and compare pairs those (not the batches' own
// percentiles) from the later first kept batch: the interval's centre is
// their mean difference there.
func TestPairedUsesLinearised(t *testing.T) {
	a := runJSONOf(t, mm1(20_000, 3, 0.9, 1, "c"))
	b := runJSONOf(t, mm1(20_000, 3, 0.9, 1.01, "c"))
	pa, pb := a.Classes[0].perBatch, b.Classes[0].perBatch
	if pa == nil || pa.P95Lin == nil || pb.P95Lin == nil {
		t.Fatal("a queue's run report gives no linearised p95 per batch")
	}
	from := max(pa.FirstKept, pb.FirstKept)
	var lin, own float64
	for j := from; j < pa.Count; j++ {
		lin += (pb.P95Lin[j] - pa.P95Lin[j]) / float64(pa.Count-from)
		own += (pb.P95[j] - pa.P95[j]) / float64(pa.Count-from)
	}
	d := delta(t, Compare(a, b), "p95")
	if !d.Paired {
		t.Fatal("the p95 of a queue was not paired")
	}
	if centre := (d.DiffCI[0] + d.DiffCI[1]) / 2; math.Abs(centre-lin) > 1e-9 || math.Abs(centre-own) < 1e-6 {
		t.Errorf("interval centred on %v; want the mean linearised difference %v (the batches' own: %v)", centre, lin, own)
	}
}

// TestUnpairedAcrossRequestsOrSeeds: two run reports of one queue whose
// runs drew other requests — 2·10⁴ and 4·10⁴ requests (a run to a
// precision stops at its own), or seeds 3 and 4 — hold other requests in
// batch j: the figures keep the overlap and z tests (the hedged share
// none), and text and JSON say why; the same requests on the same seed
// pair.
func TestUnpairedAcrossRequestsOrSeeds(t *testing.T) {
	a := runJSONOf(t, mm1(20_000, 3, 0.9, 1, "c"))
	for _, tc := range []struct {
		b    *Report
		want string
	}{
		{runJSONOf(t, mm1(40_000, 3, 0.9, 1.01, "c")), "the runs simulated 20000 and 40000 requests, so batch j holds other requests in each"},
		{runJSONOf(t, mm1(20_000, 4, 0.9, 1.01, "c")), "the runs used seeds 3 and 4, so batch j holds other requests in each"},
	} {
		c := Compare(a, tc.b)
		for _, m := range []string{"p50", "p95", "p99", "answered", "cost/1k"} {
			if d := delta(t, c, m); d.Paired {
				t.Errorf("%s: %s paired", tc.want, m)
			}
		}
		if d := delta(t, c, "p95"); d.Mark != Same && d.Mark != Significant {
			t.Errorf("%s: p95 marked %v; want the overlap test's mark", tc.want, d.Mark)
		}
		if d := delta(t, c, "hedged"); d.Mark != NoTest {
			t.Errorf("%s: hedged share marked %v; its z test assumes independent requests", tc.want, d.Mark)
		}
		if c.Unpaired != tc.want {
			t.Errorf("Unpaired %q, want %q", c.Unpaired, tc.want)
		}
		txt, js := texts(t, c)
		if !strings.Contains(txt, "Not paired by batches although requests interact: "+tc.want) || strings.Contains(txt, "paired marks gain") || strings.Contains(txt, "paired B − A") {
			t.Errorf("text:\n%s", txt)
		}
		if !strings.Contains(js, `"unpaired": "`+tc.want+`"`) {
			t.Errorf("JSON lacks the reason:\n%s", js)
		}
	}
	b := runJSONOf(t, mm1(20_000, 3, 0.9, 1.01, "c"))
	if c := Compare(a, b); !delta(t, c, "p95").Paired || c.Unpaired != "" {
		t.Errorf("the same requests on the same seed: p95 paired %v, unpaired %q", delta(t, c, "p95").Paired, c.Unpaired)
	}
}
