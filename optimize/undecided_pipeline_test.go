package optimize_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestUndecidedPipelineRollsOutItsSteps: a pipeline hedges in its steps,
// so an undecided pipeline class whose step is configured to hedge rolls
// out that step's hedge, not no hedging: its summary row must not give no
// hedging's figures ("+0.0%") under the "configured" label, and its spend
// is n/a when the sweep did not simulate the configured steps. The class's
// own policy (no copies) once matched the no-hedging candidate.
func TestUndecidedPipelineRollsOutItsSteps(t *testing.T) {
	sc, err := scenario.Parse("steps.toml", []byte(`requests = 2000
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
[classes.steps.hedge]
primary = "m"
delay = "0.5s"
[[classes.steps]]
name = "b"
[classes.steps.hedge]
primary = "m"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 30, 300
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	cr := &rep.Classes[0]
	if !cr.Verdict.Undecided {
		t.Fatalf("verdict %+v; the test needs an undecided class", cr.Verdict)
	}
	if c := cr.RolledOut(); c != nil && c == &cr.Candidates[0] {
		t.Errorf("rolled out the no-hedging candidate; the configured steps hedge step a at 0.5s")
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(l, "task ") {
			row = l
			break
		}
	}
	if !strings.Contains(row, "configured") || strings.Contains(row, "+0.0%") {
		t.Errorf("summary row %q; want the configured policy without no hedging's figures", row)
	}
}
