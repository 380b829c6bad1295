package export

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// Retry is a class's retry policy (see sim.Retry): Retry re-runs a failed
// request, hedging and all (retries around hedging); AttemptRetry makes
// each attempt a retry loop on its model (hedging around retries). Retry n
// waits min(MaxBackoff, InitialBackoff × Multiplier^(n−1)), jittered.
type Retry struct {
	// MaxAttempts counts the first try, in [1, sim.MaxRetryAttempts].
	MaxAttempts    int     `json:"max_attempts"`
	InitialBackoff Seconds `json:"initial_backoff_s"`
	MaxBackoff     Seconds `json:"max_backoff_s"`
	Multiplier     float64 `json:"multiplier"`
	// Jitter is "full" (U(0, d)), "equal" (d/2 + U(0, d/2)) or "none".
	Jitter string `json:"jitter"`
	// RetryOn names the retryable failures: "5xx", "429", "4xx",
	// "upstream_timeout", "attempt_timeout", "invalid", "stall".
	RetryOn []string `json:"retry_on"`
	// CountsAgainstBudget: retries pass the class's hedge budgets.
	CountsAgainstBudget bool `json:"counts_against_budget"`
}

// retryOf converts r (nil: none).
func retryOf(r *sim.Retry) *Retry {
	if r == nil {
		return nil
	}
	x := &Retry{MaxAttempts: r.MaxAttempts, InitialBackoff: Seconds(r.InitialBackoff), MaxBackoff: Seconds(r.MaxBackoff),
		Multiplier: r.Multiplier, Jitter: r.Jitter.String(), RetryOn: []string{}, CountsAgainstBudget: r.CountsAgainstBudget}
	for i, k := range sim.RetryKinds {
		if r.On&(1<<i) != 0 {
			x.RetryOn = append(x.RetryOn, k)
		}
	}
	return x
}

var jitters = []string{"full", "equal", "none"}

func (r *Retry) validate(inner bool) error {
	if r.MaxAttempts < 1 || r.MaxAttempts > sim.MaxRetryAttempts {
		return fmt.Errorf("max_attempts: got %d; want 1 to %d", r.MaxAttempts, sim.MaxRetryAttempts)
	}
	if r.MaxBackoff < r.InitialBackoff {
		return fmt.Errorf("max_backoff_s: %g is below initial_backoff_s %g", r.MaxBackoff.D().Seconds(), r.InitialBackoff.D().Seconds())
	}
	if !(r.Multiplier >= 1 && r.Multiplier <= 1e6) {
		return fmt.Errorf("multiplier: got %g; want a number in [1, 1e6]", r.Multiplier)
	}
	if err := oneOf("jitter", r.Jitter, jitters); err != nil {
		return err
	}
	if len(r.RetryOn) == 0 {
		return errors.New("retry_on: empty; want at least one failure")
	}
	for _, k := range r.RetryOn {
		if err := oneOf("retry_on", k, sim.RetryKinds); err != nil {
			return err
		}
		if inner && (k == "attempt_timeout" || k == "invalid" || k == "stall") {
			return fmt.Errorf("retry_on: %q cannot be retried inside an attempt", k)
		}
	}
	return nil
}

func (r *Retry) on(kind string) bool { return slices.Contains(r.RetryOn, kind) }

// describe says in words what r does: "up to 3 tries, backoff 500ms × 2
// up to 8s, full jitter".
func (r *Retry) describe() string {
	return fmt.Sprintf("up to %d tries, backoff %s × %g up to %s, %s jitter, on %s",
		r.MaxAttempts, fdur(r.InitialBackoff.D()), r.Multiplier, fdur(r.MaxBackoff.D()), r.Jitter, strings.Join(r.RetryOn, ", "))
}

// retryNotes adds, for a runtime whose export writes neither retry layer
// of c, what is not written.
func retryNotes(n *notes, c *Class, runtime string) {
	if r := c.Retry; r != nil {
		n.add("the class's retry of the whole call (%s) is not written for %s: wrap the call in your own retry loop", r.describe(), runtime)
	}
	if r := c.AttemptRetry; r != nil {
		n.add("the class's attempt retry (%s) is not written for %s: it is the client library's own retry (max_retries), inside each attempt", r.describe(), runtime)
	}
}

// failsafeRetry writes r as a failsafe-go retrypolicy named name, and
// reports whether it used usableAnswer. failsafe-go delays retry n by
// min(maxDelay, delay × factor^(n−1)) ± jitterFactor × that, so full
// jitter U(0, d) is delay and maxDelay halved with jitter factor 1, and
// equal jitter U(d/2, d) is them × 3/4 with jitter factor 1/3 — exact.
func failsafeRetry(body *strings.Builder, n *notes, c *Class, r *Retry, name, what string, imports map[string]bool) bool {
	imports[FailsafeGoModule+"/retrypolicy"] = true
	if r.on("stall") {
		n.add("failsafe-go sees the response, not its stream: the %s's retries of stream cuts (stall) are not written", what)
	}
	scale, jitter := 1.0, ""
	switch r.Jitter {
	case "full":
		scale, jitter = 0.5, ".\n\t// delays halved, ± themselves: U(0, d), full jitter\n\tWithJitterFactor(1)"
	case "equal":
		scale, jitter = 0.75, ".\n\t// delays × 3/4, ± a third of that: U(d/2, d), equal jitter\n\tWithJitterFactor(1.0 / 3)"
	}
	scaled := func(s Seconds) string { return goDuration(roundDuration(float64(s.D()) * scale)) }
	var b strings.Builder
	fmt.Fprintf(&b, "retrypolicy.NewBuilder[*http.Response]().\n\t// true retries: a retryable failure\n\tHandleIf(func(r *http.Response, err error) bool {\n\t\tswitch {\n")
	used := false
	if r.on("attempt_timeout") && c.AttemptTimeout > 0 {
		imports["errors"] = true
		imports[FailsafeGoModule+"/timeout"] = true
		fmt.Fprintf(&b, "\t\tcase errors.Is(err, timeout.ErrExceeded):\n\t\t\treturn true // attempt timeout\n")
	}
	fmt.Fprintf(&b, "\t\tcase err != nil:\n\t\t\treturn %v // transport error\n", r.on("5xx"))
	fmt.Fprintf(&b, "\t\tcase r.StatusCode == http.StatusRequestTimeout || r.StatusCode == http.StatusGatewayTimeout:\n\t\t\treturn %v // upstream timeout\n", r.on("upstream_timeout"))
	fmt.Fprintf(&b, "\t\tcase r.StatusCode == http.StatusTooManyRequests:\n\t\t\treturn %v\n", r.on("429"))
	fmt.Fprintf(&b, "\t\tcase r.StatusCode >= 500:\n\t\t\treturn %v\n", r.on("5xx"))
	fmt.Fprintf(&b, "\t\tcase r.StatusCode >= 400:\n\t\t\treturn %v\n\t\t}\n", r.on("4xx"))
	if r.on("invalid") {
		fmt.Fprintf(&b, "\t\treturn !usableAnswer(r)\n\t}).\n")
		used = true
	} else {
		fmt.Fprintf(&b, "\t\treturn false\n\t}).\n")
	}
	fmt.Fprintf(&b, "\tWithMaxAttempts(%d).\n\tWithBackoffFactor(%s, %s, %g)%s.\n\tReturnLastFailure().\n\tBuild()",
		r.MaxAttempts, scaled(r.InitialBackoff), scaled(r.MaxBackoff), float32(r.Multiplier), jitter)
	fmt.Fprintf(body, "\n// %s %s of class %s: %s.\nvar %s = %s\n", name, what, commentText(c.Class), r.describe(), name, b.String())
	if r.on("429") {
		n.add("failsafe-go waits its backoff after a 429: to honour Retry-After as hedgesim does (the longer of the two), add WithDelayFunc reading the header to %s", name)
	}
	if r.CountsAgainstBudget {
		n.add("failsafe-go's retrypolicy does not share the hedge budget: counts_against_budget not written for %s", name)
	}
	return used
}

func roundDuration(ns float64) time.Duration { return time.Duration(math.Round(ns)) }

// failsafeRetries writes c's retry layers for failsafe-go: the request's
// retry outside the hedge policy (policies[0] is the deadline, if any),
// the attempt's retry innermost, inside the hedge policy and the attempt
// timeout; it returns the policies, outermost first, and whether it used
// usableAnswer.
func failsafeRetries(body *strings.Builder, n *notes, c *Class, id string, policies, inner []string, imports map[string]bool) ([]string, bool) {
	used := false
	var out []string
	out = append(out, policies...)
	if r := c.Retry; r != nil {
		used = failsafeRetry(body, n, c, r, id+"RequestRetry", "re-runs a failed call, hedging and all,", imports) || used
		out = append(out, id+"RequestRetry")
	}
	out = append(out, inner...)
	if r := c.AttemptRetry; r != nil {
		used = failsafeRetry(body, n, c, r, id+"AttemptRetry", "retries each attempt (inside the hedge policy, as a client library does)", imports) || used
		out = append(out, id+"AttemptRetry")
	}
	return out, used
}

// grpcRetryLayer writes the retry layer of c, a class that does not hedge,
// as a retryPolicy (without hedging a request is one attempt, so either
// layer is one retry loop around the call); nil, with notes, when none can
// be written. gRPC waits random(0, min(initialBackoff ×
// backoffMultiplier^(n−1), maxBackoff)) (gRFC A6): full jitter only.
func grpcRetryLayer(n *notes, c *Class) *GRPCRetryPolicy {
	r, what := c.Retry, "retry"
	if r == nil {
		r, what = c.AttemptRetry, "attempt retry"
	} else if c.AttemptRetry != nil {
		n.add("gRPC has one retryPolicy per method: the class's attempt retry (%s) not written under its retry; it is the client library's own", c.AttemptRetry.describe())
	}
	if r == nil {
		return nil
	}
	var codes []string
	for _, k := range []struct{ kind, code string }{
		{"5xx", grpcErrorCode}, {"429", grpcRateLimitCode}, {"upstream_timeout", "DEADLINE_EXCEEDED"},
	} {
		if r.on(k.kind) {
			codes = append(codes, k.code)
		}
	}
	for _, k := range []string{"4xx", "attempt_timeout", "invalid", "stall"} {
		if r.on(k) {
			n.add("gRPC's retryPolicy retries status codes only: %s retries of %s not written", what, k)
		}
	}
	if len(codes) == 0 {
		n.add("the %s retries no failure gRPC can see: no retryPolicy written", what)
		return nil
	}
	rp := &GRPCRetryPolicy{MaxAttempts: min(r.MaxAttempts, GRPCMaxAttempts), InitialBackoff: protoDuration(r.InitialBackoff.D()),
		MaxBackoff: protoDuration(r.MaxBackoff.D()), BackoffMultiplier: r.Multiplier, RetryableStatusCodes: codes}
	if r.MaxAttempts < 2 {
		n.add("the %s makes 1 try: no retryPolicy written (gRPC wants maxAttempts ≥ 2)", what)
		return nil
	}
	if r.MaxAttempts > GRPCMaxAttempts {
		n.add("gRPC caps maxAttempts at %d: wrote %d tries instead of %d", GRPCMaxAttempts, GRPCMaxAttempts, r.MaxAttempts)
	}
	if r.InitialBackoff == 0 {
		rp.InitialBackoff, rp.MaxBackoff = "0.001s", protoDuration(max(r.MaxBackoff.D(), 1e6))
		n.add("gRPC requires a back-off > 0: wrote initialBackoff 1ms instead of 0")
	}
	if r.Jitter != "full" {
		n.add("gRPC's back-off is always fully jittered (random(0, backoff)): %s jitter written as full", r.Jitter)
	}
	if r.on("429") {
		n.add("gRPC's retryPolicy ignores Retry-After (it honours grpc-retry-pushback-ms from the server instead)")
	}
	return rp
}

// statusRuleNotes adds, for a runtime that tells failures apart only as
// its own spelling does, what becomes of c's per-status rules: a 4xx
// (on_client_error) and an upstream timeout (on_upstream_timeout, 504 or
// 408). timeout and client say how the runtime handles each.
func statusRuleNotes(n *notes, c *Class, runtime, timeout, client string) {
	if c.OnUpstreamTimeout != "" {
		n.add("%s: on_upstream_timeout %q not written: %s", runtime, c.OnUpstreamTimeout, timeout)
	}
	if c.OnClientError != "" {
		n.add("%s: on_client_error %q not written: %s", runtime, c.OnClientError, client)
	}
}
