package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"text/tabwriter"

	"github.com/hedgesim/hedgesim/textfit"
)

// QuantileRule states how the report's percentiles are computed.
const QuantileRule = "nearest rank (R type 1): the smallest latency with at least p of requests at or below it; " +
	"latency is the time to a usable answer: a request without one by its deadline (error, 429, invalid, timeout, fail-open included) is a miss, " +
	"+Inf for percentiles (JSON null, printed \"miss\"); the mean is over answered requests; " +
	"ci95 is a distribution-free order-statistic interval"

// PipelineRule is what a report of a scenario with pipeline classes adds
// to QuantileRule (QuantileRuleFor): a pipeline's answered share, latency
// and misses, and what "checked" means.
const PipelineRule = "in a pipeline class a request (a turn) is answered when it went through its last stage with its answer step's answer " +
	"(the visible step's, or the last's), checked or degraded, " +
	"and its latency is then its end-to-end time; a turn that a fail-closed step stopped, whose fail-open answer step gave no answer, " +
	"whose answer step's stage was done by other calls (wait_for) with every call of it let go of (a timeout open), " +
	"or that the end-to-end deadline ended is a miss; " +
	"checked: every fail-open step answered in time"

// QuantileRuleFor returns QuantileRule — QuantileRuleBatched when cfg's
// requests interact — followed by PipelineRule when a class of cfg is a
// pipeline other than one plain call (Pipeline.OneCall).
func QuantileRuleFor(cfg *Config) string { return quantileRule(cfg, cfg.batched()) }

// quantileRule is QuantileRuleFor, QuantileRuleBatched its base when
// batched.
func quantileRule(cfg *Config, batched bool) string {
	rule := QuantileRule
	if batched {
		rule = QuantileRuleBatched
	}
	for i := range cfg.Classes {
		if p := cfg.Classes[i].Pipeline; p != nil && !p.OneCall() {
			return rule + "; " + PipelineRule
		}
	}
	return rule
}

// Report is a run compared with the same traffic without hedging. Its JSON
// form (field names in the tags) is the stable machine-readable output of
// `hedgesim run --json`; latencies are in seconds and costs in USD.
type Report struct {
	Scenario     string        `json:"scenario"`
	Seed         uint64        `json:"seed"`
	Requests     int           `json:"requests"`
	QuantileRule string        `json:"quantile_rule"`
	Classes      []ClassReport `json:"classes"`
	Overall      ClassReport   `json:"overall"`
	// Providers is what each provider (failure domain) saw in the hedged run.
	Providers []ProviderResult `json:"providers"`
	// Breakers is what each model's and provider's circuit breaker did;
	// absent without breakers.
	Breakers []BreakerResult `json:"breakers,omitempty"`
	// Pools is what each provider's replica pool did in the hedged run:
	// per replica its load, queue waits and cold starts, per pool its
	// imbalance; absent without pools.
	Pools []PoolResult `json:"pools,omitempty"`
	// Warnings are run-wide conditions that limit what the numbers mean.
	Warnings []string `json:"warnings"`
	// ScenarioSHA256 identifies the scenario's input files (the scenario
	// package's Scenario.SHA256), so that reports of different inputs are
	// told apart; set by the caller, "" when unknown.
	ScenarioSHA256 string `json:"scenario_sha256"`
	// Overrides are what-if changes applied on top of the scenario file
	// ("arrivals.rate=40"); absent when there are none.
	Overrides []string `json:"overrides,omitempty"`
	// saturated are the saturation warnings among Warnings.
	saturated []string
	// Precision is how a run to a precision ended (precision.go); absent
	// without --precision.
	Precision *Precision `json:"precision,omitempty"`
}

// SaturationWarnings returns the warnings of Warnings that name a saturated
// provider, pool or pool replica (see SaturatedUtilisation) — for a report made by
// NewReport; none for one read back from JSON.
func (r *Report) SaturationWarnings() []string { return r.saturated }

// Latency summarises request latencies in seconds. A percentile or an
// interval bound that lands on a missed request is +Inf, which JSON writes
// as null (and reads back from null); the mean is over answered requests,
// NaN (JSON null, printed "-") when none was answered.
type Latency struct {
	Mean    float64    `json:"mean"`
	P50     float64    `json:"p50"`
	P90     float64    `json:"p90"`
	P95     float64    `json:"p95"`
	P99     float64    `json:"p99"`
	P999    float64    `json:"p99_9"`
	P95CI95 [2]float64 `json:"p95_ci95"`
	P99CI95 [2]float64 `json:"p99_ci95"`
	// P95CIOK and P99CIOK say whether those intervals are order-statistic
	// intervals inside the sample; when false the requests are too few, and
	// the interval, clamped to the sample's extremes, means nothing: JSON
	// writes its bounds as null (and reads null bounds of no interval
	// back as NaN).
	P95CIOK bool `json:"p95_ci95_ok"`
	P99CIOK bool `json:"p99_ci95_ok"`
	// CIs holds the intervals of the other figures and the method of
	// all of them: order statistics for independent requests
	// (intervals.go), batches when the requests interact (batchmeans.go).
	CIs *LatencyCIs `json:"-"`
}

// Cost is a cost per 1000 requests in USD, split by the calls that produced it.
type Cost struct {
	Total     float64 `json:"total"`
	Completed float64 `json:"completed"` // attempts that responded
	// Cancelled is what attempts let go of before their answer cost,
	// billed as cancelled calls: cancelled losers, attempts abandoned at
	// the attempt timeout and streams cut for stalls.
	Cancelled float64 `json:"cancelled"`
}

// MarshalJSON writes l with null for an infinite value (a miss).
func (l Latency) MarshalJSON() ([]byte, error) {
	return json.Marshal(l.wire())
}

// UnmarshalJSON reads l, taking null as +Inf (a miss).
func (l *Latency) UnmarshalJSON(b []byte) error {
	var w latencyJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*l = w.latency()
	return nil
}

// latencyJSON is Latency on the wire: nil for +Inf.
type latencyJSON struct {
	Mean    *float64    `json:"mean"`
	P50     *float64    `json:"p50"`
	P90     *float64    `json:"p90"`
	P95     *float64    `json:"p95"`
	P99     *float64    `json:"p99"`
	P999    *float64    `json:"p99_9"`
	P95CI95 [2]*float64 `json:"p95_ci95"`
	P99CI95 [2]*float64 `json:"p99_ci95"`
	P95CIOK bool        `json:"p95_ci95_ok"`
	P99CIOK bool        `json:"p99_ci95_ok"`
	latencyCIsJSON
}

func finite(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

func orInf(x *float64) float64 {
	if x == nil {
		return math.Inf(1)
	}
	return *x
}

func (l Latency) wire() latencyJSON {
	return latencyJSON{
		Mean: finite(l.Mean), P50: finite(l.P50), P90: finite(l.P90), P95: finite(l.P95),
		P99: finite(l.P99), P999: finite(l.P999),
		P95CI95: ciWire(l.P95CI95, l.P95CIOK),
		P99CI95: ciWire(l.P99CI95, l.P99CIOK),
		P95CIOK: l.P95CIOK, P99CIOK: l.P99CIOK,
		latencyCIsJSON: l.CIs.wire(),
	}
}

// ciWire is a percentile's interval on the wire: nil for a miss, and
// both bounds nil when it is no interval (ok false: too few requests),
// so that a published interval holds its estimate or is null.
func ciWire(ci [2]float64, ok bool) [2]*float64 {
	if !ok {
		return [2]*float64{}
	}
	return [2]*float64{finite(ci[0]), finite(ci[1])}
}

// ciRead is a percentile's interval read from the wire: nil is a miss
// (+Inf), and both bounds of no interval (ok false) are NaN.
func ciRead(w [2]*float64, ok bool) [2]float64 {
	if !ok && w[0] == nil && w[1] == nil {
		return [2]float64{math.NaN(), math.NaN()}
	}
	return [2]float64{orInf(w[0]), orInf(w[1])}
}

func (w latencyJSON) latency() Latency {
	mean := math.NaN() // no request was answered
	if w.Mean != nil {
		mean = *w.Mean
	}
	return Latency{
		Mean: mean, P50: orInf(w.P50), P90: orInf(w.P90), P95: orInf(w.P95),
		P99: orInf(w.P99), P999: orInf(w.P999),
		P95CI95: ciRead(w.P95CI95, w.P95CIOK),
		P99CI95: ciRead(w.P99CI95, w.P99CIOK),
		P95CIOK: w.P95CIOK, P99CIOK: w.P99CIOK,
		CIs: w.latencyCIsJSON.cis(),
	}
}

// EndLatency summarises the time until requests ended — their answer,
// error or deadline — in seconds: the secondary figure, in which a request
// that fails fast looks fast. Never the headline.
type EndLatency struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
}

// SummarizeEnd returns the end-latency summary of c (zeros without requests).
func SummarizeEnd(c *ClassResult) EndLatency {
	if c.NumLatencies() == 0 {
		return EndLatency{}
	}
	q := c.EndQuantiles(0.5, 0.95, 0.99)
	return EndLatency{Mean: c.EndMean(), P50: q[0], P95: q[1], P99: q[2]}
}

// Baseline is the same traffic with hedging off.
type Baseline struct {
	Latency Latency `json:"latency_s"`
	// Requests and Answered count the baseline run's requests and those
	// answered, over the whole run (no warm-up cut), as the row's own
	// Requests and Answered do; AnsweredShare is, like the row's, after
	// the warm-up cut when requests interact.
	Requests      int64   `json:"requests"`
	Answered      int64   `json:"answered"`
	AnsweredShare float64 `json:"answered_share"`
	CostPer1k     Cost    `json:"cost_per_1k_usd"`
	// Throughput without hedging, in a run with closed-loop clients.
	Throughput *Throughput `json:"throughput,omitempty"`
}

// ClassReport is one class (or "overall") of a Report.
type ClassReport struct {
	Class string `json:"class"`
	// Policy is the class's hedge policy in words (PolicyText); absent
	// for the overall row.
	Policy        string  `json:"policy,omitempty"`
	Requests      int64   `json:"requests"`
	Answered      int64   `json:"answered"` // valid answer within the deadline
	AnsweredShare float64 `json:"answered_share"`
	// AnsweredShareCI95 is AnsweredShare's 95 % interval: Wilson's for
	// independent requests (intervals.go), from batches when the requests
	// interact (batchmeans.go: BatchShareInterval, as optimize's candidates
	// get from the same batch shares, so a share at 1 in every batch has
	// [B/(B+z²), 1], not [1, 1]); absent without requests. WarmUp and
	// Batches are the warm-up cut and the batches of a batched row;
	// absent for independent requests.
	AnsweredShareCI95  *[2]*float64 `json:"answered_share_ci95,omitempty"`
	WarmUp             *WarmUp      `json:"warm_up,omitempty"`
	Batches            *Batches     `json:"batches,omitempty"`
	TimeoutsFailOpen   int64        `json:"timeouts_fail_open"`
	TimeoutsFailClosed int64        `json:"timeouts_fail_closed"`
	Errors             int64        `json:"errors"`
	RateLimited        int64        `json:"rate_limited"` // of the errors, requests ended by a 429
	Rejected           int64        `json:"rejected"`     // of the errors, requests ended by an overload error (503/529)
	// Stalled is, of the errors, the requests ended by a stream cut for a
	// stall (absent when 0).
	Stalled int64   `json:"stalled,omitempty"`
	Invalid int64   `json:"invalid"`
	Latency Latency `json:"latency_s"`
	// EndLatency is the time until requests ended, answered or not.
	EndLatency         EndLatency    `json:"end_latency_s"`
	HedgedShare        float64       `json:"hedged_share"`
	AttemptsPerRequest float64       `json:"attempts_per_request"`
	Attempts           AttemptCounts `json:"attempts"`
	CostPer1k          Cost          `json:"cost_per_1k_usd"`
	// AddedCostPct is 100·(cost − cost without hedging)/cost without
	// hedging; null when the traffic costs nothing without hedging.
	AddedCostPct *float64 `json:"added_cost_pct"`
	// AddedCostPctCI95 is AddedCostPct's 95 % interval, from the paired
	// batches with and without hedging when the requests interact
	// (batchmeans.go), from the paired costs of the arrival sections when
	// they are independent (costsections.go); absent when AddedCostPct is
	// null. Its method is AddedCostPctCIMethod.
	AddedCostPctCI95     *[2]*float64 `json:"added_cost_pct_ci95,omitempty"`
	AddedCostPctCIMethod string       `json:"added_cost_pct_ci95_method,omitempty"`
	WastedOutputTokens   float64      `json:"wasted_output_tokens"`
	NoHedging            Baseline     `json:"no_hedging"`
	// Spend is the cost per day and per month at the arrival rate.
	Spend Spend `json:"spend_usd"`
	// DeniedHedges counts the copies each budget denied.
	DeniedHedges Denied `json:"denied_hedges"`
	// AdaptiveDelay is the adaptive hedge delay over time (null without one).
	AdaptiveDelay []DelaySample `json:"adaptive_delay"`
	// Throughput is the rate at which requests ended, in a run with
	// closed-loop clients (absent otherwise): with N clients, the clients'
	// throughput is what hedging changes.
	Throughput *Throughput `json:"throughput,omitempty"`
	// AnsweredPerSecond is, for open traffic whose requests interact, the
	// measured throughput of answers after the warm-up cut, in requests
	// per second, with its 95 % interval and how that was made
	// (answerrate.go); absent for independent requests and with
	// closed-loop clients (Throughput).
	AnsweredPerSecond         *float64     `json:"answered_per_s,omitempty"`
	AnsweredPerSecondCI95     *[2]*float64 `json:"answered_per_s_ci95,omitempty"`
	AnsweredPerSecondCIMethod string       `json:"answered_per_s_ci95_method,omitempty"`
	// Retries is what the class's retries did (absent without retries);
	// every retried call is also counted in Attempts and
	// AttemptsPerRequest (the calls per request).
	Retries *RetryCounts `json:"retries,omitempty"`
	// Pipeline is the end-to-end view of a pipeline class (absent for a
	// one-call class, for overall, and for a pipeline of one plain step).
	Pipeline *PipelineReport `json:"pipeline,omitempty"`
	// Warnings are conditions that limit what the numbers mean, such as too
	// few requests for a p99 interval.
	Warnings []string `json:"warnings"`
	// PerBatch are a batched class row's figures per batch of a fixed
	// grid, for paired differences between reports (perbatch.go); absent
	// for independent requests, in the overall row, and in a report of
	// NewReport (NewReportPerBatch gives them).
	PerBatch *PerBatch `json:"per_batch,omitempty"`
}

// MarshalJSON writes c. A row without requests (a class no request fell
// in, such as one whose share is too small for the run's requests) has no
// latencies, no shares and no cost per request: its latency_s,
// end_latency_s and no_hedging.latency_s figures, answered_share,
// hedged_share, attempts_per_request, no_hedging.answered_share,
// cost_per_1k_usd and no_hedging.cost_per_1k_usd are null, and so are its
// spend_usd dollar figures (Spend.NoCost), not 0 (in memory they stay 0,
// as NewReport gives them).
func (c ClassReport) MarshalJSON() ([]byte, error) {
	type plain ClassReport // without this method
	if c.Requests > 0 {
		return json.Marshal(plain(c))
	}
	type baseline Baseline
	w := struct {
		plain
		Latency            Latency        `json:"latency_s"`
		EndLatency         endLatencyJSON `json:"end_latency_s"`
		AnsweredShare      *float64       `json:"answered_share"`
		HedgedShare        *float64       `json:"hedged_share"`
		AttemptsPerRequest *float64       `json:"attempts_per_request"`
		CostPer1k          *Cost          `json:"cost_per_1k_usd"`
		NoHedging          struct {
			baseline
			Latency       Latency  `json:"latency_s"`
			AnsweredShare *float64 `json:"answered_share"`
			CostPer1k     *Cost    `json:"cost_per_1k_usd"`
		} `json:"no_hedging"`
		Spend Spend `json:"spend_usd"`
	}{plain: plain(c), Latency: unknownLatency(), Spend: c.Spend}
	w.Spend.NoCost = true
	w.NoHedging.baseline = baseline(c.NoHedging)
	w.NoHedging.Latency = unknownLatency()
	return json.Marshal(w)
}

// endLatencyJSON is an EndLatency without requests on the wire: every
// figure null.
type endLatencyJSON struct {
	Mean *float64 `json:"mean"`
	P50  *float64 `json:"p50"`
	P95  *float64 `json:"p95"`
	P99  *float64 `json:"p99"`
}

// unknownLatency is the latency of a row without requests: every figure
// NaN (printed "-", JSON null).
func unknownLatency() Latency {
	nan := math.NaN()
	return Latency{Mean: nan, P50: nan, P90: nan, P95: nan, P99: nan, P999: nan,
		P95CI95: [2]float64{nan, nan}, P99CI95: [2]float64{nan, nan}}
}

// NewReport compares a run with its baseline (the result of running
// WithoutHedging(cfg)); both must come from the same cfg.
func NewReport(cfg *Config, hedged, baseline *Result) *Report {
	return newReport(cfg, hedged, baseline, false)
}

// NewReportPerBatch is NewReport with, for each class row whose requests
// interact, its figures in each batch of the fixed grid
// (ClassReport.PerBatch, perbatch.go), for paired comparisons between
// reports (hedgesim compare). It costs one more grouping and selection
// over each such row's latencies when its warm-up cut is not 0, so
// NewReport leaves it out (run writes it in its JSON).
func NewReportPerBatch(cfg *Config, hedged, baseline *Result) *Report {
	return newReport(cfg, hedged, baseline, true)
}

func newReport(cfg *Config, hedged, baseline *Result, perBatch bool) *Report {
	r := &Report{
		Scenario: cfg.Name, Seed: cfg.Seed, Requests: cfg.Requests,
		QuantileRule: QuantileRuleFor(cfg),
	}
	sums, overall := summarizeAll(hedged, baseline, perBatch)
	for i := range hedged.Classes {
		h, b, x := &hedged.Classes[i], &baseline.Classes[i], &sums[i]
		cr := classReport(h, b, x.lat, x.end, x.base)
		cr.setIntervals(cfg, x, hedged.Overall.Requests)
		cr.setAddedCostCI(h, b)
		if x.bat != nil {
			cr.PerBatch = x.bat.grid
		}
		cr.Pipeline = pipelineReport(&cfg.Classes[i], h, b)
		cr.PerBatch.addPipeline(cr.Pipeline, h)
		cr.Warnings = append(cr.Warnings, hedgeWarnings(&cfg.Classes[i], h, b, &cr, x)...)
		if w := answerCutWarning(&cfg.Classes[i], h, b); w != "" {
			cr.Warnings = append(cr.Warnings, w)
		}
		cr.Policy = PolicyText(cfg, &cfg.Classes[i])
		for _, w := range classConfigWarnings(cfg, i) {
			cr.Warnings = append(cr.Warnings, w.Text)
		}
		if n := cfg.Classes[i].Clients; int64(n) > h.Requests {
			cr.Warnings = append(cr.Warnings, fmt.Sprintf("%d closed-loop clients sent only %d requests: the run ended before every client had sent once, so the idle clients cost memory and time and change nothing; set clients to at most the requests, or simulate more requests", n, h.Requests))
		}
		r.Classes = append(r.Classes, cr)
	}
	r.Overall = classReport(&hedged.Overall, &baseline.Overall, overall.lat, overall.end, overall.base)
	r.Overall.setIntervals(cfg, &overall, hedged.Overall.Requests)
	r.Overall.setAddedCostCI(&hedged.Overall, &baseline.Overall)
	if r.Overall.WarmUp != nil {
		r.QuantileRule = quantileRule(cfg, true)
	}
	r.setSpend(cfg)
	r.Providers = hedged.Providers
	r.Breakers = hedged.Breakers
	r.Pools = hedged.Pools
	r.setLoadIntervals(hedged, overall.bat)
	r.Warnings = []string{}
	if w := NoSpanWarning(cfg); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	unstable := map[string]bool{}
	for i := range baseline.Providers {
		if p := &baseline.Providers[i]; p.Unstable() {
			r.Warnings = append(r.Warnings, unstableWarning(p, "without hedging"))
			unstable[p.Name] = true
		} else if i < len(hedged.Providers) && hedged.Providers[i].Unstable() {
			r.Warnings = append(r.Warnings, unstableWarning(&hedged.Providers[i], "with hedging (stable without)"))
			unstable[p.Name] = true
		}
	}
	unstableReps := map[replicaKey]bool{}
	for i := range baseline.Pools {
		bp := &baseline.Pools[i]
		hp := poolOf(hedged.Pools, bp.Provider)
		for j := range bp.Replicas {
			k := replicaKey{bp.Provider, j}
			if rr := &bp.Replicas[j]; rr.Unstable() {
				r.Warnings = append(r.Warnings, unstableReplicaWarning(bp, rr, "without hedging", providerUtilisation(baseline.Providers, bp.Provider)))
				unstableReps[k] = true
			} else if hp != nil && j < len(hp.Replicas) && hp.Replicas[j].Unstable() {
				r.Warnings = append(r.Warnings, unstableReplicaWarning(hp, &hp.Replicas[j], "with hedging (stable without)", providerUtilisation(hedged.Providers, bp.Provider)))
				unstableReps[k] = true
			}
		}
	}
	r.saturated = saturationWarnings(cfg, hedged.Providers, unstable)
	r.saturated = append(r.saturated, replicaSaturationWarnings(cfg, hedged.Providers, hedged.Pools, unstable, unstableReps)...)
	r.Warnings = append(r.Warnings, r.saturated...)
	for _, o := range hedged.Overloads(cfg) {
		over := "over this run of " + FormatSeconds(o.Seconds)
		if o.Seconds != hedged.Seconds {
			over = fmt.Sprintf("over this run's %d requests at %s requests/s (%s of arrivals; the run ends at %s, when the last of them does)",
				hedged.Overall.Requests, PerSecond(ArrivalRate(cfg)), FormatSeconds(o.Seconds), FormatSeconds(hedged.Seconds))
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s %s: a rate limit's bucket starts full, so its 429s may only begin after the burst is spent — a longer run, or production traffic, sees more of them", o, over))
	}
	for _, b := range hedged.Breakers {
		if b.starved != "" {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the breaker on %s: %s", b.who(), b.starved))
		}
		if w := b.HiddenWarning(); w != "" {
			r.Warnings = append(r.Warnings, w)
		}
	}
	for _, p := range cfg.Providers {
		if d := p.Degraded; d != nil && hedged.Seconds > 0 {
			cycle := (d.MeanNormal + d.MeanDegraded).Seconds()
			if n := hedged.Seconds / cycle; n < minSlowCycles {
				r.Warnings = append(r.Warnings, fmt.Sprintf("this run of %s covers about %.1f slow-period cycles of provider %s (a cycle every %s on average): how many slow periods fall in it is itself random, so another seed can tell a different story, and requests in one slow period are not independent, so the intervals are too optimistic; %s (at least %d cycles)",
					FormatSeconds(hedged.Seconds), n, p.Name, FormatSeconds(cycle), cfg.moreRequests(0), minSlowCycles))
			}
		}
	}
	for _, p := range r.Providers {
		if p.Sent > 0 && p.RateLimited == p.Sent {
			r.Warnings = append(r.Warnings, all429(cfg, &p))
		}
	}
	return r
}

// all429 is the warning for provider p, which answered every attempt with
// a 429: it names the cause — a rate limit (the provider's or its
// models'), the models' own 429s (failures.rate_limited), or both, with
// how many each gave.
func all429(cfg *Config, p *ProviderResult) string {
	const limit = "its rate limit admits none of these requests (check tokens_per_minute and burst against the requests' input + output tokens)"
	if p.limited == p.Sent {
		return fmt.Sprintf("provider %s answered every attempt with a 429: %s", p.Name, limit)
	}
	var own []string
	for i := range cfg.Models {
		m := &cfg.Models[i]
		prov := m.Provider
		if prov == "" {
			prov = m.Name
		}
		if prov == p.Name && m.Failures.RateLimited.Rate > 0 {
			own = append(own, fmt.Sprintf("model %s's failures.rate_limited = %v", m.Name, m.Failures.RateLimited.Rate))
		}
	}
	injected := fmt.Sprintf("the 429s are injected failures (%s), not a rate limit", strings.Join(own, ", "))
	if p.limited == 0 {
		return fmt.Sprintf("provider %s answered every attempt with a 429: %s; lower that rate to let answers through", p.Name, injected)
	}
	return fmt.Sprintf("provider %s answered every attempt with a 429: %d from a rate limit, which admits few of these requests (check tokens_per_minute and burst against the requests' input + output tokens), and %d from its models' own failures.rate_limited (%s)",
		p.Name, p.limited, p.Sent-p.limited, strings.Join(own, ", "))
}

// minSlowCycles is the fewest slow-period cycles of a provider a run must
// cover before its report stops warning that they are too few.
const minSlowCycles = 100

// summaries are the latency figures of a report row, each selected from
// the stored latencies.
type summaries struct {
	lat, base Latency // SummarizeLatency of the hedged run and of the baseline
	// bat and baseBat are the batched analyses of the two runs (nil for
	// independent requests); lat and base are theirs then.
	bat, baseBat *batchSummary
	end          EndLatency // SummarizeEnd of the hedged run
	baseEnd95    float64    // the baseline's end-latency p95 (hedgeWarnings)
}

// summarizeAll selects the figures of the report rows of every class of the
// runs hedged and baseline, and of the overall row — the one class's when
// there is only one, as they hold the same requests. The selections, which
// only read the runs' latencies, run on up to GOMAXPROCS goroutines; the
// figures do not depend on how many. With perBatch, the class rows also
// get their figures on the fixed grid (perbatch.go).
func summarizeAll(hedged, baseline *Result, perBatch bool) (cls []summaries, overall summaries) {
	cls = make([]summaries, len(hedged.Classes))
	var jobs []func()
	for i := range cls {
		h, b, x := &hedged.Classes[i], &baseline.Classes[i], &cls[i]
		jobs = append(jobs,
			func() { x.lat, x.bat, x.base, x.baseBat = summarizeRows(h, b, perBatch) },
			func() { x.end = SummarizeEnd(h) },
			func() { x.baseEnd95 = b.EndQuantiles(0.95)[0] })
	}
	if len(cls) != 1 {
		h, b, x := &hedged.Overall, &baseline.Overall, &overall
		jobs = append(jobs,
			func() { x.lat, x.bat, x.base, x.baseBat = summarizeRows(h, b, false) },
			func() { x.end = SummarizeEnd(h) })
	}
	var next atomic.Int64
	parallel(min(runtime.GOMAXPROCS(0), len(jobs)), func(int) {
		for j := int(next.Add(1)) - 1; j < len(jobs); j = int(next.Add(1)) - 1 {
			jobs[j]()
		}
	})
	if len(cls) == 1 {
		overall = cls[0]
	}
	return cls, overall
}

// SummarizeLatency returns the latency summary of c (NaN-free: zeros when
// c has no requests), from one selection of the ranks it needs.
//
// When c's requests interact (a batched run, batchmeans.go) the figures
// leave out the warm-up (warmup.go) and the intervals come from batches.
func SummarizeLatency(c *ClassResult) Latency {
	n := c.NumLatencies()
	if n == 0 {
		return Latency{}
	}
	if c.lat.sectioned() {
		return batchSummarize(&c.lat).lat
	}
	ks := []int{
		NearestRank(n, 0.50), NearestRank(n, 0.90), NearestRank(n, 0.95),
		NearestRank(n, 0.99), NearestRank(n, 0.999),
	}
	l95, u95, ok95 := QuantileCIRanks(n, 0.95, 0.95)
	l99, u99, ok99 := QuantileCIRanks(n, 0.99, 0.95)
	ks = append(ks, l95-1, u95-1, l99-1, u99-1)
	v := c.Ranks(ks)
	return Latency{
		Mean: c.Mean(), P50: v[0], P90: v[1], P95: v[2], P99: v[3], P999: v[4],
		P95CI95: [2]float64{v[5], v[6]}, P95CIOK: ok95,
		P99CI95: [2]float64{v[7], v[8]}, P99CIOK: ok99,
		CIs: orderCIs(c),
	}
}

func per1k(c *ClassResult) Cost {
	if c.Requests == 0 {
		return Cost{}
	}
	k := 1000 / float64(c.Requests)
	return Cost{
		Total:     (c.CostCompletedUSD + c.CostCancelledUSD) * k,
		Completed: c.CostCompletedUSD * k,
		Cancelled: c.CostCancelledUSD * k,
	}
}

// share returns a/n, or 0 when n is 0.
func share(a, n int64) float64 { return perRequest(float64(a), n) }

// classReport returns the report row of the run h of a class (or of all
// classes) and its baseline b, given the latency summaries of h (lat, end)
// and of b (base).
func classReport(h, b *ClassResult, lat Latency, end EndLatency, base Latency) ClassReport {
	cr := ClassReport{
		Class: h.Name, Requests: h.Requests, Answered: h.Answered,
		AnsweredShare:    share(h.Answered, h.Requests),
		TimeoutsFailOpen: h.TimeoutsOpen, TimeoutsFailClosed: h.TimeoutsClosed,
		Errors: h.Errors, RateLimited: h.RateLimited, Rejected: h.Rejected, Stalled: h.Stalled, Invalid: h.Invalid,
		Latency:            lat,
		EndLatency:         end,
		HedgedShare:        share(h.Hedged, h.Requests),
		AttemptsPerRequest: share(h.Attempts.Sent, h.Requests),
		Attempts:           h.Attempts,
		CostPer1k:          per1k(h),
		WastedOutputTokens: h.WastedOutputTokens,
		DeniedHedges:       h.Denied,
		AdaptiveDelay:      h.AdaptiveDelay,
		Throughput:         h.Throughput,
		Retries:            h.Retries,
		NoHedging: Baseline{
			Latency:       base,
			Requests:      b.Requests,
			Answered:      b.Answered,
			AnsweredShare: share(b.Answered, b.Requests),
			CostPer1k:     per1k(b),
			Throughput:    b.Throughput,
		},
		Warnings: []string{},
	}
	if base := cr.NoHedging.CostPer1k.Total; base > 0 {
		pct := 100 * (cr.CostPer1k.Total - base) / base
		cr.AddedCostPct = &pct
	}
	cr.Warnings = append(cr.Warnings, latencyWarnings(h)...)
	return cr
}

// AnswersFall reports whether an answered share falls significantly from
// before (share pb of nb requests) to after (pc of nc): pb − pc >
// z·√(pb(1−pb)/nb + pc(1−pc)/nc), the two-sample test on a difference of
// proportions at normal score z (1.96 for 95 %, two-sided). Runs on common
// random numbers are positively correlated, so this unpaired test errs
// towards calling a fall insignificant. With no requests on either side it
// is false.
func AnswersFall(pb float64, nb int64, pc float64, nc int64, z float64) bool {
	if !(pc < pb) || nb <= 0 || nc <= 0 {
		return false
	}
	se := math.Sqrt(pb*(1-pb)/float64(nb) + pc*(1-pc)/float64(nc))
	return pb-pc > z*se
}

// answersFallWarning names the cause of a significant fall of the answered
// share from pb (no hedging, run b) to ph (run h), as the report row gives
// them. The no-hedging baseline
// runs without the attempt timeout and stream cuts, so when no copy was
// sent, or when the requests cut for stalls account for every answer lost,
// the cuts are the cause, not the copies.
func answersFallWarning(h, b *ClassResult, pb, ph float64) string {
	var cuts []string
	if n := h.Attempts.Stalled; n > 0 {
		cuts = append(cuts, fmt.Sprintf("stream cuts (inter_token_timeout, min_tokens_per_s) cut %d attempts", n))
	}
	if n := h.Attempts.TimedOut; n > 0 {
		cuts = append(cuts, fmt.Sprintf("attempt_timeout cut %d attempts", n))
	}
	lost := share(b.Answered, b.Requests)*float64(h.Requests) - float64(h.Answered) // over the whole run, as h.Stalled
	switch {
	case len(cuts) > 0 && h.Hedged == 0:
		return fmt.Sprintf("the hedge policy lowers the answered share significantly (%s without, %s with it) though no copy was sent: %s, and no hedging runs without them", pct(pb), pct(ph), strings.Join(cuts, " and "))
	case h.Attempts.Stalled > 0 && float64(h.Stalled) >= lost:
		return fmt.Sprintf("the hedge policy lowers the answered share significantly (%s without, %s with it): %s, and %d requests ended so; no hedging runs without stream cuts", pct(pb), pct(ph), cuts[0], h.Stalled)
	}
	return fmt.Sprintf("hedging lowers the answered share significantly (%s without, %s with hedging): copies fail (429s, errors, invalid answers) or end requests that would have been answered", pct(pb), pct(ph))
}

// hedgeWarnings says when class cl's hedging (run h, baseline b, report row
// cr, its summaries x) does harm or nothing: it answers significantly fewer
// requests than no hedging (the two-proportion test of the optimizer, at
// 95 %, on the answered shares of the row, cr.AnsweredShare and
// cr.NoHedging.AnsweredShare: those of the requests after the warm-up cut
// when they interact, of as many requests); it cannot hedge because its
// first copy is due at or after its deadline; or its requests end sooner
// only because they fail faster (the p95 of the time until requests ended
// falls by ≥ 10 % while the p95 to a usable answer does not fall; the
// baseline's is x.baseEnd95).
func hedgeWarnings(cl *Class, h, b *ClassResult, cr *ClassReport, x *summaries) []string {
	var w []string
	if h.Requests == 0 || b.Requests == 0 {
		return nil
	}
	ph, pb := cr.AnsweredShare, cr.NoHedging.AnsweredShare
	nh, nb := h.Requests, b.Requests
	if x.bat != nil {
		nh = x.bat.kept
	}
	if x.baseBat != nil {
		nb = x.baseBat.kept
	}
	if AnswersFall(pb, nb, ph, nh, 1.96) {
		w = append(w, answersFallWarning(h, b, pb, ph))
	}
	p := &cl.Policy
	if g := p.gap(1); p.Copies > 0 && p.Adaptive == nil && cl.Deadline > 0 && g >= cl.Deadline {
		w = append(w, fmt.Sprintf("the hedge delay %s is at or past the deadline %s: no copy is ever sent on a timer (hedged %s)", FormatSeconds(g.Seconds()), FormatSeconds(cl.Deadline.Seconds()), pct(share(h.Hedged, h.Requests))))
	}
	if p.Copies > 0 && p.gap(1) < 0 && p.OnError != NonFatal && p.OnInvalid != NonFatal &&
		p.OnRateLimited != NonFatal && (p.AttemptTimeout == 0 || p.OnAttemptTimeout != NonFatal) &&
		p.OnClientError != NonFatal && p.OnUpstreamTimeout != NonFatal && (!p.StreamCuts.on() || p.OnStall != NonFatal) {
		w = append(w, "the copies are fallback copies, sent only after a failure under a nonfatal rule, but no failure here is nonfatal (on_error, on_invalid, on_rate_limited, on_attempt_timeout, on_client_error, on_upstream_timeout, on_stall): no copy is ever sent")
	}
	eh, eb := cr.EndLatency.P95, x.baseEnd95
	ph95, pb95 := cr.Latency.P95, cr.NoHedging.Latency.P95
	// A pipeline's degraded requests end sooner because its fail-open
	// steps are hedged, not because they fail: its section shows both.
	if eb > 0 && eh <= 0.9*eb && !(ph95 < pb95) && cr.Pipeline == nil {
		w = append(w, fmt.Sprintf("requests end sooner with hedging (p95 of the time until they end %s → %s) only because they fail faster: p95 to a usable answer %s → %s", FormatSeconds(eb), FormatSeconds(eh), FormatSeconds(pb95), FormatSeconds(ph95)))
	}
	return w
}

// latencyWarnings says what limits the latency figures of c.
func latencyWarnings(c *ClassResult) []string {
	n := c.NumLatencies()
	var w []string
	switch {
	case n == 0:
		return []string{"no requests fell in this class; its figures are empty"}
	case !ciOK(c, 0.95):
		w = append(w, fmt.Sprintf("%s too few for a 95%% interval on p95; treat every percentile as rough", plural(n, "request is", "requests are")))
	case !ciOK(c, 0.99):
		w = append(w, fmt.Sprintf("%s too few for a 95%% interval on p99; treat p99 and p99.9 as rough", plural(n, "request is", "requests are")))
	case !ciOK(c, 0.999):
		w = append(w, fmt.Sprintf("%s too few for a 95%% interval on p99.9; treat it as rough", plural(n, "request is", "requests are")))
	}
	if c.lat.maxAll >= maxDelay {
		capped := c.lat.countAtLeast(toSeconds32(maxDelay))
		w = append(w, fmt.Sprintf("%d of %d requests reached the simulator's cap of %s: single draws are capped at about 9 years, so the inputs lie outside what it models", capped, c.lat.n(), FormatSeconds(maxDelay.Seconds())))
	}
	return w
}

// CappedSummary says which of l's percentiles reached the simulator's cap
// on a single draw (about 9 years), such as "p50, p90"; "" when none did.
func CappedSummary(l Latency) string {
	var ps []string
	for _, q := range []struct {
		name string
		v    float64
	}{{"p50", l.P50}, {"p90", l.P90}, {"p95", l.P95}, {"p99", l.P99}, {"p99.9", l.P999}} {
		if isCapped(q.v) {
			ps = append(ps, q.name)
		}
	}
	return strings.Join(ps, ", ")
}

// isCapped reports whether a latency in seconds reached the simulator's
// cap on a single draw, as stored in float32 (a miss, +Inf, did not).
func isCapped(s float64) bool { return s >= seconds64(toSeconds32(maxDelay)) && !math.IsInf(s, 1) }

func ciOK(c *ClassResult, p float64) bool {
	_, _, ok := QuantileCIRanks(c.NumLatencies(), p, 0.95)
	return ok
}

// plural returns "1 request is" or "n requests are".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// WriteJSON writes r as indented JSON followed by a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes r as human-readable tables.
func (r *Report) WriteText(w io.Writer) error {
	rows := append(append([]ClassReport{}, r.Classes...), r.Overall)
	if len(r.Classes) == 1 {
		rows = r.Classes
	}
	fmt.Fprintf(w, "scenario %s, seed %d, %d requests; latency is the time to a usable answer (miss: none by the deadline); no hedging = no copies and no per-attempt timeout\n", r.Scenario, r.Seed, r.Requests)
	if len(r.Overrides) > 0 {
		fmt.Fprintf(w, "what-if overrides: %s\n", strings.Join(r.Overrides, ", "))
	}
	fmt.Fprintln(w)

	tw := textfit.NewTable(w, tabwriter.AlignRight)
	fmt.Fprintln(tw, "latency\tp50\tp90\tp95\tp95 95% CI\tp99\tp99.9\tmean\t\tno hedging p95\tp99\t")
	for _, c := range rows {
		l, b := c.Latency, c.NoHedging.Latency
		if c.Requests == 0 {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t-\t\t-\t-\t\n", c.Class)
			continue
		}
		ci := "n/a"
		if l.P95CIOK {
			ci = fmt.Sprintf("[%s, %s]", fsec(l.P95CI95[0]), fsec(l.P95CI95[1]))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\t%s\t%s\t\n", c.Class,
			fsec(l.P50), fsec(l.P90), fsec(l.P95), ci,
			fsec(l.P99), fsec(l.P999), fsec(l.Mean), fsec(b.P95), fsec(b.P99))
	}
	tw.Flush()
	fmt.Fprintln(w)

	tw = textfit.NewTable(w, tabwriter.AlignRight)
	fmt.Fprintln(tw, "outcomes\trequests\tanswered\t(no hedging)\ttimeouts open/closed\terrors\t(429)\t(rejected)\tinvalid\thedged\tattempts/req\t")
	for _, c := range rows {
		// A class that got no request has no shares: "-", not 0.0%. The
		// row counts the whole run, its shares too: the answered share
		// after a warm-up cut, with its interval, is on the row's
		// batched line (writeBatched).
		ans, noAns, hedged, perReq := "-", "-", "-", "-"
		if c.Requests > 0 {
			ans, hedged = pct(share(c.Answered, c.Requests)), pct(c.HedgedShare)
			perReq = fmt.Sprintf("%.3f", c.AttemptsPerRequest)
		}
		if c.NoHedging.Requests > 0 {
			noAns = pct(share(c.NoHedging.Answered, c.NoHedging.Requests))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d/%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", c.Class, c.Requests,
			ans, noAns, c.TimeoutsFailOpen, c.TimeoutsFailClosed,
			c.Errors, c.RateLimited, c.Rejected, c.Invalid, hedged, perReq)
	}
	tw.Flush()
	fmt.Fprintln(w)

	tw = textfit.NewTable(w, tabwriter.AlignRight)
	fmt.Fprintln(tw, "cost per 1k req\ttotal\tcompleted\tcancelled\tno hedging\tadded\twasted out tok/req\t")
	for _, c := range rows {
		if c.Requests == 0 {
			// No request fell in the class: its cost per request is
			// unknown, not $0 (as its spend).
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t\n", c.Class)
			continue
		}
		added := "n/a"
		if c.AddedCostPct != nil {
			added = signedPct(*c.AddedCostPct)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t\n", c.Class,
			DollarsPer1k(c.CostPer1k.Total), DollarsPer1k(c.CostPer1k.Completed), DollarsPer1k(c.CostPer1k.Cancelled),
			DollarsPer1k(c.NoHedging.CostPer1k.Total), added, perRequest(c.WastedOutputTokens, c.Requests))
	}
	tw.Flush()
	fmt.Fprintln(w)
	writePipelines(w, rows)
	writeFailureKinds(w, rows)
	writeThroughput(w, rows)
	writeRetries(w, rows)
	writeSpend(w, rows)
	writeReplicaSpend(w, r.Pools)
	tw = textfit.NewTable(w, tabwriter.AlignRight)
	// The stalled column appears only when a stream was cut, so that
	// reports without stalls read as before.
	stalled := slices.ContainsFunc(r.Providers, func(p ProviderResult) bool { return p.Stalled > 0 })
	stalledHead := ""
	if stalled {
		stalledHead = "stalled\t"
	}
	fmt.Fprintln(tw, "provider\tsent\tcompleted\tfailed\t429\trejected\tinvalid\ttimed out\t"+stalledHead+"cancelled\tmean queue wait\tin service\tutilisation\t")
	for _, p := range r.Providers {
		util := "-"
		if p.Utilisation != nil {
			util = pct(*p.Utilisation)
		}
		cut := ""
		if stalled {
			cut = fmt.Sprintf("%d\t", p.Stalled)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s%d\t%s\t%.2f\t%s\t\n", p.Name, p.Sent, p.Completed,
			p.Failed, p.RateLimited, p.Rejected, p.Invalid, p.TimedOut, cut, p.Cancelled, fsec(p.MeanQueueWait), p.MeanInService, util)
	}
	tw.Flush()
	fmt.Fprintln(w)
	writePools(w, r.Pools)
	fmt.Fprintln(w, inServiceNote(r))
	if strings.HasPrefix(r.QuantileRule, QuantileRuleBatched) {
		// The JSON's rule is right for the JSON, whose answered_share is
		// after the cut; the text's outcomes table is not.
		fmt.Fprintf(w, "quantiles: %s; %s.\n", r.QuantileRule, OutcomesRowNote)
	} else {
		fmt.Fprintf(w, "quantiles: %s.\n", r.QuantileRule)
	}
	writeBatched(w, rows)
	writePrecision(w, r.Precision)
	for _, c := range rows {
		if d := c.DeniedHedges; d.Total() > 0 {
			fmt.Fprintf(w, "%s: budgets denied %d copies (%s)\n", c.Class, d.Total(), deniedParts(d))
		}
		if rc := c.Retries; rc != nil && rc.DeniedBy.Total() > 0 {
			fmt.Fprintf(w, "%s: budgets denied %d retries (%s)\n", c.Class, rc.DeniedBy.Total(), deniedParts(rc.DeniedBy))
		}
		if ad := c.AdaptiveDelay; len(ad) > 0 && c.Class != "overall" {
			ds := make([]float64, len(ad))
			for i, x := range ad {
				ds[i] = x.Delay
			}
			slices.Sort(ds)
			fmt.Fprintf(w, "%s: adaptive delay over the run: min %s, median %s, max %s, last %s\n",
				c.Class, fsec(ds[0]), fsec(ds[len(ds)/2]), fsec(ds[len(ds)-1]), fsec(ad[len(ad)-1].Delay))
		}
	}
	for _, c := range rows {
		if a := c.Attempts; a.Stalled > 0 || c.Stalled > 0 {
			fmt.Fprintf(w, "%s: %d attempts cut for stalls (inter-token timeout or speed floor); %d requests ended so\n", c.Class, a.Stalled, c.Stalled)
		}
	}
	for _, b := range r.Breakers {
		who := "model " + b.Model
		if b.Provider != "" {
			who = "provider " + b.Provider
		}
		fmt.Fprintf(w, "%s: circuit breaker opened %d times, open %s in all, failed %d calls at once\n", who, b.Opens, fsec(b.OpenSeconds), b.Rejected)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	for _, c := range rows {
		for _, warn := range c.Warnings {
			fmt.Fprintf(w, "warning: %s: %s\n", c.Class, warn)
		}
	}
	return nil
}

// writeFailureKinds writes, when any attempt failed, the failed attempts
// of each class by kind: 429, 5xx, 4xx, upstream timeout, and rejected by
// a full queue or an open circuit breaker.
func writeFailureKinds(w io.Writer, rows []ClassReport) {
	any := false
	for _, c := range rows {
		a := c.Attempts
		any = any || a.Failed+a.RateLimited+a.Rejected > 0
	}
	if !any {
		return
	}
	tw := textfit.NewTable(w, tabwriter.AlignRight)
	fmt.Fprintln(tw, "failed attempts\t429\t5xx\t4xx\tupstream timeout\trejected (full, breaker)\tof attempts sent\t")
	for _, c := range rows {
		a := c.Attempts
		k := a.FailedByKind
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", c.Class, a.RateLimited, k.ServerError, k.ClientError, k.UpstreamTimeout, a.Rejected, a.Sent)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// perRequest returns x/n, or 0 when n is 0.
func perRequest(x float64, n int64) float64 {
	if n == 0 {
		return 0
	}
	return x / float64(n)
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// signedPct formats a change in percent with its sign and one decimal,
// or the digits that keep its sign (SignedChange): -0.03%, not +0.0%.
func signedPct(x float64) string { return SignedChange(x, 1) + "%" }

// fsec is FormatSeconds.
func fsec(s float64) string { return FormatSeconds(s) }

// FormatSeconds formats a latency in seconds compactly, as the reports
// print it: "-" for NaN, "miss" for +Inf (a percentile that lands on a
// request without a usable answer), 0s, 4.2ms, 213ms, 3.07s, 61.2s.
func FormatSeconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "-"
	case math.IsInf(s, 1):
		return "miss"
	case s == 0:
		return "0s"
	case s < 0.01:
		return fmt.Sprintf("%.1fms", s*1e3)
	case s < 0.9995: // rounds to at most 999ms
		return fmt.Sprintf("%.0fms", s*1e3)
	case s < 10:
		return fmt.Sprintf("%.2fs", s)
	default:
		return fmt.Sprintf("%.1fs", s)
	}
}

// deniedParts lists the denials of d per budget, those above 0.
func deniedParts(d Denied) string {
	var parts []string
	for _, x := range []struct {
		n    int64
		name string
	}{{d.HedgeShare, "hedge share"}, {d.Throttle, "retry throttle"}, {d.InFlight, "in-flight ratio"},
		{d.Rate, "hedges/s"}, {d.Parallel, "max parallel"}, {d.WarmUp, "adaptive warm-up"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", x.name, x.n))
		}
	}
	return strings.Join(parts, ", ")
}

// inServiceNote is the footnote of the provider and replica tables: what
// "in service" counts and "utilisation" divides, and, when a row has no
// utilisation, why.
func inServiceNote(r *Report) string {
	note := "in service: the mean number of attempts in service at once (a time average over the provider's span; losers count until their cancel lands); utilisation: in service ÷ the concurrency limit"
	unlimited := slices.ContainsFunc(r.Providers, func(p ProviderResult) bool { return p.Utilisation == nil })
	for _, p := range r.Pools {
		unlimited = unlimited || slices.ContainsFunc(p.Replicas, func(x ReplicaResult) bool { return x.Utilisation == nil })
	}
	if slices.ContainsFunc(r.Pools, func(p PoolResult) bool { return p.Autoscale != nil }) {
		note += " (an autoscaled pool's: its replicas' limit times the time-weighted mean number of replicas up or starting; a replica's there: its time in service ÷ its limit times its own time up or starting)"
	}
	if unlimited {
		note += ", \"-\" for a provider or replica without one (no limit to divide by: it serves every attempt at once)"
	}
	fixed := slices.ContainsFunc(r.Pools, func(p PoolResult) bool { return p.ColdStarts > 0 && p.Autoscale == nil })
	scaled := slices.ContainsFunc(r.Pools, func(p PoolResult) bool { return p.ColdStarts > 0 && p.Autoscale != nil })
	switch {
	case fixed && scaled:
		note += "; a cold start: " + coldFixedNote + "; " + coldScaledNote
	case fixed:
		note += "; a cold start: " + coldFixedNote
	case scaled:
		note += "; a cold start: " + coldScaledNote
	}
	return note + "."
}

// coldFixedNote and coldScaledNote say in inServiceNote where a pool's
// cold starts are counted, which differs by the kind of pool (ColdStart,
// Autoscale): the same wait for a start is time in service at one and
// queue wait at the other.
const (
	coldFixedNote  = "at a pool without autoscaling, time in service, not queue wait (the attempts waiting for it hold their slots; with none, it counts as one)"
	coldScaledNote = "at an autoscaled pool, queue wait of the attempts waiting at the activator for a replica to come up, not time in service (a starting replica serves nothing; its time counts in utilisation's time up or starting)"
)
