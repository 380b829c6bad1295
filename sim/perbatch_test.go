package sim

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// TestPerBatchGrid checks the fixed grid against a brute-force oracle: for
// an M/M/1 queue at ρ = 0.9 with a deadline of 40 s (so some requests are
// misses) and a price per call, at warm-up cuts of 0 and of section 100,
// batch j holds the sections k with ⌊30k/1000⌋ = j whatever the cut; its
// p50/p95/p99 are the nearest-rank percentiles of its requests (misses
// +Inf), sorted in full; its answered share and cost per 1000 requests are
// its requests' own; first_kept is the first batch starting at or after
// the cut. The JSON round trip keeps every figure, a miss as a miss.
func TestPerBatchGrid(t *testing.T) {
	cfg := &Config{
		Name: "queue", Seed: 5, Requests: 30_000,
		Arrivals:  Arrivals{Process: Poisson, Rate: 0.9},
		Models:    []Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}, PricePerRequest: 1}},
		Providers: []Provider{{Name: "p", Concurrency: 1}},
		Classes: []Class{{Name: "c", Share: 1, Deadline: 40 * time.Second,
			InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &res.Classes[0].lat
	if !s.sectioned() || s.secBill == nil {
		t.Fatal("a queue's run is not sectioned and billed")
	}
	if s.nm == 0 {
		t.Fatal("no misses: the oracle does not test them")
	}
	// Oracle: every request's latency (+Inf for a miss) by batch.
	var lat [numBatches][]float64
	var ans [numBatches]int
	var bill [numBatches]float64
	for i, p := range s.ans {
		for j, x := range p {
			b := int(s.ansSec[i][j]) * numBatches / numSections
			lat[b] = append(lat[b], seconds64(x))
			ans[b]++
		}
	}
	for i, p := range s.miss {
		for j := range p {
			b := int(s.missSec[i][j]) * numBatches / numSections
			lat[b] = append(lat[b], math.Inf(1))
		}
	}
	for k := range numSections {
		bill[k*numBatches/numSections] += s.secBill[2*k] + s.secBill[2*k+1]
	}
	// GridShares: the same batches over the whole run, with the share
	// answered within 10 s counted by brute force.
	var within [numBatches]int
	for i, p := range s.ans {
		for j, x := range p {
			if float64(x) <= 10 {
				within[int(s.ansSec[i][j])*numBatches/numSections]++
			}
		}
	}
	ga, gw, gc, ok := res.Classes[0].GridShares(10)
	if !ok {
		t.Fatal("GridShares: not batched")
	}
	for b := range numBatches {
		n := float64(len(lat[b]))
		if ga[b] != float64(ans[b])/n || gw[b] != float64(within[b])/n || math.Abs(gc[b]-1000*bill[b]/n) > 1e-9*gc[b] {
			t.Errorf("GridShares batch %d: answered %v within %v cost %v; want %v, %v, %v", b, ga[b], gw[b], gc[b], float64(ans[b])/n, float64(within[b])/n, 1000*bill[b]/n)
		}
	}
	if _, gw, _, _ := res.Classes[0].GridShares(0); gw != nil {
		t.Error("GridShares(0) gives shares within no target")
	}
	ss := newSectionSums(s)
	for _, cut := range []int{0, 100} {
		p := perBatchGrid(s, ss, bySection(s, ss), cut, ss.summarize(s, cut))
		if p.Count != numBatches {
			t.Fatalf("cut %d: %d batches, want %d", cut, p.Count, numBatches)
		}
		if want := (cut*numBatches + numSections - 1) / numSections; p.FirstKept != want {
			t.Errorf("cut %d: first kept batch %d, want %d", cut, p.FirstKept, want)
		}
		for b := range numBatches {
			xs := slices.Clone(lat[b])
			slices.Sort(xs)
			for _, q := range []struct {
				name string
				p    float64
				got  float64
			}{{"p50", 0.5, p.P50[b]}, {"p95", 0.95, p.P95[b]}, {"p99", 0.99, p.P99[b]}} {
				if want := xs[NearestRank(len(xs), q.p)]; q.got != want {
					t.Errorf("cut %d, batch %d: %s %v, want %v", cut, b, q.name, q.got, want)
				}
			}
			if want := float64(ans[b]) / float64(len(xs)); p.AnsweredShare[b] != want {
				t.Errorf("cut %d, batch %d: answered share %v, want %v", cut, b, p.AnsweredShare[b], want)
			}
			if want := 1000 * bill[b] / float64(len(xs)); math.Abs(p.CostPer1k[b]-want) > 1e-9*want {
				t.Errorf("cut %d, batch %d: cost/1k %v, want %v", cut, b, p.CostPer1k[b], want)
			}
		}
		// Linearised percentiles (linearised.go), by brute force over the
		// batches from the first kept on: ψ_b = q + (F̄ − F_b(q))/f, f from
		// the percentiles at p ± (1−p)/5; they average to q over those
		// batches. At a deadline of 40 s, P(sojourn > 40 s) = e⁻⁴ = 1.8 %,
		// so the pooled p99 is a miss and every ψ_b of p99 is one too.
		var kept []float64
		for b := p.FirstKept; b < numBatches; b++ {
			kept = append(kept, lat[b]...)
		}
		slices.Sort(kept)
		rank := func(p float64) float64 { return kept[NearestRank(len(kept), p)] }
		for _, q := range []struct {
			name string
			p    float64
			got  []float64
		}{{"p50", 0.5, p.P50Lin}, {"p95", 0.95, p.P95Lin}, {"p99", 0.99, p.P99Lin}} {
			h := (1 - q.p) / 5
			pooled, f := rank(q.p), 2*h/(rank(q.p+h)-rank(q.p-h))
			if math.IsInf(pooled, 1) {
				for b, x := range q.got {
					if !math.IsInf(x, 1) {
						t.Errorf("cut %d, batch %d: %s linearised %v with a pooled miss, want a miss", cut, b, q.name, x)
					}
				}
				continue
			}
			share := make([]float64, numBatches)
			var fbar float64
			for b := range numBatches {
				at := 0
				for _, x := range lat[b] {
					if x <= pooled {
						at++
					}
				}
				share[b] = float64(at) / float64(len(lat[b]))
				if b >= p.FirstKept {
					fbar += share[b] / float64(numBatches-p.FirstKept)
				}
			}
			var mean float64
			for b := range numBatches {
				want := pooled + (fbar-share[b])/f
				if math.Abs(q.got[b]-want) > 1e-9*pooled {
					t.Errorf("cut %d, batch %d: %s linearised %v, want %v", cut, b, q.name, q.got[b], want)
				}
				if b >= p.FirstKept {
					mean += q.got[b] / float64(numBatches-p.FirstKept)
				}
			}
			if math.Abs(mean-pooled) > 1e-9*pooled {
				t.Errorf("cut %d: %s linearised values average %v over the kept batches, want the pooled %v", cut, q.name, mean, pooled)
			}
		}
		if !slices.ContainsFunc(p.P99, func(x float64) bool { return math.IsInf(x, 1) }) {
			t.Errorf("cut %d: no batch's p99 is a miss: the round trip does not test null", cut)
		}
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var back PerBatch
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		for _, pair := range [][2][]float64{{p.P50, back.P50}, {p.P95, back.P95}, {p.P99, back.P99}, {p.AnsweredShare, back.AnsweredShare}, {p.CostPer1k, back.CostPer1k}, {p.P50Lin, back.P50Lin}, {p.P95Lin, back.P95Lin}} {
			if !slices.Equal(pair[0], pair[1]) {
				t.Errorf("cut %d: JSON round trip %v → %v", cut, pair[0], pair[1])
			}
		}
	}
}

// TestNewReportPerBatch: NewReportPerBatch's report is NewReport's with
// each batched class row's PerBatch added, and nothing else changed.
func TestNewReportPerBatch(t *testing.T) {
	cfg := &Config{
		Name: "queue", Seed: 5, Requests: 20_000,
		Arrivals:  Arrivals{Process: Poisson, Rate: 0.9},
		Models:    []Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}}},
		Providers: []Provider{{Name: "p", Concurrency: 1}},
		Classes: []Class{{Name: "c", Share: 1,
			InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plain, with := NewReport(cfg, res, res), NewReportPerBatch(cfg, res, res)
	if plain.Classes[0].PerBatch != nil {
		t.Error("NewReport gives per-batch figures")
	}
	p := with.Classes[0].PerBatch
	if p == nil || p.Count != numBatches || len(p.P95) != numBatches || with.Overall.PerBatch != nil {
		t.Fatalf("NewReportPerBatch: class %+v, overall %+v", p, with.Overall.PerBatch)
	}
	with.Classes[0].PerBatch = nil
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(with)
	if string(a) != string(b) {
		t.Error("NewReportPerBatch changed more than PerBatch")
	}
}
