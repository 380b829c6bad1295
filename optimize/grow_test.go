package optimize_test

import (
	"bytes"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestGrowthMatchesRun: a Growth of long-prompts (three one-call classes
// on the lane) swept at 2000, 4000 and 8000 requests per candidate and
// finished gives Run's report at 8000, JSON byte for byte, rollout check
// included; each run of the last sweep extended one of the sweep before
// or was new, so the requests simulated per candidate are at most
// 2000 + 8000 (a delay dropped at 4000 and tried again at 8000) and
// below the 14 000 of sweeping again. With the kept runs bounded below
// what they hold (keptBytes, 1 MiB), every sweep after the first simulates
// again: the same report, 14 000 requests per candidate.
func TestGrowthMatchesRun(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "long-prompts.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.CheckRequests = 3000
	s.Requests = 8000
	want, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := want.WriteJSON(&w); err != nil {
		t.Fatal(err)
	}
	def := optimize.SetKeptBytes(0)
	optimize.SetKeptBytes(def)
	defer optimize.SetKeptBytes(def)
	for _, bound := range []int64{def, 1 << 20} {
		optimize.SetKeptBytes(bound)
		g := optimize.NewGrowth(&sc.Config, optimize.Options{Workers: 2})
		var rep *optimize.Report
		for _, n := range []int{2000, 4000, 8000} {
			s.Requests = n
			if rep, err = g.Sweep(s); err != nil {
				t.Fatal(err)
			}
			if rep.Rollout != nil {
				t.Errorf("bound %d, %d requests: a sweep made the rollout check; want it made by Finish only", bound, n)
			}
		}
		if err := g.Finish(s, rep); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := rep.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), w.Bytes()) {
			t.Errorf("bound %d: the grown report differs from Run's:\n%s\nwant\n%s", bound, b.Bytes(), w.Bytes())
		}
		n := g.Simulated()
		if bound == 1<<20 && n != 14000 || bound != 1<<20 && (n < 8000 || n > 10000) {
			t.Errorf("bound %d: %d requests simulated per candidate; want 14000 past the bound, 8000 to 10000 within it", bound, n)
		}
		t.Logf("bound %d: %d requests simulated per candidate", bound, n)
	}
}
