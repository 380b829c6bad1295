package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
)

// rolloutJSON is the part of an optimize report the rollout tests read.
type rolloutJSON struct {
	Joint []struct {
		Classes []string `json:"classes"`
	} `json:"joint"`
	Rollout struct {
		Requests int     `json:"requests"`
		Seed     *uint64 `json:"seed"`
		Classes  []struct {
			Class   string `json:"class"`
			Pick    string `json:"pick"`
			Flagged bool   `json:"flagged"`
			Note    string `json:"note"`
		} `json:"classes"`
		Report runJSON `json:"report"`
	} `json:"rollout_check"`
}

// runJSON is the part of a run report compared with the rollout check.
type runJSON struct {
	Classes   json.RawMessage `json:"classes"`
	Overall   json.RawMessage `json:"overall"`
	Providers json.RawMessage `json:"providers"`
}

func optimizeJSON(t *testing.T, args ...string) rolloutJSON {
	t.Helper()
	code, out, errOut := hedgesim(t, append([]string{"optimize", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("optimize %q: exit %d: %s", args, code, errOut)
	}
	var r rolloutJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// overallP95 is the traffic-weighted p95 to a usable answer of a rollout
// check (+Inf for a miss) and its answered share.
func overallP95(t *testing.T, r rolloutJSON) (float64, float64) {
	var o struct {
		Latency struct {
			P95 *float64 `json:"p95"`
		} `json:"latency_s"`
		Answered float64 `json:"answered_share"`
	}
	if err := json.Unmarshal(r.Rollout.Report.Overall, &o); err != nil {
		t.Fatal(err)
	}
	if o.Latency.P95 == nil {
		return math.Inf(1), o.Answered
	}
	return *o.Latency.P95, o.Answered
}

// TestJointBeatsAlone: in shared-rate-limit, two classes hedge into one
// model limited to 90 requests a minute. Swept alone, each class hedges as
// if the limit were its own; applied together, the copies overflow it, the
// 429s end requests, and the rollout check finds both picks answering
// significantly fewer requests than no hedging: neither rolls out, the
// check running no hedging instead. Optimized jointly, the picks fit the
// limit together: a lower overall p95 to a usable answer at no lower
// answered share, both measured by the rollout check on the whole
// traffic.
func TestJointBeatsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("two 20 000-request sweeps of shared-rate-limit with their rollout checks: not in -short")
	}
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory
	args := []string{"--requests", "20000", "shared-rate-limit"}
	joint := optimizeJSON(t, args...)
	alone := optimizeJSON(t, append([]string{"--alone"}, args...)...)
	if len(joint.Joint) != 1 || len(alone.Joint) != 0 {
		t.Fatalf("joint groups %v (want 1) and %v (want 0)", joint.Joint, alone.Joint)
	}
	pj, aj := overallP95(t, joint)
	pa, aa := overallP95(t, alone)
	t.Logf("rollout check: joint p95 %v answered %v; alone p95 %v answered %v", pj, aj, pa, aa)
	if !(pj < pa) || aj < aa {
		t.Errorf("joint p95 %v answered %v; alone p95 %v answered %v: want joint faster with no fewer answers", pj, aj, pa, aa)
	}
	for _, c := range joint.Rollout.Classes {
		if c.Flagged {
			t.Errorf("joint: class %s flagged by the rollout check", c.Class)
		}
	}
	for _, c := range alone.Rollout.Classes {
		if c.Pick != "none" || c.Flagged || !strings.Contains(c.Note, "does not roll out: it answers significantly fewer requests than no hedging") {
			t.Errorf("alone: class %s checked with %q, flagged %v, note %q; want its pick, which overflows the shared limit, not rolled out", c.Class, c.Pick, c.Flagged, c.Note)
		}
	}
}

// TestWriteScenarioReproducesCheck: the scenario written by
// --write-scenario runs to exactly the rollout check's report, with the
// scenario's seed, another given by --seed, or the rollout check's own
// seed when it has no more requests than a candidate (--check-requests
// 5000 = --requests: the file then says seed = CheckSeed(3)); with what-if
// overrides, which the file would not hold, --write-scenario is a usage
// error. Under -short the sweep has 2000 requests (and --check-requests
// 2000): the identity holds at any size.
func TestWriteScenarioReproducesCheck(t *testing.T) {
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory
	requests := "5000"
	if testing.Short() {
		requests = "2000"
	}
	for _, extra := range [][]string{nil, {"--seed", "9"}, {"--check-requests", requests}} {
		out := filepath.Join(t.TempDir(), "picked.toml")
		r := optimizeJSON(t, append(extra, "--requests", requests, "--write-scenario", out, "shared-rate-limit")...)
		code, text, errOut := hedgesim(t, "run", "--json", out)
		if code != 0 {
			t.Fatalf("%v: run %s: exit %d: %s", extra, out, code, errOut)
		}
		var got runJSON
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatal(err)
		}
		want := r.Rollout.Report
		for _, part := range []struct {
			name      string
			got, want json.RawMessage
		}{{"classes", got.Classes, want.Classes}, {"overall", got.Overall, want.Overall}, {"providers", got.Providers, want.Providers}} {
			var g, w any
			json.Unmarshal(part.got, &g)
			json.Unmarshal(part.want, &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%v: %s differ:\nrun:   %s\ncheck: %s", extra, part.name, part.got, part.want)
			}
		}
		src, err := os.ReadFile(out)
		if err != nil || len(src) == 0 {
			t.Fatalf("written scenario: %v", err)
		}
		wantSeed, ownSeed := uint64(9), extra != nil && extra[0] == "--check-requests"
		if ownSeed {
			wantSeed = optimize.CheckSeed(3) // shared-rate-limit's seed = 3
		}
		if (r.Rollout.Seed != nil) != ownSeed || ownSeed && *r.Rollout.Seed != wantSeed {
			t.Errorf("%v: rollout_check.seed %v; want %d only with its own draws", extra, r.Rollout.Seed, wantSeed)
		}
		if extra != nil && !strings.Contains(string(src), fmt.Sprintf("\nseed = %d\n", wantSeed)) {
			t.Errorf("%v: the written scenario has no seed = %d:\n%s", extra, wantSeed, src)
		}
	}
	for _, what := range [][]string{{"--set", "arrivals.rate=40"}, {"--scale-rate", "2"}} {
		out := filepath.Join(t.TempDir(), "picked.toml")
		args := append(append([]string{"optimize", "--requests", "2000"}, what...), "--write-scenario", out, "guard-check")
		code, _, errOut := hedgesim(t, args...)
		if code != exitUsage || !strings.Contains(errOut, "--write-scenario cannot go with --set or --scale-rate") {
			t.Errorf("%v: exit %d, %q; want 2 and why", what, code, errOut)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s was written", what, out)
		}
	}
}

// TestUncoupledIsPerClass: in scenarios whose classes share no limited
// provider, model or budget, no joint group is formed and the report is
// byte-identical to one with every class swept alone.
func TestUncoupledIsPerClass(t *testing.T) {
	for _, name := range []string{"guard-check", "llmperf-70b", "two-model-gateway"} {
		args := []string{"optimize", "--json", "--requests", "3000", "--delays", "500ms,1s", name}
		c1, a, e1 := hedgesim(t, args...)
		c2, b, e2 := hedgesim(t, append(args, "--alone")...)
		if c1 != 0 || c2 != 0 {
			t.Fatalf("%s: exit %d, %d: %s %s", name, c1, c2, e1, e2)
		}
		if a != b {
			t.Errorf("%s: report differs with --alone", name)
		}
		var r rolloutJSON
		if err := json.Unmarshal([]byte(a), &r); err != nil || len(r.Joint) != 0 {
			t.Errorf("%s: joint groups %v (%v)", name, r.Joint, err)
		}
	}
}

// TestFailingCopyWarnsAndIsNotPicked: the smallest input of failures that
// looked fast — copies at once to a model that admits 6 requests a minute,
// a 429 ending the request. `run` warns that the answered share fell;
// `optimize` does not recommend hedging at 0s.
func TestFailingCopyWarnsAndIsNotPicked(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "optimize", "testdata", "rate-limited-copy.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), `delay = "2s"`, `delay = "0s"`, 1)
	path := writeScenario(t, text)
	code, out, errOut := hedgesim(t, "run", "--requests", "20000", path)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "warning: long: hedging lowers the answered share significantly") {
		t.Errorf("run: no answered-share warning:\n%s", out)
	}
	code, out, errOut = hedgesim(t, "optimize", "--requests", "20000", "--max-cost", "inf", path)
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "long ") {
			line = l
			break
		}
	}
	f := strings.Fields(line)
	if len(f) < 3 || (f[1] == "hedge" && f[2] == "0s") {
		t.Errorf("optimize recommends %q", line)
	}
	if !strings.Contains(line, "don't hedge") && !strings.Contains(line, "100.0% → 100.0%") {
		t.Errorf("optimize pick answers fewer requests: %q", line)
	}
}
