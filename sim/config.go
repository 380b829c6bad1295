package sim

import (
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// Config is a complete, validated simulation input. The scenario package
// builds one from a TOML file; tests and other programs may build it directly.
// Validate reports the first problem found.
type Config struct {
	// Name labels the run in reports.
	Name string
	// Seed makes the run reproducible: the draws of request i and of its
	// attempt k depend only on (Seed, i, k).
	Seed uint64
	// Requests is the number of requests to simulate, in [1, MaxRequests].
	Requests int
	// Arrivals is the arrival process shared by all classes.
	Arrivals Arrivals
	// Models are the upstream endpoints; policies refer to them by index.
	Models []Model
	// Classes partition the traffic; their shares sum to 1.
	Classes []Class
	// Providers are the failure domains with their limits and slowdowns;
	// a model whose Provider is not listed here has an unlimited provider
	// of its own.
	Providers []Provider
	// Correlation couples the latencies of the attempts of one request.
	// The zero value makes them independent.
	Correlation Correlation
	// Pair, when set, records or compares request by request whether each
	// request met its class's target (pair.go); nil: neither.
	Pair *Pair
}

// Correlation is the Gaussian-copula correlation between the latencies of
// two attempts of the same request, by how close their targets are. Each
// is in [0, 1]; 1 means the copy is exactly as slow, in quantile, as the
// original. The matrix they form over a policy's attempts must be positive
// semidefinite (Run returns an error otherwise). A retried call, and an
// attempt of a re-run request, is coupled to its attempt's earlier call
// by SameModel (see copula.go).
type Correlation struct {
	SameModel     float64 // both attempts to the same model
	SameProvider  float64 // different models of one provider
	CrossProvider float64 // models of different providers
}

// Provider is a failure domain: the limits and slowdowns that every model
// it serves shares.
type Provider struct {
	// Name is what Model.Provider refers to.
	Name string
	// Concurrency is the number of attempts in service at once; further
	// attempts wait in a FIFO queue. 0 means unlimited (no queue).
	Concurrency int
	// RejectWhenFull bounds the queue: an attempt that finds all
	// Concurrency slots busy and QueueLimit attempts waiting gets an
	// overload error (503/529) at once, which the class's error rule
	// handles. It needs Concurrency > 0. With QueueLimit 0 nothing waits
	// and the provider is an Erlang loss system (M/M/c/c); otherwise it is
	// M/M/c/K with K = Concurrency + QueueLimit.
	RejectWhenFull bool
	// QueueLimit is how many attempts may wait when RejectWhenFull is set;
	// ≥ 0.
	QueueLimit int
	// IgnoresCancel makes cancels have no effect at this provider (a
	// server that ignores client disconnects): losers and timed-out
	// attempts run to completion, keep their slot or queue place until then
	// and are billed in full.
	IgnoresCancel bool
	// RateLimit rejects attempts over the provider's limits with a 429.
	RateLimit RateLimit
	// Degraded, when set, is a two-state process of normal and degraded
	// periods shared by all the provider's models.
	Degraded *Degraded
	// Breaker, when set, is a circuit breaker on the calls to every model
	// of the provider together, shared by all requests; a model's own
	// breaker is asked first.
	Breaker *Breaker
	// Pool, when set, serves the provider's models from a pool of
	// replicas, each with its own concurrency limit and queue, picked by a
	// balancer (see Pool); Concurrency, RejectWhenFull and QueueLimit must
	// then be unset: the pool's are per replica. The rate limits, breaker
	// and degraded periods above stay the provider's, shared by its
	// replicas.
	Pool *Pool
}

// RateLimit is a pair of token buckets, refilled continuously: one counts
// requests, the other tokens (input + output tokens of the request, the
// output being what the request will generate). An attempt that finds
// either bucket short is rejected with a 429 after RejectLatency. Zero
// limits are off.
type RateLimit struct {
	// RequestsPerMinute and TokensPerMinute are the refill rates; ≥ 0.
	RequestsPerMinute, TokensPerMinute float64
	// Burst is how many seconds of refill a full bucket holds (default 60 s,
	// i.e. one minute's allowance); ≥ 0.
	Burst time.Duration
	// RejectLatency is how long the 429 takes to come back; ≥ 0.
	RejectLatency time.Duration
	// RetryAfter, when > 0, is the hint a 429 carries: under a non-fatal
	// error rule the next copy is sent RetryAfter after the 429 instead of
	// at once.
	RetryAfter time.Duration
	// CountRejected makes a rejected attempt cost quota too: it takes its
	// request and tokens from the buckets, which may then owe up to one
	// full bucket (as a sliding window counting every request would). A
	// storm of retries above the limit then keeps the bucket empty.
	CountRejected bool
}

// Degraded describes a provider's slow periods: a two-state Markov process
// in simulated time whose normal and degraded periods last exponential
// times with the given means. While degraded, every attempt in service at
// the provider progresses Slowdown times slower; attempts whose service
// starts while degraded fail with probability ErrorRate, with a server
// error after their model's server-error latency (Model.ErrorLatency or
// Failures.ServerError.Latency; their latency when it has none),
// stretched by Slowdown as all service is.
type Degraded struct {
	// MeanNormal and MeanDegraded are the mean period lengths; both > 0.
	MeanNormal, MeanDegraded time.Duration
	// Slowdown ≥ 1 stretches service time while degraded.
	Slowdown float64
	// ErrorRate in [0, 1] is the failure probability of an attempt that
	// starts service in a degraded period (an outage when 1).
	ErrorRate float64
}

// MaxRequests bounds Config.Requests: a run holds every request's latency,
// about 24 bytes per request at its peak, 48 with its baseline run at the
// same time (2.4 GB at the bound; see EstimateMemory).
const MaxRequests = 50_000_000

// MaxSpan bounds the simulated time a run's arrivals may cover: requests ÷
// rate, or a trace's last arrival. The clock is a time.Duration (±292 years),
// and single draws are capped at about 9 years.
const MaxSpan = 100 * 365 * 24 * time.Hour

// MinDegradedPeriod is the shortest mean normal or degraded period a
// provider's slowdown process may have.
const MinDegradedPeriod = 10 * time.Millisecond

// ArrivalProcess names how request arrival times are generated.
type ArrivalProcess uint8

const (
	// Poisson arrivals: exponential inter-arrival times with mean 1/Rate.
	Poisson ArrivalProcess = iota
	// Constant arrivals: exactly 1/Rate seconds apart.
	Constant
	// Replay arrivals: the times (and, if given, token counts and classes)
	// of a recorded trace, Arrivals.Trace.
	Replay
)

// String returns the scenario-file name of the process.
func (p ArrivalProcess) String() string {
	switch p {
	case Poisson:
		return "poisson"
	case Constant:
		return "constant"
	case Replay:
		return "replay"
	}
	return "unknown"
}

// Arrivals describes when requests arrive.
type Arrivals struct {
	Process ArrivalProcess
	// Rate is the mean arrival rate in requests per second; must be > 0
	// (ignored by Replay).
	Rate float64
	// Trace is the recorded traffic that Replay plays back.
	Trace *Trace
}

// Trace is recorded traffic: request i arrives at Arrivals[i]. Input,
// Output and Class are optional (nil); when set they have one entry per
// arrival and replace the class's token distributions and the draw of the
// class by share. With a trace, Config.Requests may not exceed
// len(Arrivals).
type Trace struct {
	// Arrivals are offsets from the start of the run, non-decreasing, ≥ 0.
	Arrivals []time.Duration
	// Input and Output are token counts per request (whole numbers ≥ 0).
	Input, Output []float64
	// Class is the index in Config.Classes of each request's class.
	Class []int
}

// Model is one upstream endpoint. Its attempt latency is either Latency (one
// distribution for the whole call, as for a classifier) or TTFT plus output
// tokens ÷ TokensPerSecond (a streamed generation); exactly one of the two
// forms is set. In the streamed form the time to first token may grow with
// the prompt: TTFT + input tokens ÷ PrefillTokensPerSecond.
type Model struct {
	// Name identifies the model in reports.
	Name string
	// Provider names the failure domain the model belongs to.
	Provider string
	// Latency is the whole-call latency in seconds (nil in TTFT form).
	Latency dist.Continuous
	// TTFT is the time to first token in seconds (nil in Latency form).
	TTFT dist.Continuous
	// TokensPerSecond is the decode speed in output tokens per second
	// (TTFT form only); its support must be > 0.
	TokensPerSecond dist.Continuous
	// PrefillTokensPerSecond, when set (TTFT form only), is the prefill
	// speed in input tokens per second, > 0 with probability 1: an
	// attempt's time to first token is then a draw of TTFT (the base: queue,
	// network, scheduling) plus the request's input tokens ÷ a draw of this
	// speed, so long prompts answer later — the linear prefill term of
	// llmperf-style TTFT measurements and of the prefill/decode split of
	// Splitwise (Patel et al., ISCA 2024) and DistServe (Zhong et al., OSDI
	// 2024). nil means TTFT does not depend on the prompt. Under a copula
	// (Config.Correlation) the prefill speed is drawn at the attempt's
	// score −z, as the decode speed is: a slow draw is slow throughout.
	PrefillTokensPerSecond dist.Continuous
	// ErrorLatency is the time in seconds after which a failing attempt
	// reports its error — a server error of the model's own (ErrorRate)
	// or one of its provider's or replica's state (a degraded period's
	// ErrorRate, a replica's outage: stagefail.go); nil means the error
	// surfaces when the call would otherwise have completed.
	ErrorLatency dist.Continuous
	// ErrorRate is the probability in [0, 1] that an attempt fails (5xx,
	// quota, outage). Errors are not billed.
	ErrorRate float64
	// InvalidRate is the probability in [0, 1] that a completed attempt's
	// answer is unusable (empty, broken format, truncated). Invalid answers
	// are billed in full.
	InvalidRate float64
	// PriceInputPerMTok and PriceOutputPerMTok are prices in USD per million
	// input and output tokens; PricePerRequest is a fee in USD per billed
	// attempt. All ≥ 0.
	PriceInputPerMTok  float64
	PriceOutputPerMTok float64
	PricePerRequest    float64
	// RateLimit is the model's own limit (a per-key or per-deployment
	// quota), checked before its provider's.
	RateLimit RateLimit
	// Failures splits further failures by kind (429, 5xx, 4xx, timeout),
	// each with its own rate and latency; ErrorRate and ErrorLatency are
	// the shorthand for a server error. The zero value adds none.
	Failures Failures
	// Breaker, when set, is a circuit breaker on the model's calls,
	// shared by all requests.
	Breaker *Breaker
	// Stalls pauses some streams (TTFT form only); the zero value none.
	// See Stalls.
	Stalls Stalls
}

// TimeoutRule says what a request that reaches its deadline without a usable
// answer means for the caller.
type TimeoutRule uint8

const (
	// FailOpen lets the request through without an answer (log and go on).
	FailOpen TimeoutRule = iota
	// FailClosed rejects the request.
	FailClosed
)

// String returns the scenario-file name of the rule.
func (r TimeoutRule) String() string {
	if r == FailClosed {
		return "fail_closed"
	}
	return "fail_open"
}

// Class is one traffic class: a share of the requests with its own token
// counts, deadline and hedge policy.
type Class struct {
	Name string
	// Share is the fraction of requests in this class, in (0, 1].
	Share float64
	// InputTokens and OutputTokens are per-request token counts (rounded
	// to whole tokens, at least 0). Every attempt of a request sends the same
	// prompt and is assumed to generate the same number of output tokens.
	InputTokens  dist.Dist
	OutputTokens dist.Dist
	// Deadline is the time budget after arrival; a request without a usable
	// answer by then times out and counts at its deadline. 0 = no deadline.
	Deadline time.Duration
	// SLO is a latency target, separate from the deadline: a request meets
	// it when answered within SLO of its arrival. It is reported, never
	// enforced (pair.go). 0 = none: answered is met. Below Deadline.
	SLO time.Duration
	// OnTimeout says whether a timed-out request fails open or closed.
	OnTimeout TimeoutRule
	// Policy is the hedge policy of the class.
	Policy Policy
	// Retry, when set, re-runs a failed request — hedging and all — after
	// a backoff: retries around hedging (see Retry).
	Retry *Retry
	// AttemptRetry, when set, makes each attempt a retry loop on its model
	// (the client library's retries): hedging around retries (see Retry).
	AttemptRetry *Retry
	// Clients, when ≥ 1, makes the class closed-loop: it is driven by this
	// many concurrent clients, each sending its next request ThinkTime
	// after its previous one ended (answered, failed or timed out), instead
	// of by the open arrivals. Share must then be 0; the open classes'
	// shares sum to 1. At most MaxRequests.
	Clients int
	// Pipeline, when set, makes the class a pipeline of calls (see
	// Pipeline): its requests run the pipeline's steps, each step's call a
	// request with the step's own policy, tokens, deadline and rules, and
	// the class's Policy, InputTokens, OutputTokens, Retry and
	// AttemptRetry are unused. Deadline is then the end-to-end deadline
	// and OnTimeout what reaching it means. A pipeline class is open-loop
	// (Clients 0).
	Pipeline *Pipeline
	// ThinkTime is a closed-loop client's pause in seconds between the end
	// of one request and the send of its next (also before its first);
	// nil means 0. Support ≥ 0.
	ThinkTime dist.Continuous
}

// WinnerRule says which attempt's response ends a request.
type WinnerRule uint8

const (
	// FirstValid: the first complete, valid answer wins (the default).
	FirstValid WinnerRule = iota
	// FirstToken: the first streamed token wins; the request's latency is
	// its time to first token and the winner streams on to completion. An
	// answer later found invalid still counts as an invalid request.
	FirstToken
	// FirstResponse: the first response of any kind wins, errors and invalid
	// answers included (the naive client).
	FirstResponse
)

// String returns the scenario-file name of the rule.
func (w WinnerRule) String() string {
	switch w {
	case FirstToken:
		return "first_token"
	case FirstResponse:
		return "first_response"
	}
	return "first_valid"
}

// ErrorRule says what a failed attempt does to its request.
type ErrorRule uint8

const (
	// Fatal ends the request at once with the failure ("don't hedge errors").
	Fatal ErrorRule = iota
	// NonFatal sends the next copy now instead of waiting for its timer.
	NonFatal
	// Ignore keeps waiting for the other attempts and timers.
	Ignore
)

// String returns the scenario-file name of the rule.
func (e ErrorRule) String() string {
	switch e {
	case NonFatal:
		return "nonfatal"
	case Ignore:
		return "ignore"
	}
	return "fatal"
}

// Billing says what a cancelled attempt costs.
type Billing uint8

const (
	// BillNone: a cancelled attempt costs nothing.
	BillNone Billing = iota
	// BillInput: input tokens (and the per-request fee) are billed.
	BillInput
	// BillGenerated: input tokens plus the output tokens generated until the
	// cancel lands.
	BillGenerated
	// BillFull: billed as if it had completed.
	BillFull
)

// String returns the scenario-file name of the billing mode.
func (b Billing) String() string {
	switch b {
	case BillNone:
		return "none"
	case BillInput:
		return "input"
	case BillGenerated:
		return "generated"
	}
	return "full"
}

// MaxCopies is the largest number of copies beyond the primary a policy may
// send (gRPC caps maxAttempts, which counts the primary, at 5; we allow more).
const MaxCopies = 7

// Policy is a hedge policy. Copies are counted beyond the primary (as Polly
// and failsafe-go do): Copies = 2 means up to 3 attempts in all. gRPC's
// maxAttempts counts the primary too and equals Copies + 1.
type Policy struct {
	// Primary is the index in Config.Models of the model the primary is sent to.
	Primary int
	// Targets are model indices for copy 1, 2, …; the last one repeats for
	// further copies. Empty means every copy goes to the primary model.
	Targets []int
	// NewProvider, when set, sends each copy to the first model of Targets
	// (in order) whose provider this request has not tried yet, if there is
	// one; otherwise to the copy's listed target.
	NewProvider bool
	// Copies is the maximum number of copies beyond the primary, in
	// [0, MaxCopies]; 0 disables hedging.
	Copies int
	// Delays are the gaps between consecutive sends: copy j is sent Delays[j-1]
	// after copy j-1 was sent (copy 0 is the primary); the last gap repeats
	// when there are fewer gaps than copies. A gap of 0 sends the copy at
	// the same instant. A negative gap means fallback: that copy is sent
	// only when an earlier attempt fails under a NonFatal rule, never on a
	// timer.
	Delays []time.Duration
	// Adaptive, when set, replaces every positive gap by a percentile of
	// recent latencies (see Adaptive).
	Adaptive *Adaptive
	// Winner says which response ends the request.
	Winner WinnerRule
	// OnError applies to attempts that fail with an error (5xx, outage).
	OnError ErrorRule
	// OnRateLimited applies to attempts answered with a 429.
	OnRateLimited ErrorRule
	// OnClientError applies to a model's 4xx answers other than 429
	// (Failures.ClientError); a copy would get the same answer, so Fatal
	// (the zero value) is the sensible rule.
	OnClientError ErrorRule
	// OnUpstreamTimeout applies to a model's upstream timeouts
	// (Failures.Timeout).
	OnUpstreamTimeout ErrorRule
	// OnInvalid applies to attempts whose answer is unusable; it matters only
	// under FirstValid.
	OnInvalid ErrorRule
	// AttemptTimeout, when > 0, abandons an attempt that has not responded
	// this long after it was sent (queue wait included): a cancel is sent
	// as for a loser, the attempt counts as a failed attempt of kind
	// timeout, handled by OnAttemptTimeout. Its work goes on until it is
	// done or the cancel lands, whichever is first, and is billed so.
	// Under FirstToken an attempt responds with its first token, so this
	// is the TTFT timeout.
	AttemptTimeout   time.Duration
	OnAttemptTimeout ErrorRule
	// InterTokenTimeout, MinTokensPerSecond and SpeedWindow cut streams
	// that stall or crawl after their first token; OnStall handles the
	// cut. See StreamCuts.
	StreamCuts
	// CancelLatency is how long after the request ends a cancel takes effect
	// on a losing attempt; ≥ 0. A loser that completes before that is billed
	// in full; one still waiting in a provider's queue keeps its place until
	// the cancel lands, and is served if its turn comes first.
	CancelLatency time.Duration
	// CancelBilling is what a cancelled loser costs.
	CancelBilling Billing
	// Budget limits how many copies are sent; each limit only denies a new
	// copy, never touches attempts in flight.
	Budget Budget
}

// AdaptiveSource says which latencies feed an adaptive delay.
type AdaptiveSource uint8

const (
	// FromPrimaries: latencies of primary attempts that responded, from
	// their send.
	FromPrimaries AdaptiveSource = iota
	// FromAttempts: every attempt that responded, timed from its own send.
	FromAttempts
	// FromRequests: whole-request latency, arrival to end. It includes the
	// hedge delay itself, so it drifts upward and can switch hedging off.
	FromRequests
)

// String returns the scenario-file name of the source.
func (s AdaptiveSource) String() string {
	switch s {
	case FromAttempts:
		return "attempts"
	case FromRequests:
		return "requests"
	}
	return "primaries"
}

// Adaptive is a hedge delay set to a percentile of recent latencies, as
// some RPC stacks do (e.g. Finagle's and Envoy-style "hedge at p95"). The
// percentile is recomputed over the window every max(1, ⌊n/32⌋) new samples
// (n = samples in the window), so it lags the data by at most 1/32 of a
// window.
type Adaptive struct {
	// Percentile in (0, 1), e.g. 0.95.
	Percentile float64
	// Window is how many recent samples count; WindowTime, when > 0,
	// instead keeps the samples of that much recent simulated time (capped
	// at 1<<16 samples).
	Window     int
	WindowTime time.Duration
	// WarmUp is how many samples must arrive before any hedging.
	WarmUp int
	// Min and Max clamp the delay; Max 0 = no upper clamp.
	Min, Max time.Duration
	// Source says which latencies feed it.
	Source AdaptiveSource
}

// Budget limits hedging. Zero fields are off. Each limit is per class, the
// class standing for one client (one API key) of the modelled service.
type Budget struct {
	// MaxHedgeShare in (0, 1]: a copy is denied when the share of this
	// class's requests so far that hedged would exceed it.
	MaxHedgeShare float64
	// Throttle is gRPC-style retry throttling: a token count starting at
	// MaxTokens, −1 for every failed attempt, +TokenRatio for every
	// successful one (capped at MaxTokens); copies are sent only while the
	// count is above MaxTokens/2.
	Throttle *Throttle
	// MaxInFlightRatio and MinInFlight: a copy is denied when the copies
	// in flight would exceed max(MinInFlight, MaxInFlightRatio × requests in
	// flight) (Envoy / failsafe-go style, e.g. 0.2 with a floor of 3).
	MaxInFlightRatio float64
	MinInFlight      int
	// HedgesPerSecond and Burst: a token bucket on copies sent, refilled at
	// HedgesPerSecond copies per second and holding Burst copies (at least
	// 1).
	HedgesPerSecond float64
	Burst           float64
	// MaxParallel caps the copies in flight at once (the per-key cap on
	// parallel duplicates).
	MaxParallel int
}

// Throttle is gRPC's retryThrottling configuration.
type Throttle struct {
	MaxTokens  float64 // > 0
	TokenRatio float64 // > 0
}

// active reports whether any budget limit is set.
func (b *Budget) active() bool {
	return b.MaxHedgeShare > 0 || b.Throttle != nil || b.MaxInFlightRatio > 0 ||
		b.MinInFlight > 0 || b.HedgesPerSecond > 0 || b.MaxParallel > 0
}

// gap returns the delay between sending copy j-1 and copy j (j ≥ 1).
func (p *Policy) gap(j int) time.Duration {
	if len(p.Delays) == 0 {
		return 0
	}
	if j-1 < len(p.Delays) {
		return p.Delays[j-1]
	}
	return p.Delays[len(p.Delays)-1]
}

// target returns the model index attempt k goes to (k = 0 is the primary).
func (p *Policy) target(k int) int {
	if k == 0 || len(p.Targets) == 0 {
		return p.Primary
	}
	if k-1 < len(p.Targets) {
		return p.Targets[k-1]
	}
	return p.Targets[len(p.Targets)-1]
}
