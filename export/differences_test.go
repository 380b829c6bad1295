package export

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestEnvoyNoBudgetNoRetryLimit: a class without a budget on copies in
// flight (fb.toml's class many, of a user's report: 6 copies 500ms apart)
// was written with Envoy's default circuit breaker, max_retries 3 per
// cluster, and a note to raise it: Envoy's router holds one unit of it for
// each request with a hedge or retry out, so a fourth request hedging at
// once would get no copy, which the simulator never refuses. The route's
// cluster now gets max_retries 4294967295, checked by go-control-plane,
// for hedged and for fallback copies alike.
func TestEnvoyNoBudgetNoRetryLimit(t *testing.T) {
	var cs []Copy
	for range 6 {
		cs = append(cs, timed("large-a", 500*time.Millisecond))
	}
	hedged := shortWith(t, cs...)
	fallback := shortWith(t, Copy{Target: "large-a", Fallback: true})
	fallback.Classes[0].OnError = "nonfatal"
	for name, d := range map[string]*Document{"hedged": hedged, "fallback": fallback} {
		out, notes, err := Write(d, "envoy", Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		routes, clusters := checkEnvoy(t, name, out)
		if len(routes) != 1 || routes[0].GetRoute().GetRetryPolicy() == nil {
			t.Fatalf("%s: routes %v; want one with a retry policy", name, routes)
		}
		if len(clusters) != 1 || clusters[0].GetName() != "large-a" {
			t.Fatalf("%s: clusters %v; want large-a, the route's", name, clusters)
		}
		if got := clusters[0].GetCircuitBreakers().GetThresholds()[0].GetMaxRetries().GetValue(); got != EnvoyNoRetryLimit {
			t.Errorf("%s: max_retries %d; want %d", name, got, uint32(EnvoyNoRetryLimit))
		}
		wantNote(t, notes, "short", "cluster large-a's circuit_breakers max_retries is written as 4294967295")
		for _, n := range notes {
			if strings.Contains(n.Text, "raise it") {
				t.Errorf("%s: note %q", name, n.Text)
			}
		}
	}
}

// TestFailsafeAdaptiveRefused: failsafe-go's quantile delay is a decaying
// estimate over about a window of executions, fed by every attempt with a
// final result, and never clamped: adap.toml's class (of a user's report:
// the p90 of the last 200 primaries, clamped to [500ms, 3s]) was written
// with only notes. failsafe-go now refuses it, naming both differences
// and json, the one format that writes it; --approximate writes the
// quantile delay and says what differs, in the notes and the comments.
func TestFailsafeAdaptiveRefused(t *testing.T) {
	d := shortWith(t, timed("large-a", time.Second))
	d.Classes[0].Adaptive = &Adaptive{Percentile: 0.9, Window: 200, WarmUp: 100, Min: Seconds(500 * time.Millisecond), Max: Seconds(3 * time.Second), Source: "primaries"}
	_, _, err := Write(d, "failsafe-go", Options{})
	var ue *UnfaithfulError
	if !errors.As(err, &ue) || ue.Formats != "json" {
		t.Fatalf("error %v; want an UnfaithfulError naming json", err)
	}
	for _, want := range []string{
		"its delay is the p90 of the last 200 primaries' latencies, from 100 samples on, and failsafe-go's quantile delay is a decaying estimate over about 200 executions, fed by every attempt with a final result (timed from its own start), from 100 executions on: it would hedge at other delays",
		"its delay is clamped within [500ms, 3s] (min, max), and failsafe-go does not clamp its quantile delay",
	} {
		if !strings.Contains(ue.Limitation, want) {
			t.Errorf("limitation %q lacks %q", ue.Limitation, want)
		}
	}
	if _, _, err := Write(d, "json", Options{}); err != nil {
		t.Errorf("json: %v", err)
	}
	out, notes, err := Write(d, "failsafe-go", Options{Approximate: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "NewBuilderWithDelayQuantile[*http.Response](0.9, 200, 100)") {
		t.Errorf("--approximate: no quantile delay:\n%s", out)
	}
	for _, want := range []string{
		"approximate: the delay is the p90 of the last 200 primaries' latencies, from 100 samples on, but failsafe-go's quantile delay is a decaying estimate",
		"approximate: the delay is clamped within [500ms, 3s], but failsafe-go does not clamp its quantile delay: min 500ms / max 3s not written",
	} {
		wantNote(t, notes, "short", want)
		if !strings.Contains(string(out), want) {
			t.Errorf("--approximate: the comments lack %q", want)
		}
	}
	// A time window, which failsafe-go has none of, and a lower clamp only.
	d.Classes[0].Adaptive.WindowTime, d.Classes[0].Adaptive.Max = Seconds(time.Minute), 0
	_, _, err = Write(d, "failsafe-go", Options{})
	if !errors.As(err, &ue) || !strings.Contains(ue.Limitation, "the last 1m0s of primaries' latencies") ||
		!strings.Contains(ue.Limitation, "and failsafe-go has no time window") || !strings.Contains(ue.Limitation, "clamped at least 500ms") {
		t.Errorf("a time window and a lower clamp: %v", err)
	}
}

// TestEnvoyAttemptTimeoutApproximated: under --approximate Envoy writes
// the hedge delay as per_try_timeout, as it runs, and says the attempt
// timeout is not written, in the notes and the comments.
func TestEnvoyAttemptTimeoutApproximated(t *testing.T) {
	d := shortWith(t, timed("large-a", 500*time.Millisecond), timed("large-a", 500*time.Millisecond))
	d.Classes[0].AttemptTimeout = Seconds(3 * time.Second)
	out, notes, err := Write(d, "envoy", Options{Approximate: true})
	if err != nil {
		t.Fatal(err)
	}
	routes, _ := checkEnvoy(t, "attempt timeout", out)
	if got := routes[0].GetRoute().GetRetryPolicy().GetPerTryTimeout().AsDuration(); got != 500*time.Millisecond {
		t.Errorf("per_try_timeout %s; want the hedge delay, 500ms", got)
	}
	want := "approximate: attempt_timeout 3s (on_attempt_timeout " // the rule is short's
	wantNote(t, notes, "short", want)
	if !strings.Contains(string(out), want) {
		t.Errorf("the comments lack %q:\n%s", want, out)
	}
}
