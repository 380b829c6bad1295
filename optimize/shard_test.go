package optimize_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// shardedSweep runs the sweep on n shards, stage after stage, each part
// carried through its JSON form, and assembles the report; it returns the
// report, the number of stages and the parts of the first stage.
func shardedSweep(t *testing.T, cfg *sim.Config, s optimize.Settings, n int) (*optimize.Report, int, [][]optimize.Measurement) {
	t.Helper()
	var known, first [][]optimize.Measurement
	var state []optimize.Measurement
	for stage := 1; stage <= 2*optimize.MaxJointRounds*len(cfg.Classes)+1; stage++ {
		known = nil
		for i := range n {
			part, err := optimize.RunShard(cfg, s, optimize.Shard{Index: i, Count: n}, state, optimize.Options{Workers: 2})
			if err != nil {
				t.Fatalf("stage %d, shard %d/%d: %v", stage, i, n, err)
			}
			data, err := json.Marshal(part)
			if err != nil {
				t.Fatal(err)
			}
			var back []optimize.Measurement
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			known = append(known, back)
		}
		if stage == 1 {
			first = known
		}
		all, err := optimize.Union(known...)
		if err != nil {
			t.Fatal(err)
		}
		rep, next, err := optimize.Assemble(cfg, s, all, optimize.Options{Workers: 2})
		if err != nil {
			t.Fatalf("stage %d, %d shards: %v", stage, n, err)
		}
		if rep != nil {
			if len(next) > 0 {
				t.Fatalf("a report and next steps %q", next)
			}
			return rep, stage, first
		}
		if len(next) == 0 {
			t.Fatalf("stage %d: no report and no next step", stage)
		}
		state = all
	}
	t.Fatalf("%d shards: no report after the most stages a sweep can need", n)
	return nil, 0, nil
}

func reportBytes(t *testing.T, rep *optimize.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteText(&b, true); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A sweep split over 1, 2 or 3 shards (3 under -short) assembles into Run's report, byte
// for byte, for classes swept alone and for coupled classes (which take
// one stage per step of their coordinate descent when split).
func TestShardedSweepIsRun(t *testing.T) {
	t.Parallel()
	for _, name := range []string{scenarios.Default, "shared-rate-limit.toml"} {
		t.Run(name, func(t *testing.T) {
			sc, err := scenario.LoadFS(scenarios.FS, name)
			if err != nil {
				t.Fatal(err)
			}
			s := sc.Optimize
			s.Requests = 1500
			s.CheckRequests = 3000
			want, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			wantBytes := reportBytes(t, want)
			coupled := len(want.Joint) > 0
			if coupled != (name != scenarios.Default) {
				t.Fatalf("%s: %d coupled groups; the test needs the default scenario without and shared-rate-limit with", name, len(want.Joint))
			}
			shards := []int{1, 2, 3}
			if testing.Short() {
				shards = []int{3} // split, and on coupled classes a stage per step
			}
			for _, n := range shards {
				got, stages, first := shardedSweep(t, &sc.Config, s, n)
				t.Logf("%d shard(s): %d stage(s)", n, stages)
				if g := reportBytes(t, got); !bytes.Equal(g, wantBytes) {
					t.Errorf("%d shards: the assembled report differs from Run's:\n%s", n, firstDiff(g, wantBytes))
				}
				switch {
				case n == 1 && stages != 1:
					t.Errorf("1 shard: %d stages, want 1", stages)
				case n > 1 && coupled && stages < 2:
					t.Errorf("%d shards of coupled classes: %d stage(s), want one per step", n, stages)
				case !coupled && stages != 1:
					t.Errorf("%d shards, no coupled classes: %d stages, want 1", n, stages)
				}
				// The shards of a stage split the hedged candidates: none
				// is simulated by two of them.
				seen := map[string]int{}
				for i, part := range first {
					for _, m := range part {
						if strings.HasSuffix(m.Key, ": none") {
							continue
						}
						if j, ok := seen[m.Key]; ok {
							t.Errorf("%d shards: %q simulated by shards %d and %d", n, m.Key, j, i)
						}
						seen[m.Key] = i
					}
				}
				if len(seen) == 0 {
					t.Errorf("%d shards: no candidate simulated", n)
				}
			}
		})
	}
}

// Assembling without one shard's part is an error naming a measurement,
// not a report.
func TestAssembleMissingShard(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, scenarios.Default)
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests = 500
	s.CheckRequests = 0
	part, err := optimize.RunShard(&sc.Config, s, optimize.Shard{Index: 0, Count: 2}, nil, optimize.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := optimize.Assemble(&sc.Config, s, part, optimize.Options{Workers: 2})
	if err == nil || rep != nil || !errors.Is(err, optimize.ErrMissingMeasurement) {
		t.Fatalf("Assemble of shard 0/2 only: report %v, error %v; want an error naming a missing measurement", rep != nil, err)
	}
}

// Parts that disagree on a measurement are refused.
func TestUnionConflict(t *testing.T) {
	a := []optimize.Measurement{{Key: "class x: none", Requests: 10}}
	b := []optimize.Measurement{{Key: "class x: none", Requests: 11}}
	if _, err := optimize.Union(a, b); err == nil || !strings.Contains(err.Error(), `"class x: none" differs`) {
		t.Fatalf("Union of conflicting measurements: %v", err)
	}
	got, err := optimize.Union(a, a, nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("Union of equal measurements: %v, %v", got, err)
	}
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want optimize.Shard
		err  string
	}{
		{"0/1", optimize.Shard{Index: 0, Count: 1}, ""},
		{"2/3", optimize.Shard{Index: 2, Count: 3}, ""},
		{"10/12", optimize.Shard{Index: 10, Count: 12}, ""},
		{" 1/2 ", optimize.Shard{}, "is not i/n"},
		{" 0/3", optimize.Shard{}, "is not i/n"},
		{"0/3 ", optimize.Shard{}, "is not i/n"},
		{"+1/3", optimize.Shard{}, "is not i/n"},
		{"01/3", optimize.Shard{}, "is not i/n"},
		{"1/03", optimize.Shard{}, "is not i/n"},
		{"1/+3", optimize.Shard{}, "is not i/n"},
		{"1/3/4", optimize.Shard{}, "is not i/n"},
		{"3/3", optimize.Shard{}, "index must be in [0, 3)"},
		{"-1/3", optimize.Shard{}, "index must be in [0, 3)"},
		{"0/0", optimize.Shard{}, "must be ≥ 1"},
		{"1", optimize.Shard{}, "is not i/n"},
		{"a/b", optimize.Shard{}, "is not i/n"},
		{"", optimize.Shard{}, "is not i/n"},
	} {
		got, err := optimize.ParseShard(c.in)
		if c.err == "" {
			if err != nil || got != c.want {
				t.Errorf("ParseShard(%q) = %v, %v; want %v", c.in, got, err, c.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseShard(%q) error %v; want one containing %q", c.in, err, c.err)
		}
	}
}

// Measurements read back bit for bit through JSON, misses and NaN
// included.
func TestMeasurementJSONExact(t *testing.T) {
	inf := 1 / zero
	m := optimize.Measurement{
		Key: "class k: none", Requests: 7,
		Latency:       sim.Latency{Mean: 0.1 + 0.2, P50: 0.1 + 0.2, P90: 1.0 / 3, P95: inf, P99: inf, P999: inf, P95CI95: [2]float64{1.0 / 3, inf}, P99CI95: [2]float64{inf, inf}, P95CIOK: true},
		AnsweredShare: 2.0 / 3, CostPer1kUSD: math.Copysign(0, -1),
		Survival: []optimize.SurvivalPoint{{T: 1e-300, S: 0.999}},
		Span:     &[2]float64{inf - inf, 12.5},
		// A batched run's batch figures: no target (no shares within it),
		// an empty batch (NaN).
		Batches: [2][]float64{{1.0 / 3, 2}, {inf, 3}},
		Shares:  [3][]float64{{2.0 / 3, inf - inf}, nil, {0.1 + 0.2, 1}},
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back optimize.Measurement
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if back.Shares[1] != nil || back.Shares[0][0] != 2.0/3 || back.Shares[0][1] == back.Shares[0][1] || back.Shares[2][0] != 0.1+0.2 || back.Batches[1][0] != inf {
		t.Errorf("batch figures changed: %v, %v", back.Batches, back.Shares)
	}
	if !bytes.Equal(b, b2) || back.Latency.P50 != 0.1+0.2 || back.Latency.P95CI95[0] != 1.0/3 || back.Latency.Mean != 0.1+0.2 || back.Span[0] == back.Span[0] || !math.Signbit(back.CostPer1kUSD) {
		t.Fatalf("round trip changed the measurement:\n%s\n%s", b, b2)
	}
	if err := json.Unmarshal([]byte(`{"key":"k","requests":1,"latency_s":["Infinity",0,0,0,0,0,0,0,0,0]}`), &back); err == nil {
		t.Fatal("a latency of \"Infinity\" was accepted")
	}
}

var zero float64

// firstDiff shows where two outputs first differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return "got:  …" + string(a[lo:min(len(a), i+200)]) + "\nwant: …" + string(b[lo:min(len(b), i+200)])
}

// Candidates the simulator rejects are left out of an assembled report
// with the same warnings as Run's; when every hedged candidate is
// rejected, Assemble fails with Run's error, still sim.ErrInvalidConfig
// when Run's is.
func TestShardedInvalidCandidates(t *testing.T) {
	cfg := lognormalConfig()
	cfg.Models = append(cfg.Models, sim.Model{Name: "b", Provider: "q", Latency: dist.LogNormal{Mu: 0, Sigma: 1}, PriceInputPerMTok: 1})
	cfg.Correlation = sim.Correlation{SameModel: 0, CrossProvider: 0.9}
	s := optimize.DefaultSettings()
	s.Requests = 2000
	s.CheckRequests = 0
	s.Search.Delays = []time.Duration{500 * time.Millisecond, time.Second}
	s.Search.Copies = []int{1, 2}
	s.Search.Targets = []string{"b"}
	want, err := optimize.Run(cfg, s, optimize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _, _ := shardedSweep(t, cfg, s, 3)
	if g, w := reportBytes(t, got), reportBytes(t, want); !bytes.Equal(g, w) {
		t.Errorf("assembled report differs from Run's:\n%s", firstDiff(g, w))
	}

	s.Search.Copies = []int{2}
	_, runErr := optimize.Run(cfg, s, optimize.Options{})
	if runErr == nil {
		t.Fatal("Run: no error with every hedged candidate invalid")
	}
	var parts [][]optimize.Measurement
	for i := range 2 {
		part, err := optimize.RunShard(cfg, s, optimize.Shard{Index: i, Count: 2}, nil, optimize.Options{})
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		parts = append(parts, part)
	}
	all, err := optimize.Union(parts...)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = optimize.Assemble(cfg, s, all, optimize.Options{})
	if err == nil || err.Error() != runErr.Error() || errors.Is(err, sim.ErrInvalidConfig) != errors.Is(runErr, sim.ErrInvalidConfig) {
		t.Errorf("Assemble: %v; want Run's %v", err, runErr)
	}
}
