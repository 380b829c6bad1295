package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDelaysPastDeadlineWarn: --delays holding a delay at or past a
// class's deadline runs the others and warns, naming the delay left out
// and why; a grid with none below the deadline is a usage error.
func TestDelaysPastDeadlineWarn(t *testing.T) {
	p := filepath.Join(t.TempDir(), "base.toml")
	scen := `requests = 200
[arrivals]
rate = 10
[models.a]
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
price_per_request = 0.001
[[classes]]
name = "c"
deadline = "10s"
[classes.hedge]
delay = "1s"
`
	if err := os.WriteFile(p, []byte(scen), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := hedgesim(t, "optimize", "--requests", "200", "--check-requests", "200", "--delays", "5s,20s", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "2 candidates") {
		t.Errorf("want no hedging and the 5s delay, 2 candidates:\n%s", out)
	}
	want := `--delays 5s,20s: 20s is at or past class "c"'s 10s deadline, where a copy is never sent: left out of its candidates`
	if !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
	if strings.Contains(errOut, "5s is") {
		t.Errorf("the 5s delay, before the deadline, is named:\n%s", errOut)
	}
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "200", "--delays", "20s", p); code != 2 || !strings.Contains(errOut, "every delay is at or past") {
		t.Errorf("--delays 20s: exit %d; want 2 and every delay past the deadline: %s", code, errOut)
	}
}

// TestDelaysPastStepDeadlineWarn: a pipeline's step loses the delays at or
// past its own deadline, and the warning names them and the step; delays
// at or past the pipeline's end-to-end deadline can never send a copy:
// every step loses them, and the warning says so. Once, both went without
// a word, and then the end-to-end ones were warned about but still swept.
func TestDelaysPastStepDeadlineWarn(t *testing.T) {
	p := filepath.Join(t.TempDir(), "steps.toml")
	scen := `requests = 200
[arrivals]
rate = 5
[models.m]
latency = { kind = "lognormal", median = 0.3, p95 = 1.0 }
price_per_request = 0.001
[[classes]]
name = "task"
deadline = "60s"
[[classes.steps]]
name = "a"
deadline = "5s"
[classes.steps.hedge]
primary = "m"
delay = "0.5s"
[[classes.steps]]
name = "b"
[classes.steps.hedge]
primary = "m"
`
	if err := os.WriteFile(p, []byte(scen), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := hedgesim(t, "optimize", "--json", "--requests", "200", "--check-requests", "200", "--delays", "1s,7s,70s", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Classes []struct {
			Candidates []struct {
				Steps []struct {
					Step    string  `json:"step"`
					Hedging bool    `json:"hedging"`
					Delay   float64 `json:"delay_s"`
				} `json:"steps"`
			} `json:"candidates"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	b7 := false
	for _, c := range rep.Classes[0].Candidates {
		for _, st := range c.Steps {
			if st.Hedging && st.Delay >= 60 {
				t.Errorf("step %s swept at %gs, past the end-to-end deadline", st.Step, st.Delay)
			}
			b7 = b7 || st.Step == "b" && st.Hedging && st.Delay == 7
		}
	}
	if !b7 {
		t.Errorf("no candidate hedges step b at 7s, before every deadline")
	}
	for _, want := range []string{
		`--delays 1s,7s,70s: 7s, 1m10s are at or past step "a"'s 5s deadline, where a copy is never sent: left out of its candidates`,
		`--delays 1s,7s,70s: 1m10s is at or past pipeline "task"'s end-to-end 1m0s deadline, where a copy is never sent: left out of its steps' candidates`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "1s is") || strings.Contains(errOut, "1s, 7s") {
		t.Errorf("a delay before the deadlines is named:\n%s", errOut)
	}
	// Step a left no delay is not hedged, and its advice row says why.
	code, out, errOut = hedgesim(t, "optimize", "--json", "--requests", "200", "--check-requests", "0", "--delays", "7s,70s", p)
	if code != 0 {
		t.Fatalf("--delays 7s,70s: exit %d: %s", code, errOut)
	}
	var adv struct {
		Classes []struct {
			Steps []struct {
				Step string `json:"step"`
				Why  string `json:"why"`
			} `json:"steps"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	want := "not hedged: every delay to try is at or past its deadline or the pipeline's end-to-end deadline, where a copy is never sent"
	if st := adv.Classes[0].Steps; len(st) != 2 || st[0].Step != "a" || st[0].Why != want {
		t.Errorf("--delays 7s,70s: advice %+v; want step a %q", st, want)
	}
}
