// Package sim is a discrete-event simulator of hedged requests to inference
// APIs: requests arrive, send a primary attempt to a model, send copies to
// the same or other models after hedge delays, and end with the first
// usable answer, an error, or their deadline.
//
// # Running
//
// Build a Config (package scenario builds one from a TOML file), call Run,
// and compare the Result with the same traffic without hedging,
// Run(WithoutHedging(cfg)), in a Report. Runs are deterministic: the draws
// of request i and of its attempt k come from a random stream keyed by
// (Config.Seed, i, k) only, so two policies on one seed see the same
// arrivals, token counts and — for the same target — attempt latencies
// (common random numbers). RunTrace also reports every attempt.
// RunSplit splits a run over several cores, RunWithBaseline makes a run and
// its baseline together, and RunPolicies runs one class under several
// policies together; where requests are independent, these draw each
// request and attempt once for every run that shares it, and every result
// is the one a lone Run gives.
//
// # The event loop
//
// The clock is a time.Duration. Events — an arrival, a hedge timer, an
// attempt's deciding response, a deadline, an attempt timeout, a provider
// slot freeing, the cancel of a queued loser landing — are ordered by
// (time, insertion sequence). Those scheduled a fixed delay ahead fall due
// in the order they are scheduled and wait in FIFOs: per class its
// deadlines, cancels, attempt timeouts, thinks and, per copy, its hedge
// timers, and one FIFO of events due at once; the rest — responses, slots
// freed later, and any event that would break its FIFO's order (an
// adaptive delay, a retry-after) — wait in a 4-ary min-heap, and the next
// arrival in a slot of its own (loop.go). A test checks that the FIFOs
// change neither a result nor the order in which attempts end. Events of
// a request that has ended are dropped when popped (a generation counter
// per request slot), except the cancels of its attempts still queued; the
// slot is reused once all its attempts have left.
//
// When no request can affect another — no queue, rate limit, budget,
// adaptive delay or replica pool — requests run one at a time, with no heap: their few
// pending events wait in fixed slots (direct.go). When, besides, no
// provider has slow periods, no model stalls, no policy has a per-attempt
// timeout or stream cuts, and there is neither a copula nor a trace, the
// lane (lane.go) computes each
// attempt's response time from its draws as it is sent and decides the
// request by comparing those times with its deadline and hedge timer, with
// no event at all. Tests check that both give exactly the result — the
// same JSON report, byte for byte — of one global event order, on every
// shipped scenario they apply to and on random policies built for ties.
//
// # Results
//
// Each request's latency is recorded as it ends, as float32 seconds (4
// bytes; rounded to the nearest float32, a relative error of at most 2⁻²⁴),
// in one buffer per class: times to a usable answer from its front, the
// misses' times until they ended from its back. Nothing is sorted:
// percentiles, their confidence intervals and the end-latency figures are
// the order statistics of just the ranks asked for, found by a three-pass
// radix select on the values' bit patterns (latency.go), over one class's
// buffer or over all of them for the overall figures. A reported percentile
// is the float32 rounding of the exact order statistic, written as the
// shortest decimal that reads back as it (within 2⁻²³ of the exact value,
// relative to it); means come from exact sums of the simulated durations.
// A run split into ranges (RunSplit) keeps each range's buffers as they
// are, so its result is the one-core result whatever the number of ranges.
//
// # What shapes an attempt
//
// An attempt passes through composable pieces, each optional and each
// configured per model or per provider (failure domain), in this order:
//
//   - draw: its latency from the model's distribution (one latency, or TTFT
//     plus output tokens ÷ decode speed, the TTFT optionally plus input
//     tokens ÷ prefill speed), coupled to the request's earlier attempts by
//     a Gaussian copula when Config.Correlation is set;
//   - dispatch: the model's and its provider's rate limits (token buckets;
//     over a limit the attempt gets a 429, which may cost quota too), then
//     the provider's concurrency limit (a FIFO queue, optionally bounded:
//     when it is full the attempt gets an overload error at once);
//   - serve: the provider's degraded periods, which stretch the work of every
//     attempt in service and may fail attempts that start during them; then,
//     for a streamed answer, the model's stall (a pause before the first
//     token or after a drawn token) and the policy's stream cuts (an
//     inter-token timeout, a decode-speed floor), which may end it early as
//     stalled (stall.go).
//
// dispatch and serve see these pieces only through two small internal
// interfaces: a gate admits or rejects an attempt when it is sent (the rate
// limits), and a stage fails or stretches its service (the degraded
// periods); each model and provider has a list of them. A new kind of piece
// implements one of the two and is added where the lists are built, from
// its Config; neither the event loop nor dispatch and serve change.
//
// # Replica pools
//
// A provider may serve its models from a pool of replicas (Provider.Pool;
// pool.go): each replica has its own concurrency limit and FIFO queue, and
// may be slower than the rest, have slow periods and outages of its own,
// and go cold when idle. A balancer (balancer.go: random, round robin,
// least outstanding, power of two choices, latency-aware EWMA over two
// choices) picks the replica of each attempt in dispatch, after the
// gates, from what it sees of each replica (attempts queued or in service,
// and an average of observed latencies); a copy, or a retried call, goes
// to a replica holding none of its request's other attempts unless the
// pool allows any. A replica's stages — its slowdown, its own periods,
// then its provider's — shape its attempts' service, after its cold start
// if it has gone cold. Its slot is freed by the release event of its
// provider, which then carries the replica, so the event loop itself does
// not change. Result.Pools reports each replica's load, queue waits and
// cold starts. Pools make requests interact, so runs with one take the
// event loop.
//
// A pool may autoscale (Pool.Autoscale; scaler.go): its scaler, modelled
// on Knative's pod autoscaler, changes how many replicas are up from the
// pool's concurrency, which it integrates at every change. It enters the
// event loop through one event kind, evScale (its ticks and its starts'
// ends: handle calls e.scale), and through small hooks of pool.go and
// balancer.go: dispatchPool asks it first (holdForCapacity: with no
// replica up an attempt waits at its activator or fails at once), the
// replicas' releases and queue exits tell it of each change (scaleSees),
// and the balancer picks among the replicas up (routable).
//
// # The life of an attempt
//
// An attempt is sent (or, as a copy, denied by a budget), dispatched and
// served (attempt.go), and leaves the system exactly once, through one
// function, exit (exit.go), whatever ended it: its response (an answer, an
// invalid answer, an error, a 429, an overload rejection), or its request
// letting go of it — because the request ended (a loser) or the attempt
// timed out — followed by its response or its cancel landing, whichever is
// first. A loser keeps its slot, or its place in its provider's queue,
// until then; at a provider that ignores cancels, until it is done. exit
// frees the provider place, adds the service time to the provider's busy
// time, counts the attempt once (completed, invalid, failed, 429,
// rejected, timed out, stalled or cancelled: the parts sum to the attempts
// sent),
// bills it and writes its trace row, so a new way of ending cannot forget
// a step. The commonest ends take exit's steps in copies of their own,
// with what those ends fix left out: answer (exit.go), an answer that wins
// its request, answerFirst, one that wins it at its first token under the
// first-token rule and leaves at its end, and exitCancelled, a loser whose
// cancel lands before its answer (and serveLetGo's copy of it, for such a
// loser that started after it was let go of); a change to exit's steps
// goes to all of them. The package's tests
// audit these counts after every run. Service starts the same way: in
// serveAt (serve.go), its commonest cases in copies of its steps,
// serveReplica at a pool's replica and servePlain at a provider without
// one (attempt.go), and serveLetGo, a loser let go of while it waited
// that reaches service at a provider without one; a change to serveAt's
// steps goes to all three.
//
// # Retries
//
// A class may retry failures in two layers (retry.go). Its AttemptRetry
// makes each attempt a retry loop on its model, as a client library does:
// a retryable failure of a call leaves the system through exit like any
// other, and the attempt waits its backoff in its request's flight before
// its next call, which draws from the stream of (request, attempt, try).
// Its Retry re-runs a failed request, hedging and all: the request moves to
// a fresh slot (its old one is freed once its attempts have left), keeps
// its arrival, and is counted once, when it finally ends. Every retried
// call is an attempt sent that exits once, so the accounting audit holds
// unchanged. Runs with retries take the event loop.
//
// # Policies
//
// A class's Policy says where copies go and when (fixed gaps, fallback
// after failures, an adaptive percentile of recent latencies), what wins
// (first valid answer, first token, first response), what each kind of
// failure does (fatal, non-fatal, ignore), when an attempt is given up (a
// per-attempt timeout; for streams, an inter-token timeout and a
// decode-speed floor: StreamCuts), how losers are cancelled and billed,
// and which budgets may deny a copy. Budgets only ever deny the new
// copy; attempts in flight keep running.
package sim
