package sim

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// A replica pool is a provider whose models are served by N replicas — the
// vLLM or TGI servers behind a router, or the deployments of one model that
// LiteLLM's router spreads calls over — instead of by one queue. Each
// replica has its own concurrency limit and FIFO queue; the pool's
// balancer (balancer.go) picks the replica of each attempt once it has
// passed its model's and provider's gates (rate limits, breakers). The
// replicas share the model's latency distribution and the provider's
// degraded periods; each may be slower than the rest (a straggler), have
// slow periods and outages of its own, and go cold when idle: its next
// attempt then waits a cold start before its work begins.
//
// A copy goes to a replica that holds no other attempt of its request —
// unless every replica holds one, or AnyReplica is set — and the retry of
// an attempt's call (AttemptRetry) to another replica than the call that
// failed, as Envoy's previous-hosts retry predicate does. A request re-run
// by its class's Retry picks afresh.
//
// A pool makes requests interact (they share its queues and its balancer's
// view), so runs with one take the event loop, never the direct path or the
// lane.

// MaxReplicas bounds Pool.Replicas.
const MaxReplicas = 1<<16 - 1

// Pool is a provider's pool of replicas (Provider.Pool).
type Pool struct {
	// Replicas is the number of replicas, in [1, MaxReplicas].
	Replicas int
	// Concurrency is the number of attempts each replica serves at once;
	// further attempts wait in the replica's own FIFO queue. 0 means
	// unlimited (no queue): replicas still differ by their slowdowns,
	// periods and cold starts.
	Concurrency int
	// RejectWhenFull bounds each replica's queue at QueueLimit waiting
	// attempts, as Provider.RejectWhenFull does; it needs Concurrency > 0.
	RejectWhenFull bool
	// QueueLimit is how many attempts may wait per replica when
	// RejectWhenFull is set; ≥ 0.
	QueueLimit int
	// Balancer picks the replica of each attempt.
	Balancer Balancer
	// Decay is the weight the latency-aware balancer's moving average
	// keeps per new observation, in [0, 1): after an observation x (see
	// LatencyEWMA), avg ← Decay·avg + (1 − Decay)·x. 0 remembers only the
	// last one. Used by LatencyEWMA only.
	Decay float64
	// AnyReplica lets a copy, or a retried call, go to any replica — the
	// one its request's other attempts wait at included — as a router that
	// does not track its requests' attempts does.
	AnyReplica bool
	// Degraded, when set, gives each replica slow periods of its own:
	// independent processes with these parameters, on top of the
	// provider's (which every replica shares).
	Degraded *Degraded
	// Down, when set, gives each replica outages of its own, independent
	// of the other replicas'.
	Down *Down
	// ColdStart, when set, makes replicas go cold when idle.
	ColdStart *ColdStart
	// Autoscale, when set, makes the pool scale between Autoscale.Min and
	// Replicas replicas (scaler.go).
	Autoscale *Autoscale
	// Overrides make single replicas differ from the rest.
	Overrides []ReplicaOverride
	// Batching, when set, makes each replica serve its attempts in
	// service as one batch whose sequences slow down as it grows
	// (batching.go); Concurrency is then the batch limit.
	Batching *Batching
	// View, when set, makes the balancer see replica load as it was at
	// the view's last refresh (view.go).
	View *View
	// Restarts, when set, take replicas out of service and bring them
	// back as new processes (restart.go).
	Restarts *Restarts
	// Unmeasured says how LatencyEWMA ranks a replica with fewer than
	// Warmup latency observations (unmeasured.go); Warmup ≥ 0, 0 and 1
	// both meaning one.
	Unmeasured Unmeasured
	Warmup     int
}

// ReplicaOverride sets what one replica of a pool does differently.
type ReplicaOverride struct {
	// Replica is the replica's index, in [0, Pool.Replicas); each replica
	// has at most one override.
	Replica int
	// Slowdown, when > 0, stretches the replica's service: every attempt's
	// work (time to first token, decoding, time to an error) takes
	// Slowdown times as long — a straggler when > 1. 0 means 1.
	Slowdown float64
	// Degraded and Down, when set, replace the pool's for this replica.
	Degraded *Degraded
	Down     *Down
}

// Down describes a replica's outages: a two-state process in simulated
// time whose up and down periods last exponential times with the given
// means, starting in its stationary distribution. An attempt whose work
// starts while its replica is down fails with a server error (after its
// model's server-error latency, Model.ErrorLatency or
// Failures.ServerError.Latency, or its latency when none is set:
// TestStageFailureAfterErrorLatency). A replica that
// hangs rather than fails is a Degraded period with a large Slowdown.
type Down struct {
	// MeanUp and MeanDown are the mean period lengths; both ≥
	// MinDegradedPeriod.
	MeanUp, MeanDown time.Duration
}

// ColdStart makes a pool's replicas go cold: a replica that has had nothing
// in service for longer than KeepWarm serves its next attempt only after a
// cold start of Latency, during which the attempt holds its slot, and
// further attempts that reach the replica wait for the end of the cold
// start too. Replicas start warm at time 0, idle since then. When every
// attempt waiting for a cold start has left (let go of by its request,
// its cancel landed), GiveUp says whether the start goes on.
type ColdStart struct {
	// KeepWarm is how long an idle replica stays warm; ≥ 0. 0 scales a
	// replica to zero as soon as it is idle.
	KeepWarm time.Duration
	// Latency is the cold start's length in seconds; its support must be
	// ≥ 0.
	Latency dist.Continuous
	// GiveUp says what becomes of a cold start that nothing waits for
	// any more.
	GiveUp GiveUp
}

// GiveUp names what becomes of a replica's cold start once every attempt
// waiting for it has left — let go of by its request, its cancel landed —
// before its end. An attempt that reaches the replica while the start goes
// on waits for it, as before.
type GiveUp uint8

const (
	// GiveUpAtScaleToZero goes on with the start while attempts wait for
	// it, and gives it up once nothing has waited for it for KeepWarm: an
	// idle replica, warm or starting, scales to zero after KeepWarm.
	// Knative's autoscaler does so, deleting a pod that is still starting
	// once no request has come for its scale-to-zero period (kserve#1247:
	// a 3-minute start given up after 2 minutes never becomes ready). A
	// start that ends first leaves the replica warm until KeepWarm after
	// its last attempt left.
	GiveUpAtScaleToZero GiveUp = iota
	// GiveUpNever finishes the start whatever happens, as a platform that
	// boots a container whatever the client does; the replica is then
	// warm, idle since the start's end.
	GiveUpNever
	// GiveUpOnCancel stops the start when the cancel of the last attempt
	// waiting for it lands: the replica is cold again from then on.
	GiveUpOnCancel
)

// GiveUps are the give-up rules in order, for listing and parsing.
var GiveUps = []GiveUp{GiveUpAtScaleToZero, GiveUpNever, GiveUpOnCancel}

// String returns the scenario-file name of the rule.
func (g GiveUp) String() string {
	switch g {
	case GiveUpAtScaleToZero:
		return "scale_to_zero"
	case GiveUpNever:
		return "never"
	case GiveUpOnCancel:
		return "cancel"
	}
	return "unknown"
}

// Balancer names how a pool picks the replica of an attempt.
type Balancer uint8

const (
	// RandomBalancer picks a replica uniformly at random (LiteLLM's
	// simple-shuffle, Envoy's RANDOM).
	RandomBalancer Balancer = iota
	// RoundRobin picks the replicas in turn.
	RoundRobin
	// LeastOutstanding picks a replica with the fewest attempts queued
	// or in service (join the shortest queue; ties at random).
	LeastOutstanding
	// PowerOfTwo picks two distinct replicas at random and takes the one
	// with fewer attempts queued or in service (the first drawn on a tie):
	// the power of two choices (Mitzenmacher 2001; Envoy's LEAST_REQUEST).
	PowerOfTwo
	// LatencyEWMA picks two distinct replicas at random and takes the one
	// with the lower cost avg × (outstanding + 1) (the first drawn on a
	// tie), where outstanding is the replica's attempts queued or in
	// service and avg a moving average (see Pool.Decay) of the time from
	// an attempt's send until its request saw its response or let go of
	// it — a loser or a timed-out attempt counts the time it was
	// outstanding, as a client-side balancer sees it; a rejection by a
	// full queue is not counted, and a replica with no observation yet
	// has avg 0 (Pool.Unmeasured may rank it otherwise). This is the
	// load metric of Finagle's and Linkerd's EWMA balancers, with P2C
	// over it.
	LatencyEWMA
)

// Balancers are the balancers in order, for listing and parsing.
var Balancers = []Balancer{RandomBalancer, RoundRobin, LeastOutstanding, PowerOfTwo, LatencyEWMA}

// String returns the scenario-file name of the balancer.
// readsLoad reports whether b ranks replicas by their load (outstanding
// attempts or latencies), so that a View of that load changes its picks:
// random and round-robin do not.
func (b Balancer) readsLoad() bool { return b != RandomBalancer && b != RoundRobin }

func (b Balancer) String() string {
	switch b {
	case RandomBalancer:
		return "random"
	case RoundRobin:
		return "round_robin"
	case LeastOutstanding:
		return "least_outstanding"
	case PowerOfTwo:
		return "p2c"
	case LatencyEWMA:
		return "latency_ewma"
	}
	return "unknown"
}

// validate checks the pool's settings.
func (p *Pool) validate() error {
	if p.Replicas < 1 || p.Replicas > MaxReplicas {
		return fmt.Errorf("pool of %d replicas: must be in [1, %d]", p.Replicas, MaxReplicas)
	}
	if p.Concurrency < 0 {
		return fmt.Errorf("pool: concurrency %d per replica: must be ≥ 0 (0 = unlimited)", p.Concurrency)
	}
	if p.QueueLimit < 0 {
		return fmt.Errorf("pool: queue limit %d: must be ≥ 0", p.QueueLimit)
	}
	if p.RejectWhenFull && p.Concurrency == 0 {
		return fmt.Errorf("pool: rejecting when full needs a concurrency limit > 0")
	}
	if p.QueueLimit > 0 && !p.RejectWhenFull {
		return fmt.Errorf("pool: queue limit %d has no effect unless the pool rejects when full", p.QueueLimit)
	}
	if p.Balancer > LatencyEWMA {
		return fmt.Errorf("pool: balancer %d: unknown", p.Balancer)
	}
	if !(p.Decay >= 0 && p.Decay < 1) {
		return fmt.Errorf("pool: decay %v: must be in [0, 1)", p.Decay)
	}
	if p.Degraded != nil {
		if err := p.Degraded.validate(); err != nil {
			return fmt.Errorf("pool: %v", err)
		}
	}
	if err := p.Down.validate(); err != nil {
		return fmt.Errorf("pool: %v", err)
	}
	if c := p.ColdStart; c != nil {
		if c.KeepWarm < 0 {
			return fmt.Errorf("pool: keep-warm %v: must be ≥ 0", c.KeepWarm)
		}
		if c.Latency == nil {
			return fmt.Errorf("pool: a cold start needs its latency")
		}
		if lo, _ := c.Latency.Support(); !(lo >= 0) {
			return fmt.Errorf("pool: cold-start latency can take the value %v s: must stay ≥ 0", lo)
		}
		if c.GiveUp > GiveUpOnCancel {
			return fmt.Errorf("pool: cold-start give-up rule %d: unknown", c.GiveUp)
		}
	}
	if p.Batching != nil {
		if err := p.Batching.validate(p.Concurrency); err != nil {
			return fmt.Errorf("pool: %v", err)
		}
	}
	if p.View != nil {
		if err := p.View.validate(p.Replicas); err != nil {
			return err
		}
	}
	if p.Restarts != nil {
		if err := p.Restarts.validate(p.Replicas); err != nil {
			return err
		}
	}
	if err := p.validateUnmeasured(); err != nil {
		return err
	}
	if a := p.Autoscale; a != nil {
		if err := a.validate(p.Replicas, p.Concurrency); err != nil {
			return fmt.Errorf("pool: %v", err)
		}
		switch {
		case p.Restarts != nil:
			return fmt.Errorf("pool: restarts in an autoscaled pool are not modelled")
		case p.Batching != nil:
			return fmt.Errorf("pool: batching in an autoscaled pool is not modelled")
		}
	}
	seen := map[int]bool{}
	for _, o := range p.Overrides {
		if o.Replica < 0 || o.Replica >= p.Replicas {
			return fmt.Errorf("pool: an override of replica %d: must be in [0, %d)", o.Replica, p.Replicas)
		}
		if seen[o.Replica] {
			return fmt.Errorf("pool: replica %d is overridden twice", o.Replica)
		}
		seen[o.Replica] = true
		if !(o.Slowdown >= 0) || math.IsInf(o.Slowdown, 0) {
			return fmt.Errorf("pool: replica %d: slowdown %v: must be finite and > 0", o.Replica, o.Slowdown)
		}
		if o.Degraded != nil {
			if err := o.Degraded.validate(); err != nil {
				return fmt.Errorf("pool: replica %d: %v", o.Replica, err)
			}
		}
		if err := o.Down.validate(); err != nil {
			return fmt.Errorf("pool: replica %d: %v", o.Replica, err)
		}
	}
	return nil
}

func (d *Down) validate() error {
	if d == nil {
		return nil
	}
	if d.MeanUp < MinDegradedPeriod || d.MeanDown < MinDegradedPeriod {
		return fmt.Errorf("down: mean up %v and mean down %v: both must be ≥ %v", d.MeanUp, d.MeanDown, MinDegradedPeriod)
	}
	return nil
}

// pooled reports whether any provider of cfg has a pool.
func (cfg *Config) pooled() bool {
	for i := range cfg.Providers {
		if cfg.Providers[i].Pool != nil {
			return true
		}
	}
	return false
}

// Pooled reports whether any provider of cfg serves its models from a
// replica pool: its attempts then have replicas (AttemptRecord.Replica).
func (cfg *Config) Pooled() bool { return cfg.pooled() }

// pool is the run-time state of a provider's replica pool.
type pool struct {
	cfg  *Pool
	reps []replica
	next int // round robin: where the next turn starts
	// cold draws the cold starts' lengths, in the order they happen, from
	// src.
	cold sampler
	src  splitMix
	// shared counts the copies and retried calls that went to a replica
	// holding another attempt of their request, for want of another.
	shared int64
	// view is the balancer's view of load (view.go); nil: live.
	view *view
	// churn is the state of the replicas' restarts (restart.go); nil
	// without any.
	churn *churn
	// warmup is the observations a replica needs before latency_ewma
	// ranks it by its own average (unmeasured.go).
	warmup int32
	// sc, when the pool autoscales, is its scaler (scaler.go).
	sc *scaler
	// sentAll is the attempts sent to its replicas so far (the sum of
	// their stats.Sent).
	sentAll int64
	// work counts the units of work (engine.chargeWork) its per-replica
	// scans did since takeWork last took them.
	work int
	// ex holds the replicas a pick leaves out (exclusions).
	ex [MaxCopies + 2]int
	// idle has bit i set when replica i has nothing queued or in
	// service, for i < 64, in a pool that keeps them (keepIdle):
	// least_outstanding's pick on live load finds the least load there
	// without a scan while a replica it may pick is idle (leastIdle).
	// Kept by dispatchTurn, dispatchAny, releaseReplica and leaveQueue; in
	// another pool, not read.
	idle uint64
	// Read per attempt, set once from cfg: its concurrency, queue limit
	// (bounded: it rejects when full), cold starts and balancer
	// (ewma: LatencyEWMA, with its decay).
	conc, queueLimit int
	bounded, ewma    bool
	coldStart        *ColdStart
	decay, keep      float64 // keep = 1 − decay
	// counted says the pool may count work (takeWork) at any time: it
	// has a view or restarts. (The scans of latency_ewma ranking
	// unmeasured replicas, in work, are charged by the pick that made
	// them.)
	counted bool
	// watched says a slot's release has more to do than free it: the
	// pool has a view (touch), a scaler or work to count, or it keeps
	// its idle replicas (keepIdle: least_outstanding on live load at a
	// pool without a scaler or restarts, whose pick reads them).
	watched, keepIdle bool
	// plainPick says pick takes its own path: the pool has neither a
	// scaler nor restarts; turns that its balancer is round robin or
	// least_outstanding (pickTurn), random that it is random.
	// anyReplica is cfg.AnyReplica.
	plainPick, turns, random, anyReplica bool
	// plain says dispatchPool places attempts itself: plainPick, the
	// balancer is random, p2c or latency_ewma, and the pool has neither
	// a view nor cold starts; plainTurn that dispatchTurn does so: as
	// plain, but the balancer is round robin (rr) or least_outstanding.
	plain, plainTurn, rr bool
}

// replica is the run-time state of one replica of a pool.
type replica struct {
	waitQueue
	busy, waiting int
	// stages shape its attempts' service: its slowdown and own periods,
	// then its provider's; own are those of its own, to trim.
	stages, own []stage
	// failing says a stage may fail its attempts (mayFail(stages)).
	failing  bool
	slowdown float64
	// slow is its slowdown when a straggler's is its one stage (no
	// periods, its own or its provider's), else 0.
	slow float64
	// general says serveReplica hands its attempts to serveAt: it has
	// stages other than a straggler's one, or a batch.
	general bool
	// avg is the latency-aware balancer's moving average of its response
	// times in seconds, obs the number of observations it averages
	// (since the replica's last restart; saturating).
	avg float64
	obs int32
	// idleSince is when its last slot in use was freed; warmAt is when its
	// last cold start ends or ended (0 before the first).
	idleSince, warmAt time.Duration
	// untendedTo is how far bookUntended has booked the last cold start
	// (a run's result may be taken before the run goes on).
	untendedTo time.Duration
	// givenUp counts its cold starts given up before their end but the
	// last (coldstart.go).
	givenUp          int64
	stats            ReplicaResult
	waitSum, busySum wideSum
	// waits holds the queue wait of each attempt served that waited, in
	// seconds (booked by serve); the others, stats.started less
	// waits.len(), waited 0, the least key (pool_result.go).
	waits chunks
	// marks hold the served and waiting attempts at the middle and the
	// last arrival (load.go).
	marks [2]loadMark
	// batch is its batch when the pool batches (batching.go), else nil.
	batch *batch
}

// chunks is a growing list of float32 values kept in chunks of up to
// 2¹⁴ values (64 KiB), the first ones small: appending never copies
// what is held, so a pool of many replicas holds its values and at most
// one partly filled chunk per replica — not the spare half of a doubled
// slice. The chunk being filled, cur, is held at its full length with
// its count n apart, so that adding a value stores no slice (a pointer
// store would cost a write barrier while the collector runs).
type chunks struct {
	parts [][]float32 // the full chunks
	cur   []float32
	n     int
}

func (c *chunks) add(x float32) {
	if c.n == len(c.cur) {
		c.grow()
	}
	c.cur[c.n] = x
	c.n++
}

// grow moves the full chunk cur, if any, to parts and starts the next.
// Once per chunk: kept out of add's callers (serveReplica, serveAt),
// whose registers it would spill on every call.
//
//go:noinline
func (c *chunks) grow() {
	if c.cur != nil {
		c.parts = append(c.parts, c.cur)
	}
	c.cur, c.n = make([]float32, 64<<min(len(c.parts), 8)), 0
}

// len returns the number of values held.
func (c *chunks) len() int {
	n := c.n
	for _, p := range c.parts {
		n += len(p)
	}
	return n
}

// all returns the chunks holding the values, the part of cur filled last.
func (c *chunks) all() [][]float32 {
	if c.n == 0 {
		return c.parts
	}
	return append(c.parts[:len(c.parts):len(c.parts)], c.cur[:c.n])
}

// Stream keys of a pool's own random processes: its replicas' degraded
// periods, outages and cold starts.
const (
	poolDegradedKey = 0x9001 << 32
	poolDownKey     = 0x9002 << 32
	poolColdKey     = 0x9003 << 32
)

// newPool returns the run-time pool of cfg's provider number prov, whose
// own stages (degraded periods) are shared.
func newPool(c *Pool, seed uint64, prov int, shared []stage) *pool {
	view := c.View
	if !c.Balancer.readsLoad() {
		view = nil // nothing reads it (viewWarnings)
	}
	pl := &pool{cfg: c, reps: make([]replica, c.Replicas), view: newView(view, c.Replicas, seed, prov),
		churn: newChurn(c.Restarts, c.Replicas, seed), warmup: warmup(c),
		conc: c.Concurrency, queueLimit: c.QueueLimit, bounded: c.RejectWhenFull, coldStart: c.ColdStart,
		ewma: c.Balancer == LatencyEWMA, decay: c.Decay, keep: 1 - c.Decay, idle: 1<<min(c.Replicas, 64) - 1}
	pl.counted = pl.view != nil || pl.churn != nil
	over := make([]*ReplicaOverride, c.Replicas)
	for i := range c.Overrides {
		over[c.Overrides[i].Replica] = &c.Overrides[i]
	}
	for i := range pl.reps {
		rp := &pl.reps[i]
		deg, down, slow := c.Degraded, c.Down, 1.0
		if o := over[i]; o != nil {
			if o.Slowdown > 0 {
				slow = o.Slowdown
			}
			if o.Degraded != nil {
				deg = o.Degraded
			}
			if o.Down != nil {
				down = o.Down
			}
		}
		rp.slowdown = slow
		rp.stats.Replica = i
		rp.stats.Slowdown = slow
		key := uint64(prov)<<16 | uint64(i)
		if slow != 1 {
			rp.stages = append(rp.stages, straggler(slow))
		}
		if deg != nil {
			g := newRegime(deg, splitmix64(seed^poolDegradedKey^key), i)
			rp.stages = append(rp.stages, g)
			rp.own = append(rp.own, g)
		}
		if down != nil {
			g := newRegime(&Degraded{MeanNormal: down.MeanUp, MeanDegraded: down.MeanDown, Slowdown: 1, ErrorRate: 1},
				splitmix64(seed^poolDownKey^key), i)
			rp.stages = append(rp.stages, g)
			rp.own = append(rp.own, g)
		}
		rp.stages = append(rp.stages, shared...)
		rp.failing = mayFail(rp.stages)
		if len(rp.stages) == 1 && slow != 1 {
			rp.slow = slow
		}
		if c.Batching != nil {
			rp.batch = &batch{}
		}
		rp.general = len(rp.stages) != 0 && rp.slow == 0 || rp.batch != nil
	}
	if c.ColdStart != nil {
		pl.cold = newSampler(c.ColdStart.Latency)
		pl.src.s = splitmix64(seed ^ poolColdKey ^ uint64(prov))
	}
	if c.Autoscale != nil {
		pl.sc = newScaler(c, prov)
	}
	pl.keepIdle = c.Balancer == LeastOutstanding && pl.view == nil && pl.sc == nil && pl.churn == nil
	pl.watched = pl.view != nil || pl.sc != nil || pl.counted || pl.keepIdle
	pl.plainPick = pl.sc == nil && pl.churn == nil
	pl.turns = c.Balancer == RoundRobin || c.Balancer == LeastOutstanding
	pl.random, pl.anyReplica = c.Balancer == RandomBalancer, c.AnyReplica
	pl.plain = pl.plainPick && !pl.turns && pl.view == nil && c.ColdStart == nil
	pl.plainTurn = pl.plainPick && pl.turns && pl.view == nil && c.ColdStart == nil
	pl.rr = c.Balancer == RoundRobin
	return pl
}

// straggler is a replica's fixed slowdown: a stage that stretches all work.
type straggler float64

func (s straggler) fails(time.Duration, float64) bool { return false }
func (s straggler) finish(t0, w time.Duration) time.Duration {
	return t0 + satMul(w, float64(s))
}
func (s straggler) finishPair(t0, w1, w2 time.Duration) (time.Duration, time.Duration) {
	return t0 + satMul(w1, float64(s)), t0 + satMul(w2, float64(s))
}
func (s straggler) forget(time.Duration) {}

// dispatchPool takes attempt k of r, which has passed its gates, to a
// replica of provider pv's pool: the balancer picks the replica (another
// than avoid − 1, the replica of the call it retries, when avoid > 0),
// where the attempt takes a slot, waits in the FIFO queue, or — when the
// replica's bounded queue is full — gets an overload error at once.
//
// a is &r.att[k], which the caller has at hand.
//
// A pool without a scaler, restarts, a view or cold starts whose
// balancer is random, p2c or latency_ewma (pool.plain) has its attempt
// placed here, pick's plain path written out, so that the dispatch
// makes no call before the attempt's service or queueing and saves no
// registers: for an attempt whose request has at most one other
// attempt and no replica to avoid, at a latency_ewma pool whose two
// replicas drawn are both measured. dispatchAny places the rest, by the
// same draws.
func (e *engine) dispatchPool(slot int32, r *request, k int, a *attempt, pv *provider, avoid uint16) {
	pl := pv.pool
	if !pl.plain {
		if pl.plainTurn {
			e.dispatchTurn(slot, r, k, a, pv, avoid)
			return
		}
		e.dispatchAny(slot, r, k, a, pv, avoid)
		return
	}
	n := len(pl.reps)
	// pick's stream state, seeded as pick seeds it.
	s := r.stream(replicaStream+uint8(k), tryKey(r.round, a.try))
	x := -1 // the one replica left out (pick's left = [x]), if ≥ 0
	if (avoid != 0 || r.sent > 1) && !pl.anyReplica {
		if avoid != 0 || r.sent != 2 || k >= 2 || n < 2 {
			e.dispatchAny(slot, r, k, a, pv, avoid)
			return
		}
		// lone's test of the request's other attempt.
		if b := &r.att[k^1]; b.rep != 0 && b.prov == a.prov && (b.state == attInFlight || b.state == attAbandoned) && int(b.rep-1) < n {
			x = int(b.rep - 1)
		}
	}
	c := n // replicas to pick from
	if x >= 0 {
		c--
	}
	u1 := scaled(splitmix64(s), c)
	i := u1 // nth([x], u1)
	if x >= 0 && x <= u1 {
		i++
	}
	rp := &pl.reps[i] // the replica picked, i
	if !pl.random && c > 1 {
		u2 := scaled(splitmix64(s+0x9e3779b97f4a7c15), c-1)
		if u2 >= u1 {
			u2++
		}
		j := u2
		if x >= 0 && x <= u2 {
			j++
		}
		rj := &pl.reps[j]
		la, lb := rp.busy+rp.waiting, rj.busy+rj.waiting
		if !pl.ewma {
			if lb < la {
				i, rp = j, rj
			}
		} else {
			if w := pl.warmup; w != 0 && (rp.obs < w || rj.obs < w) { // pl.cost ranks it (unmeasured.go)
				e.dispatchAny(slot, r, k, a, pv, avoid)
				return
			}
			if rj.avg*float64(lb+1) < rp.avg*float64(la+1) { // pl.cost of each
				i, rp = j, rj
			}
		}
	}
	a.rep = uint16(i + 1)
	rp.stats.Sent++
	pl.sentAll++
	if c := pl.conc; c > 0 && rp.busy >= c {
		if pl.bounded && rp.waiting >= pl.queueLimit {
			rp.stats.Rejected++
			a.kind = outRejected
			a.svc, a.first, a.genFrom, a.end = e.now, e.now, e.now, e.now
			e.scheduleResponse(a.end, slot, r.gen, uint8(k))
			return
		}
		a.queued = true
		rp.waiting++
		pv.waiting++
		rp.enqueue(waiter{slot: slot, gen: r.gen, k: uint8(k)})
		return
	}
	rp.busy++ // occupy, without a cold start
	pv.busy++
	a.serving = true
	e.serveReplica(slot, r, k, a, pv, rp)
}

// dispatchTurn is dispatchPool's own path for a pool whose balancer is
// round robin or least_outstanding (pool.plainTurn): pick's and
// pickTurn's plain path written out for an attempt whose request has at
// most one other attempt and no replica to avoid, round robin's turn
// and least_outstanding's pick among idle replicas (leastIdle's ties,
// its walk of the replicas before the first of them written out for at
// most two) are made without pick's calls; pickTurn picks
// least_outstanding's otherwise (no replica it may pick is idle, or the
// pool has more than 64).
// dispatchAny places the rest.
func (e *engine) dispatchTurn(slot int32, r *request, k int, a *attempt, pv *provider, avoid uint16) {
	pl := pv.pool
	n := len(pl.reps)
	x := -1 // the one replica left out (pick's left = [x]), if ≥ 0
	if (avoid != 0 || r.sent > 1) && !pl.anyReplica {
		if avoid != 0 || r.sent != 2 || k >= 2 || n < 2 {
			e.dispatchAny(slot, r, k, a, pv, avoid)
			return
		}
		// lone's test of the request's other attempt.
		if b := &r.att[k^1]; b.rep != 0 && b.prov == a.prov && (b.state == attInFlight || b.state == attAbandoned) && int(b.rep-1) < n {
			x = int(b.rep - 1)
		}
	}
	var i int
	if pl.rr { // pickTurn's turn, left = [x]
		if i = pl.next; i == x {
			if i++; i == n {
				i = 0
			}
		}
		if pl.next = i + 1; pl.next == n {
			pl.next = 0
		}
	} else {
		m := pl.idle
		if x >= 0 {
			m &^= 1 << (uint(x) & 63)
		}
		if i = bits.TrailingZeros64(m); m != 0 && n <= 64 {
			// leastIdle's best, and, with ties, its walk of the
			// replicas before it: written out for at most two
			// (drawsBefore), else walkDraws's.
			if m&(m-1) != 0 {
				ties := bits.OnesCount64(m)
				draws := ties - 1
				if i <= 2 {
					draws += drawsBefore(pl.reps, i, x)
				} else {
					draws += walkDraws(pl.reps[:i], x)
					e.chargeWork(i) // the replicas walked before best
				}
				i = keptTie(m, ties, draws, e.replicaState(r, k, a))
			}
		} else {
			var left []int
			if x >= 0 {
				pl.ex[0] = x
				left = pl.ex[:1]
			}
			i = e.pickTurn(pl, r, k, a, left)
		}
		pl.idle &^= 1 << (uint(i) & 63) // it is idle no more
	}
	a.rep = uint16(i + 1)
	rp := &pl.reps[i]
	rp.stats.Sent++
	pl.sentAll++
	if c := pl.conc; c > 0 && rp.busy >= c {
		if pl.bounded && rp.waiting >= pl.queueLimit {
			rp.stats.Rejected++
			a.kind = outRejected
			a.svc, a.first, a.genFrom, a.end = e.now, e.now, e.now, e.now
			e.scheduleResponse(a.end, slot, r.gen, uint8(k))
			return
		}
		a.queued = true
		rp.waiting++
		pv.waiting++
		rp.enqueue(waiter{slot: slot, gen: r.gen, k: uint8(k)})
		return
	}
	rp.busy++ // occupy, without a cold start
	pv.busy++
	a.serving = true
	e.serveReplica(slot, r, k, a, pv, rp)
}

// dispatchAny is dispatchPool for any attempt at any pool.
func (e *engine) dispatchAny(slot int32, r *request, k int, a *attempt, pv *provider, avoid uint16) {
	pl := pv.pool
	if pl.sc != nil && e.holdForCapacity(slot, r, k, pv) {
		return
	}
	i := e.pick(pl, r, k, a, avoid)
	if pl.counted {
		e.chargeWork(pl.takeWork())
	}
	a.rep = uint16(i + 1)
	rp := &pl.reps[i]
	pl.idle &^= 1 << (uint(i) & 63) // it is idle no more (or was not)
	pl.touch(rp, e.now)
	rp.stats.Sent++
	pl.sentAll++
	if c := pl.conc; c > 0 && rp.busy >= c {
		if pl.bounded && rp.waiting >= pl.queueLimit {
			rp.stats.Rejected++
			a.kind = outRejected
			a.svc, a.first, a.genFrom, a.end = e.now, e.now, e.now, e.now
			e.scheduleResponse(a.end, slot, r.gen, uint8(k))
			return
		}
		a.queued = true
		rp.waiting++
		pv.waiting++
		rp.enqueue(waiter{slot: slot, gen: r.gen, k: uint8(k)})
		return
	}
	pl.occupy(rp, pv, e.now)
	a.serving = true
	e.serveReplica(slot, r, k, a, pv, rp)
}

// occupy takes a slot of replica rp (of pool pl, at provider pv) at now
// for an attempt (which its caller marks serving), starting a cold start
// when the replica has gone cold.
func (pl *pool) occupy(rp *replica, pv *provider, now time.Duration) {
	if pl.coldStart != nil && rp.busy == 0 {
		pl.bookUntended(rp, pv, now)
		pl.warmUp(rp, now)
	}
	rp.busy++
	pv.busy++
}

// bookUntended books, at now, as service time of replica rp of pool pl
// (at provider pv), the part of its last cold start that went on with no
// attempt in service: from its last attempt leaving (idleSince) during
// the start to the start's end, its give-up (gaveUpAt) or now, whichever
// comes first. The start is then service time as one slot throughout,
// as its first attempt holds a slot while it waits (ColdStart) — also
// after every attempt has left it, under GiveUpNever or before the
// keep-warm gives it up: the replica is booting, not idle. Called when
// rp is next occupied and at the run's end (bookUntendedAll); 0 for an
// autoscaled pool, whose replicas' starts are the scaler's.
func (pl *pool) bookUntended(rp *replica, pv *provider, now time.Duration) {
	cs := pl.coldStart
	if cs == nil || pl.sc != nil || rp.busy != 0 || rp.idleSince >= rp.warmAt {
		return
	}
	end := min(rp.warmAt, now)
	if at, ok := rp.gaveUpAt(cs); ok {
		end = min(end, at)
	}
	if d := end - max(rp.idleSince, rp.untendedTo); d > 0 {
		rp.busySum.add(d)
		pv.busySum.add(d)
		rp.untendedTo = end
	}
}

// bookUntendedAll books at the run's end the cold starts still going on
// with no attempt in service (bookUntended), up to each provider's last
// attempt's end: the span its utilisation is taken over.
func (e *engine) bookUntendedAll() {
	for i := range e.provs {
		pv := &e.provs[i]
		if pl := pv.pool; pl != nil {
			for j := range pl.reps {
				pl.bookUntended(&pl.reps[j], pv, pv.lastEnd)
			}
		}
	}
}

// warmUp starts a cold start of replica rp of pool pl, idle, when it has
// gone cold (an autoscaled pool's replicas start as scaler.go says).
func (pl *pool) warmUp(rp *replica, now time.Duration) {
	if cs := pl.coldStart; pl.sc == nil && rp.cold(cs, now) {
		rp.countGivenUp(cs)
		rp.warmAt = now + seconds(pl.cold.rand(&pl.src))
		rp.stats.ColdStarts++
	}
}

// cold reports whether replica rp, which has had nothing in service since
// rp.idleSince, is cold at now: idle longer than the keep-warm, or its
// cold start given up (GiveUp) since its last attempt left during it.
// Idle for no time (its last slot passing straight to a waiting attempt)
// it is never cold.
func (rp *replica) cold(cs *ColdStart, now time.Duration) bool {
	idle := rp.idleSince
	if idle < rp.warmAt { // the last attempt left during the cold start
		switch cs.GiveUp {
		case GiveUpNever:
			if now < rp.warmAt {
				return false // under way: the attempt waits for its end
			}
			idle = rp.warmAt
		case GiveUpOnCancel:
			return now > idle
		}
	}
	return now-idle > cs.KeepWarm
}

// releaseReplica frees a slot of replica i of provider prov's pool at now
// and starts the next attempt waiting in its queue, skipping those that
// have left it. A replica whose last slot frees is idle since now — also
// when the slot passes straight to the next waiter, which then finds the
// replica idle for no time, so warm.
func (e *engine) releaseReplica(prov, i int) {
	pv := &e.provs[prov]
	pl := pv.pool
	rp := &pl.reps[i]
	if pl.watched {
		if !pl.keepIdle {
			e.releaseSees(pv, rp, i)
			return
		}
		// A pool that keeps its idle replicas (keepIdle): replica i
		// is idle once nothing is in service or queued there.
		rp.busy--
		pv.busy--
		if rp.busy == 0 {
			rp.idleSince = e.now
			if rp.waiting == 0 {
				pl.idle |= 1 << (uint(i) & 63)
			}
		}
		if rp.qhead != len(rp.queue) {
			e.passSlot(pv, rp)
		}
		return
	}
	rp.busy--
	pv.busy--
	if rp.busy == 0 {
		rp.idleSince = e.now
	}
	if rp.qhead != len(rp.queue) { // else nextWaiter would find none
		e.passSlot(pv, rp)
	}
}

// releaseSees is releaseReplica at a pool with a view, a scaler or work
// to count, for its replica i, rp: what they see, before the load of rp
// falls, then the release.
func (e *engine) releaseSees(pv *provider, rp *replica, i int) {
	pl := pv.pool
	pl.touch(rp, e.now)
	if pl.sc != nil {
		e.scaleSees(pv)
	}
	if pl.counted {
		e.chargeWork(pl.takeWork())
	}
	rp.busy--
	pv.busy--
	if rp.busy == 0 {
		rp.idleSince = e.now
	}
	if rp.qhead != len(rp.queue) { // else nextWaiter would find none
		e.passSlot(pv, rp)
	}
}

// passSlot passes the slot just freed at replica rp of provider pv's
// pool to the first attempt still waiting in its queue, if any.
// (nextWaiter's walk, written out: the waiter found is served without
// its values passing through a call's results.)
func (e *engine) passSlot(pv *provider, rp *replica) {
	q := &rp.waitQueue
	for {
		w, ok := q.dequeue()
		if !ok {
			return
		}
		r := &e.slots[w.slot]
		if r.gen != w.gen {
			continue // its request slot has been reused
		}
		a := &r.att[w.k]
		if !a.queued {
			continue // it has left the queue
		}
		a.queued = false
		rp.waiting--
		pv.waiting--
		pv.pool.occupy(rp, pv, e.now)
		a.serving = true
		e.serveReplica(w.slot, r, int(w.k), a, pv, rp)
		return
	}
}

// leavePool books, at attempt a's exit at time at, what its replica
// sees: it leaves the replica's queue (when still in it) and its service
// time counts to the replica's busy time. An attempt with no replica (at
// an autoscaled pool's activator, or answered by a gate before the pool)
// only tells the scaler when it leaves a queue. Most attempts leave from
// service: exit calls leaveService for them, inlined, and this only for
// an attempt still queued; the queue's bookkeeping is leaveQueue's.
func (e *engine) leavePool(pv *provider, a *attempt, at time.Duration) {
	if a.queued {
		if a.rep == 0 && pv.pool.sc != nil {
			pv.pool.sc.leftWaiting(a, at) // scaler.go
		}
		e.leaveQueue(pv, a)
	}
	pv.pool.leaveService(a, at)
}

// leaveService is leavePool's part for an attempt that leaves from
// service: its time in service counts to its replica's busy time.
func (pl *pool) leaveService(a *attempt, at time.Duration) {
	if a.started && a.rep != 0 {
		rp := &pl.reps[a.rep-1]
		if at > a.svc {
			rp.busySum.add(at - a.svc)
		}
		rp.leftCold(at)
	}
}

// leftCold counts an attempt that leaves replica rp's service at at,
// before the end of the cold start it waited for: its work never began,
// so it is not among those the replica served (ReplicaResult.Served).
// While an attempt is in service no new start begins, so rp.warmAt is
// the end of the one it waited for, or in the past.
func (rp *replica) leftCold(at time.Duration) {
	if at < rp.warmAt {
		rp.stats.leftCold++
	}
}

// leaveQueue is leavePool's part for an attempt that leaves its queue.
func (e *engine) leaveQueue(pv *provider, a *attempt) {
	pl := pv.pool
	if pl.sc != nil {
		e.scaleSees(pv) // it leaves a queue: the pool's concurrency falls
	}
	if a.rep == 0 {
		return // at the activator (scaler.go)
	}
	rp := &pl.reps[a.rep-1]
	pl.touch(rp, e.now)
	if pl.counted {
		e.chargeWork(pl.takeWork())
	}
	if rp.waiting--; rp.waiting == 0 && rp.busy == 0 {
		pl.idle |= 1 << (uint(a.rep-1) & 63)
	}
}

// observe feeds the latency-aware balancer of attempt a's pool, when it
// has one, with the time from a's send until now, when its request sees
// its response or lets go of it (a loser's cancel, an attempt timeout):
// as a client-side balancer measures it, a let-go attempt counting the
// time it was outstanding (a lower bound of its latency). A rejection at
// the door of a full replica is not a latency and is not counted.
//
// Small enough to be inlined where a response is handled: a pool of
// another balancer costs only its look-up (a run in which a class can
// call a latency_ewma pool, reachesEWMA, calls observe for every pooled
// attempt); observeEWMA does the rest.
func (e *engine) observe(a *attempt) {
	if pl := e.provs[a.prov].pool; pl.ewma {
		e.observeEWMA(pl, a)
	}
}

// reachesEWMA reports whether an attempt of cfg's classes (pipeline
// steps included) can go to a latency_ewma pool: whether a class's
// policy names, as its primary or a target — the only models a call goes
// to — a model of such a pool's provider. When none can, observe would
// find no such pool for any attempt, and respond and abandon leave it
// out (engine.ewma): a run of one class of a scenario with a
// latency_ewma pool it never calls (an optimize sweep's) answers by
// respond's short path.
func (e *engine) reachesEWMA(cfg *Config) bool {
	ewma := func(m int) bool {
		if m < 0 || m >= len(e.modelProv) {
			return false // no model: nothing is sent (a pipeline's own policy)
		}
		pl := e.provs[e.modelProv[m]].pool
		return pl != nil && pl.ewma
	}
	for c := range cfg.Classes {
		p := &cfg.Classes[c].Policy
		if ewma(p.Primary) || slices.ContainsFunc(p.Targets, ewma) {
			return true
		}
	}
	return false
}

// observeEWMA is observe's part at a latency_ewma pool, pl.
func (e *engine) observeEWMA(pl *pool, a *attempt) {
	if a.kind == outRejected && !a.started {
		return
	}
	if pl.churn != nil {
		pl.sync(e.now)
		e.chargeWork(pl.takeWork())
	}
	rp := &pl.reps[a.rep-1]
	x := (e.now - a.start).Seconds()
	if o := rp.obs; o != 0 {
		rp.avg = pl.decay*rp.avg + pl.keep*x
		if o < math.MaxInt32 {
			rp.obs = o + 1
		}
	} else { // its first observation
		rp.avg, rp.obs = x, 1
	}
}

// takeWork returns the units of work (engine.chargeWork) that pl, its view
// and its restarts did since its last call: the replicas a scan looked
// at, the scrapes a view drew, the restart boundaries applied.
func (pl *pool) takeWork() int {
	n := pl.work
	pl.work = 0
	if v := pl.view; v != nil {
		n += v.work
		v.work = 0
	}
	if ch := pl.churn; ch != nil {
		n += ch.work
		ch.work = 0
	}
	return n
}

// forgetPools trims the replicas' own periods before t.
func (e *engine) forgetPools(t time.Duration) {
	for i := range e.provs {
		if pl := e.provs[i].pool; pl != nil {
			e.chargeWork(len(pl.reps))
			for j := range pl.reps {
				for _, st := range pl.reps[j].own {
					st.forget(t)
				}
			}
		}
	}
}

// auditPools checks, once a run is over, that no replica still counts a
// slot in use, an attempt waiting or a sequence in its batch, and that
// the replicas' attempts sum to their provider's.
func (e *engine) auditPools() error {
	for i := range e.provs {
		pv := &e.provs[i]
		if pv.pool == nil {
			continue
		}
		var sent int64
		for j := range pv.pool.reps {
			rp := &pv.pool.reps[j]
			if rp.busy != 0 || rp.waiting != 0 {
				return fmt.Errorf("provider %q, replica %d: %d slots still in use and %d attempts still waiting after the run", pv.name, j, rp.busy, rp.waiting)
			}
			if rp.batch != nil && len(rp.batch.seqs) != 0 {
				return fmt.Errorf("provider %q, replica %d: %d sequences still in its batch after the run", pv.name, j, len(rp.batch.seqs))
			}
			sent += rp.stats.Sent
		}
		if sent > pv.stats.Sent {
			return fmt.Errorf("provider %q: its replicas got %d attempts, more than the %d sent to it", pv.name, sent, pv.stats.Sent)
		}
	}
	return nil
}
