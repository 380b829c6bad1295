package scenario

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// retryTable is [classes.retry] (a retry of the whole request, around
// hedging) or [classes.attempt_retry] (the client library's retry inside
// each attempt, hedging around it).
type retryTable struct {
	MaxAttempts         *int64    `toml:"max_attempts"`
	InitialBackoff      *Duration `toml:"initial_backoff"`
	MaxBackoff          *Duration `toml:"max_backoff"`
	Multiplier          *float64  `toml:"multiplier"`
	Jitter              *string   `toml:"jitter"`
	RetryOn             []string  `toml:"retry_on"`
	CountsAgainstBudget *bool     `toml:"counts_against_budget"`
}

// Defaults of a retry table: the OpenAI Python SDK's backoff (0.5 s
// doubling to at most 8 s), full jitter as gRPC's, and what the OpenAI and
// Anthropic SDKs retry.
const (
	defaultInitialBackoff = 500 * time.Millisecond
	defaultMaxBackoff     = 8 * time.Second
	defaultMultiplier     = 2
)

// retry reads the retry table t at key (nil: none), recording problems;
// inner says it is an attempt's retry, which cannot retry attempt
// timeouts or invalid answers.
func (c *checker) retry(key string, t *retryTable, inner bool) *sim.Retry {
	if t == nil {
		return nil
	}
	r := &sim.Retry{InitialBackoff: defaultInitialBackoff, MaxBackoff: defaultMaxBackoff,
		Multiplier: defaultMultiplier, Jitter: sim.JitterFull, On: sim.DefaultRetryOn}
	ok := true
	bad := func(err error) {
		c.keep(err)
		ok = false
	}
	switch n := t.MaxAttempts; {
	case n == nil:
		bad(c.errorf(key+".max_attempts", "missing; give the number of tries in all, the first included, from 1 to %d (3 = up to 2 retries)", sim.MaxRetryAttempts))
	case *n < 1 || *n > sim.MaxRetryAttempts:
		bad(c.errorf(key+".max_attempts", "%d is out of range; want 1 to %d tries in all, the first included", *n, sim.MaxRetryAttempts))
	default:
		r.MaxAttempts = int(*n)
	}
	if d := t.InitialBackoff; d != nil {
		r.InitialBackoff = time.Duration(*d)
		if t.MaxBackoff == nil && r.InitialBackoff > r.MaxBackoff {
			r.MaxBackoff = r.InitialBackoff
		}
	}
	if d := t.MaxBackoff; d != nil {
		if time.Duration(*d) < r.InitialBackoff {
			bad(c.errorf(key+".max_backoff", "%v is below initial_backoff %v; want a cap ≥ the first backoff", time.Duration(*d), r.InitialBackoff))
		} else {
			r.MaxBackoff = time.Duration(*d)
		}
	}
	if m := t.Multiplier; m != nil {
		if !(*m >= 1) || *m > 1e6 {
			bad(c.errorf(key+".multiplier", "%g is out of range; want a backoff multiplier in [1, 1e6] (1 = constant backoff)", *m))
		} else {
			r.Multiplier = *m
		}
	}
	var err error
	r.Jitter, err = enum(c, key+".jitter", t.Jitter, sim.JitterFull, sim.JitterFull, sim.JitterEqual, sim.JitterNone)
	if err != nil {
		bad(err)
	}
	if t.RetryOn != nil {
		on, errs := retryOn(t.RetryOn, inner)
		seen := map[string]int{}
		for _, k := range t.RetryOn {
			if seen[k]++; seen[k] == 2 {
				bad(c.errorf(key+".retry_on", "%q is listed %d times; name each retryable failure once", k, count(t.RetryOn, k)))
			}
		}
		for _, msg := range errs {
			bad(c.errorf(key+".retry_on", "%s", msg))
		}
		r.On = on
		if len(errs) == 0 && on == 0 {
			bad(c.errorf(key+".retry_on", "empty; name at least one retryable failure (%s), or remove the table to retry nothing", strings.Join(quotedList(allowedRetryKinds(inner)), ", ")))
		}
	}
	if b := t.CountsAgainstBudget; b != nil {
		r.CountsAgainstBudget = *b
	}
	if !ok {
		return nil
	}
	return r
}

// retryOn returns the set of failures kinds names, and a message per name
// that is not allowed.
func retryOn(kinds []string, inner bool) (sim.RetryOn, []string) {
	var on sim.RetryOn
	var errs []string
	allowed := allowedRetryKinds(inner)
	for _, k := range kinds {
		i := slices.Index(sim.RetryKinds, k)
		switch {
		case i >= 0 && slices.Contains(allowed, k):
			on |= 1 << i
		case i >= 0:
			errs = append(errs, strconv.Quote(k)+" cannot be retried inside an attempt (an attempt timeout bounds the attempt, its retries included; a client library does not judge answers or cut streams); retry it with the class's [retry]")
		default:
			errs = append(errs, "unknown failure "+strconv.Quote(k)+"; allowed: "+strings.Join(quotedList(allowed), ", "))
		}
	}
	return on, errs
}

// allowedRetryKinds names the failures a retry may retry.
func allowedRetryKinds(inner bool) []string {
	if !inner {
		return sim.RetryKinds
	}
	return slices.DeleteFunc(slices.Clone(sim.RetryKinds), func(k string) bool {
		return k == "attempt_timeout" || k == "invalid" || k == "stall"
	})
}

// count returns how many times s is in list.
func count(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// retryBudget reports, at key.counts_against_budget, a retry table t
// that counts against the budgets of a class, or of the pipeline step
// named name, that has none (p: no budget and no adaptive delay's
// warm-up): the setting can never take effect.
func (c *checker) retryBudget(key string, t *retryTable, p *sim.Policy, name string) {
	if t == nil || t.CountsAgainstBudget == nil || !*t.CountsAgainstBudget {
		return
	}
	b := p.Budget
	if b.MaxHedgeShare > 0 || b.Throttle != nil || b.MaxInFlightRatio > 0 || b.MinInFlight > 0 ||
		b.HedgesPerSecond > 0 || b.MaxParallel > 0 || p.Adaptive != nil {
		return
	}
	header, who := hedgeHeader(key, name)
	c.keep(c.errorf(key+".counts_against_budget", "true, but %s has no hedge budget ([%s.budget]) for a retry to pass, so it never takes effect; add a budget or remove the key", who, strings.Trim(header, "[]")))
}
