package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// outageScenario: model a fails every call after 3 s and has a breaker
// (5 consecutive failures open it); a copy to b, which answers in 100 ms,
// goes after DELAY, or at once when a's call fails.
const outageScenario = `
seed = 1
requests = 1000
[arrivals]
rate = 10.0
[models.a]
provider = "pa"
latency = { kind = "constant", value = 1.0 }
error_rate = 1.0
error_latency = { kind = "constant", value = 3.0 }
breaker = { failures = 5, cooldown = "10s", probes = 1 }
[models.b]
provider = "pb"
latency = { kind = "constant", value = 0.1 }
[[classes]]
name = "c"
input_tokens = { kind = "constant", value = 100 }
[classes.hedge]
primary = "a"
targets = ["b"]
delay = "DELAY"
on_error = "nonfatal"
`

// TestRunBreakerHiddenWarning: with the hedge at 1 s every one of a's
// 1000 failures (at 3 s) is cancelled at 1.1 s, hidden from its breaker,
// and run's text and JSON warnings say so with the counts; with the hedge
// at 4 s the breaker sees them and opens, and neither warns.
func TestRunBreakerHiddenWarning(t *testing.T) {
	const want = "the breaker on model a: 1000 calls that were going to fail were cancelled before their failure came back (another call answered first), so it never counted them: it saw 0 failures, needs 5 to open, and opened 0 times; they were cancelled 1.10s after they were sent, on average, before their failure came back at 3.00s on average (class c hedges after 1.00s)"
	for _, delay := range []string{"1s", "4s"} {
		path := writeScenario(t, strings.Replace(outageScenario, "DELAY", delay, 1))
		var out, errb bytes.Buffer
		if code := run([]string{"run", "--json", path}, &out, &errb); code != 0 {
			t.Fatalf("run --json: exit %d: %s", code, errb.String())
		}
		var rep struct {
			Warnings []string `json:"warnings"`
			Breakers []struct {
				Opens int64 `json:"opens"`
			} `json:"breakers"`
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, w := range rep.Warnings {
			if strings.Contains(w, "were cancelled before their failure came back") {
				n++
				if !strings.HasPrefix(w, want) {
					t.Errorf("hedge at %s: JSON warning %q; want it to start %q", delay, w, want)
				}
			}
		}
		out.Reset()
		if code := run([]string{"run", path}, &out, &errb); code != 0 {
			t.Fatalf("run: exit %d: %s", code, errb.String())
		}
		text := strings.Join(strings.Fields(out.String()), " ") // unwrapped
		inText := strings.Contains(text, "warning: "+want)
		switch delay {
		case "1s":
			if n != 1 || !inText || rep.Breakers[0].Opens != 0 {
				t.Errorf("hedge at 1s: %d JSON warnings, in the text %v, %d opens; want 1, true, 0", n, inText, rep.Breakers[0].Opens)
			}
		case "4s":
			if n != 0 || strings.Contains(text, "were cancelled before their failure came back") || rep.Breakers[0].Opens == 0 {
				t.Errorf("hedge at 4s: %d JSON warnings, %d opens; want none in JSON or text, and opens > 0", n, rep.Breakers[0].Opens)
			}
		}
	}
}
