package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenarios"
)

// TestOptimizeTooFewIsUndecided: replica-pool's classes share a pool, so
// their p95 intervals come from 30 batches of at least 10/(1 − 0.95) = 200
// requests: 6000 requests per candidate. At 5000 the verdict is undecided
// — not "don't hedge" — and says how many are needed after the warm-up
// cut, and the --requests that gives them; every candidate's
// too-few reason names the same 6000 and what the cut left; --write-scenario leaves each class's
// configured hedge table as it is, and says so on stderr.
func TestOptimizeTooFewIsUndecided(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.toml")
	code, stdout, stderr := hedgesim(t, "optimize", "--json", "--requests", "5000", "--check-requests", "0", "--write-scenario", ws, "replica-pool")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Classes []struct {
			Class   string `json:"class"`
			Verdict struct {
				Hedge     bool   `json:"hedge"`
				Undecided bool   `json:"undecided"`
				Label     string `json:"label"`
				Reason    string `json:"reason"`
			} `json:"verdict"`
			Candidates []struct {
				Reasons []struct {
					Code  string  `json:"code"`
					Value float64 `json:"value"`
					Limit float64 `json:"limit"`
					Text  string  `json:"text"`
				} `json:"reasons"`
			} `json:"candidates"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Classes) != 3 {
		t.Fatalf("%d classes; want replica-pool's 3", len(rep.Classes))
	}
	// The advice scales 6000 by the requests asked per request kept after
	// the warm-up cut: more than 6000 (it once said 6000, which fails
	// again).
	advice := regexp.MustCompile(`^cannot tell at 5000 requests: too few for a 95% interval on p95 \(5000 simulated per candidate, (\d+) after the warm-up cut, at least 6000 needed\): rerun with --requests ≥ (\d+)`)
	for _, cr := range rep.Classes {
		v := cr.Verdict
		m := advice.FindStringSubmatch(v.Reason)
		if v.Hedge || !v.Undecided || v.Label != "undecided" || m == nil {
			t.Errorf("class %s: verdict %+v; want undecided, 6000 requests needed after the warm-up cut", cr.Class, v)
		} else if kept, _ := strconv.Atoi(m[1]); kept >= 6000 || mustAtoi(t, m[2]) < 6000*5000/kept {
			t.Errorf("class %s: %s kept, advice --requests %s; want at least 6000 × 5000 ÷ the kept", cr.Class, m[1], m[2])
		}
		tooFew := 0
		for _, c := range cr.Candidates {
			for _, r := range c.Reasons {
				if r.Code != "too_few_requests" {
					continue
				}
				tooFew++
				// Value is what the cut kept of the candidate's and no
				// hedging's requests (the verdict's, of the pick's).
				want := fmt.Sprintf("(5000 simulated, the warm-up cut left %v, 6000 needed after it)", r.Value)
				if r.Value >= 5000 || r.Limit != 6000 || !strings.Contains(r.Text, want) {
					t.Errorf("class %s: reason %+v; want %s, as the verdict says", cr.Class, r, want)
				}
			}
		}
		if tooFew == 0 {
			t.Errorf("class %s: no candidate rejected for too few requests", cr.Class)
		}
		if !strings.Contains(stderr, "class "+cr.Class+" keeps its configured policy: its verdict is undecided") {
			t.Errorf("class %s: stderr does not say its configured policy is kept:\n%s", cr.Class, stderr)
		}
	}
	src, err := scenarios.FS.ReadFile("replica-pool.toml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(ws)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := hedgeLines(got), hedgeLines(src); strings.Join(g, "\n") != strings.Join(w, "\n") || len(w) == 0 {
		t.Errorf("--write-scenario rewrote the hedges of undecided classes: %q; want the configured %q", g, w)
	}
}

// TestUndecidedRolloutAndExportKeepConfigured: at 5000 requests every class
// of replica-pool is undecided (TestOptimizeTooFewIsUndecided), so what is
// rolled out is each class's configured policy, as --write-scenario keeps
// it. The rollout check then runs the scenario exactly as configured: its
// report equals `hedgesim run` of the scenario with the check's requests
// and seed (the same draws; not a statistical comparison), and it says so
// per class. export of the report writes each class's configured policy —
// the document `export replica-pool` writes from the scenario — with a
// reason saying the verdict was undecided and why, also on stderr.
func TestUndecidedRolloutAndExportKeepConfigured(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := hedgesim(t, "optimize", "--json", "--requests", "5000", "--check-requests", "20000", "replica-pool")
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, stderr)
	}
	var rep struct {
		Classes []struct {
			Class   string `json:"class"`
			Verdict struct {
				Undecided bool   `json:"undecided"`
				Reason    string `json:"reason"`
			} `json:"verdict"`
		} `json:"classes"`
		Rollout struct {
			Classes []struct {
				Class   string `json:"class"`
				Pick    string `json:"pick"`
				Unswept bool   `json:"unswept"`
				Note    string `json:"note"`
			} `json:"classes"`
			Report struct {
				Classes []json.RawMessage `json:"classes"`
			} `json:"report"`
		} `json:"rollout_check"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Classes) != 3 || len(rep.Rollout.Classes) != 3 {
		t.Fatalf("%d classes, %d in the rollout check; want replica-pool's 3", len(rep.Classes), len(rep.Rollout.Classes))
	}
	for i, cr := range rep.Classes {
		if !cr.Verdict.Undecided {
			t.Fatalf("class %s: verdict not undecided at 5000 requests: %+v", cr.Class, cr.Verdict)
		}
		rc := rep.Rollout.Classes[i]
		// The configured 2 s hedge to another replica is not in the sweep's
		// grid, so there is no prediction for it.
		if rc.Pick != "configured" || !rc.Unswept || !strings.Contains(rc.Note, "the verdict is undecided, so the check runs the class's configured policy") {
			t.Errorf("rollout check class %s: pick %q, unswept %v, note %q; want the configured policy, said so", rc.Class, rc.Pick, rc.Unswept, rc.Note)
		}
	}
	code, runOut, stderr := hedgesim(t, "run", "--json", "--requests", "20000", "replica-pool")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var run struct {
		Classes []json.RawMessage `json:"classes"`
	}
	if err := json.Unmarshal([]byte(runOut), &run); err != nil {
		t.Fatal(err)
	}
	if len(run.Classes) != len(rep.Rollout.Report.Classes) {
		t.Fatalf("run has %d classes, the rollout check %d", len(run.Classes), len(rep.Rollout.Report.Classes))
	}
	for i := range run.Classes {
		var a, b any
		if err := json.Unmarshal(run.Classes[i], &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(rep.Rollout.Report.Classes[i], &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("class %d: the rollout check's result differs from `run` of the configured scenario:\ncheck %s\nrun   %s", i, rep.Rollout.Report.Classes[i], run.Classes[i])
		}
	}

	r := filepath.Join(dir, "r.json")
	if err := os.WriteFile(r, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	code, got, stderr := hedgesim(t, "export", "--format", "json", r)
	if code != 0 {
		t.Fatalf("export of the report: exit %d: %s", code, stderr)
	}
	code, want, werr := hedgesim(t, "export", "--format", "json", "replica-pool")
	if code != 0 {
		t.Fatalf("export of the scenario: exit %d: %s", code, werr)
	}
	var gd, wd struct {
		Classes []map[string]any `json:"classes"`
	}
	if err := json.Unmarshal([]byte(got), &gd); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &wd); err != nil {
		t.Fatal(err)
	}
	if len(gd.Classes) != len(rep.Classes) || len(wd.Classes) != len(rep.Classes) {
		t.Fatalf("exported %d classes from the report, %d from the scenario; want %d", len(gd.Classes), len(wd.Classes), len(rep.Classes))
	}
	for i, cr := range rep.Classes {
		g := gd.Classes[i]
		wantReason := "the verdict is undecided, so the configured policy is kept: " + cr.Verdict.Reason
		if g["reason"] != wantReason {
			t.Errorf("class %s: reason %q; want %q", cr.Class, g["reason"], wantReason)
		}
		if g["hedge"] != true {
			t.Errorf("class %s: hedge %v; want the configured hedge", cr.Class, g["hedge"])
		}
		delete(g, "reason")
		if !reflect.DeepEqual(g, wd.Classes[i]) {
			t.Errorf("class %s: exported\n%v\nwant the configured policy\n%v", cr.Class, g, wd.Classes[i])
		}
		if !strings.Contains(stderr, cr.Class+": "+wantReason) {
			t.Errorf("class %s: stderr does not note the undecided verdict:\n%s", cr.Class, stderr)
		}
	}
}

// TestUndecidedPipelineKeepsConfigured: at 100 requests fan-out's pipeline
// class is undecided; --write-scenario keeps each step's configured hedge
// table as it is (the steps hedge nothing: no "max_copies = 0" is written
// into them) and says so on stderr, the rollout check runs the configured
// pipeline, compares it with the sweep's no-hedging candidate (the same
// step policies) and says so, and export writes each step's configured policy
// with the undecided reason.
func TestUndecidedPipelineKeepsConfigured(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.toml")
	code, stdout, stderr := hedgesim(t, "optimize", "--json", "--requests", "100", "--check-requests", "300", "--write-scenario", ws, "fan-out")
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, stderr)
	}
	var rep struct {
		Classes []struct {
			Class   string `json:"class"`
			Verdict struct {
				Undecided bool   `json:"undecided"`
				Reason    string `json:"reason"`
			} `json:"verdict"`
		} `json:"classes"`
		Rollout struct {
			Classes []struct {
				Pick    string `json:"pick"`
				Unswept bool   `json:"unswept"`
				Note    string `json:"note"`
			} `json:"classes"`
		} `json:"rollout_check"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Classes) != 1 || !rep.Classes[0].Verdict.Undecided || len(rep.Rollout.Classes) != 1 {
		t.Fatalf("classes %+v, rollout check %+v; want fan-out's one class, undecided at 100 requests", rep.Classes, rep.Rollout)
	}
	cr := rep.Classes[0]
	if !strings.Contains(stderr, "class "+cr.Class+" keeps its configured policy: its verdict is undecided") {
		t.Errorf("stderr does not say the configured policy is kept:\n%s", stderr)
	}
	src, err := scenarios.FS.ReadFile("fan-out.toml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(ws)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := hedgeLines(got), hedgeLines(src); strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("--write-scenario rewrote the step hedges of an undecided class: %q; want the configured %q", g, w)
	}
	// The configured steps hedge nothing: the sweep's no-hedging candidate
	// simulated them, and is the prediction.
	if rc := rep.Rollout.Classes[0]; rc.Pick != "configured" || rc.Unswept || !strings.Contains(rc.Note, "the verdict is undecided, so the check runs the class's configured policy") {
		t.Errorf("rollout check: pick %q, unswept %v, note %q; want the configured policy, predicted by no hedging, said so", rc.Pick, rc.Unswept, rc.Note)
	}
	r := filepath.Join(dir, "r.json")
	if err := os.WriteFile(r, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	gd, wd := exportJSON(t, r), exportJSON(t, "fan-out")
	if len(gd) != 2 || len(wd) != 2 {
		t.Fatalf("exported %d step policies from the report, %d from the scenario; want fan-out's 2 steps", len(gd), len(wd))
	}
	for i := range gd {
		if want := "the verdict is undecided, so the configured policy is kept: " + cr.Verdict.Reason; gd[i]["reason"] != want {
			t.Errorf("step %v: reason %q; want %q", gd[i]["class"], gd[i]["reason"], want)
		}
		delete(gd[i], "reason")
		if !reflect.DeepEqual(gd[i], wd[i]) {
			t.Errorf("step %v: exported\n%v\nwant the configured\n%v", gd[i]["class"], gd[i], wd[i])
		}
	}
}

// hedgeLines returns a scenario file's max_copies and delay lines, in
// order, trimmed: what --write-scenario changes when it writes a pick.
func hedgeLines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if k, _, _ := strings.Cut(strings.TrimSpace(l), "="); strings.TrimSpace(k) == "max_copies" || strings.TrimSpace(k) == "delay" {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// mustAtoi is strconv.Atoi of a number the test's pattern matched.
func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMergeWriteScenarioNotesAreMerge: merge --write-scenario says that
// an undecided class keeps its configured policy as merge ("hedgesim
// merge: --write-scenario …"), not as optimize, which it is not.
func TestMergeWriteScenarioNotesAreMerge(t *testing.T) {
	dir := t.TempDir()
	var parts []string
	for i := range 2 {
		p := filepath.Join(dir, fmt.Sprintf("p%d.json", i))
		if code, _, stderr := hedgesim(t, "optimize", "--requests", "100", "--check-requests", "300", "--shard", fmt.Sprintf("%d/2", i), "--out", p, "fan-out"); code != 0 {
			t.Fatalf("optimize --shard %d/2: exit %d: %s", i, code, stderr)
		}
		parts = append(parts, p)
	}
	args := append(append([]string{"merge"}, parts...), "--out", filepath.Join(dir, "rep"), "--no-plots", "--write-scenario", filepath.Join(dir, "w.toml")) // its stderr is read, not figures
	code, _, stderr := hedgesim(t, args...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "hedgesim merge: --write-scenario ") || !strings.Contains(stderr, "keeps its configured policy: its verdict is undecided") || strings.Contains(stderr, "hedgesim optimize") {
		t.Errorf("merge stderr:\n%s\nwant the undecided class's note prefixed hedgesim merge", stderr)
	}
}
