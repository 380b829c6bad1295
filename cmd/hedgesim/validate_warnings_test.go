package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// warnedScenario is valid but earns three configuration warnings: a step
// deadline (line 16) and a step hedge delay (line 19) past the 60 s
// end-to-end deadline, and a latency of 600 s (line 9) against a 2 s
// deadline — 600 ms meant.
const warnedScenario = `seed = 1
requests = 400
[arrivals]
rate = 10.0
[models.m]
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
price_per_request = 0.001
[models.slow]
latency = { kind = "constant", value = 600 }
[[classes]]
name = "turn"
share = 0.5
deadline = "60s"
[[classes.steps]]
name = "guard-in"
deadline = "90s"
hedge = { primary = "m" }
[[classes.steps]]
name = "b"
hedge = { primary = "m", delay = "70s" }
[[classes]]
name = "ms"
share = 0.5
deadline = "2s"
hedge = { primary = "slow" }
`

// TestValidateShowsRunsWarnings: validate prints every warning a run of
// the file gives from its configuration, as file:line: key: warning:
// CLASS: TEXT where run prints "warning: CLASS: TEXT"; the file is still
// ok (exit 0) unless --strict, which exits 2; --json lists them.
func TestValidateShowsRunsWarnings(t *testing.T) {
	f := writeTestFile(t, t.TempDir(), "warned.toml", warnedScenario)
	want := []struct {
		at, key, class, text string
	}{
		{f + ":16", "classes[0].steps[0].deadline", "turn", "step guard-in: its deadline is longer than the end-to-end deadline 60.0s, which ends the request first"},
		{f + ":20", "classes[0].steps[1].hedge.delay", "turn", "step b: its hedge delay 70.0s is at or past the end-to-end deadline 60.0s: no copy is ever sent on a timer"},
		{f + ":9", "models.slow.latency", "ms", "model slow's latency has a median of 600 s, at or past the class's 2s deadline"},
	}
	code, out, errOut := hedgesim(t, "validate", f, "guard-check")
	if code != 0 || out != f+": ok, 3 warnings\nguard-check: ok\n" {
		t.Fatalf("exit %d, stdout %q; want 0 and the file ok with 3 warnings", code, out)
	}
	_, runOut, runErr := hedgesim(t, "run", "--wide", f)
	for _, w := range want {
		if line := w.at + ": " + w.key + ": warning: " + w.class + ": " + w.text; !strings.Contains(errOut, line) {
			t.Errorf("validate's stderr lacks %q:\n%s", line, errOut)
		}
		if line := "warning: " + w.class + ": " + w.text; !strings.Contains(runOut, line) {
			t.Errorf("run does not print %q (validate's warnings must be run's):\n%s%s", line, runOut, runErr)
		}
	}
	if n := strings.Count(errOut, ": warning: "); n != len(want) {
		t.Errorf("validate prints %d warnings; want %d:\n%s", n, len(want), errOut)
	}
	code, _, errOut = hedgesim(t, "validate", "--strict", f, "guard-check")
	if code != exitUsage || !strings.Contains(errOut, "1 of 2 scenarios have warnings (--strict)") {
		t.Errorf("--strict: exit %d, stderr %s; want 2 and the count", code, errOut)
	}
	if code, _, errOut := hedgesim(t, "validate", "--strict", "guard-check", "help-chat-turn"); code != 0 {
		t.Errorf("--strict on files without warnings: exit %d: %s", code, errOut)
	}
	code, out, _ = hedgesim(t, "validate", "--json", f)
	var res []validateResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if code != 0 || len(res) != 1 || !res[0].OK || len(res[0].Warnings) != 3 || res[0].Warnings[0].Line != 16 || res[0].Warnings[0].Key != want[0].key || !strings.HasPrefix(res[0].Warnings[0].Message, "turn: step guard-in:") {
		t.Errorf("--json: exit %d, %+v", code, res)
	}
}
