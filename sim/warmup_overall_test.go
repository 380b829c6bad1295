package sim_test

import (
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// mserSections returns the first arrival section that MSER keeps on the
// means of the non-empty sections of cnt and sum.
func mserSections(cnt []int64, sum []float64) int {
	var ys []float64
	var idx []int
	for k := range cnt {
		if cnt[k] > 0 {
			ys = append(ys, sum[k]/float64(cnt[k]))
			idx = append(idx, k)
		}
	}
	if d := sim.MSERCut(ys); d > 0 {
		return idx[d]
	}
	return 0
}

// TestOverallWarmUpOnMergedSections: the overall row's warm-up cut is
// MSER on its own series — the arrival sections of all its classes'
// requests together — not one derived from its classes' cuts. The
// sections are the run's arrival sections (global arrival index ×
// sections ÷ requests), the same for every class, so each overall
// section holds exactly its classes' requests of that section and its
// latency sum is theirs (to float rounding); and the overall row cuts the
// requests of the sections before the later of the hedged run's and the
// baseline's MSER cut on those merged means. replica-pool at 20 000
// requests (seed 1) is the case where that cut (960 requests) is far
// above any class's: the merged series' MSER curve is nearly flat, and its
// minimum falls at section 48 (docs/report.md).
func TestOverallWarmUpOnMergedSections(t *testing.T) {
	t.Parallel()
	text, err := scenarios.FS.ReadFile("replica-pool.toml")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("replica-pool.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	cfg.Requests = 20000
	h, b := mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg))
	cut := 0
	for _, res := range []*sim.Result{h, b} {
		cnt, sum := sim.SectionCounts(&res.Overall)
		if cnt == nil {
			t.Fatal("overall row has no sections")
		}
		for k := range cnt {
			var n int64
			var s float64
			for i := range res.Classes {
				cc, cs := sim.SectionCounts(&res.Classes[i])
				n += cc[k]
				s += cs[k]
			}
			if n != cnt[k] || math.Abs(s-sum[k]) > 1e-9*math.Max(1, math.Abs(s)) {
				t.Fatalf("section %d: overall %d requests, latency sum %v; its classes %d, %v", k, cnt[k], sum[k], n, s)
			}
		}
		cut = max(cut, mserSections(cnt, sum))
	}
	cnt, _ := sim.SectionCounts(&h.Overall)
	var want int64
	for k := range cut {
		want += cnt[k]
	}
	r := sim.NewReport(cfg, h, b)
	if r.Overall.WarmUp == nil || r.Overall.WarmUp.Requests != want {
		t.Fatalf("overall warm-up %+v; want %d requests (MSER on the merged sections: first kept %d)", r.Overall.WarmUp, want, cut)
	}
	if want != 960 {
		t.Errorf("overall cut %d requests; the documented replica-pool case cuts 960", want)
	}
	for _, c := range r.Classes {
		if c.WarmUp == nil || c.WarmUp.Requests > 22 {
			t.Errorf("class %s warm-up %+v; the documented case cuts at most 22 requests per class", c.Class, c.WarmUp)
		}
	}
}
