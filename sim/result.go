package sim

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Result is what one run produced, per class and over all classes, and per
// provider.
type Result struct {
	Classes   []ClassResult
	Overall   ClassResult
	Providers []ProviderResult
	// Models counts the attempts sent to each model, in Config order.
	Models []ModelLoad
	// Seconds is the simulated time the run spans, from 0 to the last
	// request or attempt end.
	Seconds float64
	// Breakers is what each circuit breaker did, models' then providers'
	// (those without one are left out).
	Breakers []BreakerResult
	// Met holds a bit per request, whether it met its class's target,
	// when the run recorded them (Config.Pair.Record; pair.go); nil
	// otherwise.
	Met *MetBits
	// Pools is what each provider's replica pool did, in provider order;
	// nil without pools.
	Pools []PoolResult
	// load are a batched run's times in service per arrival section
	// (loadsections.go); nil otherwise.
	load *loadSections
}

// ModelLoad is the load a run offered to one model.
type ModelLoad struct {
	Name string
	// Sent is the number of attempts sent to the model, 429s included.
	Sent int64
}

// Overloads names the request-rate limits of cfg (per model and per
// provider) that the run r of cfg offered more attempts per second than
// they admit in the long run: Sent ÷ TrafficSeconds above
// requests_per_minute ÷ 60. A bucket starts full, so a short run can hide
// such an overload: the excess is answered with 429s only once the burst is
// spent, after about burst ÷ (offered − limit) seconds. Token limits are
// not checked.
func (r *Result) Overloads(cfg *Config) []Overload {
	span := r.TrafficSeconds(cfg)
	if !(span > 0) {
		return nil
	}
	var out []Overload
	check := func(kind, name string, rl RateLimit, sent int64) {
		if rl.RequestsPerMinute <= 0 {
			return
		}
		offered, limit := float64(sent)/span, rl.RequestsPerMinute/60
		if offered > limit {
			out = append(out, Overload{Kind: kind, Name: name, Offered: offered, Limit: limit, Seconds: span})
		}
	}
	for m := range cfg.Models {
		if m < len(r.Models) {
			check("model", cfg.Models[m].Name, cfg.Models[m].RateLimit, r.Models[m].Sent)
		}
	}
	for _, p := range cfg.Providers {
		for j := range r.Providers {
			if r.Providers[j].Name == p.Name {
				check("provider", p.Name, p.RateLimit, r.Providers[j].Sent)
			}
		}
	}
	return out
}

// TrafficSeconds is the simulated time over which the run r of cfg offered
// its traffic, in seconds. With open arrivals only, it is the run's
// requests over the arrival rate (ArrivalRate): the span of the arrivals,
// without the tail in which the last requests still wait for answers,
// copies, retries or their deadline, which in a short run can be most of
// Seconds. With closed-loop clients, who send until the run ends, it is
// Seconds.
func (r *Result) TrafficSeconds(cfg *Config) float64 {
	for i := range cfg.Classes {
		if cfg.Classes[i].Clients > 0 {
			return r.Seconds
		}
	}
	if rate := ArrivalRate(cfg); rate > 0 && r.Overall.Requests > 0 {
		return float64(r.Overall.Requests) / rate
	}
	return r.Seconds
}

// Overload is a request-rate limit offered more than it admits (see
// Result.Overloads); rates in requests per second.
type Overload struct {
	Kind, Name     string // "model" or "provider", and its name
	Offered, Limit float64
	// Seconds is the span the rate is measured over (TrafficSeconds).
	Seconds float64
}

// String says it in words.
func (o Overload) String() string {
	return fmt.Sprintf("%s %s is offered %.3g requests/s against its limit of %.3g/s", o.Kind, o.Name, o.Offered, o.Limit)
}

// ProviderResult is what one provider (failure domain) saw. Completed,
// Failed, RateLimited, Rejected, Invalid, TimedOut and Cancelled are
// disjoint and sum to Sent (a cancelled attempt is neither a success nor an
// error of its provider).
type ProviderResult struct {
	Name        string `json:"provider"`
	Sent        int64  `json:"sent"`
	Completed   int64  `json:"completed"`
	Failed      int64  `json:"failed"`
	RateLimited int64  `json:"rate_limited"`
	Invalid     int64  `json:"invalid"`
	Cancelled   int64  `json:"cancelled"`
	// Rejected got an overload error from a full queue; TimedOut were
	// abandoned at the policy's per-attempt timeout; Stalled were cut by
	// the policy's stream cuts (StreamCuts; absent from JSON when 0).
	Rejected int64 `json:"rejected"`
	TimedOut int64 `json:"timed_out"`
	Stalled  int64 `json:"stalled,omitempty"`
	// MeanQueueWait is the mean wait in seconds, in the provider's queue, of
	// the attempts that started service; for a pool, as its replicas'
	// (ReplicaResult.MeanQueueWait: a wait for a cold start is in it at
	// an autoscaled pool only).
	MeanQueueWait float64 `json:"mean_queue_wait_s"`
	// MeanInService is the time-average number of attempts in service,
	// losers included until their cancel lands, over the provider's own
	// span: from 0 until its last attempt left service (not the run's end,
	// which another provider's stragglers may set); for a pool, as its
	// replicas' (ReplicaResult.MeanInService: a cold start is in it at a
	// pool without autoscaling only).
	MeanInService float64 `json:"mean_in_service"`
	// Utilisation is MeanInService ÷ the concurrency limit — for a
	// replica pool, the replicas' concurrency times the time-weighted
	// mean number of replicas up or starting (all of them without
	// autoscaling); null for a provider without one.
	Utilisation *float64 `json:"utilisation"`
	// UtilisationCI95 is Utilisation's batched 95 % interval when the
	// requests interact, CIMethod how it was made (loadsections.go);
	// both absent otherwise.
	UtilisationCI95 *[2]*float64 `json:"utilisation_ci95,omitempty"`
	CIMethod        string       `json:"ci95_method,omitempty"`
	started         int64
	// limited counts the 429s of RateLimited that a rate limit gave (the
	// others are the models' own, Failures.RateLimited).
	limited int64
	// offered is the estimated offered load (OfferedLoad), and growing
	// whether the queue grew with it (Unstable).
	offered float64
	growing bool
}

// AttemptCounts counts attempts by fate. Every attempt sent ends in
// exactly one of the other fields, so they sum to Sent; a cancelled loser
// is neither a success nor an error.
type AttemptCounts struct {
	Sent      int64 `json:"sent"`
	Completed int64 `json:"completed"` // ran to a valid answer (winners and losers that finished before their cancel landed)
	Failed    int64 `json:"failed"`    // returned an error
	// FailedByKind splits Failed by the kind of error (see Failures).
	FailedByKind FailedKinds `json:"failed_by_kind"`
	// RateLimited returned a 429.
	RateLimited int64 `json:"rate_limited"`
	// Rejected got an overload error (503/529) from a provider whose queue
	// was full.
	Rejected int64 `json:"rejected"`
	// TimedOut were abandoned at the policy's per-attempt timeout.
	TimedOut int64 `json:"timed_out"`
	// Stalled were streams cut after their first token by the policy's
	// inter-token timeout or speed floor (StreamCuts); absent from JSON
	// when 0.
	Stalled   int64 `json:"stalled,omitempty"`
	Invalid   int64 `json:"invalid"`   // returned an unusable answer
	Cancelled int64 `json:"cancelled"` // ended by a cancel before responding
}

// FailedKinds counts failed attempts by the kind of error; the fields sum
// to AttemptCounts.Failed. 429s (AttemptCounts.RateLimited) and overload
// errors of a full queue or an open circuit breaker
// (AttemptCounts.Rejected) are counted apart.
type FailedKinds struct {
	// ServerError: a 5xx or overloaded answer of the model (Model.ErrorRate,
	// Failures.ServerError, a degraded period's failures).
	ServerError int64 `json:"server_error"`
	// ClientError: a 4xx other than 429 (Failures.ClientError).
	ClientError int64 `json:"client_error"`
	// UpstreamTimeout: an upstream timeout (Failures.Timeout).
	UpstreamTimeout int64 `json:"upstream_timeout"`
}

// ClassResult holds the raw outcome of one class (or of all classes).
type ClassResult struct {
	Name string
	// Requests is the number of requests; every request ends in exactly one
	// of Answered, TimeoutsOpen, TimeoutsClosed, Errors and Invalid.
	Requests, Answered, TimeoutsOpen, TimeoutsClosed, Errors, Invalid int64
	// RateLimited is the number of Errors that ended with a 429,
	// Rejected the number that ended with an overload error, and Stalled
	// the number that ended with a stream cut (StreamCuts).
	RateLimited, Rejected, Stalled int64
	// Hedged is the number of requests that sent at least one copy.
	Hedged   int64
	Attempts AttemptCounts
	// CostCompletedUSD is what attempts that responded cost (valid or
	// invalid answers); CostCancelledUSD what attempts let
	// go of before their answer cost: cancelled losers, attempts timed out
	// at the attempt timeout, streams cut for stalls.
	CostCompletedUSD, CostCancelledUSD float64
	// WastedOutputTokens are output tokens billed for answers that were not
	// used: invalid answers, losers that completed, cancelled losers' billed
	// part.
	WastedOutputTokens float64
	// Denied counts the copies each budget denied (per class; summed in
	// the overall result).
	Denied Denied
	// AdaptiveDelay is the adaptive hedge delay over time, when the class
	// has one (at most about 2000 points, evenly thinned).
	AdaptiveDelay []DelaySample
	// Throughput is the rate at which requests ended, in a run with
	// closed-loop clients (see Class.Clients); nil otherwise.
	Throughput *Throughput
	// Retries is what the class's retries did (Class.Retry,
	// Class.AttemptRetry); nil when it has none (overall: when no class
	// has any).
	Retries *RetryCounts
	// Won counts the answered requests by the attempt that answered them
	// (pair.go).
	Won Won
	// Paired is what a run recording or comparing met bits counted
	// (Config.Pair; see pair.go); nil for a run that does neither.
	Paired *Paired
	paired Paired
	// fateSec are the per-section fates of a run that interacts and
	// records or compares met bits (fates.go); nil otherwise.
	fateSec fateSections
	// secCost are the per-section costs in USD of a run of independent
	// requests (costsections.go); nil otherwise.
	secCost []float64
	// Pipeline is what a pipeline class's steps did (Class.Pipeline); nil
	// for a one-call class and overall.
	Pipeline *PipelineResult
	// lat holds each request's time to a usable answer (for a miss, the
	// time until it ended), as float32 seconds (see Latencies).
	lat latencySet
}

// add adds o's counts, bills and wasted tokens to s (not its latencies,
// which the overall result takes from the class results).
func (s *classStats) add(o *classStats) {
	s.requests += o.requests
	s.answered += o.answered
	s.timeoutsOpen += o.timeoutsOpen
	s.timeoutsClosed += o.timeoutsClosed
	s.errors += o.errors
	s.reqRateLimited += o.reqRateLimited
	s.invalid += o.invalid
	s.hedged += o.hedged
	s.reqRejected += o.reqRejected
	s.reqStalled += o.reqStalled
	s.met += o.met
	s.rescued += o.rescued
	s.harmed += o.harmed
	if s.won == nil {
		s.won = make([]int64, len(o.won))
	}
	for j, n := range o.won {
		s.won[j] += n
	}
	s.addAttempts(o)
}

func (s *classStats) result(name string, models []Model) ClassResult {
	var lat latencySet
	lat.addParts(s.split)
	lat.addTimes(&s.times)
	s.times, s.split = endTimes{}, latencySet{}
	var completed, cancelled float64
	for m := range models {
		completed += s.billed[2*m].cost(&models[m])
		cancelled += s.billed[2*m+1].cost(&models[m])
	}
	return ClassResult{
		Name: name, Requests: s.requests, Answered: s.answered,
		TimeoutsOpen: s.timeoutsOpen, TimeoutsClosed: s.timeoutsClosed,
		Errors: s.errors, RateLimited: s.reqRateLimited, Rejected: s.reqRejected, Stalled: s.reqStalled, Invalid: s.invalid, Hedged: s.hedged,
		Attempts: AttemptCounts{
			Sent: s.sent, Completed: s.completed, Failed: s.failed,
			FailedByKind: FailedKinds{ServerError: s.failedBy[statusServer], ClientError: s.failedBy[statusClient], UpstreamTimeout: s.failedBy[statusUpstreamTimer]},
			RateLimited:  s.rateLimited, Rejected: s.rejected, TimedOut: s.timedOut, Stalled: s.stalled, Invalid: s.invalidAtt, Cancelled: s.cancelled,
		},
		CostCompletedUSD: completed, CostCancelledUSD: cancelled,
		WastedOutputTokens: s.wastedOutput,
		Won:                wonOf(s.won, models),
		paired:             Paired{Met: s.met, Rescued: s.rescued, Harmed: s.harmed},
		lat:                lat,
	}
}

func (e *engine) result() *Result {
	res := &Result{Classes: make([]ClassResult, e.users)}
	var all classStats
	var denied Denied
	steps := e.stepResults()
	for i := range e.users {
		s := &e.stats[i]
		res.Classes[i] = s.result(e.cfg.Classes[i].Name, e.cfg.Models)
		cs := &e.classes[i]
		res.Classes[i].Denied = cs.denied
		if cs.est != nil {
			res.Classes[i].AdaptiveDelay = cs.est.trace
		}
		denied.add(cs.denied)
		all.add(s)
	}
	res.Overall = all.result("overall", e.cfg.Models)
	res.Overall.Denied = denied
	if e.retries != nil {
		var sum RetryCounts
		for i := range e.users {
			if c := &e.cfg.Classes[i]; c.Retry != nil || c.AttemptRetry != nil {
				rc := e.retries[i]
				res.Classes[i].Retries = &rc
			}
			if e.pipeRetries != nil && e.pipeRetries[i] != nil {
				res.Classes[i].Retries = e.pipeRetries[i] // its steps' retries
			}
		}
		for i := range e.retries {
			sum.add(&e.retries[i])
		}
		res.Overall.Retries = &sum
	}
	e.attachSteps(res, steps)
	for i := range res.Classes {
		res.Overall.lat.addParts(res.Classes[i].lat)
	}
	if e.loops != nil {
		e.throughputs(res)
	}
	if p := e.pair; p != nil {
		res.Met = p.rec
		set := func(c *ClassResult) {
			x := c.paired
			x.Compared = p.base != nil
			c.Paired = &x
		}
		for i := range res.Classes {
			set(&res.Classes[i])
			if p.sec != nil {
				res.Classes[i].fateSec = p.sec[i]
			}
		}
		set(&res.Overall)
	}
	e.bookUntendedAll()
	for i := range e.provs {
		pv := &e.provs[i]
		pr := pv.stats
		if pr.started > 0 {
			pr.MeanQueueWait = pv.waitSum.seconds() / float64(pr.started)
		}
		if pv.lastEnd > 0 {
			pr.MeanInService = pv.busySum.seconds() / pv.lastEnd.Seconds()
		}
		if pv.capacity > 0 {
			u := pr.MeanInService / float64(pv.capacity)
			pr.Utilisation = &u
			pr.offered, pr.growing = pv.offeredLoad(u)
		}
		if pl := pv.pool; pl != nil && pl.cfg.Concurrency > 0 {
			// Over the replicas up or starting (time-weighted): an
			// autoscaled pool's replicas never started hold no capacity.
			u := 0.0
			if up := pl.meanUp(pv.lastEnd.Seconds()); up > 0 {
				u = pr.MeanInService / (float64(pl.cfg.Concurrency) * up)
			}
			pr.Utilisation = &u
		}
		res.Providers = append(res.Providers, pr)
	}
	for m := range e.cfg.Models {
		res.Models = append(res.Models, ModelLoad{Name: e.cfg.Models[m].Name, Sent: e.modelSent[m]})
	}
	res.Seconds = e.lastEvent.Seconds()
	res.load = e.load
	e.attachCosts(res)
	res.Breakers = e.breakerResults()
	if e.pools {
		res.Pools = e.poolResults()
	}
	return res
}

// Latencies returns each request's time to a usable answer in seconds,
// sorted ascending: from arrival to its valid answer (or, when the winner
// is the first token, to that token). A request without a usable answer by
// its deadline — an error, a 429, an invalid answer, an attempt timeout, a
// deadline reached, fail-open included — is a miss and holds +Inf, so
// misses sort last. Latencies are stored as float32 seconds (relative
// rounding error at most 2⁻²⁴) and returned as the shortest decimals that
// read back as them. It sorts a new slice of 8 bytes per request, in
// O(n log n): the report's figures come from Quantiles, QuantileCI and Mean,
// which do not sort.
func (c *ClassResult) Latencies() []float64 {
	lat, _ := c.lat.sorted()
	return lat
}

// MissEnds returns the time in seconds from arrival until each missed
// request ended (its error or its deadline), sorted ascending; there are
// Requests − Answered of them. Like Latencies, it sorts a new slice.
func (c *ClassResult) MissEnds() []float64 {
	_, ends := c.lat.sorted()
	return ends
}

// NumLatencies returns the number of latencies recorded: one per request.
func (c *ClassResult) NumLatencies() int { return c.lat.n() }

// Quantile returns the p-quantile of the time to a usable answer in
// seconds by the nearest-rank rule (R type 1, gonum stat.Empirical): the
// smallest observed latency L with at least a share p of requests at or
// below L; +Inf when that rank is a miss (see Latencies). It returns NaN
// when there are no requests. Each call selects in O(n); Quantiles takes
// several at the cost of one.
func (c *ClassResult) Quantile(p float64) float64 {
	return c.Quantiles(p)[0]
}

// Quantiles returns the ps-quantiles of Quantile, in the order of ps, by
// one selection over the stored latencies: three passes over them, with no
// sort and no copy.
func (c *ClassResult) Quantiles(ps ...float64) []float64 {
	n := c.lat.n()
	ks := make([]int, len(ps))
	for i, p := range ps {
		ks[i] = NearestRank(n, p)
	}
	return c.Ranks(ks)
}

// Ranks returns the latencies of 0-based ranks ks in the ascending order of
// Latencies (+Inf for a miss), in the order of ks, in seconds: the values
// Latencies()[k] without sorting. Each k must be in [0, NumLatencies());
// with no requests every value is NaN.
func (c *ClassResult) Ranks(ks []int) []float64 {
	if c.lat.n() == 0 {
		out := make([]float64, len(ks))
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	return byRank(ks, c.lat.ranks)
}

// byRank calls f with ks sorted and without repeats, and returns its
// values in the order of ks.
func byRank(ks []int, f func(sorted []int) []float64) []float64 {
	u := slices.Clone(ks)
	slices.Sort(u)
	u = slices.Compact(u)
	v := f(u)
	out := make([]float64, len(ks))
	for i, k := range ks {
		j, _ := slices.BinarySearch(u, k)
		out[i] = v[j]
	}
	return out
}

// NearestRank returns the 0-based index of the p-quantile (p in [0, 1]) of
// n sorted values by the nearest-rank rule (R type 1, QuantileRule):
// ⌈p·n⌉−1, 0 when p·n ≤ 1 or n = 0 — the element
// stat.Quantile(p, stat.Empirical, x, nil) returns.
func NearestRank(n int, p float64) int {
	i := int(math.Ceil(p*float64(n))) - 1
	return min(max(i, 0), max(n-1, 0))
}

// AnsweredWithin returns how many requests got a usable answer within t
// seconds (their stored float32 latency at most t).
func (c *ClassResult) AnsweredWithin(t float64) int64 {
	return int64(c.lat.countAtMost(t))
}

// MaxAnswered returns the longest time to a usable answer, exactly, in
// seconds; NaN when no request was answered.
func (c *ClassResult) MaxAnswered() float64 {
	if c.lat.na == 0 {
		return math.NaN()
	}
	return c.lat.maxA.Seconds()
}

// Mean returns the mean time to a usable answer of the answered requests
// in seconds (misses have no time to an answer), from the exact sum of
// their durations; NaN when none was answered.
func (c *ClassResult) Mean() float64 {
	if c.lat.na == 0 {
		return math.NaN()
	}
	return c.lat.sumA.seconds() / float64(c.lat.na)
}

// EndQuantiles returns the ps-quantiles (nearest rank) of the time from
// arrival until each request ended — its answer, its error or its deadline
// — in seconds: the secondary figure; the headline is the time to a usable
// answer (Quantiles), under which a request that fails fast is no faster.
// NaN without requests.
func (c *ClassResult) EndQuantiles(ps ...float64) []float64 {
	n := c.lat.n()
	ks := make([]int, len(ps))
	for i, p := range ps {
		ks[i] = NearestRank(n, p)
	}
	if n == 0 {
		return c.Ranks(ks)
	}
	return byRank(ks, c.lat.endRanks)
}

// EndMean returns the mean time until requests ended, answered or not, in
// seconds, from the exact sum of their durations; NaN without requests.
func (c *ClassResult) EndMean() float64 {
	n := c.lat.n()
	if n == 0 {
		return math.NaN()
	}
	s := c.lat.sumA
	s.addSum(c.lat.sumM)
	return s.seconds() / float64(n)
}

// QuantileCI returns a distribution-free confidence interval at the given
// level (e.g. 0.95) for the p-quantile: the order statistics X(l) ≤ X(u)
// with l = ⌊np − z·√(np(1−p))⌋ and u = ⌈np + z·√(np(1−p))⌉ + 1, where z is
// the standard-normal (1+level)/2 quantile — the normal approximation to the
// binomial count of observations below the true quantile (Hahn & Meeker,
// Statistical Intervals, §5.2). ok is false when the sample is too small for
// the interval to fit inside it (l < 1 or u > n); lo and hi are then clamped
// to the sample's extremes.
func (c *ClassResult) QuantileCI(p, level float64) (lo, hi float64, ok bool) {
	n := c.lat.n()
	if n == 0 {
		return math.NaN(), math.NaN(), false
	}
	l, u, ok := QuantileCIRanks(n, p, level)
	v := c.Ranks([]int{l - 1, u - 1})
	return v[0], v[1], ok
}

// QuantileCIRanks returns the 1-based ranks (l, u) of QuantileCI's
// interval for n ≥ 1 values, clamped to [1, n], and whether they fit
// without clamping.
func QuantileCIRanks(n int, p, level float64) (l, u int, ok bool) {
	l, u = orderStatisticRanks(n, p, level)
	ok = l >= 1 && u <= n
	return max(l, 1), min(u, n), ok
}

// UpperBoundRank returns the 1-based rank k of the smallest order
// statistic X(k) of n ≥ 1 independent values that is a one-sided upper
// confidence bound at the given level (e.g. 0.95) on their p-quantile
// (p in (0, 1)): X(k) lies below the quantile only when at least k of
// the values do, so P(X(k) ≥ quantile) = P(Binomial(n, p) ≤ k−1), and k is
// the smallest with that probability ≥ level. ok is false when no rank up
// to n is enough (n < log(1−level)/log(p): 59 values for p95 at 95 %).
func UpperBoundRank(n int, p, level float64) (k int, ok bool) {
	if n < 1 {
		return 0, false
	}
	b := distuv.Binomial{N: float64(n), P: p}
	for k = max(1, int(math.Floor(float64(n)*p))); k <= n; k++ {
		if b.CDF(float64(k-1)) >= level {
			return k, true
		}
	}
	return n, false
}

// orderStatisticRanks returns the 1-based ranks (l, u) of QuantileCI.
func orderStatisticRanks(n int, p, level float64) (l, u int) {
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	np := float64(n) * p
	h := z * math.Sqrt(np*(1-p))
	return int(math.Floor(np - h)), int(math.Ceil(np+h)) + 1
}
