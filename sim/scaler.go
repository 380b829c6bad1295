package sim

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// A pool's scaler changes how many of its replicas serve, between
// Autoscale.Min and the pool's Replicas, as Knative's pod autoscaler (KPA)
// or a Kubernetes HPA on utilisation does.
//
// What it observes: the pool's concurrency — attempts queued or in service
// at its replicas or waiting at its activator — and the attempts in
// service, as exact time integrals, brought up to date (scaleSees)
// before each change; per tick it keeps their averages over the tick.
//
// When it acts: every Tick (an evScale event, its gen marked tickBit) it
// computes the replicas wanted (desired) and starts or removes replicas. A pool at rest
// skips its ticks: once its concurrency has not changed, nothing is
// starting, and it has wanted the replicas it has for as long as its
// windows hold (so that a tick could change nothing), it stops ticking
// until its concurrency next changes (scaleSees) or a start ends, or —
// still wanting a replica it will scale to zero — until the grace ends; it
// also stops when no request remains to arrive or is in flight and
// nothing is starting. A tick at rest would decide
// nothing, so this changes only when the later ticks fall (their phase
// follows the change that woke the scaler), and it bounds the ticks of a
// sparse run by its changes rather than its length. A start ends Autoscale's cold start later (an evScale event
// with gen = 1 + the start's id), and the replica is then up. An attempt reaching a
// pool with no replica up makes the scaler start one at once (the
// activator's poke, scale from zero) and waits at the activator (or fails
// at once: NoCapacity); when a replica comes up the activator passes every
// waiting attempt on through the balancer.
//
// Replicas [0, ready) are up and the balancer picks only among them. The
// scaler removes the highest first; a removed replica that still holds
// attempts drains — it serves them, queue included, but gets no new one —
// and is off once it holds none. A start under way has no replica yet:
// when it ends it takes replica ready, draining ones there first brought
// back up as they are; a scale-up brings draining replicas back before it
// starts new ones.
//
// What it costs: O(1) per change of the pool's concurrency (scaleSees),
// and O(1) per tick, amortised (the windows keep running sums, summed
// afresh once per turn) — nothing per request is kept.
//
// Where it enters the event loop: handle's evScale case calls e.scale;
// dispatchPool calls e.holdForCapacity before the balancer picks;
// releaseReplica and leavePool call e.scaleSees before the pool's
// concurrency changes; the balancer's pick takes pl.routable() replicas.

// ScalePolicy names how a pool's scaler computes the replicas it wants.
type ScalePolicy uint8

const (
	// ScaleConcurrency is Knative's KPA: want ⌈c̄ ÷ Target⌉ replicas, c̄
	// the pool's mean concurrency over the stable window (or, in panic
	// mode, over the panic window, never fewer than in panic so far).
	// Panic mode starts when the panic window's concurrency ÷ Target
	// reaches PanicThreshold × the replicas up, and ends a stable window
	// after it last did.
	ScaleConcurrency ScalePolicy = iota
	// ScaleUtilisation is a Kubernetes HPA on utilisation: want ⌈b̄ ÷
	// (Target × concurrency)⌉ replicas, b̄ the mean number of attempts in
	// service over the stable window (the HPA's ⌈current × utilisation ÷
	// target⌉ when the replicas up did not change), without panic mode
	// and without the HPA's 10 % tolerance.
	ScaleUtilisation
)

// ScalePolicies are the policies in order, for listing and parsing.
var ScalePolicies = []ScalePolicy{ScaleConcurrency, ScaleUtilisation}

// String returns the scenario-file name of the policy.
func (p ScalePolicy) String() string {
	switch p {
	case ScaleConcurrency:
		return "concurrency"
	case ScaleUtilisation:
		return "utilisation"
	}
	return "unknown"
}

// NoCapacity names what an attempt does at an autoscaled pool with no
// replica up.
type NoCapacity uint8

const (
	// WaitForCapacity waits at the activator until a replica is up.
	WaitForCapacity NoCapacity = iota
	// FailFast fails the attempt at once with an overload error (a 503),
	// as a platform without an activator does; the replica is still
	// started.
	FailFast
)

// NoCapacities are the rules in order, for listing and parsing.
var NoCapacities = []NoCapacity{WaitForCapacity, FailFast}

// String returns the scenario-file name of the rule.
func (n NoCapacity) String() string {
	if n == FailFast {
		return "fail"
	}
	return "wait"
}

// Autoscale makes a pool scale between Min replicas and its Replicas
// (Pool.Autoscale). A replica it starts is up after a draw of the pool's
// ColdStart.Latency (at once without a ColdStart); replicas of an
// autoscaled pool do not go cold on their own, so ColdStart.KeepWarm and
// GiveUp are not used: the scaler removes replicas, and gives up starts
// it no longer wants (the latest first).
type Autoscale struct {
	// Min is the fewest replicas up, ≥ 0; 0 allows scaling to zero.
	// Initial is how many are up at time 0, in [Min, Pool.Replicas].
	Min, Initial int
	// Policy computes the replicas wanted.
	Policy ScalePolicy
	// Target is, for ScaleConcurrency, the concurrency wanted per replica
	// (> 0; Knative's target); for ScaleUtilisation the utilisation
	// wanted, in (0, 1].
	Target float64
	// Tick is how often the scaler decides, ≥ MinScaleTick (Knative: 2 s).
	Tick time.Duration
	// StableWindow is the window the mean concurrency or utilisation is
	// taken over, ≥ Tick and ≤ MaxScaleWindowTicks ticks (Knative: 60 s).
	StableWindow time.Duration
	// PanicWindow is the panic mode's window, in [Tick, StableWindow]
	// (Knative: 6 s); ScaleConcurrency only.
	PanicWindow time.Duration
	// PanicThreshold, > 1, starts panic mode (Knative: 2, its 200 %).
	PanicThreshold float64
	// ScaleDownDelay makes the scaler want the most it wanted over this
	// long, ≥ 0 (Knative's scale-down-delay, the HPA's stabilisation
	// window for scaling down).
	ScaleDownDelay time.Duration
	// ScaleToZeroGrace is how long the last replica stays up once the
	// scaler wants none, ≥ 0 (Knative: 30 s).
	ScaleToZeroGrace time.Duration
	// NoCapacity says what an attempt does when no replica is up.
	NoCapacity NoCapacity
	// PricePerReplicaHour is what a replica costs per hour up or
	// starting, in USD, ≥ 0 (AutoscaleResult.CostUSD).
	PricePerReplicaHour float64
}

// MaxScaleWindowTicks bounds the windows of an Autoscale in ticks, and
// MinScaleTick its tick.
const (
	MaxScaleWindowTicks = 4096
	MinScaleTick        = 10 * time.Millisecond
)

// validate checks the autoscaling of a pool of n replicas with the given
// concurrency per replica.
func (a *Autoscale) validate(n, conc int) error {
	switch {
	case a.Min < 0 || a.Min > n:
		return fmt.Errorf("autoscale: min replicas %d: must be in [0, %d] (the pool's replicas)", a.Min, n)
	case a.Initial < a.Min || a.Initial > n:
		return fmt.Errorf("autoscale: initial replicas %d: must be in [%d, %d] (min to the pool's replicas)", a.Initial, a.Min, n)
	case a.Policy > ScaleUtilisation:
		return fmt.Errorf("autoscale: policy %d: unknown", a.Policy)
	case !(a.Target > 0) || math.IsInf(a.Target, 0):
		return fmt.Errorf("autoscale: target %v: must be finite and > 0", a.Target)
	case a.Policy == ScaleUtilisation && a.Target > 1:
		return fmt.Errorf("autoscale: target utilisation %v: must be in (0, 1]", a.Target)
	case a.Policy == ScaleUtilisation && conc == 0:
		return fmt.Errorf("autoscale: the utilisation policy needs a concurrency limit per replica")
	case a.Tick < MinScaleTick:
		return fmt.Errorf("autoscale: tick %v: must be ≥ %v", a.Tick, MinScaleTick)
	case a.StableWindow < a.Tick || a.StableWindow/a.Tick > MaxScaleWindowTicks:
		return fmt.Errorf("autoscale: stable window %v: must be in [%v, %d ticks]", a.StableWindow, a.Tick, MaxScaleWindowTicks)
	case a.Policy == ScaleConcurrency && (a.PanicWindow < a.Tick || a.PanicWindow > a.StableWindow):
		return fmt.Errorf("autoscale: panic window %v: must be in [%v, %v] (the tick to the stable window)", a.PanicWindow, a.Tick, a.StableWindow)
	case a.Policy == ScaleConcurrency && !(a.PanicThreshold > 1) || math.IsInf(a.PanicThreshold, 0):
		return fmt.Errorf("autoscale: panic threshold %v: must be finite and > 1", a.PanicThreshold)
	case a.ScaleDownDelay < 0 || a.ScaleDownDelay/a.Tick > MaxScaleWindowTicks:
		return fmt.Errorf("autoscale: scale-down delay %v: must be in [0, %d ticks]", a.ScaleDownDelay, MaxScaleWindowTicks)
	case a.ScaleToZeroGrace < 0:
		return fmt.Errorf("autoscale: scale-to-zero grace %v: must be ≥ 0", a.ScaleToZeroGrace)
	case a.NoCapacity > FailFast:
		return fmt.Errorf("autoscale: no-capacity rule %d: unknown", a.NoCapacity)
	case !(a.PricePerReplicaHour >= 0) || math.IsInf(a.PricePerReplicaHour, 0):
		return fmt.Errorf("autoscale: price per replica-hour %v: must be finite and ≥ 0", a.PricePerReplicaHour)
	}
	return nil
}

// scaler is the run-time state of a pool's autoscaling.
type scaler struct {
	cfg  *Autoscale
	prov int32
	conc int // the pool's concurrency per replica, 0 = unlimited
	size int // the pool's replicas: the most that can be up
	// ready replicas are up: [0, ready); starts are those under way, in
	// the order begun.
	ready  int
	starts []scaleStart
	nextID uint32
	// ticking says whether a tick is pending; changes counts the changes
	// of the pool's concurrency (scaleSees), seen those at the last tick;
	// rest counts the ticks since anything a tick sees last changed, and
	// wanted is the replicas wanted at the last tick.
	ticking             bool
	changes, seen, rest int
	wanted              int
	// The pending tick: its event's gen and its time.
	tickSeq, tickGen uint32
	nextTick         time.Duration
	// The integrals of concurrency and of attempts in service, in
	// attempt-seconds, up to last; at the last tick, at lastTick.
	last, lastTick     time.Duration
	areaConc, areaBusy float64
	tickConc, tickBusy float64
	// Per-tick means of the policy's metric over the stable and panic
	// windows, and the replicas wanted over the scale-down delay.
	stable, panicW tickWindow
	downs          maxWindow
	panicking      bool
	panicSince     time.Duration // when the panic condition last held
	maxPanic       int
	zeroing        bool // wants none since zeroSince
	zeroSince      time.Duration
	act            waitQueue // the activator's attempts, in order
	// What it did.
	series                        []ScalePoint
	begun, givenUp, waited, ticks int64
	failed, left                  int64
	waitSum                       wideSum
}

// leftWaiting books attempt a leaving the activator at at before a
// replica came up for it (its request let go of it, or its attempt
// timeout or deadline cut it): it waited, as long as it was there.
func (s *scaler) leftWaiting(a *attempt, at time.Duration) {
	s.waited++
	s.left++
	s.waitSum.add(at - a.start)
}

// scaleStart is a replica start under way: it ends at at.
type scaleStart struct {
	id uint32
	at time.Duration
}

// tickWindow is a ring of the last per-tick values, with their count and
// sum; the sum is taken afresh once per turn of the ring, so that rounding
// does not build up.
type tickWindow struct {
	xs   []float64
	i, n int
	sum  float64
}

func newWindow(w, tick time.Duration) tickWindow {
	return tickWindow{xs: make([]float64, max(1, int((w+tick-1)/tick)))}
}

func (w *tickWindow) push(x float64) {
	w.sum += x - w.xs[w.i]
	w.xs[w.i] = x
	w.i = (w.i + 1) % len(w.xs)
	w.n = min(w.n+1, len(w.xs))
	if w.i == 0 {
		w.sum = 0
		for _, v := range w.xs {
			w.sum += v
		}
	}
}

// mean returns the mean of the values held, 0 when none.
func (w *tickWindow) mean() float64 {
	if w.n == 0 {
		return 0
	}
	return w.sum / float64(w.n)
}

func newScaler(c *Pool, prov int) *scaler {
	a := c.Autoscale
	s := &scaler{cfg: a, prov: int32(prov), conc: c.Concurrency, size: c.Replicas, ready: a.Initial,
		stable: newWindow(a.StableWindow, a.Tick)}
	if a.Policy == ScaleConcurrency {
		s.panicW = newWindow(a.PanicWindow, a.Tick)
	}
	s.downs.span = max(1, int64((a.ScaleDownDelay+a.Tick-1)/a.Tick))
	s.series = []ScalePoint{{Ready: a.Initial}}
	return s
}

// routable returns how many replicas of pl the balancer picks among:
// those up, [0, routable()).
func (pl *pool) routable() int {
	if pl.sc != nil {
		return pl.sc.ready
	}
	return len(pl.reps)
}

// scaleSees is called before the concurrency of provider pv's autoscaled
// pool changes: it brings the integrals up to now and, when the scaler
// rests, starts its ticks again.
func (e *engine) scaleSees(pv *provider) {
	s := pv.pool.sc
	s.advance(e.now, pv)
	s.changes++
	if !s.ticking || s.nextTick > e.now+s.cfg.Tick {
		// At rest the windows hold the same value throughout: the time
		// since the last tick need not be pushed.
		s.rest = 0
		s.lastTick = e.now
		s.tickConc, s.tickBusy = s.areaConc, s.areaBusy
		e.scheduleTick(s, e.now+s.cfg.Tick)
	}
}

// advance brings the integrals up to now, before pv's counts change.
func (s *scaler) advance(now time.Duration, pv *provider) {
	if dt := now - s.last; dt > 0 {
		x := dt.Seconds()
		s.areaConc += float64(pv.busy+pv.waiting) * x
		s.areaBusy += float64(pv.busy) * x
		s.last = now
	}
}

// holdForCapacity is called for attempt k of r as it reaches the
// autoscaled pool of pv: it starts the ticks if they are not running, and
// when no replica is up starts one (unless one is starting) and holds the
// attempt at the activator — or fails it at once (FailFast). It reports
// whether it took the attempt; otherwise the balancer picks its replica.
func (e *engine) holdForCapacity(slot int32, r *request, k int, pv *provider) bool {
	s := pv.pool.sc
	e.scaleSees(pv)
	if s.ready > 0 {
		return false
	}
	if len(s.starts) == 0 {
		s.zeroing = false
		e.beginStart(pv.pool)
		s.note(e.now)
	}
	a := &r.att[k]
	if s.cfg.NoCapacity == FailFast {
		s.failed++
		a.kind = outRejected
		a.svc, a.first, a.genFrom, a.end = e.now, e.now, e.now, e.now
		e.scheduleResponse(a.end, slot, r.gen, uint8(k))
		return true
	}
	a.queued = true
	pv.waiting++
	s.act.enqueue(waiter{slot: slot, gen: r.gen, k: uint8(k)})
	return true
}

// beginStart starts a replica of pl: it is up after a draw of the cold
// start, at an evScale event.
func (e *engine) beginStart(pl *pool) {
	s := pl.sc
	d := time.Duration(0)
	if pl.cfg.ColdStart != nil {
		d = seconds(pl.cold.rand(&pl.src))
	}
	s.nextID++
	s.starts = append(s.starts, scaleStart{id: s.nextID, at: e.now + d})
	s.begun++
	e.schedule(e.now+d, evScale, s.prov, s.nextID, 0)
}

// scale handles an evScale event of provider prov's pool: a tick (gen
// with tickBit, the pending one's) or the end of start gen.
func (e *engine) scale(prov int32, gen uint32) {
	pv := &e.provs[prov]
	pl := pv.pool
	s := pl.sc
	s.advance(e.now, pv)
	if gen&tickBit == 0 {
		e.startEnds(pv, gen)
		return
	}
	if gen != s.tickGen {
		return // a wake-up that a sooner tick replaced
	}
	s.ticks++
	dt := (e.now - s.lastTick).Seconds()
	conc, busy := (s.areaConc-s.tickConc)/dt, (s.areaBusy-s.tickBusy)/dt
	s.lastTick, s.tickConc, s.tickBusy = e.now, s.areaConc, s.areaBusy
	x := conc
	if s.cfg.Policy == ScaleUtilisation {
		x = busy
	}
	s.stable.push(x)
	if s.cfg.Policy == ScaleConcurrency {
		s.panicW.push(x)
	}
	n := s.desired(e.now)
	e.scaleTo(pl, n)
	if s.changes != s.seen || n != s.wanted || n != s.ready+len(s.starts) || s.panicking {
		s.rest = 0
	} else {
		s.rest++
	}
	s.seen, s.wanted = s.changes, n
	work := e.next < e.end || len(e.free) < len(e.slots) || len(e.pipeFree) < len(e.pipes)
	switch {
	case !work && len(s.starts) == 0:
		s.ticking = false // the run is over but for its last attempts' ends
	case s.rest <= s.restTicks():
		e.scheduleTick(s, e.now+s.cfg.Tick)
	case s.zeroing:
		// At rest but for the grace: the next tick that can decide
		// anything is its end (a change or a start's end wakes it sooner).
		e.scheduleTick(s, max(e.now+s.cfg.Tick, s.zeroSince+s.cfg.ScaleToZeroGrace))
	default:
		s.ticking = false
	}
}

// tickBit marks the gen of a tick event; a start's end has its id.
const tickBit = 1 << 31

// scheduleTick queues s's next tick at at, in place of any pending one.
func (e *engine) scheduleTick(s *scaler, at time.Duration) {
	s.tickSeq++
	s.tickGen = tickBit | s.tickSeq&(tickBit-1)
	s.ticking, s.nextTick = true, at
	e.schedule(at, evScale, s.prov, s.tickGen, 0)
}

// maxWindow is the most of the values pushed over the last span ticks,
// kept as a deque of the values no later one is at least: O(1) a push,
// amortised.
type maxWindow struct {
	span int64
	k    []int64
	v    []int
	head int
}

// push adds v at tick k and returns the most over ticks (k − span, k].
func (w *maxWindow) push(k int64, v int) int {
	n := len(w.v)
	for n > w.head && w.v[n-1] <= v {
		n--
	}
	w.k, w.v = append(w.k[:n], k), append(w.v[:n], v)
	for w.k[w.head] <= k-w.span {
		w.head++
	}
	if w.head > 64 && 2*w.head > len(w.v) {
		m := copy(w.k, w.k[w.head:])
		copy(w.v, w.v[w.head:])
		w.k, w.v, w.head = w.k[:m], w.v[:m], 0
	}
	return w.v[w.head]
}

// restTicks is how many ticks in a row the scaler must see nothing change
// before it rests: by then each of its windows holds only values pushed
// since the last change, so that a further tick pushes the same and wants
// the same.
func (s *scaler) restTicks() int {
	return max(len(s.stable.xs), len(s.panicW.xs), int(s.downs.span))
}

// desired returns the replicas the scaler wants at a tick at now, with
// the tick's value already pushed into the windows.
func (s *scaler) desired(now time.Duration) int {
	a := s.cfg
	var want int
	switch a.Policy {
	case ScaleUtilisation:
		want = int(math.Ceil(s.stable.mean() / (a.Target * float64(s.conc))))
	default:
		stable, panicked := s.stable.mean()/a.Target, s.panicW.mean()/a.Target
		want = int(math.Ceil(stable))
		over := panicked/float64(max(1, s.ready)) >= a.PanicThreshold
		switch {
		case over:
			s.panicking, s.panicSince = true, now
		case s.panicking && now-s.panicSince >= a.StableWindow:
			s.panicking, s.maxPanic = false, 0
		}
		if s.panicking {
			s.maxPanic = max(s.maxPanic, int(math.Ceil(panicked)))
			want = s.maxPanic
		}
	}
	want = s.downs.push(s.ticks, want)
	want = min(max(want, a.Min), s.size)
	if want > 0 {
		s.zeroing = false
		return want
	}
	if s.ready+len(s.starts) > 0 {
		if !s.zeroing {
			s.zeroing, s.zeroSince = true, now
		}
		if now-s.zeroSince < a.ScaleToZeroGrace {
			return 1
		}
	}
	return 0
}

// scaleTo makes pl's scaler want n replicas up: it brings draining
// replicas back and starts replicas, or gives up starts (the latest first)
// and removes replicas (the highest first), until it has n.
func (e *engine) scaleTo(pl *pool, n int) {
	s := pl.sc
	for s.ready+len(s.starts) < n && len(s.starts) == 0 && s.ready < s.size && pl.reps[s.ready].holds() {
		s.ready++ // draining: back up as it is
	}
	for s.ready+len(s.starts) < n {
		e.beginStart(pl)
	}
	for s.ready+len(s.starts) > n && len(s.starts) > 0 {
		s.starts = s.starts[:len(s.starts)-1]
		s.givenUp++
	}
	if s.ready > n {
		s.ready = n // the replicas removed drain
	}
	if s.ready+len(s.starts) == 0 {
		s.zeroing = false // at zero: the next start has its own grace
	}
	s.note(e.now)
}

// holds reports whether replica rp holds an attempt, queued or in
// service: a replica removed from the balancer's choice drains until none.
func (rp *replica) holds() bool { return rp.busy != 0 || rp.waiting != 0 }

// startEnds brings up the replica of start id, unless it was given up,
// and passes the activator's attempts on through the balancer.
func (e *engine) startEnds(pv *provider, id uint32) {
	pl := pv.pool
	s := pl.sc
	j := -1
	e.chargeWork(len(s.starts))
	for i := range s.starts {
		if s.starts[i].id == id {
			j = i
			break
		}
	}
	if j < 0 {
		return // given up
	}
	s.starts = append(s.starts[:j], s.starts[j+1:]...)
	for s.ready < s.size && pl.reps[s.ready].holds() {
		s.ready++ // draining: back up as it is, before the new one
	}
	if s.ready == s.size {
		s.note(e.now)
		return // no replica left for it
	}
	rp := &pl.reps[s.ready]
	if pl.cfg.ColdStart != nil {
		rp.stats.ColdStarts++
	}
	rp.warmAt, rp.idleSince = e.now, e.now
	s.ready++
	s.note(e.now)
	e.scaleSees(pv) // wakes the scaler: it has more replicas up
	for {
		w, r, a := e.nextWaiter(&s.act)
		if a == nil {
			break
		}
		a.queued = false
		pv.waiting--
		s.waited++
		s.waitSum.add(e.now - a.start)
		e.dispatchPool(w.slot, r, int(w.k), a, pv, 0)
	}
}

// note records the replicas up and starting at now when they changed.
func (s *scaler) note(now time.Duration) {
	p := ScalePoint{T: now.Seconds(), Ready: s.ready, Starting: len(s.starts)}
	last := &s.series[len(s.series)-1]
	switch {
	case last.Ready == p.Ready && last.Starting == p.Starting:
	case last.T == p.T:
		*last = p
		if n := len(s.series); n > 1 && s.series[n-2].Ready == p.Ready && s.series[n-2].Starting == p.Starting {
			s.series = s.series[:n-1]
		}
	default:
		s.series = append(s.series, p)
	}
}

// ScalePoint is the replicas of an autoscaled pool from time T on.
type ScalePoint struct {
	// T is the time in seconds from the run's start.
	T float64 `json:"t_s"`
	// Ready replicas are up; Starting ones are in their cold start.
	Ready    int `json:"ready"`
	Starting int `json:"starting"`
}

// AutoscaleResult is what an autoscaled pool's scaler did over a run.
type AutoscaleResult struct {
	// Policy names the scaler's policy; Min and Max bound its replicas.
	Policy string `json:"policy"`
	Min    int    `json:"min_replicas"`
	Max    int    `json:"max_replicas"`
	// MeanReplicas is the time-average of the replicas up or starting
	// over the run; PeakReplicas their most.
	MeanReplicas float64 `json:"mean_replicas"`
	PeakReplicas int     `json:"peak_replicas"`
	// ReplicaHours is the replicas up or starting integrated over the
	// run, in hours; IdleReplicaHours of them were not serving: minus the
	// time in service ÷ the concurrency per replica (null without a
	// concurrency limit).
	ReplicaHours     float64  `json:"replica_hours"`
	IdleReplicaHours *float64 `json:"idle_replica_hours"`
	// CostUSD is ReplicaHours × the price per replica-hour, IdleCostUSD
	// the same of IdleReplicaHours.
	CostUSD     float64  `json:"replica_cost_usd"`
	IdleCostUSD *float64 `json:"idle_replica_cost_usd"`
	// CostPer1kSent is CostUSD per 1000 attempts sent to the pool (0 when
	// none was), to set beside a class's cost per 1000 requests.
	CostPer1kSent float64 `json:"replica_cost_per_1k_sent_usd"`
	// Starts counts the replica starts begun (a cold start each when the
	// pool has a cold-start model), GivenUp those given up before their
	// end.
	Starts  int64 `json:"starts"`
	GivenUp int64 `json:"starts_given_up"`
	// Ticks counts the scaler's decisions (a pool at rest skips them).
	Ticks int64 `json:"ticks"`
	// WaitedForCapacity counts the attempts that waited at the activator
	// for a replica to come up, however they left it: passed to a replica
	// that came up, or let go of before one did (LeftWaiting of them:
	// cancelled by their request, cut by their attempt timeout or
	// deadline). MeanCapacityWait is their mean wait at the activator in
	// seconds and CapacityWait its total; FailedForCapacity the attempts
	// that failed at once for want of one (FailFast).
	WaitedForCapacity int64   `json:"waited_for_capacity"`
	LeftWaiting       int64   `json:"left_while_waiting_for_capacity"`
	MeanCapacityWait  float64 `json:"mean_capacity_wait_s"`
	CapacityWait      float64 `json:"capacity_wait_s"`
	FailedForCapacity int64   `json:"failed_for_capacity"`
	// Series is the replicas up and starting over the run, from time 0,
	// one point per change; RunSeconds is the run's length, the last
	// point's values holding until then.
	Series     []ScalePoint `json:"replicas_over_time"`
	RunSeconds float64      `json:"run_s"`
}

// result returns what s did over a run of span seconds, in which the
// pool's replicas were in service for busy attempt-seconds and sent
// attempts were sent to it.
func (s *scaler) result(span, busy float64, sent int64) *AutoscaleResult {
	a := s.cfg
	out := &AutoscaleResult{Policy: a.Policy.String(), Min: a.Min, Max: s.size,
		Starts: s.begun, GivenUp: s.givenUp, WaitedForCapacity: s.waited, LeftWaiting: s.left,
		FailedForCapacity: s.failed, CapacityWait: s.waitSum.seconds(), RunSeconds: span, Ticks: s.ticks}
	if s.waited > 0 {
		out.MeanCapacityWait = out.CapacityWait / float64(s.waited)
	}
	area := s.upArea(span)
	for _, p := range s.series {
		if p.T >= span {
			break
		}
		out.PeakReplicas = max(out.PeakReplicas, p.Ready+p.Starting)
		out.Series = append(out.Series, p)
	}
	if span > 0 {
		out.MeanReplicas = area / span
	}
	out.ReplicaHours = area / 3600
	out.CostUSD = out.ReplicaHours * a.PricePerReplicaHour
	if sent > 0 {
		out.CostPer1kSent = out.CostUSD / float64(sent) * 1000
	}
	if s.conc > 0 {
		idle := max(0, area-busy/float64(s.conc)) / 3600
		cost := idle * a.PricePerReplicaHour
		out.IdleReplicaHours, out.IdleCostUSD = &idle, &cost
	}
	return out
}

// upArea returns the replica-seconds the pool's replicas were up or
// starting over the run's first span seconds: the integral of its series'
// Ready + Starting, what its replica-hours bill.
func (s *scaler) upArea(span float64) float64 {
	var area float64
	for i, p := range s.series {
		if p.T >= span {
			break
		}
		end := span
		if i+1 < len(s.series) {
			end = min(end, s.series[i+1].T)
		}
		area += float64(p.Ready+p.Starting) * (end - p.T)
	}
	return area
}

// upTimes returns, per replica of a pool of n, the seconds it was up or
// starting over the run's first span seconds, counting replicas lowest
// index first — the scaler brings replicas up at the lowest free index and
// removes the highest first, so that at any time the Ready + Starting of
// its series are replicas 0 to Ready + Starting − 1 (a start's replica
// taken as the next index up). They sum to upArea(span).
func (s *scaler) upTimes(span float64, n int) []float64 {
	out := make([]float64, n)
	for i, p := range s.series {
		if p.T >= span {
			break
		}
		end := span
		if i+1 < len(s.series) {
			end = min(end, s.series[i+1].T)
		}
		for j := range min(n, p.Ready+p.Starting) {
			out[j] += end - p.T
		}
	}
	return out
}

// meanUp returns the time-weighted mean number of replicas of pl up or
// starting over span seconds (len(pl.reps) without a scaler, or when span
// is 0).
func (pl *pool) meanUp(span float64) float64 {
	if pl.sc == nil || !(span > 0) {
		return float64(len(pl.reps))
	}
	return pl.sc.upArea(span) / span
}

// writeAutoscale writes what an autoscaled pool's scaler did, in three
// lines under the pool's heading.
func writeAutoscale(w io.Writer, a *AutoscaleResult) {
	fmt.Fprintf(w, "  autoscaled (%s) between %d and %d replicas: mean %.2f, peak %d; %d starts, %d given up\n",
		a.Policy, a.Min, a.Max, a.MeanReplicas, a.PeakReplicas, a.Starts, a.GivenUp)
	fmt.Fprintf(w, "  waited for capacity: %d attempts, mean %s, %d of them let go of before a replica came up; failed for want of capacity: %d\n",
		a.WaitedForCapacity, fsec(a.MeanCapacityWait), a.LeftWaiting, a.FailedForCapacity)
	idle := ""
	if a.IdleReplicaHours != nil {
		idle = fmt.Sprintf(", of which idle %.3f ($%.2f)", *a.IdleReplicaHours, *a.IdleCostUSD)
	}
	fmt.Fprintf(w, "  replica-hours %.3f ($%.2f, $%.4f per 1000 attempts sent)%s\n", a.ReplicaHours, a.CostUSD, a.CostPer1kSent, idle)
}

// scaleWarnings returns the warnings of the pools class cl reaches — by
// its policy's primary and targets or, for a pipeline, by any step's
// (reachedModels): a
// pool that autoscales without a cold-start model has its new replicas up
// at once; a pool that scales to zero with no_capacity = "fail" and cold
// starts mostly longer than its grace cannot come back (zeroFailWarning).
func scaleWarnings(cfg *Config, cl *Class) []ConfigWarning {
	var out []ConfigWarning
	models := reachedModels(cl)
	seen := map[int]bool{}
	for _, m := range models { // in the order the class reaches them
		if m < 0 || m >= len(cfg.Models) {
			continue
		}
		for i := range cfg.Providers {
			pl := cfg.Providers[i].Pool
			if seen[i] || cfg.Providers[i].Name != cfg.Models[m].Provider || pl == nil || pl.Autoscale == nil || pl.ColdStart != nil {
				continue
			}
			seen[i] = true
			out = append(out, ConfigWarning{Step: -1, Model: -1, Provider: i + 1, Field: "autoscale",
				Text: fmt.Sprintf("provider %s's pool autoscales without a cold_start: its new replicas are up at once, which no platform does; give [providers.%s.pool.cold_start] a latency", cfg.Providers[i].Name, cfg.Providers[i].Name)})
		}
	}
	for i := range cfg.Providers {
		reached := slices.ContainsFunc(models, func(m int) bool {
			return m >= 0 && m < len(cfg.Models) && cfg.Models[m].Provider == cfg.Providers[i].Name
		})
		if reached {
			if w := zeroFailWarning(cfg, i); w != nil {
				out = append(out, *w)
			}
		}
	}
	return out
}

// reachedModels returns the indices in Config.Models of the models class
// cl sends calls to, in the order it reaches them (repeats kept): its
// policy's primary and targets or, for a pipeline, whose class policy is
// unused, every step's.
func reachedModels(cl *Class) []int {
	if cl.Pipeline == nil {
		return append([]int{cl.Policy.Primary}, cl.Policy.Targets...)
	}
	var models []int
	for i := range cl.Pipeline.Steps {
		p := &cl.Pipeline.Steps[i].Call.Policy
		models = append(append(models, p.Primary), p.Targets...)
	}
	return models
}

// distinctModels returns the models class cl reaches (reachedModels) that
// are in cfg, each once, in the order the class first reaches them.
func distinctModels(cfg *Config, cl *Class) []int {
	var out []int
	for _, m := range reachedModels(cl) {
		if m >= 0 && m < len(cfg.Models) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// zeroFailShare is the share of starts from zero given up at or above
// which zeroFailWarning warns.
const zeroFailShare = 0.5

// zeroFailWarning returns the warning of provider i's pool when it can
// scale to zero (min_replicas 0) with no_capacity = "fail" and a cold
// start longer than its grace in at least zeroFailShare of draws; nil
// otherwise. At zero no attempt waits at the activator (each fails at
// once), so the pool's concurrency stays 0 and the scaler wants no
// replica: it gives the start the poke began up at its first tick at
// least ScaleToZeroGrace after the first tick after the poke — less than
// ScaleToZeroGrace + 2 ticks after the poke. A start whose cold start is
// longer is given up before its replica is up, and the next attempt
// begins another (TestZeroFailWarning).
func zeroFailWarning(cfg *Config, i int) *ConfigWarning {
	pl := cfg.Providers[i].Pool
	if pl == nil || pl.Autoscale == nil || pl.ColdStart == nil || pl.ColdStart.Latency == nil {
		return nil
	}
	a := pl.Autoscale
	if a.Min != 0 || a.NoCapacity != FailFast {
		return nil
	}
	life := (a.ScaleToZeroGrace + 2*a.Tick).Seconds()
	share := pl.ColdStart.Latency.Survival(life)
	if !(share >= zeroFailShare) {
		return nil
	}
	name := cfg.Providers[i].Name
	return &ConfigWarning{Step: -1, Model: -1, Provider: i + 1, Field: "autoscale.no_capacity",
		Text: fmt.Sprintf(`provider %s's pool scales to zero (min_replicas = 0) with no_capacity = "fail": at zero no attempt waits for the replica it starts, so the scaler gives the start up within %s (scale_to_zero_grace %s + 2 ticks), and %s of its cold starts are longer: once at zero the pool does not come back; use no_capacity = "wait", min_replicas = 1, or a scale_to_zero_grace of at least %s (the cold start's p99)`,
			name, fsec(life), fsec(a.ScaleToZeroGrace.Seconds()), pct(share), fsec(pl.ColdStart.Latency.Quantile(0.99)))}
}
