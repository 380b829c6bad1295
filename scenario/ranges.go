package scenario

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// Every numeric key of a scenario file has a finite range, listed in
// ranges below and enforced in one place: bind checks each number and
// duration as it decodes it, and the checker's dist checks each token-count
// distribution (its values up to its 99.9999th percentile). The ranges
// keep every figure a run derives from the file finite: token counts times
// prices, rates times costs, sums of times. Checks elsewhere in the loader
// say more about some keys (a rate must be > 0, min < max, a probability);
// the range is reported only for a key no other check found at fault, so
// a value gets one message.
//
// Times are the exception: a latency, TTFT or stall drawn from a
// distribution may be as long as it likes, as the simulator saturates
// every drawn duration at sim.CapSeconds (2⁵⁸ ns, about 9 years) and the
// report counts the requests that reached it; and a decode or prefill
// speed may be as slow as it likes, for the same reason.

// numRange is the range of a numeric key: [Lo, Hi], an end left out when
// LoOpen or HiOpen is set. Unit says what the number counts; for a
// duration key (Dur set) Lo and Hi are in seconds.
type numRange struct {
	Lo, Hi         float64
	LoOpen, HiOpen bool
	Unit           string
	Dur            bool
}

// contains reports whether x lies in r (NaN never does).
func (r numRange) contains(x float64) bool {
	lo := x > r.Lo || !r.LoOpen && x == r.Lo
	hi := x < r.Hi || !r.HiOpen && x == r.Hi
	return lo && hi
}

// String writes r as an interval with its unit: "(0, 1e6] requests per
// second", "[0s, 8760h]".
func (r numRange) String() string {
	f := func(x float64) string {
		switch {
		case r.Dur:
			return time.Duration(x * 1e9).String()
		case math.IsInf(x, 1):
			return "inf"
		case x == math.MaxInt64:
			return "2^63-1"
		case math.Abs(x) >= 1e5 && x == math.Trunc(x) && math.Abs(x) < 1e15 && len(strconv.FormatFloat(x, 'g', -1, 64)) > 8:
			return strconv.FormatFloat(x, 'f', -1, 64) // 2147483647, not 2.147483647e9
		case math.Abs(x) >= 1e5:
			return strings.Replace(strconv.FormatFloat(x, 'g', -1, 64), "e+0", "e", 1)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	open, shut := "[", "]"
	if r.LoOpen {
		open = "("
	}
	if r.HiOpen {
		shut = ")"
	}
	s := open + f(r.Lo) + ", " + f(r.Hi) + shut
	if r.Unit != "" {
		s += " " + r.Unit
	}
	return s
}

// Shorthands for the table below.
func closed(lo, hi float64, unit string) numRange { return numRange{Lo: lo, Hi: hi, Unit: unit} }
func above(lo, hi float64, unit string) numRange {
	return numRange{Lo: lo, Hi: hi, LoOpen: true, Unit: unit}
}
func dur(lo, hi time.Duration) numRange {
	return numRange{Lo: lo.Seconds(), Hi: hi.Seconds(), Dur: true}
}

// Bounds shared by several keys.
const (
	// MaxTokens bounds a token count: a class's input and output tokens
	// (draws above it are capped there by the simulator, sim.MaxTokens),
	// replay match bounds.
	MaxTokens = sim.MaxTokens
	// MaxDuration bounds every duration a file writes (deadlines, delays,
	// timeouts, back-offs, windows, periods): a year, far from the 292
	// years a time.Duration holds, so that sums of a few stay exact.
	MaxDuration = 365 * 24 * time.Hour
	// MaxRate bounds arrival and token rates in requests or hedges per
	// second: the spend per day and month scale with it.
	MaxRate = 1e6
	// maxCount bounds counts that have no tighter bound (samples, calls,
	// tokens of a bucket).
	maxCount = 1 << 30
)

// durations is the range of every duration key.
var durations = dur(0, MaxDuration)

// callRanges are the ranges of the keys of a call: a one-call class's
// (classes[].KEY) and a pipeline step's (classes[].steps[].KEY).
var callRanges = map[string]numRange{
	"input_tokens":                              closed(0, MaxTokens, "tokens"),
	"output_tokens":                             closed(0, MaxTokens, "tokens"),
	"deadline":                                  durations,
	"hedge.delay":                               durations,
	"hedge.delays[]":                            durations,
	"hedge.max_copies":                          closed(0, sim.MaxCopies, "copies"),
	"hedge.cancel_latency":                      durations,
	"hedge.attempt_timeout":                     durations,
	"hedge.inter_token_timeout":                 durations,
	"hedge.min_tokens_per_s":                    closed(0, math.Inf(1), "tokens per second"),
	"hedge.speed_window":                        durations,
	"hedge.adaptive.percentile":                 numRange{Lo: 0, Hi: 1, LoOpen: true, HiOpen: true, Unit: "(fraction)"},
	"hedge.adaptive.window":                     closed(1, 1<<24, "samples"),
	"hedge.adaptive.window_time":                above(0, MaxDuration.Seconds(), "").asDur(),
	"hedge.adaptive.warm_up":                    closed(0, maxCount, "samples"),
	"hedge.adaptive.min":                        durations,
	"hedge.adaptive.max":                        durations,
	"hedge.budget.max_hedge_share":              closed(0, 1, "(share of requests)"),
	"hedge.budget.max_in_flight_ratio":          closed(0, maxCount, "(copies per request in flight)"),
	"hedge.budget.min_in_flight":                closed(0, math.MaxInt32, "copies"),
	"hedge.budget.hedges_per_second":            closed(0, MaxRate, "copies per second"),
	"hedge.budget.burst":                        closed(0, maxCount, "copies"),
	"hedge.budget.max_parallel":                 closed(0, math.MaxInt32, "copies"),
	"hedge.budget.retry_throttling.max_tokens":  above(0, maxCount, "tokens"),
	"hedge.budget.retry_throttling.token_ratio": above(0, maxCount, "tokens per success"),
	"retry.max_attempts":                        closed(1, sim.MaxRetryAttempts, "tries"),
	"retry.initial_backoff":                     durations,
	"retry.max_backoff":                         durations,
	"retry.multiplier":                          closed(1, 1e6, "(factor)"),
	"attempt_retry.max_attempts":                closed(1, sim.MaxRetryAttempts, "tries"),
	"attempt_retry.initial_backoff":             durations,
	"attempt_retry.max_backoff":                 durations,
	"attempt_retry.multiplier":                  closed(1, 1e6, "(factor)"),
}

// ranges maps each numeric key, as a pattern, to its range. In a pattern a
// table's name is "*" (models.*.error_rate) and an array element "[]"
// (classes[].hedge.delays[]). A key whose value is a distribution maps to
// the range of the distribution's values. TestEveryNumericKeyHasARange
// checks that every numeric key of the file format is here.
var ranges = withCalls(map[string]numRange{
	"seed":     closed(0, math.MaxInt64, ""),
	"requests": closed(1, sim.MaxRequests, "requests"),

	"arrivals.rate":       above(0, MaxRate, "requests per second"),
	"arrivals.time_scale": closed(1e-6, 1e6, "(factor on the trace's times)"),

	"models.*.latency":               closed(0, math.Inf(1), "s (draws capped at sim.CapSeconds)"),
	"models.*.ttft":                  closed(0, math.Inf(1), "s (draws capped at sim.CapSeconds)"),
	"models.*.error_latency":         closed(0, math.Inf(1), "s (draws capped at sim.CapSeconds)"),
	"models.*.tokens_per_s":          above(0, math.Inf(1), "tokens per second (times capped at sim.CapSeconds)"),
	"models.*.prefill_tokens_per_s":  above(0, math.Inf(1), "tokens per second (times capped at sim.CapSeconds)"),
	"models.*.error_rate":            closed(0, 1, "(probability)"),
	"models.*.invalid_rate":          closed(0, 1, "(probability)"),
	"models.*.price_input_per_mtok":  closed(0, maxPrice, "USD per million tokens"),
	"models.*.price_output_per_mtok": closed(0, maxPrice, "USD per million tokens"),
	"models.*.price_per_request":     closed(0, maxPrice, "USD per attempt"),

	"models.*.rate_limit.requests_per_minute": closed(0, 60*MaxRate, "requests per minute"),
	"models.*.rate_limit.tokens_per_minute":   closed(0, 60*MaxRate*MaxTokens, "tokens per minute"),
	"models.*.rate_limit.burst":               above(0, MaxDuration.Seconds(), "").asDur(),
	"models.*.rate_limit.reject_latency":      durations,
	"models.*.rate_limit.retry_after":         durations,

	"models.*.failures.server_error.rate":        closed(0, 1, "(probability)"),
	"models.*.failures.server_error.latency":     closed(0, math.Inf(1), "s (draws capped at sim.CapSeconds)"),
	"models.*.failures.server_error.retry_after": durations,
	"models.*.failures.client_error.rate":        closed(0, 1, "(probability)"),
	"models.*.failures.client_error.latency":     closed(0, math.Inf(1), "s (draws capped at sim.CapSeconds)"),
	"models.*.failures.client_error.retry_after": durations,
	"models.*.failures.timeout.rate":             closed(0, 1, "(probability)"),
	"models.*.failures.timeout.latency":          closed(0, math.Inf(1), "s (draws capped at sim.CapSeconds)"),
	"models.*.failures.timeout.retry_after":      durations,
	"models.*.failures.rate_limited.rate":        closed(0, 1, "(probability)"),
	"models.*.failures.rate_limited.latency":     closed(0, math.Inf(1), "s (draws capped at sim.CapSeconds)"),
	"models.*.failures.rate_limited.retry_after": durations,

	"models.*.breaker.failures":      closed(1, maxBreakerCount, "failures"),
	"models.*.breaker.cooldown":      above(0, MaxDuration.Seconds(), "").asDur(),
	"models.*.breaker.probes":        closed(1, maxBreakerCount, "calls"),
	"models.*.breaker.failure_ratio": above(0, 1, "(share of calls)"),
	"models.*.breaker.window":        closed(1, maxBreakerCount, "calls"),
	"models.*.breaker.window_time":   above(0, MaxDuration.Seconds(), "").asDur(),
	"models.*.breaker.min_calls":     closed(1, maxBreakerCount, "calls"),

	"models.*.stalls.rate":     closed(0, 1, "(probability)"),
	"models.*.stalls.duration": closed(0, math.Inf(1), "s (draws capped at sim.CapSeconds)"),

	"classes[].share":      above(0, 1, "(share of traffic)"),
	"classes[].clients":    closed(1, sim.MaxRequests, "clients"),
	"classes[].think_time": closed(0, math.Inf(1), "s (draws capped at sim.CapSeconds)"),

	"classes[].match.input_min":  closed(0, MaxTokens, "tokens"),
	"classes[].match.input_max":  closed(0, MaxTokens, "tokens"),
	"classes[].match.output_min": closed(0, MaxTokens, "tokens"),
	"classes[].match.output_max": closed(0, MaxTokens, "tokens"),

	"providers.*.concurrency":                           closed(0, math.MaxInt32, "attempts"),
	"providers.*.queue_limit":                           closed(0, math.MaxInt32, "attempts"),
	"providers.*.rate_limit.requests_per_minute":        closed(0, 60*MaxRate, "requests per minute"),
	"providers.*.rate_limit.tokens_per_minute":          closed(0, 60*MaxRate*MaxTokens, "tokens per minute"),
	"providers.*.rate_limit.burst":                      above(0, MaxDuration.Seconds(), "").asDur(),
	"providers.*.rate_limit.reject_latency":             durations,
	"providers.*.rate_limit.retry_after":                durations,
	"providers.*.degraded.mean_normal":                  dur(sim.MinDegradedPeriod, MaxDuration),
	"providers.*.degraded.mean_degraded":                dur(sim.MinDegradedPeriod, MaxDuration),
	"providers.*.degraded.slowdown":                     closed(1, maxSlowdown, "(factor)"),
	"providers.*.degraded.error_rate":                   closed(0, 1, "(probability)"),
	"providers.*.breaker.failures":                      closed(1, maxBreakerCount, "failures"),
	"providers.*.breaker.cooldown":                      above(0, MaxDuration.Seconds(), "").asDur(),
	"providers.*.breaker.probes":                        closed(1, maxBreakerCount, "calls"),
	"providers.*.breaker.failure_ratio":                 above(0, 1, "(share of calls)"),
	"providers.*.breaker.window":                        closed(1, maxBreakerCount, "calls"),
	"providers.*.breaker.window_time":                   above(0, MaxDuration.Seconds(), "").asDur(),
	"providers.*.breaker.min_calls":                     closed(1, maxBreakerCount, "calls"),
	"providers.*.pool.replicas":                         closed(1, sim.MaxReplicas, "replicas"),
	"providers.*.pool.concurrency":                      closed(0, math.MaxInt32, "attempts per replica"),
	"providers.*.pool.queue_limit":                      closed(0, math.MaxInt32, "attempts per replica"),
	"providers.*.pool.decay":                            numRange{Lo: 0, Hi: 1, HiOpen: true, Unit: "(weight kept per observation)"},
	"providers.*.pool.degraded.mean_normal":             dur(sim.MinDegradedPeriod, MaxDuration),
	"providers.*.pool.degraded.mean_degraded":           dur(sim.MinDegradedPeriod, MaxDuration),
	"providers.*.pool.degraded.slowdown":                closed(1, maxSlowdown, "(factor)"),
	"providers.*.pool.degraded.error_rate":              closed(0, 1, "(probability)"),
	"providers.*.pool.down.mean_up":                     dur(sim.MinDegradedPeriod, MaxDuration),
	"providers.*.pool.down.mean_down":                   dur(sim.MinDegradedPeriod, MaxDuration),
	"providers.*.pool.cold_start.keep_warm":             durations,
	"providers.*.pool.cold_start.latency":               closed(0, math.Inf(1), "s (draws capped at sim.CapSeconds)"),
	"providers.*.pool.batching.max_batch":               closed(1, math.MaxInt32, "sequences per replica"),
	"providers.*.pool.batching.tokens_per_second[]":     above(0, 1e9, "tokens per second per sequence"),
	"providers.*.pool.batching.base_tokens_per_second":  above(0, 1e9, "tokens per second per sequence"),
	"providers.*.pool.batching.contention":              closed(0, 1e6, "(slowdown per added sequence)"),
	"providers.*.pool.autoscale.min_replicas":           closed(0, sim.MaxReplicas, "replicas"),
	"providers.*.pool.autoscale.max_replicas":           closed(1, sim.MaxReplicas, "replicas"),
	"providers.*.pool.autoscale.initial_replicas":       closed(0, sim.MaxReplicas, "replicas"),
	"providers.*.pool.autoscale.target_concurrency":     above(0, math.MaxInt32, "attempts per replica"),
	"providers.*.pool.autoscale.target_utilisation":     above(0, 1, "(share of slots in service)"),
	"providers.*.pool.autoscale.tick":                   dur(sim.MinScaleTick, MaxDuration),
	"providers.*.pool.autoscale.stable_window":          above(0, MaxDuration.Seconds(), "").asDur(),
	"providers.*.pool.autoscale.panic_window":           above(0, MaxDuration.Seconds(), "").asDur(),
	"providers.*.pool.autoscale.panic_threshold":        above(1, 1000, "(× the replicas up)"),
	"providers.*.pool.autoscale.scale_down_delay":       durations,
	"providers.*.pool.autoscale.scale_to_zero_grace":    durations,
	"providers.*.pool.autoscale.price_per_replica_hour": closed(0, 1e6, "USD"),
	"providers.*.pool.replica[].index":                  closed(0, sim.MaxReplicas-1, "(replica index)"),
	"providers.*.pool.replica[].slowdown":               above(0, maxReplicaSlowdown, "(factor)"),
	"providers.*.pool.replica[].degraded.mean_normal":   dur(sim.MinDegradedPeriod, MaxDuration),
	"providers.*.pool.replica[].degraded.mean_degraded": dur(sim.MinDegradedPeriod, MaxDuration),
	"providers.*.pool.replica[].degraded.slowdown":      closed(1, maxSlowdown, "(factor)"),
	"providers.*.pool.replica[].degraded.error_rate":    closed(0, 1, "(probability)"),
	"providers.*.pool.replica[].down.mean_up":           dur(sim.MinDegradedPeriod, MaxDuration),
	"providers.*.pool.replica[].down.mean_down":         dur(sim.MinDegradedPeriod, MaxDuration),
	"providers.*.pool.view_refresh":                     durations,
	"providers.*.pool.scrape_jitter":                    numRange{Lo: 0, Hi: 1, HiOpen: true, Unit: "(fraction of view_refresh)"},
	"providers.*.pool.stuck[].replica":                  closed(0, sim.MaxReplicas-1, "(replica index)"),
	"providers.*.pool.stuck[].at":                       durations,
	"providers.*.pool.stuck[].for":                      durations,
	"providers.*.pool.restart[].replica":                closed(0, sim.MaxReplicas-1, "(replica index)"),
	"providers.*.pool.restart[].at":                     durations,
	"providers.*.pool.restart[].for":                    durations,
	"providers.*.pool.random_restarts.mean_up":          dur(sim.MinDegradedPeriod, MaxDuration),
	"providers.*.pool.random_restarts.down":             durations,
	"providers.*.pool.restart_window":                   durations,
	"providers.*.pool.warmup":                           closed(1, 1<<20, "observations"),
	"correlation.same_model":                            closed(0, 1, "(correlation)"),
	"correlation.same_provider":                         closed(0, 1, "(correlation)"),
	"correlation.cross_provider":                        closed(0, 1, "(correlation)"),
	"classes[].slo":                                     above(0, MaxDuration.Seconds(), "").asDur(),
	"optimize.group_weights.*":                          closed(0, 1e6, "(weight)"),
	"optimize.requests":                                 closed(1, optimize.MaxRequests, "requests per candidate"),
	"optimize.confidence":                               closed(0.5, 0.9999, "(confidence level)"),
	"optimize.min_gain_pct":                             closed(0, 1e6, "%"),
	"optimize.min_gain_per_cost":                        closed(0, 1e6, "(% of gain per % of added cost)"),
	"optimize.min_unanswered_cut_per_cost":              closed(0, 1e6, "(% of the unanswered share per % of added cost)"),
	"optimize.check_requests":                           closed(0, optimize.MaxRequests, "requests"),
	"optimize.max_added_cost_pct":                       closed(0, math.Inf(1), "% (inf: no cap)"),
	"optimize.max_hedged_pct":                           closed(0, 100, "% of requests"),
	"optimize.sla":                                      above(0, MaxDuration.Seconds(), "").asDur(),
	"optimize.target":                                   above(0, MaxDuration.Seconds(), "").asDur(),
	"optimize.delays[]":                                 durations,
	"optimize.from":                                     durations,
	"optimize.to":                                       durations,
	"optimize.step":                                     durations,
	"optimize.copies[]":                                 closed(1, sim.MaxCopies, "copies"),
	"optimize.class.*.max_added_cost_pct":               closed(0, math.Inf(1), "% (inf: no cap)"),
	"optimize.class.*.max_hedged_pct":                   closed(0, 100, "% of requests"),
	"optimize.class.*.sla":                              above(0, MaxDuration.Seconds(), "").asDur(),
	"optimize.class.*.target":                           above(0, MaxDuration.Seconds(), "").asDur(),
	"optimize.class.*.delays[]":                         durations,
	"optimize.class.*.from":                             durations,
	"optimize.class.*.to":                               durations,
	"optimize.class.*.step":                             durations,
	"optimize.class.*.copies[]":                         closed(1, sim.MaxCopies, "copies"),

	"classes[].steps[].fan_out":      closed(1, sim.MaxPipelineCalls, "calls"),
	"classes[].steps[].repeat":       closed(0, math.Inf(1), "iterations (draws capped at max_repeat)"),
	"classes[].steps[].max_repeat":   closed(1, sim.MaxPipelineCalls, "iterations"),
	"classes[].steps[].input_growth": closed(0, MaxTokens, "tokens per earlier iteration"),
})

// withCalls adds callRanges to m under classes[] and classes[].steps[].
func withCalls(m map[string]numRange) map[string]numRange {
	for _, at := range []string{"classes[]", "classes[].steps[]"} {
		for k, r := range callRanges {
			m[at+"."+k] = r
		}
	}
	return m
}

// wantInt writes r, the closed range of an integer key, as a message's
// "want" does: "an integer in [0, 2147483647]". The checks that give an
// integer key a message of their own (concurrency, queue_limit, budget
// counts) name its range with it, so a value above the range is not told
// it wants what it already is (≥ 0).
func (r numRange) wantInt() string {
	return "an integer in [" + strconv.FormatInt(int64(r.Lo), 10) + ", " + strconv.FormatInt(int64(r.Hi), 10) + "]"
}

// asDur marks r as a duration range.
func (r numRange) asDur() numRange { r.Dur = true; return r }

// rangeOf returns the range of the key whose pattern is pat.
func rangeOf(pat string) (numRange, bool) {
	r, ok := ranges[pat]
	return r, ok
}

// checkRange records, for the number or duration x (in seconds when the
// key is a duration) at key, whose pattern is pat, an error when x is
// outside the key's range. The error is kept at the end of the check
// unless another problem was found at the key (see keepRanges).
func (c *checker) checkRange(key, pat string, x float64) {
	r, ok := rangeOf(pat)
	if !ok || r.contains(x) {
		return
	}
	v := strconv.FormatFloat(x, 'g', -1, 64)
	if r.Dur {
		v = time.Duration(x * 1e9).String()
	}
	c.ranged = append(c.ranged, c.errorf(key, "%s is out of range; want a value in %s", v, r))
}

// checkDistRange records an error when the values of d, the distribution
// at key (whose pattern is pat), leave the key's range below its lowest
// value or above its 99.9999th percentile (a draw in a million may lie
// above it: it is capped, see sim.MaxTokens). Only token counts have a
// finite upper end; every distribution's values must be ≥ 0, which dist
// checks itself.
func (c *checker) checkDistRange(key, pat string, s *dist.Spec, d dist.Continuous) {
	r, ok := rangeOf(pat)
	if !ok || math.IsInf(r.Hi, 1) {
		return
	}
	top, where := d.Quantile(1-1e-6), " at its 99.9999th percentile"
	if _, hi := d.Support(); !math.IsInf(hi, 1) {
		top, where = hi, ""
	}
	if !(top <= r.Hi) {
		c.ranged = append(c.ranged, c.errorf(key, "%s distribution reaches %g%s; want values in %s", s.Kind, top, where, r))
	}
}

// keepRanges keeps the range errors recorded so far at keys no other
// problem was found at or inside.
func (c *checker) keepRanges() {
	for _, e := range c.ranged {
		if !c.hasErrorsWithin(e.Key) {
			c.keep(e)
		}
	}
	c.ranged = nil
}

// checkValue checks the value bind stored at key (pattern pat) against its
// range: a number, a duration or a delay ("fallback" is not a duration),
// or a pointer to one or a list of them, each element at its index.
func (c *checker) checkValue(key, pat string, v any) {
	switch v := v.(type) {
	case *float64:
		if v != nil {
			c.checkRange(key, pat, *v)
		}
	case *int64:
		if v != nil {
			c.checkRange(key, pat, float64(*v))
		}
	case *Duration:
		if v != nil {
			c.checkRange(key, pat, time.Duration(*v).Seconds())
		}
	case *Span:
		if v != nil {
			c.checkRange(key, pat, time.Duration(*v).Seconds())
		}
	case *HedgeDelay:
		if v != nil && *v != fallbackDelay {
			c.checkRange(key, pat, time.Duration(*v).Seconds())
		}
	case []Duration:
		for i, d := range v {
			c.checkRange(indexKey(key, i), pat+"[]", time.Duration(d).Seconds())
		}
	case []HedgeDelay:
		for i, d := range v {
			if d != fallbackDelay {
				c.checkRange(indexKey(key, i), pat+"[]", time.Duration(d).Seconds())
			}
		}
	case []int64:
		for i, n := range v {
			c.checkRange(indexKey(key, i), pat+"[]", float64(n))
		}
	case []float64:
		for i, x := range v {
			c.checkRange(indexKey(key, i), pat+"[]", x)
		}
	}
}
