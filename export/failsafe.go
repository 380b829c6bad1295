package export

import (
	"fmt"
	"go/format"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// FailsafeGoModule and FailsafeGoVersion are the failsafe-go release the
// failsafe-go format is written for (and tested against).
const (
	FailsafeGoModule  = "github.com/failsafe-go/failsafe-go"
	FailsafeGoVersion = "v0.9.8"
)

// failsafe-go composes policies outermost first: a class's deadline, its
// request retry (around hedging), its hedgepolicy, its attempt timeout,
// and its attempt retry innermost (run inside each hedge attempt).
//
// failsafe-go's hedgepolicy (hedgepolicy/hedge.go, hedgeexecutor.go of
// v0.9.8): WithMaxHedges counts copies beyond the original; by default the
// first result or error ends the call and cancels the others, CancelIf
// narrows what is final; a non-final result does not shortcut the next
// copy's timer; a hedge denied by the budget ends hedging for that call.

func writeFailsafe(d *Document, opt Options) ([]byte, []Note, error) {
	var all []Note
	var body strings.Builder
	imports := map[string]bool{"net/http": true, FailsafeGoModule: true}
	usedUsable := false
	ids := map[string]bool{}
	breakers := map[string]string{} // breaker key → its variable
	first := "ClassPolicies"        // the first class's policies, which the package doc's example uses
	for i := range d.Classes {
		c := &d.Classes[i]
		n := &notes{class: c.Class}
		id := ident(c.Class)
		for base, k := id, 2; ids[id]; k++ {
			id = fmt.Sprintf("%s%d", base, k) // "a-b" and "a_b" both give AB
		}
		ids[id] = true
		if i == 0 {
			first = id + "Policies"
		}
		if f := c.fallbacks(); f > 0 && f < len(c.Copies) {
			return nil, nil, &UnmappableError{"failsafe-go", c.Class, "failsafe-go cannot mix timed copies (a hedgepolicy) with copies sent only after a failure (a retrypolicy) in one call"}
		}
		if err := faithful("failsafe-go", n, c, opt); err != nil {
			return nil, nil, err
		}
		writeFailsafeBreakers(&body, n, c, breakers, imports)
		poolNotes(n, c, c, "failsafe-go", "each hedge runs the same function, so route a hedge (exec.IsHedge()) away from the replicas its request's earlier attempts went to there, or through a router that does")
		statusRuleNotes(n, c, "failsafe-go", "the written predicates handle a 504 as any 5xx (on_error)", "the written predicates give a 4xx its own case, which keeps waiting for the other attempts (a hedge policy cannot send the next copy at once)")
		cc := commentText(c.Class) // the class's name in comments
		fmt.Fprintf(&body, "\n// Class %s.\n", cc)
		hedgeTarget := c.Primary
		if len(c.Copies) > 0 {
			hedgeTarget = c.Copies[0].Target
		}
		route := "exec.IsHedge()"
		if c.fallbacks() > 0 {
			route = "exec.IsRetry()"
		}
		fmt.Fprintf(&body, "\n// %sPrimary is the model the original call of class %s goes to, and\n// %sHedgeTarget the one its copies go to: route by %s.\nconst (\n\t%sPrimary = %s\n\t%sHedgeTarget = %s\n)\n",
			id, cc, id, route, id, goQuote(c.Primary), id, goQuote(hedgeTarget))

		var policies []string
		if c.Deadline > 0 {
			imports[FailsafeGoModule+"/timeout"] = true
			fmt.Fprintf(&body, "\n// %sDeadline ends a call of class %s after %s (timeout.ErrExceeded).\nvar %sDeadline = timeout.New[*http.Response](%s)\n",
				id, cc, fdur(c.Deadline.D()), id, goDuration(c.Deadline.D()))
			policies = append(policies, id+"Deadline")
			if c.OnTimeout == "fail_open" {
				n.add("at the deadline the call ends with timeout.ErrExceeded: failing open is the caller's handling of that error")
			}
		}
		if !c.Hedge {
			n.add("hedging off: no hedgepolicy written%s", reasonSuffix(c.Reason))
			var used bool
			policies, used = failsafeRetries(&body, n, c, id, policies, nil, imports)
			usedUsable = usedUsable || used
			fmt.Fprintf(&body, "\n// %sPolicies are the policies of class %s, outermost first: hedging off.\nvar %sPolicies = []failsafe.Policy[*http.Response]{%s}\n",
				id, cc, id, strings.Join(policies, ", "))
			all = append(all, n.list...)
			continue
		}
		if c.fallbacks() > 0 {
			usedUsable = writeFailsafeRetry(&body, n, c, id, imports) || usedUsable
			usedUsable = writeFailsafePolicies(&body, n, c, id, id+"Retry", policies, imports) || usedUsable
			if hedgeTarget != c.Primary {
				n.add("failsafe-go runs the same function for every attempt: send retries (exec.IsRetry()) to %sHedgeTarget (%q) yourself", id, hedgeTarget)
			}
			failsafeBudgetNotes(n, c)
			commonNotes(n, c, "failsafe-go")
			all = append(all, n.list...)
			continue
		}
		imports[FailsafeGoModule+"/hedgepolicy"] = true
		var build strings.Builder
		if a := c.Adaptive; a != nil {
			// faithful refuses, or notes as approximated, the estimate
			// and the clamps (adaptiveDifferences).
			window, warm := failsafeQuantileWindow(a)
			fmt.Fprintf(&build, "hedgepolicy.NewBuilderWithDelayQuantile[*http.Response](%g, %d, %d)", a.Percentile, window, warm)
		} else {
			fmt.Fprintf(&build, "hedgepolicy.NewBuilderWithDelay[*http.Response](%s)", goDuration(firstDelay(c)))
		}
		fmt.Fprintf(&build, ".\n\tWithMaxHedges(%d)", len(c.Copies))
		if c.Winner != "first_response" {
			usedUsable = true
			fatal := func(rule string) string { return fmt.Sprint(rule == "fatal") }
			fmt.Fprintf(&build, ".\n\t// true ends the call and cancels the other attempts: a usable answer or a fatal failure\n\tCancelIf(func(r *http.Response, err error) bool {\n\t\tswitch {\n")
			if c.AttemptTimeout > 0 {
				imports["errors"] = true
				fmt.Fprintf(&build, "\t\tcase errors.Is(err, timeout.ErrExceeded):\n\t\t\treturn %s // attempt timeout\n", fatal(c.OnAttemptTimeout))
			}
			fmt.Fprintf(&build, "\t\tcase err != nil:\n\t\t\treturn %s // transport error\n", fatal(c.OnError))
			fmt.Fprintf(&build, "\t\tcase r.StatusCode == http.StatusTooManyRequests:\n\t\t\treturn %s\n", fatal(c.OnRateLimited))
			fmt.Fprintf(&build, "\t\tcase r.StatusCode >= 500:\n\t\t\treturn %s\n", fatal(c.OnError))
			fmt.Fprintf(&build, "\t\tcase r.StatusCode >= 400:\n\t\t\treturn %s // a 4xx other than 429\n\t\t}\n", fatal(clientRule(c)))
			if c.OnInvalid == "fatal" {
				fmt.Fprintf(&build, "\t\treturn true // an unusable answer is fatal too\n\t})")
			} else {
				fmt.Fprintf(&build, "\t\treturn usableAnswer(r)\n\t})")
			}
			var nonfatal []string
			for _, r := range []struct{ rule, what string }{{c.OnError, "errors"}, {c.OnRateLimited, "429s"}, {c.OnInvalid, "unusable answers"}} {
				if r.rule == "nonfatal" {
					nonfatal = append(nonfatal, r.what)
				}
			}
			if len(nonfatal) > 0 {
				n.add("failsafe-go sends the next copy on its timer, not at once after a failure: non-fatal %s written as ignored", strings.Join(nonfatal, ", "))
			}
		}
		if c.Winner == "first_token" {
			n.add("an HTTP round trip ends at the response headers: first_token holds if the server sends headers with the first token")
		}
		b := &c.Budget
		if b.MaxInFlightRatio > 0 || b.MinInFlight > 0 {
			imports[FailsafeGoModule+"/budget"] = true
			fmt.Fprintf(&body, "\n// %sBudget bounds class %s's copies in flight: at most %s of the calls in flight, at least %d.\nvar %sBudget = budget.NewBuilder().WithMaxRate(%g).WithMinConcurrency(%d).Build()\n",
				id, cc, trimFloat(100*b.MaxInFlightRatio)+"%", b.MinInFlight, id, b.MaxInFlightRatio, b.MinInFlight)
			fmt.Fprintf(&build, ".\n\tWithBudget(%sBudget)", id)
			n.add("a copy the budget denies ends hedging for that call in failsafe-go (later copies are not tried)")
		}
		if b.MaxHedgeShare > 0 {
			n.add("failsafe-go has no cap on the share of calls that hedge: max_hedge_share %g not written", b.MaxHedgeShare)
		}
		if b.RetryThrottling != nil {
			n.add("failsafe-go's hedgepolicy has no retry throttling: retry_throttling not written")
		}
		if b.HedgesPerSecond > 0 {
			n.add("failsafe-go's hedgepolicy has no rate limit on copies: hedges_per_second %g not written", b.HedgesPerSecond)
		}
		if b.MaxParallel > 0 {
			n.add("failsafe-go's budget has no absolute cap: max_parallel %d not written", b.MaxParallel)
		}
		fmt.Fprintf(&build, ".\n\tBuild()")
		fmt.Fprintf(&body, "\n// %sHedge is the hedge policy of class %s: %s.\nvar %sHedge = %s\n", id, cc, commentText(describeWritten(c, hedgeTarget, firstDelay(c))), id, build.String())
		usedUsable = writeFailsafePolicies(&body, n, c, id, id+"Hedge", policies, imports) || usedUsable

		if hedgeTarget != c.Primary {
			n.add("failsafe-go runs the same function for every attempt: send attempts with exec.IsHedge() to %sHedgeTarget (%q) yourself", id, hedgeTarget)
		}
		if c.NewProvider {
			n.add("\"a provider not tried yet\" not written: failsafe-go has no target list")
		}
		commonNotes(n, c, "failsafe-go")
		all = append(all, n.list...)
	}

	var out strings.Builder
	fmt.Fprintf(&out, "// Package hedging holds the hedge policies of %s (%s) for failsafe-go %s.\n//\n", commentText(d.Scenario), sourceText(d.Source), FailsafeGoVersion)
	fmt.Fprintf(&out, "// Use a class's policies in an HTTP client:\n//\n//\tclient := &http.Client{Transport: failsafehttp.NewRoundTripper(nil, %s...)}\n//\n", first)
	fmt.Fprintf(&out, "// or, to send copies to another model, run each attempt with\n// failsafe.With(%s...).GetWithExecution and pick the URL by exec.IsHedge().\n", first)
	if len(all) > 0 {
		out.WriteString("//\n")
		var sb strings.Builder
		writeComments(&sb, "// ", all)
		out.WriteString(sb.String())
	}
	if strings.Contains(body.String(), "time.") {
		imports["time"] = true
	}
	out.WriteString("package hedging\n\nimport (\n")
	var std, mods []string
	for p := range imports {
		if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
			mods = append(mods, p)
		} else {
			std = append(std, p)
		}
	}
	sort.Strings(std)
	sort.Strings(mods)
	for i, group := range [][]string{std, mods} {
		if i > 0 {
			out.WriteString("\n")
		}
		for _, p := range group {
			fmt.Fprintf(&out, "\t%q\n", p)
		}
	}
	out.WriteString(")\n")
	out.WriteString(body.String())
	if usedUsable {
		out.WriteString("\n// usableAnswer reports whether a response is a usable answer; add checks of\n// the body (valid format, not empty, not truncated) where a class needs them.\nfunc usableAnswer(r *http.Response) bool {\n\treturn r.StatusCode >= 200 && r.StatusCode < 300\n}\n")
	}
	src, err := format.Source([]byte(out.String()))
	if err != nil {
		return nil, nil, fmt.Errorf("failsafe-go: generated code does not parse: %v", err)
	}
	return src, all, nil
}

// goDuration writes d as a Go expression: "3 * time.Second",
// "700 * time.Millisecond", "0".
func goDuration(d time.Duration) string {
	units := []struct {
		d    time.Duration
		name string
	}{{time.Hour, "time.Hour"}, {time.Minute, "time.Minute"}, {time.Second, "time.Second"},
		{time.Millisecond, "time.Millisecond"}, {time.Microsecond, "time.Microsecond"}}
	if d == 0 {
		return "0"
	}
	for _, u := range units {
		if d%u.d == 0 {
			if d == u.d {
				return u.name
			}
			return fmt.Sprintf("%d * %s", d/u.d, u.name)
		}
	}
	return fmt.Sprintf("%d * time.Nanosecond", int64(d))
}

// describeWritten says in words what the hedgepolicy written for class c
// sends, every copy to target, delay after the previous send: "up to 2
// copies to llama-guard, 1s apart" (under --approximate, not what was
// simulated: faithful notes the difference).
func describeWritten(c *Class, target string, delay time.Duration) string {
	when := fmt.Sprintf("%s apart", fdur(delay))
	if c.Adaptive != nil {
		when = fmt.Sprintf("at the p%g of recent latencies", 100*c.Adaptive.Percentile)
	} else if delay == 0 {
		when = "all at once"
	}
	return fmt.Sprintf("up to %d cop%s to %s, %s", len(c.Copies), map[bool]string{true: "y", false: "ies"}[len(c.Copies) == 1], target, when)
}

// targetsOf lists the copies' targets, each once, in order.
func targetsOf(c *Class) string {
	var ts []string
	seen := map[string]bool{}
	for _, cp := range c.Copies {
		if !seen[cp.Target] {
			seen[cp.Target] = true
			ts = append(ts, cp.Target)
		}
	}
	return strings.Join(ts, ", ")
}

// writeFailsafePolicies writes class c's list of policies, outermost
// first: the outer ones already in policies, its retries, then core (its
// hedge or fallback retry policy) and its attempt timeout. It reports
// whether the retries used usableAnswer.
func writeFailsafePolicies(body *strings.Builder, n *notes, c *Class, id, core string, policies []string, imports map[string]bool) bool {
	inner := []string{core}
	if c.AttemptTimeout > 0 {
		writeFailsafeAttemptTimeout(body, c, id, imports)
		inner = append(inner, id+"AttemptTimeout")
	}
	policies, used := failsafeRetries(body, n, c, id, policies, inner, imports)
	fmt.Fprintf(body, "\n// %sPolicies are the policies of class %s, outermost first:\n// failsafe.With(%sPolicies...).\nvar %sPolicies = []failsafe.Policy[*http.Response]{%s}\n",
		id, commentText(c.Class), id, id, strings.Join(policies, ", "))
	return used
}

func writeFailsafeAttemptTimeout(body *strings.Builder, c *Class, id string, imports map[string]bool) {
	imports[FailsafeGoModule+"/timeout"] = true
	fmt.Fprintf(body, "\n// %sAttemptTimeout abandons an attempt of class %s after %s.\nvar %sAttemptTimeout = timeout.New[*http.Response](%s)\n",
		id, commentText(c.Class), fdur(c.AttemptTimeout.D()), id, goDuration(c.AttemptTimeout.D()))
}

// writeFailsafeRetry writes a class whose copies are all fallback copies
// as a retrypolicy: a copy goes out at once after a non-fatal failure,
// never on a timer. It reports whether it used usableAnswer.
func writeFailsafeRetry(body *strings.Builder, n *notes, c *Class, id string, imports map[string]bool) bool {
	imports[FailsafeGoModule+"/retrypolicy"] = true
	nonfatal := func(rule string) string { return fmt.Sprint(rule == "nonfatal" && c.Winner != "first_response") }
	var b strings.Builder
	fmt.Fprintf(&b, "retrypolicy.NewBuilder[*http.Response]().\n\t// true sends the next copy at once: a non-fatal failure\n\tHandleIf(func(r *http.Response, err error) bool {\n\t\tswitch {\n")
	if c.AttemptTimeout > 0 {
		imports["errors"] = true
		fmt.Fprintf(&b, "\t\tcase errors.Is(err, timeout.ErrExceeded):\n\t\t\treturn %s // attempt timeout\n", nonfatal(c.OnAttemptTimeout))
	}
	fmt.Fprintf(&b, "\t\tcase err != nil:\n\t\t\treturn %s // transport error\n", nonfatal(c.OnError))
	fmt.Fprintf(&b, "\t\tcase r.StatusCode == http.StatusTooManyRequests:\n\t\t\treturn %s\n", nonfatal(c.OnRateLimited))
	fmt.Fprintf(&b, "\t\tcase r.StatusCode >= 500:\n\t\t\treturn %s\n", nonfatal(c.OnError))
	fmt.Fprintf(&b, "\t\tcase r.StatusCode >= 400:\n\t\t\treturn %s // a 4xx other than 429\n\t\t}\n", nonfatal(clientRule(c)))
	used := false
	if nonfatal(c.OnInvalid) == "true" && c.Winner == "first_valid" {
		fmt.Fprintf(&b, "\t\treturn !usableAnswer(r)\n\t}).\n")
		used = true
	} else {
		fmt.Fprintf(&b, "\t\treturn false\n\t}).\n")
	}
	fmt.Fprintf(&b, "\tWithMaxRetries(%d).\n\tReturnLastFailure().\n\tBuild()", len(c.Copies))
	fmt.Fprintf(body, "\n// %sRetry sends class %s's copies only after a failure (fallback), at once: up to %d cop%s to %s.\nvar %sRetry = %s\n",
		id, commentText(c.Class), len(c.Copies), map[bool]string{true: "y", false: "ies"}[len(c.Copies) == 1], commentText(c.Copies[0].Target), id, b.String()) // every copy to one target (faithful)
	n.add("copies sent only after a failure are a failsafe-go retrypolicy (no hedgepolicy); an ignored failure ends the call instead of waiting for others, since nothing else is in flight")
	return used
}

// failsafeBudgetNotes names the budgets a failsafe-go retrypolicy does not
// get from the export.
func failsafeBudgetNotes(n *notes, c *Class) {
	b := &c.Budget
	if b.MaxHedgeShare > 0 || b.RetryThrottling != nil || b.MaxInFlightRatio > 0 || b.MinInFlight > 0 || b.HedgesPerSecond > 0 || b.MaxParallel > 0 {
		n.add("the class's budget is not written for its retrypolicy")
	}
}

// writeFailsafeBreakers writes, once per document, a failsafe-go
// circuitbreaker for each breaker of c (one per model, one shared instance
// per provider), and notes where to use it and what does not map. A
// breaker guards the calls to its models, so it goes around each attempt
// to them (the attempt function picks the model), not in the class's
// policies, which run for every attempt whatever its model.
func writeFailsafeBreakers(body *strings.Builder, n *notes, c *Class, written map[string]string, imports map[string]bool) {
	for i := range c.Breakers {
		b := &c.Breakers[i]
		key, name := b.String(), "Model"+ident(b.Model)+"Breaker"
		if b.Provider != "" {
			name = "Provider" + ident(b.Provider) + "Breaker"
		}
		if w, ok := written[key]; ok {
			name = w
		} else {
			for base, k := name, 2; slices.Contains(slices.Collect(maps.Values(written)), name); k++ {
				name = fmt.Sprintf("%s%d", base, k) // another breaker of the same name
			}
			written[key] = name
			imports[FailsafeGoModule+"/circuitbreaker"] = true
			var trip string
			switch {
			case b.FailureRatio > 0 && b.WindowTime > 0:
				trip = fmt.Sprintf("WithFailureRateThreshold(%g, %d, %s)", b.FailureRatio, b.MinCalls, goDuration(b.WindowTime.D()))
			case b.FailureRatio > 0:
				trip = fmt.Sprintf("WithFailureThresholdRatio(%d, %d)", max(1, int(math.Ceil(b.FailureRatio*float64(b.Window)-1e-9))), b.Window)
			default:
				trip = fmt.Sprintf("WithFailureThreshold(%d)", b.ConsecutiveFailures)
			}
			fmt.Fprintf(body, "\n// %s is %s. Share this one instance across every call to %s:\n// run each attempt to them with failsafe.With(%s).Get(...).\nvar %s = circuitbreaker.NewBuilder[*http.Response]().\n\t// failures: errors, 429s and 5xx (an answer, valid or not, is a success)\n\tHandleIf(func(r *http.Response, err error) bool {\n\t\treturn err != nil || r.StatusCode == http.StatusTooManyRequests || r.StatusCode >= 500\n\t}).\n\t%s.\n\tWithDelay(%s).\n\tWithSuccessThreshold(%d).\n\tBuild()\n",
				name, commentText(b.String()), commentList(b.Models), name, name, trip, goDuration(b.Cooldown.D()), b.Probes)
		}
		n.add("%s written as %s: wrap each attempt to %s in it (failsafe.With(%s)); it is not in the class's policies, which run for every attempt whatever its model", b, name, strings.Join(b.Models, ", "), name)
		if b.FailureRatio > 0 && b.ConsecutiveFailures > 0 {
			n.add("%s: failsafe-go's breaker has one trip: the failure ratio is written, the %d-consecutive-failure trip is not", b, b.ConsecutiveFailures)
		}
		if b.FailureRatio > 0 && b.WindowTime == 0 {
			n.add("%s: a count window is written as WithFailureThresholdRatio(%d of the last %d): min_calls %d is not written", b, max(1, int(math.Ceil(b.FailureRatio*float64(b.Window)-1e-9))), b.Window, b.MinCalls)
		}
		if b.Provider != "" && len(b.Models) > 1 {
			n.add("%s: one instance shared by the models %s: do not build one per model", b, strings.Join(b.Models, ", "))
		}
	}
}

// clientRule is the class's rule for a 4xx other than 429: the document
// leaves it out when it is the default, fatal.
func clientRule(c *Class) string {
	if c.OnClientError == "" {
		return "fatal"
	}
	return c.OnClientError
}
