package export

import (
	"fmt"
)

// What a format's runtime would run differently from a class beyond its
// copies' delays and targets (faithful.go): each check returns the
// differences, for the refusal and for --approximate's note.
//
//   - An attempt timeout under hedging: gRPC's hedgingPolicy has none, and
//     Envoy's per_try_timeout is the hedge delay (hedge_on_per_try_timeout
//     sends the next copy and lets the attempt run on).
//   - An adaptive delay in failsafe-go: NewBuilderWithDelayQuantile is a
//     decaying estimate over about a window of executions, fed by every
//     attempt with a final result, never clamped — not the simulator's
//     percentile over the last samples of its source, within min and max.
//   - copies_to = "other_replica": only Envoy (the previous_hosts retry
//     host predicate) and json say it (pool.go).
//
// A budget is not among them: most formats leave it to the caller, noted
// (Envoy's circuit breaker, which counts requests, not copies: envoy.go).

// attemptTimeoutDifferences: a format with no attempt timeout under
// hedging runs every attempt of a class with timed copies until it
// answers or the deadline ends the request. An attempt timeout at or
// after the deadline never acts, and makes no difference.
func attemptTimeoutDifferences(l limits, c *Class) []difference {
	if l.noAttemptTimeout == "" || c.AttemptTimeout <= 0 || c.fallbacks() > 0 || len(c.Copies) == 0 ||
		(c.Deadline > 0 && c.AttemptTimeout >= c.Deadline) {
		return nil
	}
	at := fdur(c.AttemptTimeout.D())
	return []difference{{
		fmt.Sprintf("its attempts time out after %s (attempt_timeout, on_attempt_timeout %q), and in %s %s: it would not end an attempt at %s", at, c.OnAttemptTimeout, l.runtime, l.noAttemptTimeout, at),
		fmt.Sprintf("attempt_timeout %s (on_attempt_timeout %q) not written: in %s %s", at, c.OnAttemptTimeout, l.runtime, l.noAttemptTimeout),
	}}
}

// adaptiveDifferences: failsafe-go's quantile delay (the only adaptive
// delay a format other than json writes) estimates the percentile in
// another way than the simulator, and is not clamped.
func adaptiveDifferences(l limits, c *Class) []difference {
	a := c.Adaptive
	if a == nil || !l.decayingQuantile {
		return nil
	}
	window, warm := failsafeQuantileWindow(a)
	over := fmt.Sprintf("the last %d", a.Window)
	if a.WindowTime > 0 {
		over = "the last " + fdur(a.WindowTime.D()) + " of"
	}
	sim := fmt.Sprintf("the p%g of %s %s' latencies, from %d samples on", 100*a.Percentile, over, sourceNoun(a.Source), a.WarmUp)
	theirs := fmt.Sprintf("%s's quantile delay is a decaying estimate over about %d executions, fed by every attempt with a final result (timed from its own start), from %d executions on", l.runtime, window, warm)
	noTimeWindow := ""
	if a.WindowTime > 0 {
		noTimeWindow = fmt.Sprintf(", and %s has no time window", l.runtime)
	}
	ds := []difference{{
		fmt.Sprintf("its delay is %s, and %s%s: it would hedge at other delays", sim, theirs, noTimeWindow),
		fmt.Sprintf("the delay is %s, but %s%s: wrote NewBuilderWithDelayQuantile(%g, %d, %d)", sim, theirs, noTimeWindow, a.Percentile, window, warm),
	}}
	if a.Min > 0 || a.Max > 0 {
		clamp := fmt.Sprintf("at least %s", fdur(a.Min.D()))
		switch {
		case a.Min > 0 && a.Max > 0:
			clamp = fmt.Sprintf("within [%s, %s]", fdur(a.Min.D()), fdur(a.Max.D()))
		case a.Max > 0:
			clamp = fmt.Sprintf("at most %s", fdur(a.Max.D()))
		}
		ds = append(ds, difference{
			fmt.Sprintf("its delay is clamped %s (min, max), and %s does not clamp its quantile delay: it would hedge at the estimate outside that range", clamp, l.runtime),
			fmt.Sprintf("the delay is clamped %s, but %s does not clamp its quantile delay: min %s / max %s not written", clamp, l.runtime, fdur(a.Min.D()), fdur(a.Max.D())),
		})
	}
	return ds
}

// failsafeQuantileWindow returns the execution window and warm-up that
// the failsafe-go format writes for adaptive delay a.
func failsafeQuantileWindow(a *Adaptive) (window, warm int) {
	window = a.Window
	if window <= 0 {
		window = 1000
	}
	return window, max(a.WarmUp, 1)
}

// sourceNoun names an adaptive delay's source as a plural noun.
func sourceNoun(source string) string {
	switch source {
	case "attempts":
		return "attempts"
	case "requests":
		return "requests"
	}
	return "primaries"
}

// replicaDifferences: a format that cannot keep a copy off the replicas
// its request's other attempts went to lets the pool's router send it to
// one of them, which is what copies_to = "any_replica" simulates.
func replicaDifferences(l limits, c *Class) []difference {
	ps := c.otherReplica()
	if l.otherReplica == "" || len(ps) == 0 {
		return nil
	}
	names := make([]string, len(ps))
	for k, p := range ps {
		names[k] = p.Provider
	}
	pools := joinq(names)
	return []difference{{
		fmt.Sprintf("its copies go to a replica of %s that holds no other attempt of their request (copies_to = \"other_replica\"), and %s cannot say so: the pool's router may send a copy to the replica of an earlier attempt, as copies_to = \"any_replica\" simulates", pools, l.runtime),
		fmt.Sprintf("copies_to = \"other_replica\" on %s not written: %s cannot keep a copy off the replicas its request's other attempts went to, and a router that does not track a request's attempts may send it to one of them (what copies_to = \"any_replica\" simulates): %s", pools, l.runtime, l.otherReplica),
	}}
}
