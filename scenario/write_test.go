package scenario_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/scenario"
)

const adaptiveScenario = `# kept comment
[arrivals]
rate = 20.0
[models.a]
latency = { kind = "lognormal", median = 1.0, p95 = 6.0 }
[models.b]
latency = { kind = "lognormal", median = 0.8, p95 = 3.0 }
[[classes]]
name = "c"
deadline = "60s"

[classes.hedge]
primary = "a"
targets = ["b"]
delay = "3s"   # replaced by adaptive

[classes.hedge.adaptive]
percentile = 0.9
warm_up = 50
min = "500ms"

[classes.hedge.budget]
max_hedge_share = 0.2
`

// TestWithPoliciesAdaptive: a fixed-delay pick replaces an adaptive delay
// sub-table (header and keys) and keeps the budget and the comments.
func TestWithPoliciesAdaptive(t *testing.T) {
	out, err := scenario.WithPolicies("ad.toml", []byte(adaptiveScenario), scenario.Top{Requests: 5000},
		[]scenario.HedgeEdit{{Class: "c", Delay: 1500 * time.Millisecond, Copies: 2}}, "")
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, gone := range []string{"[classes.hedge.adaptive]", "percentile", "warm_up"} {
		if strings.Contains(text, gone) {
			t.Errorf("%q left in:\n%s", gone, text)
		}
	}
	for _, kept := range []string{"# kept comment", "[classes.hedge.budget]", "max_hedge_share = 0.2", `delay = "1.5s"`, "max_copies = 2", "requests = 5000"} {
		if !strings.Contains(text, kept) {
			t.Errorf("%q missing in:\n%s", kept, text)
		}
	}
	sc, err := scenario.Parse("out.toml", out)
	if err != nil {
		t.Fatal(err)
	}
	p := sc.Config.Classes[0].Policy
	if p.Adaptive != nil || p.Copies != 2 || len(p.Delays) != 1 || p.Delays[0] != 1500*time.Millisecond || sc.Config.Requests != 5000 {
		t.Errorf("policy %+v, requests %d", p, sc.Config.Requests)
	}
	// Keep leaves the table alone; no hedging drops delay and adaptive.
	out, err = scenario.WithPolicies("ad.toml", []byte(adaptiveScenario), scenario.Top{Requests: 5000}, []scenario.HedgeEdit{{Class: "c", Keep: true}}, "")
	if err != nil || !strings.Contains(string(out), "[classes.hedge.adaptive]") {
		t.Errorf("keep: %v\n%s", err, out)
	}
	out, err = scenario.WithPolicies("ad.toml", []byte(adaptiveScenario), scenario.Top{Requests: 5000}, []scenario.HedgeEdit{{Class: "c", NoHedging: true}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if sc, err := scenario.Parse("out.toml", out); err != nil || sc.Config.Classes[0].Policy.Copies != 0 {
		t.Errorf("no hedging: %v\n%s", err, out)
	}
}

// TestWithPoliciesInlineTable: an inline hedge table is refused with the
// file and line, not rewritten wrongly.
func TestWithPoliciesInlineTable(t *testing.T) {
	src := `
[arrivals]
rate = 1.0
[models.a]
latency = { kind = "constant", value = 1.0 }
[[classes]]
name = "c"
hedge = { primary = "a", delay = "3s" }
`
	_, err := scenario.WithPolicies("in.toml", []byte(src), scenario.Top{Requests: 10}, []scenario.HedgeEdit{{Class: "c", NoHedging: true}}, "")
	if err == nil || !strings.Contains(err.Error(), "in.toml:8") || !strings.Contains(err.Error(), "inline table") {
		t.Errorf("error %v", err)
	}
}

// TestWithPoliciesKeepsUnchangedComments: the lines WithPolicies writes
// with the values they had keep their trailing comments — requests
// however its value is spelt, a hedge key given its own value.
func TestWithPoliciesKeepsUnchangedComments(t *testing.T) {
	for _, reqLine := range []string{"requests = 20000   # enough for a tight p99 estimate", "  requests = 20_000 # enough for a tight p99 estimate"} {
		src := reqLine + "\n" + strings.Replace(adaptiveScenario, `delay = "3s"   # replaced by adaptive`, `delay = "3s"   # the p95`, 1)
		src = strings.Replace(src, "[classes.hedge.adaptive]\npercentile = 0.9\nwarm_up = 50\nmin = \"500ms\"\n", "", 1)
		out, err := scenario.WithPolicies("c.toml", []byte(src), scenario.Top{Requests: 20000},
			[]scenario.HedgeEdit{{Class: "c", Delay: 3 * time.Second, Copies: 1}}, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, kept := range []string{reqLine + "\n", `delay = "3s"   # the p95`} {
			if !strings.Contains(string(out), kept) {
				t.Errorf("%q missing in:\n%s", kept, out)
			}
		}
		// A changed value is written without the old value's comment.
		out, err = scenario.WithPolicies("c.toml", []byte(src), scenario.Top{Requests: 5000},
			[]scenario.HedgeEdit{{Class: "c", Delay: time.Second, Copies: 1}}, "")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "requests = 5000\n") || !strings.Contains(string(out), "delay = \"1s\"\n") {
			t.Errorf("changed lines not rewritten:\n%s", out)
		}
	}
}

// TestWithPoliciesNoHedgingDropsStreamCuts: a "don't hedge" pick is
// simulated as sim.NoHedging, without stream cuts, so the written scenario
// drops them too — and on_stall with them, an error without a cut — and
// reruns as the pick was simulated.
func TestWithPoliciesNoHedgingDropsStreamCuts(t *testing.T) {
	src := `
[arrivals]
rate = 1.0
[models.a]
ttft = { kind = "constant", value = 1.0 }
tokens_per_s = { kind = "constant", value = 50 }
[[classes]]
name = "c"
[classes.hedge]
delay = "fallback"
max_copies = 1
inter_token_timeout = "2s"
min_tokens_per_s = 5
speed_window = "1s"
on_stall = "nonfatal"
`
	out, err := scenario.WithPolicies("in.toml", []byte(src), scenario.Top{Requests: 10}, []scenario.HedgeEdit{{Class: "c", NoHedging: true}}, "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("out.toml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if p := sc.Config.Classes[0].Policy; p.InterTokenTimeout != 0 || p.MinTokensPerSecond != 0 || p.SpeedWindow != 0 || p.Copies != 0 {
		t.Errorf("stream cuts left in:\n%s", out)
	}
	if strings.Contains(string(out), "on_stall") {
		t.Errorf("on_stall left in without a cut:\n%s", out)
	}
}

// TestWithPoliciesKeepsHeaderFirst: a top-level key the file lacks
// (requests) is added after the file's header, never above a #:schema
// first line, which editors read only from the first line: after the
// directive and the leading comments up to their last blank line. With
// traceDir, a relative #:schema path is rewritten against it, as a
// relative arrivals.trace is, so that the file finds its schema wherever
// it is written; a URL or an absolute path stays.
func TestWithPoliciesKeepsHeaderFirst(t *testing.T) {
	const body = `[arrivals]
rate = 1.0
[models.a]
latency = { kind = "constant", value = 1.0 }
[[classes]]
name = "c"
[classes.hedge]
primary = "a"
delay = "1s"
`
	dir := filepath.Join(string(filepath.Separator)+"data", "scenarios")
	for _, tc := range []struct {
		name, head, traceDir, want string
	}{
		{"schema and header", "#:schema ../docs/scenario.schema.json\n# s: a header\n#\n# more of it\n\n# the seed\nseed = 1\n\n", "",
			"#:schema ../docs/scenario.schema.json\n# s: a header\n#\n# more of it\n\nrequests = 2000\n# the seed\nseed = 1\n\n"},
		{"schema rewritten against traceDir", "#:schema ../docs/scenario.schema.json\n# s\n\n", dir,
			"#:schema " + filepath.Join(dir, "../docs/scenario.schema.json") + "\n# s\n\nrequests = 2000\n"},
		{"URL schema kept", "#:schema https://example.com/scenario.schema.json\n", dir,
			"#:schema https://example.com/scenario.schema.json\nrequests = 2000\n"},
		{"absolute schema kept", "#:schema /etc/scenario.schema.json\n", dir,
			"#:schema /etc/scenario.schema.json\nrequests = 2000\n"},
		{"comment without a blank line belongs to the table", "#:schema s.json\n# the arrivals\n", "",
			"#:schema s.json\nrequests = 2000\n# the arrivals\n"},
		{"no header", "", "", "requests = 2000\n"},
		{"header without schema", "# s: a header\n\n", "", "# s: a header\n\nrequests = 2000\n"},
	} {
		out, err := scenario.WithPolicies("s.toml", []byte(tc.head+body), scenario.Top{Requests: 2000},
			[]scenario.HedgeEdit{{Class: "c", Delay: 2 * time.Second, Copies: 1}}, tc.traceDir)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !strings.HasPrefix(string(out), tc.want+"[arrivals]\n") {
			t.Errorf("%s: written\n%s\nwant it to start\n%s[arrivals]", tc.name, out, tc.want)
		}
	}
}
