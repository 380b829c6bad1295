package optimize_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestReplayRerunAdvice: on a replayed trace, --requests cannot go past
// the trace's end, so the advice for a class with too few requests for a
// p95 interval (110 independent requests at 95 %) is a longer trace when
// the trace holds too few of the class. The trace holds 400 requests
// (Mooncake format, 10 per second), every fourth with 500 output tokens —
// class "long" by its match, 100 requests — the others "short", 300.
// Asked for 2000 (or 60), long's run replays its 100 (or 60): the trace
// must be longer, with at least 110 of long, about 440 requests in all,
// and --precision, which replays no more of it, is not advised. Asked for
// 60, short's 60 are too few too, but its 300 hold 110: rerun with
// --requests ≥ 110. Once, long was advised the raw need, "rerun with
// --requests ≥ 110", which replays no more of the trace.
func TestReplayRerunAdvice(t *testing.T) {
	sc := replayOf400(t)
	longer := "at least 110 needed): the trace holds 100 requests of this class (of 400 in all), and --requests cannot replay past its end: a longer trace is needed, with at least 110 of the class (about 440 requests in all)"
	for _, c := range []struct {
		class    string
		requests int
		want     string
	}{
		{"long", 2000, "(100 simulated per candidate, " + longer},
		{"long", 60, "(60 simulated per candidate, " + longer},
		{"short", 60, "(60 simulated per candidate, at least 110 needed): rerun with --requests ≥ 110"},
	} {
		s := sc.Optimize
		s.Requests, s.CheckRequests = c.requests, 0
		s.Only = []string{c.class}
		cr := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2}).Classes[0]
		if cr.Class != c.class || !cr.Verdict.Undecided || !strings.Contains(cr.Verdict.Reason, c.want) {
			t.Errorf("--requests %d: %s: verdict %+v; want undecided: %q", c.requests, cr.Class, cr.Verdict, c.want)
		}
		if c.class == "long" && strings.Contains(cr.Verdict.Reason, "--precision") {
			t.Errorf("--requests %d: %s: verdict %q advises --precision, which replays no more of the trace", c.requests, cr.Class, cr.Verdict.Reason)
		}
	}
}

// replayOf400 loads a scenario replaying a Mooncake trace of 400
// requests, 100 of class "long" (output 500 tokens, every fourth) and 300
// of "short", each hedged after 1 s, written under t.TempDir().
func replayOf400(t *testing.T) *scenario.Scenario {
	t.Helper()
	dir := t.TempDir()
	var trace strings.Builder
	for i := range 400 {
		out := 50
		if i%4 == 3 {
			out = 500
		}
		fmt.Fprintf(&trace, "{\"timestamp\": %d, \"input_length\": 100, \"output_length\": %d}\n", 100*i, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "trace.jsonl"), []byte(trace.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "replay.toml")
	if err := os.WriteFile(p, []byte(`[arrivals]
process = "replay"
trace = "trace.jsonl"
format = "mooncake"
[models.m]
latency = { kind = "lognormal", median = 1.0, p95 = 3.0 }
price_per_request = 0.001
[[classes]]
name = "long"
match = { output_min = 400 }
[classes.hedge]
delay = "1s"
[[classes]]
name = "short"
[classes.hedge]
delay = "1s"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
