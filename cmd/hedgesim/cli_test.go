package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenarios"
)

// hedgesim runs the CLI in-process and returns its exit status and output.
func hedgesim(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestRunDefaultScenario(t *testing.T) {
	code, out, errOut := hedgesim(t, "run", "--requests", "2000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"two-model-gateway", "p95", "hedged", "added", "overall"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestRunJSONIsReproducible(t *testing.T) {
	args := []string{"run", "--json", "--requests", "3000", "--seed", "42", "../../scenarios/guard-check.toml"}
	_, a, _ := hedgesim(t, args...)
	code, b, errOut := hedgesim(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if a != b {
		t.Error("same seed, different JSON")
	}
	var rep struct {
		Scenario string `json:"scenario"`
		Seed     uint64 `json:"seed"`
		Requests int    `json:"requests"`
		Overall  struct {
			Requests           int64   `json:"requests"`
			AttemptsPerRequest float64 `json:"attempts_per_request"`
		} `json:"overall"`
	}
	if err := json.Unmarshal([]byte(b), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Scenario != "guard-check" || rep.Seed != 42 || rep.Requests != 3000 || rep.Overall.Requests != 3000 {
		t.Errorf("overrides not applied: %+v", rep)
	}
	_, c, _ := hedgesim(t, "run", "--json", "--requests", "3000", "--seed", "43", "guard-check")
	if c == b {
		t.Error("different seed, same JSON")
	}
}

// TestGuardCheckScenario: the shipped guard-check.toml reproduces field
// report 1: 0.875 answered within 3 s (one call: 0.5) for 1.75 calls per
// request, each within 5 standard errors at 10⁵ requests.
func TestGuardCheckScenario(t *testing.T) {
	code, out, errOut := hedgesim(t, "run", "--json", "--requests", "100000", "guard-check")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Overall struct {
			AnsweredShare      float64 `json:"answered_share"`
			AttemptsPerRequest float64 `json:"attempts_per_request"`
			NoHedging          struct {
				AnsweredShare float64 `json:"answered_share"`
			} `json:"no_hedging"`
		} `json:"overall"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	o := rep.Overall
	// Binomial standard errors at n = 1e5: √(.875·.125/n) = 0.00105,
	// √(.25/n) = 0.00158; attempts have variance 0.6875 → 0.00262.
	check := func(name string, got, want, se float64) {
		if d := got - want; d > 5*se || d < -5*se {
			t.Errorf("%s = %.4f, want %.4f ± %.4f", name, got, want, 5*se)
		}
	}
	check("answered share", o.AnsweredShare, 0.875, 0.00105)
	check("one-call answered share", o.NoHedging.AnsweredShare, 0.5, 0.00158)
	check("attempts per request", o.AttemptsPerRequest, 1.75, 0.00262)
}

func TestUsageAndErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[arrivals]\nrate = 10\n\n[models.m]\nlatency = { kind = \"lognormal\", mu = 0, sigma = -1 }\n\n[[classes]]\nname = \"c\"\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string // in stderr, or stdout for help
	}{
		{nil, 2, "Usage"},
		{[]string{"help"}, 0, "Usage"},
		{[]string{"--help"}, 0, "Usage"},
		{[]string{"run", "-h"}, 0, "-requests"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"run", "--bogus"}, 2, "bogus"},
		{[]string{"run", "--requests", "0"}, 2, "--requests 0"},
		{[]string{"run", "--requests", "many"}, 2, "not an integer"},
		{[]string{"run", "--seed", "-1"}, 2, "--seed -1"},
		{[]string{"run", "a.toml", "b.toml"}, 2, "at most one"},
		{[]string{"run", filepath.Join(dir, "missing.toml")}, 2, "no such file"},
		{[]string{"run", bad}, 2, "bad.toml:5: models.m.latency.sigma"},
		{[]string{"list"}, 0, "guard-check.toml"},
		{[]string{"list", "--help"}, 0, "Usage: hedgesim list"},
		{[]string{"help", "list"}, 0, "Usage: hedgesim list"},
		{[]string{"help", "run"}, 0, "-requests"},
		{[]string{"help", "frobnicate"}, 2, "unknown command"},
		{[]string{"run", dir}, 2, "is a directory"},
		{[]string{"run", "--trace", dir, "--requests", "10"}, 2, "is a directory"},
		{[]string{"run", "--requests", "1e6", "llmperf-azure-chat"}, 2, "--requests 1000000"},
		{[]string{"run", "--requests", "1e20"}, 2, "1e20 is out of range"},
		{[]string{"run", "--requests", "60000000"}, 2, "--requests 60000000: must be in [1, 50000000]"},
	}
	for _, tc := range cases {
		code, out, errOut := hedgesim(t, tc.args...)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, code, tc.code, errOut)
		}
		if !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%q: output lacks %q:\nstdout %q\nstderr %q", tc.args, tc.want, out, errOut)
		}
		if tc.code != 0 && out != "" {
			t.Errorf("%q: failed but wrote to stdout: %q", tc.args, out)
		}
	}
}

func TestEveryShippedScenarioRuns(t *testing.T) {
	files, _ := filepath.Glob("../../scenarios/*.toml")
	if len(files) < 3 {
		t.Fatalf("found %d scenarios", len(files))
	}
	for _, f := range files {
		if code, _, errOut := hedgesim(t, "run", "--requests", "500", f); code != 0 {
			t.Errorf("%s: exit %d: %s", f, code, errOut)
		}
	}
}

func TestRunTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "attempts.csv")
	code, _, errOut := hedgesim(t, "run", "--requests", "200", "--trace", path, "guard-check")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if !strings.HasPrefix(lines[0], "request,class,attempt,model,start_s,end_s,outcome,won") {
		t.Errorf("header %q", lines[0])
	}
	// Field report 1: about 1.75 attempts per request.
	if n := len(lines) - 1; n < 300 || n > 400 {
		t.Errorf("%d attempt rows for 200 requests, want about 350", n)
	}
	code, _, _ = hedgesim(t, "run", "--requests", "10", "--trace", filepath.Join(t.TempDir(), "no", "dir.csv"), "guard-check")
	if code != 2 {
		t.Errorf("trace into a missing directory: exit %d, want 2", code)
	}
}

// TestRunOut: --out writes the reports and a plot of an adaptive delay.
func TestRunOut(t *testing.T) {
	scen := filepath.Join(t.TempDir(), "adaptive.toml")
	os.WriteFile(scen, []byte(`[arrivals]
rate = 50
[models.m]
latency = { kind = "lognormal", median = 0.5, p95 = 3 }
[[classes]]
name = "c/1"
[classes.hedge]
delay = "1s"
max_copies = 1
adaptive = { percentile = 0.9, window = 200, warm_up = 50 }
`), 0o644)
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errOut := hedgesim(t, "run", "--requests", "3000", "--out", dir, scen)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"report.txt", "report.json", "c_1-adaptive-delay.png", "c_1-adaptive-delay.svg"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, []byte("x"), 0o644)
	if code, _, errOut := hedgesim(t, "run", "--requests", "10", "--out", notDir); code != 2 || !strings.Contains(errOut, "not a directory") {
		t.Errorf("--out onto a file: exit %d, %q", code, errOut)
	}
}

// TestRunWorkersSameReport: `run` writes the same JSON report, byte for
// byte, on 1, 2 and 3 workers — for a one-class scenario on the lane (split
// into ranges), a several-class one, and one whose requests share a
// provider (never split) — and --workers out of range is a usage error.
func TestRunWorkersSameReport(t *testing.T) {
	for _, sc := range []string{"guard-check", "two-model-gateway", "loaded-provider"} {
		var first string
		for w := 1; w <= 3; w++ {
			code, out, errOut := hedgesim(t, "run", "--json", "--requests", "30001", "--workers", strconv.Itoa(w), sc)
			if code != 0 {
				t.Fatalf("%s, %d workers: exit %d: %s", sc, w, code, errOut)
			}
			if w == 1 {
				first = out
			} else if out != first {
				t.Errorf("%s: the report on %d workers differs from the one on 1", sc, w)
			}
		}
	}
	if code, _, errOut := hedgesim(t, "run", "--workers", "0", "guard-check"); code != 2 || !strings.Contains(errOut, "--workers 0") {
		t.Errorf("--workers 0: exit %d, %q; want a usage error", code, errOut)
	}
}

// shippedCopy writes the shipped scenario embedded (such as
// "guard-check.toml") to dir/name and returns the path and the text.
func shippedCopy(t testing.TB, embedded, dir, name string) (string, []byte) {
	t.Helper()
	src, err := fs.ReadFile(scenarios.FS, embedded)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, src
}
