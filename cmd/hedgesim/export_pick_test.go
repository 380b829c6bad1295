package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exportJSON exports a report or scenario as the neutral json document and
// returns its classes.
func exportJSON(t *testing.T, input string) []map[string]any {
	t.Helper()
	code, out, errOut := hedgesim(t, "export", "--format", "json", input)
	if code != 0 {
		t.Fatalf("export %s: exit %d: %s", input, code, errOut)
	}
	var d struct {
		Classes []map[string]any `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d.Classes
}

// TestExportKeptConfiguredPolicy: overloaded-pool's class sends a fallback
// copy after a 503; optimize keeps that configured policy (every other
// pick answers fewer requests), and exporting the report writes the
// fallback, not a copy at once.
func TestExportKeptConfiguredPolicy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rep")
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "5000", "--check-requests", "0", "--no-plots", "--out", dir, "overloaded-pool"); code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	cls := exportJSON(t, filepath.Join(dir, "report.json"))
	copies, _ := cls[0]["copies"].([]any)
	if len(copies) != 1 || cls[0]["hedge"] != true {
		t.Fatalf("class %v: want one copy", cls[0])
	}
	if c := copies[0].(map[string]any); c["fallback"] != true {
		t.Errorf("exported copy %v: want the configured fallback", c)
	}
}

// TestExportDontHedgeDropsAttemptTimeout: "don't hedge" means no copies and
// no per-attempt timeout, as optimize simulated it; exporting the report
// must not keep the class's 3 s attempt timeout, which would cut every
// 4 s answer. 6000 requests give the p95 an interval: with fewer the
// verdict is undecided, and export keeps the configured policy.
func TestExportDontHedgeDropsAttemptTimeout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rep")
	src := filepath.Join("testdata", "slow-primary-timeout.toml")
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "6000", "--check-requests", "0", "--no-plots", "--out", dir, src); code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	code, out, errOut := hedgesim(t, "export", "--format", "json", "--scenario", src, filepath.Join(dir, "report.json"))
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	var d struct {
		Classes []map[string]any `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	c := d.Classes[0]
	if c["hedge"] != false || c["attempt_timeout_s"] != float64(0) {
		t.Errorf("class %v: want hedging off and no attempt timeout", c)
	}
}

// TestExportScenarioChanged: a report exported against an edited scenario
// (another error rule) is refused: the export takes every setting but the
// pick from the scenario, which must be the one optimize ran.
func TestExportScenarioChanged(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "guard-check.toml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "gc.toml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(dir, "rep")
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "300", "--check-requests", "0", "--no-plots", "--out", rep, path); code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	if code, _, errOut := hedgesim(t, "export", "--format", "grpc", "--scenario", path, filepath.Join(rep, "report.json")); code != 0 {
		t.Fatalf("export, same scenario: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(path, append(src, []byte("\n# edited\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := hedgesim(t, "export", "--format", "grpc", "--scenario", path, filepath.Join(rep, "report.json"))
	if code != 2 || !strings.Contains(errOut, "another version of scenario") {
		t.Errorf("export, edited scenario: exit %d, %q; want 2", code, errOut)
	}
	for _, args := range [][]string{{"export", "--format", "json", ""}, {"export", "--format", "json", "--out", "/dev/null", "guard-check"}} {
		if code, _, errOut := hedgesim(t, args...); code != 2 {
			t.Errorf("%q: exit %d (%s); want 2", args, code, errOut)
		}
	}
}

// TestExportPipelinePerStep: a pipeline class exports one policy per step,
// named PIPELINE/STEP and labelled with the step, the pick's copies on the
// steps the optimizer hedged and none on the others, and every format says
// that the end-to-end deadline is the caller's to enforce and, for a guard
// that fails open, that its missing verdicts leave turns answered but not
// checked; the chat step, which fails closed, gets no such note.
func TestExportPipelinePerStep(t *testing.T) {
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory
	dir := filepath.Join(t.TempDir(), "rep")
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "4000", "--check-requests", "0", "--no-plots", "--out", dir, "help-chat-turn"); code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	pick := pickedSteps(t, data)
	cls := exportJSON(t, filepath.Join(dir, "report.json"))
	if len(cls) != 4 || len(pick) != 4 {
		t.Fatalf("%d exported classes and %d picked steps; want 4 (one per step)", len(cls), len(pick))
	}
	hedged := 0
	for i, c := range cls {
		if c["class"] != "turn/"+pick[i].Step || c["pipeline"] != "turn" || c["step"] != pick[i].Step || c["end_to_end_deadline_s"] != 60.0 {
			t.Errorf("class %d: %v %v %v %v", i, c["class"], c["pipeline"], c["step"], c["end_to_end_deadline_s"])
		}
		copies, _ := c["copies"].([]any)
		if c["hedge"] != pick[i].Hedging || pick[i].Hedging && (len(copies) != pick[i].Copies || copies[0].(map[string]any)["delay_s"] != pick[i].Delay) {
			t.Errorf("step %s: exported %v with copies %v; picked %+v", pick[i].Step, c["hedge"], copies, pick[i])
		}
		if pick[i].Hedging {
			hedged++
		}
	}
	if hedged < 2 {
		t.Errorf("the pick hedges %d steps; the guards should be hedged", hedged)
	}
	// Each step's reason: the class's verdict on a step the pick hedges,
	// the step's own (the report's advice on it) on one it leaves unhedged.
	var rep struct {
		Classes []struct {
			Verdict struct {
				Hedge  bool   `json:"hedge"`
				Reason string `json:"reason"`
			} `json:"verdict"`
			Steps []struct {
				Step, Why string
			} `json:"steps"`
			StepsOf string `json:"steps_of"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	rc := rep.Classes[0]
	if !rc.Verdict.Hedge || rc.StepsOf != "pick" || len(rc.Steps) != 4 {
		t.Fatalf("verdict %+v, steps of %q, %d steps; want hedging, the pick's advice on 4 steps", rc.Verdict, rc.StepsOf, len(rc.Steps))
	}
	unhedged := 0
	for i, c := range cls {
		want := rc.Verdict.Reason
		if !pick[i].Hedging {
			unhedged++
			want = strings.TrimPrefix(rc.Steps[i].Why, "not hedged: ")
			if !strings.Contains(want, "no delay for it") {
				t.Errorf("step %s: the report's advice %q", pick[i].Step, rc.Steps[i].Why)
			}
		}
		if c["reason"] != want {
			t.Errorf("step %s (hedged %v): reason %q; want %q", pick[i].Step, pick[i].Hedging, c["reason"], want)
		}
	}
	if unhedged == 0 {
		t.Errorf("the pick hedges every step; the test needs one it leaves unhedged")
	}
	code, _, errOut := hedgesim(t, "export", "--format", "python", filepath.Join(dir, "report.json"))
	if code != 0 || strings.Contains(errOut, "turn/chat: hedging off: the primary only, with the deadline and error rules: "+rc.Verdict.Reason) {
		t.Errorf("python: exit %d; an unhedged step gets the class's reason:\n%s", code, errOut)
	}
	for _, f := range []string{"grpc", "envoy", "failsafe-go", "polly"} {
		code, _, errOut := hedgesim(t, "export", "--format", f, filepath.Join(dir, "report.json"))
		if code != 0 || !strings.Contains(errOut, "turn/guard-answer: step guard-answer of pipeline turn") || !strings.Contains(errOut, "enforce it in the caller") {
			t.Errorf("%s: exit %d, stderr %s", f, code, errOut)
		}
		for _, line := range strings.Split(errOut, "\n") {
			open := strings.Contains(line, "degraded — answered, not checked")
			if strings.Contains(line, "turn/guard-answer: step guard-answer of pipeline turn") && !open ||
				strings.Contains(line, "turn/chat: step chat of pipeline turn") && open {
				t.Errorf("%s: %q: the fail-open note belongs on the guards only", f, line)
			}
		}
	}
}

// TestExportAppliesReportOverrides: a report made with --set overrides is
// exported with them applied to its scenario — a step's deadline and
// fail-open rule, as optimized — not with the file's values.
func TestExportAppliesReportOverrides(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	code, js, errOut := hedgesim(t, "optimize", "--json", "--requests", "2000", "--check-requests", "0",
		"--set", "classes[0].steps[0].deadline=2s", "--set", "classes[0].steps[0].on_timeout=fail_closed", "help-chat-turn")
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(rep, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	cls := exportJSON(t, rep)
	if c := cls[0]; c["class"] != "turn/guard-question" || c["deadline_s"] != 2.0 || c["on_timeout"] != "fail_closed" {
		t.Errorf("exported %v: deadline %v, on_timeout %v; want the overrides' 2 s, fail_closed", c["class"], c["deadline_s"], c["on_timeout"])
	}
}

// stepPick is one step's policy in an optimize report's pipeline pick.
type stepPick struct {
	Step    string  `json:"step"`
	Hedging bool    `json:"hedging"`
	Delay   float64 `json:"delay_s"`
	Copies  int     `json:"copies"`
}

// pickedSteps returns the step policies of the first class's pick in the
// optimize report js (a pipeline class's).
func pickedSteps(t *testing.T, js []byte) []stepPick {
	t.Helper()
	var rep struct {
		Classes []struct {
			Pick       int `json:"pick"`
			Candidates []struct {
				Steps []stepPick `json:"steps"`
			} `json:"candidates"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Classes[0].Candidates[rep.Classes[0].Pick].Steps
}
