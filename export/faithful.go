package export

import (
	"fmt"
	"strings"
	"time"
)

// What each format writes of a class's copies exactly, and what its
// runtime does instead (ROLLOUT.md; each writer's comments):
//
//   - gRPC's hedgingPolicy has one hedgingDelay, sends every attempt to
//     the method's service (no other model), caps maxAttempts, which
//     counts the original, at 5 (gRFC A6), and its timeout covers the
//     whole call, stream included.
//   - Envoy's retry_policy has one per_try_timeout; a composite cluster
//     names each attempt's model; the route timeout covers the whole
//     response.
//   - failsafe-go's hedgepolicy as written (NewBuilderWithDelay) has one
//     delay, and the attempt function tells a copy from the original only
//     (exec.IsHedge()): every copy goes to one hedge target.
//   - Polly's Hedging.Delay is one delay; Routing's ordered endpoint
//     groups name each attempt's endpoint.
//   - python, typescript and json carry each copy's own delay and target.
//
// and of the rest of a class's hedging (differences.go): an attempt
// timeout under hedging (gRPC and Envoy have none), an adaptive delay
// (failsafe-go's quantile delay is another estimate, unclamped), a
// replica pool's copies_to = "other_replica" (only Envoy's previous_hosts
// predicate keeps a copy off the replicas already tried).

// reach is where a format can send a class's copies.
type reach int

const (
	eachTarget    reach = iota // each copy to its own target
	oneTarget                  // every copy to one hedge target, the first copy's
	primaryTarget              // every copy where the primary goes
)

// limits are what a format cannot write of a class's copies and deadline.
type limits struct {
	runtime   string // the runtime's name in prose
	oneDelay  bool   // one delay for every copy: the first gap
	reach     reach
	maxCopies int    // the most copies it sends; 0: no limit
	capWhy    string // why maxCopies, in words
	wholeCall string // its timeout, when that covers the whole call, stream included
	adaptive  bool   // can write an adaptive delay
	// decayingQuantile: its adaptive delay is failsafe-go's quantile
	// delay, another estimate than the simulator's (differences.go).
	decayingQuantile bool
	mixed            bool // can mix timed copies with copies sent only after a failure
	// noAttemptTimeout says, for a format with no attempt timeout under
	// hedging, what it has instead; "" when it writes one.
	noAttemptTimeout string
	// otherReplica says, for a format that cannot keep a copy off the
	// replicas its request's other attempts went to, what the user can do
	// instead; "" when it writes copies_to = "other_replica".
	otherReplica string
}

var formatLimits = map[string]limits{
	"grpc": {runtime: "gRPC", oneDelay: true, reach: primaryTarget, maxCopies: GRPCMaxAttempts - 1, capWhy: "maxAttempts, which counts the original, is capped at 5", wholeCall: "timeout",
		noAttemptTimeout: "a hedged attempt runs until it answers or the call's timeout ends it (hedgingPolicy has no per-attempt timeout)",
		otherReplica:     "the channel's load-balancing policy, not the service config, picks each attempt's backend"},
	"envoy": {runtime: "Envoy", oneDelay: true, reach: eachTarget, wholeCall: "route timeout",
		noAttemptTimeout: "per_try_timeout is the hedge delay, and a hedged attempt runs until it answers or the route timeout ends the request (hedge_on_per_try_timeout does not cancel it)"},
	"failsafe-go": {runtime: "failsafe-go", oneDelay: true, reach: oneTarget, adaptive: true, decayingQuantile: true,
		otherReplica: "each hedge runs the same function, so route a hedge (exec.IsHedge()) away from the replicas its request's earlier attempts went to there, or through a router that does"},
	"polly": {runtime: "Polly", oneDelay: true, reach: eachTarget, // MaxHedgedAttempts ≤ 10: a document has at most 7 copies
		otherReplica: "its hedges rotate across Routing's endpoint groups, so list the pool's replicas as endpoints, one per group, for copies to go to other replicas, or send them through a router that does"},
	"python": {runtime: "Python", mixed: true,
		otherReplica: "call is where each attempt is sent, so route a copy away from the replicas its request's earlier attempts went to there, or through a router that does"},
	"typescript": {runtime: "TypeScript", mixed: true,
		otherReplica: "call is where each attempt is sent, so route a copy away from the replicas its request's earlier attempts went to there, or through a router that does"},
	"json": {runtime: "json", adaptive: true, mixed: true},
}

// suggestOrder is the order in which a refusal names the formats that can
// express a class.
var suggestOrder = []string{"python", "typescript", "envoy", "polly", "failsafe-go", "json"}

// difference is something a format would run differently from class c:
// what differs and what the format runs instead (limitation, for the
// refusal), and what --approximate writes (written, for its note).
type difference struct {
	limitation, written string
}

// differences lists what format f would run differently from class c.
func differences(f string, c *Class) []difference {
	l := formatLimits[f]
	ds := replicaDifferences(l, c) // a retry inside an attempt lands on a pool too
	if !c.Hedge {
		return ds
	}
	switch ts := c.otherTargets(); {
	case l.reach == primaryTarget && len(ts) > 0:
		ds = append(ds, difference{
			fmt.Sprintf("its copies go to %s, another model than the primary %q, and %s sends every copy where the primary goes", joinq(ts), c.Primary, l.runtime),
			fmt.Sprintf("copies to %s written as copies to where the primary (%q) goes: a different model's latency, errors and price are not what runs", joinq(ts), c.Primary),
		})
	case l.reach == oneTarget && len(c.Copies) > 0:
		one := c.Copies[0].Target
		var off []string
		for k, cp := range c.Copies {
			if cp.Target != one {
				off = append(off, fmt.Sprintf("copy %d to %q, not %q", k+1, one, cp.Target))
			}
		}
		if len(off) > 0 {
			all := make([]string, len(c.Copies))
			for k, cp := range c.Copies {
				all[k] = cp.Target
			}
			ds = append(ds, difference{
				fmt.Sprintf("its copies go to %s in turn, and %s sends every copy to one hedge target (exec.IsHedge() tells a copy from the original, not one copy from another): it would send %s", joinq(all), l.runtime, strings.Join(off, ", ")),
				fmt.Sprintf("the copies go to %s in turn, but %s sends every copy to one hedge target: wrote %q, so it sends %s", joinq(all), l.runtime, one, strings.Join(off, ", ")),
			})
		}
	}
	if gaps := c.delays(); l.oneDelay && c.Adaptive == nil && len(gaps) > 1 {
		same := make([]time.Duration, len(gaps))
		for k := range same {
			same[k] = gaps[0]
		}
		if sends(same) != sends(gaps) {
			ds = append(ds, difference{
				fmt.Sprintf("its copies' gaps differ (%s after each previous send), and %s has one delay for every copy: it would send the copies %s after the primary, not %s", fdurs(gaps), l.runtime, sends(same), sends(gaps)),
				fmt.Sprintf("the copies' gaps are %s, but %s has one delay for every copy: wrote the first, %s, so the copies go out %s after the primary, not %s", fdurs(gaps), l.runtime, fdur(gaps[0]), sends(same), sends(gaps)),
			})
		}
	}
	if l.maxCopies > 0 && len(c.Copies) > l.maxCopies {
		ds = append(ds, difference{
			fmt.Sprintf("it sends up to %d copies, and %s sends at most %d (%s): it would send %d", len(c.Copies), l.runtime, l.maxCopies, l.capWhy, l.maxCopies),
			fmt.Sprintf("%d copies, but %s sends at most %d (%s): wrote %d, the last %d not sent", len(c.Copies), l.runtime, l.maxCopies, l.capWhy, l.maxCopies, len(c.Copies)-l.maxCopies),
		})
	}
	ds = append(ds, attemptTimeoutDifferences(l, c)...)
	ds = append(ds, adaptiveDifferences(l, c)...)
	if l.wholeCall != "" && c.Winner == "first_token" && c.Deadline > 0 {
		dl := fdur(c.Deadline.D())
		ds = append(ds, difference{
			fmt.Sprintf("its deadline (%s) is on time to first token (winner first_token), and %s's %s covers the whole call, stream included", dl, l.runtime, l.wholeCall),
			fmt.Sprintf("the deadline %s is on time to first token, but %s's %s covers the whole call: wrote %s, which also cuts a stream still running %s after the request, and does not end the wait for a first token any sooner", dl, l.runtime, l.wholeCall, dl, dl),
		})
	}
	return ds
}

// sends lists when timed copies with gaps go out, after the primary:
// "1s, 4s".
func sends(gaps []time.Duration) string {
	at := make([]time.Duration, len(gaps))
	var t time.Duration
	for k, g := range gaps {
		t += g
		at[k] = t
	}
	return fdurs(at)
}

// canExpress lists the formats other than except that write class c as
// it was simulated, in suggestOrder, each with what it needs.
func canExpress(c *Class, except string) string {
	var fs []string
	for _, f := range suggestOrder {
		l := formatLimits[f]
		if f == except || (c.Adaptive != nil && !l.adaptive) || (c.fallbacks() > 0 && c.fallbacks() < len(c.Copies) && !l.mixed) || len(differences(f, c)) > 0 {
			continue
		}
		var needs []string
		if c.Hedge && len(c.otherTargets()) > 0 {
			switch f {
			case "envoy":
				needs = append(needs, "a composite cluster, Envoy 1.40 or later")
			case "polly":
				needs = append(needs, "Routing's ordered endpoint groups")
			case "failsafe-go":
				needs = append(needs, "one hedge target, chosen by exec.IsHedge()")
			}
		}
		if c.Winner == "first_token" && c.Deadline > 0 && (f == "failsafe-go" || f == "polly") {
			needs = append(needs, "when the server sends the response headers with the first token: its timeouts end at the headers")
		}
		if len(needs) > 0 {
			f += " (" + strings.Join(needs, "; ") + ")"
		}
		fs = append(fs, f)
	}
	return strings.Join(fs, ", ")
}

// faithful checks what format would run differently from class c (see
// limits). Without opt.Approximate it returns an *UnfaithfulError naming
// every difference and the formats that can express the class; with it,
// it notes what was written instead, prefixed "approximate:". The writers
// write the nearest form in any case: the first gap for every copy, the
// first copy's target (failsafe-go) or the primary's (gRPC) for every
// copy, the capped number of copies, the whole-call timeout, no attempt
// timeout (gRPC, Envoy), failsafe-go's quantile delay, copies wherever the
// pool's router sends them.
func faithful(format string, n *notes, c *Class, opt Options) error {
	ds := differences(format, c)
	if len(ds) == 0 {
		return nil
	}
	if !opt.Approximate {
		lims := make([]string, len(ds))
		for k, d := range ds {
			lims[k] = d.limitation
		}
		return &UnfaithfulError{format, c.Class, strings.Join(lims, "; "), canExpress(c, format)}
	}
	for _, d := range ds {
		n.add("approximate: %s", d.written)
	}
	return nil
}

// firstDelay is the one delay a format with a single delay writes: the
// first timed copy's gap (faithful refuses or notes copies whose gaps
// differ), 0 for a class without timed copies.
func firstDelay(c *Class) time.Duration {
	if ds := c.delays(); len(ds) > 0 {
		return ds[0]
	}
	return 0
}
