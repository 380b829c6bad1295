package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
)

// TestPipelineReports: a pipeline class's run writes its end-to-end
// section in text and JSON and its step breakdown figure; compare adds the
// end-to-end p95 and the checked and degraded shares; optimize's page
// lists where the pick's hedging goes, step by step. Every help-chat turn
// goes through (its guards fail open): the class's answered share is 1,
// checked + degraded.
func TestPipelineReports(t *testing.T) {
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	code, text, errOut := hedgesim(t, "run", "--requests", "5000", "--out", out, "help-chat-turn")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"pipeline turn: end to end", "first visible token", "checked ", "guard-answer", "slowest 5%: longest in"} {
		if !strings.Contains(text, want) {
			t.Errorf("run's text lacks %q", want)
		}
	}
	for _, f := range []string{"turn-steps.png", "turn-steps.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("run --out: %s: %v", f, err)
		}
	}
	var rep struct {
		Classes []struct {
			AnsweredShare float64 `json:"answered_share"`
			Pipeline      *struct {
				CheckedShare  float64 `json:"checked_share"`
				DegradedShare float64 `json:"degraded_share"`
				Steps         []struct {
					Step      string  `json:"step"`
					TailShare float64 `json:"tail_share"`
				} `json:"steps"`
			} `json:"pipeline"`
		} `json:"classes"`
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Classes[0].Pipeline
	if p == nil || len(p.Steps) != 4 || p.CheckedShare+p.DegradedShare < 0.999 {
		t.Fatalf("pipeline section: %+v", p)
	}
	if a := rep.Classes[0].AnsweredShare; a != 1 || p.CheckedShare > 0.85 {
		t.Errorf("answered share %g, checked %g; want every turn answered, about 0.766 of them checked", a, p.CheckedShare)
	}
	tails := 0.0
	for _, s := range p.Steps {
		tails += s.TailShare
	}
	if tails < 0.999 || tails > 1.001 {
		t.Errorf("tail shares sum to %g, want 1", tails)
	}

	b := filepath.Join(dir, "b.json")
	code, js, errOut := hedgesim(t, "run", "--json", "--requests", "5000", "--set", "classes[0].steps[3].hedge.max_copies=1", "help-chat-turn")
	if code != 0 {
		t.Fatalf("run b: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(b, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	code, cmp, errOut := hedgesim(t, "compare", filepath.Join(out, "report.json"), b)
	if code != 0 || !strings.Contains(cmp, "end-to-end p95") || !strings.Contains(cmp, "degraded") {
		t.Errorf("compare: exit %d: %s%s", code, cmp, errOut)
	}
	// One copy fewer on the answer guard: it passes 1 − 0.5² = 0.75 instead
	// of 0.875, so 0.875 · 0.75 = 0.656 of turns are checked, not 0.766.
	checked := false
	for _, line := range strings.Split(cmp, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "turn" && f[1] == "checked" {
			checked = strings.HasSuffix(line, " pt") && strings.Contains(line, "-")
		}
	}
	if !checked {
		t.Errorf("compare lacks a significant fall of the checked share:\n%s", cmp)
	}

	opt := filepath.Join(dir, "opt")
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "3000", "--check-requests", "0", "--out", opt, "fan-out"); code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	page, err := os.ReadFile(filepath.Join(opt, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<table class="steps">`) || !strings.Contains(string(page), "<td>shards</td>") {
		t.Error("index.html lacks the step table of the pipeline's pick")
	}
}

// TestWriteScenarioPipeline: optimize --write-scenario rewrites each step's
// [classes.steps.hedge] table of a pipeline class with that step's pick,
// and the file it writes loads with exactly those step policies.
func TestWriteScenarioPipeline(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "picked.toml")
	code, js, errOut := hedgesim(t, "optimize", "--json", "--requests", "3000", "--check-requests", "0", "--write-scenario", out, "../../scenarios/fan-out.toml")
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	s, err := scenario.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	pl := s.Config.Classes[0].Pipeline
	pick := pickedSteps(t, []byte(js))
	for i, sp := range pick {
		p := pl.Steps[i].Call.Policy
		if sp.Hedging != (p.Copies > 0) || sp.Hedging && (p.Copies != sp.Copies || p.Delays[0].Seconds() != sp.Delay) {
			t.Errorf("step %s: written %d copies after %v; picked %+v", sp.Step, p.Copies, p.Delays, sp)
		}
	}
}

// TestHelpHelpAndLongNames: "help --help" is help, and a class name too
// long for a file name still gets its figures (its stem is cut).
func TestHelpHelpAndLongNames(t *testing.T) {
	if code, out, _ := hedgesim(t, "help", "--help"); code != 0 || !strings.Contains(out, "Usage") && !strings.Contains(out, "usage") {
		t.Errorf("help --help: exit %d: %s", code, out)
	}
	long := strings.Repeat("n", 300)
	src := "[arrivals]\nrate = 10\n[models.m]\nlatency = { kind = \"constant\", value = 1 }\n[[classes]]\nname = \"" + long + "\"\n[classes.hedge]\ndelay = \"500ms\"\n"
	dir := t.TempDir()
	f := filepath.Join(dir, "long.toml")
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "500", "--check-requests", "0", "--out", filepath.Join(dir, "o"), f); code != 0 {
		t.Fatalf("optimize --out with a 300-byte class name: exit %d: %s", code, errOut)
	}
}
