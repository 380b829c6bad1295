package export

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestBreakersExported: brownout-breaker's two breakers — the model
// breaker on west (5 consecutive failures, 20 s cooldown, 1 probe) and the
// provider breaker on api-a (failure ratio 0.5 over 10 s, min 20 calls,
// 20 s cooldown, 3 probes) — are in the json document of the classes that
// call them and read back strictly; every other format names them in its
// notes, and polly writes the ratio breaker's values. A scenario without a
// breaker says that Polly's standard handler keeps its default one.
func TestBreakersExported(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "brownout-breaker.toml"))
	want := map[string]Breaker{
		"consecutive": {Model: "west", Models: []string{"west"}, ConsecutiveFailures: 5, Cooldown: Seconds(20 * time.Second), Probes: 1},
		"ratio": {Provider: "api-a", Models: []string{"east"}, FailureRatio: 0.5, WindowTime: Seconds(10 * time.Second), MinCalls: 20,
			Cooldown: Seconds(20 * time.Second), Probes: 3},
	}
	if len(d.Classes) != len(want) {
		t.Errorf("%d classes; want %d", len(d.Classes), len(want))
	}
	for _, c := range d.Classes {
		if w, ok := want[c.Class]; !ok || len(c.Breakers) != 1 || !reflect.DeepEqual(c.Breakers[0], w) {
			t.Errorf("%s: breakers %+v; want [%+v]", c.Class, c.Breakers, w)
		}
	}
	var b bytes.Buffer
	if err := d.Encode(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(b.Bytes()))
	if err != nil || !reflect.DeepEqual(back, d) {
		t.Fatalf("round trip: %v", err)
	}
	bad := strings.Replace(b.String(), `"probes": 3`, `"probes": 3, "half_open": 1`, 1)
	if _, err := Decode(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "half_open") {
		t.Errorf("an unknown key in a breaker: got %v; want it rejected", err)
	}
	zero := strings.Replace(b.String(), `"cooldown_s": 20`, `"cooldown_s": 0`, 1)
	if _, err := Decode(strings.NewReader(zero)); err == nil || !strings.Contains(err.Error(), "breakers[0]") {
		t.Errorf("a breaker without a cooldown: got %v; want it rejected", err)
	}
	for _, format := range []string{"grpc", "envoy", "failsafe-go", "polly"} {
		out, notes, err := Write(d, format, Options{Approximate: true})
		if err != nil {
			t.Fatal(err)
		}
		wantNote(t, notes, "consecutive", "the model breaker on west: 5 consecutive failures, 20s cooldown")
		wantNote(t, notes, "ratio", "the provider breaker on api-a")
		if format == "polly" {
			for _, s := range []string{`"FailureRatio": 0.5`, `"MinimumThroughput": 20`, `"BreakDuration": "00:00:20"`} {
				if !strings.Contains(string(out), s) {
					t.Errorf("polly output lacks %s", s)
				}
			}
			wantNote(t, notes, "consecutive", "cannot be expressed exactly")
		}
		if format == "failsafe-go" {
			for _, s := range []string{"WithFailureThreshold(5).\n\tWithDelay(20 * time.Second).\n\tWithSuccessThreshold(1)",
				"WithFailureRateThreshold(0.5, 20, 10*time.Second).\n\tWithDelay(20 * time.Second).\n\tWithSuccessThreshold(3)"} {
				if !strings.Contains(string(out), s) {
					t.Errorf("failsafe-go output lacks %s:\n%s", s, out)
				}
			}
			wantNote(t, notes, "consecutive", "written as ModelWestBreaker")
		}
		if format == "envoy" {
			wantNote(t, notes, "consecutive", "consecutive_5xx: 5")
		}
	}
	_, notes, err := Write(ScenarioPolicies(loadShipped(t, "guard-check.toml")), "polly", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantNote(t, notes, "check", "always has one per endpoint (it cannot be switched off there)")
}

// TestFailsafeGoClientErrorRule: a 4xx other than 429 ends the call under
// the default fatal rule (a copy would get the same answer) and does not
// under a nonfatal one, in the hedge policy's CancelIf; in a fallback
// retry policy a fatal 4xx is not retried.
func TestFailsafeGoClientErrorRule(t *testing.T) {
	out, _, err := Write(ScenarioPolicies(loadShipped(t, "status-rules.toml")), "failsafe-go", Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := string(out)
	const fatal4xx = "case r.StatusCode >= 400:\n\t\t\treturn true // a 4xx other than 429"
	const open4xx = "case r.StatusCode >= 400:\n\t\t\treturn false // a 4xx other than 429"
	for _, class := range []struct {
		name, want string
	}{{"ByStatus", fatal4xx}, {"Fatal", fatal4xx}, {"RetryAll", open4xx}} {
		i := strings.Index(code, "var "+class.name+"Hedge")
		if i < 0 {
			t.Fatalf("no hedge policy for %s in:\n%s", class.name, code)
		}
		end := strings.Index(code[i:], "Build()")
		if end < 0 || !strings.Contains(code[i:i+end], class.want) {
			t.Errorf("%s: want %q in its CancelIf:\n%s", class.name, class.want, code[i:])
		}
	}
	out, _, err = Write(ScenarioPolicies(loadShipped(t, "breaker-outage.toml")), "failsafe-go", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "case r.StatusCode >= 400:\n\t\t\treturn false // a 4xx other than 429") {
		t.Errorf("fallback retry policy retries a fatal 4xx:\n%s", out)
	}
}

// TestPollyBreakerOnBareTargets: Polly's standard hedging handler gives
// every endpoint the primary's breaker, so a fallback without one in the
// scenario gets one too, and the notes say so.
func TestPollyBreakerOnBareTargets(t *testing.T) {
	_, notes, err := Write(ScenarioPolicies(loadShipped(t, "brownout-breaker.toml")), "polly", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantNote(t, notes, "ratio", "so fallback, which has none in the scenario, gets one too")
}
