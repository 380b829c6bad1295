package sim

import (
	"math"
	"time"
)

// classState is the run-time state a class's policy keeps across requests:
// its budgets and its adaptive-delay estimator.
type classState struct {
	inflightReqs   int // requests of the class in flight
	inflightCopies int // copies (attempts k ≥ 1) in flight
	throttle       float64
	bucket         bucket
	est            *estimator
	denied         Denied
	// budgeted: the policy has a budget or an adaptive delay, so allow
	// may deny a copy (without, it allows every one).
	budgeted bool
}

// Denied counts the copies each budget denied.
// Each field is a number of copies not sent, by the budget that refused
// them (see Budget); WarmUp counts copies an adaptive delay refused during
// its warm-up.
type Denied struct {
	HedgeShare int64 `json:"hedge_share"`
	Throttle   int64 `json:"throttle"`
	InFlight   int64 `json:"in_flight_ratio"`
	Rate       int64 `json:"hedges_per_second"`
	Parallel   int64 `json:"max_parallel"`
	WarmUp     int64 `json:"adaptive_warm_up"`
}

func (d *Denied) add(o Denied) {
	d.HedgeShare += o.HedgeShare
	d.Throttle += o.Throttle
	d.InFlight += o.InFlight
	d.Rate += o.Rate
	d.Parallel += o.Parallel
	d.WarmUp += o.WarmUp
}

// Total is the number of copies denied by any budget.
func (d Denied) Total() int64 {
	return d.HedgeShare + d.Throttle + d.InFlight + d.Rate + d.Parallel + d.WarmUp
}

func newClassState(p *Policy) classState {
	var s classState
	b := &p.Budget
	if b.Throttle != nil {
		s.throttle = b.Throttle.MaxTokens
	}
	if b.HedgesPerSecond > 0 {
		burst := math.Max(b.Burst, 1)
		s.bucket = bucket{rate: b.HedgesPerSecond, capacity: burst, level: burst}
	}
	if p.Adaptive != nil {
		s.est = newEstimator(p.Adaptive)
	}
	s.budgeted = p.Adaptive != nil || b.MaxHedgeShare > 0 || b.Throttle != nil ||
		b.MaxInFlightRatio > 0 || b.MinInFlight > 0 || b.MaxParallel > 0 || b.HedgesPerSecond > 0
	return s
}

// allow decides whether copy k of a request may be sent now, counting a
// denial against the budget that refused it. Budgets only ever deny the new
// copy; what is in flight keeps running.
func (e *engine) allow(c int, r *request) bool {
	return e.allowInto(c, r, &e.classes[c].denied)
}

// allowRetry decides, as allow does for a copy, whether a retry that
// counts against the budgets may be made now; its denials are counted
// apart from the copies', as the class's denied retries.
func (e *engine) allowRetry(c int, r *request) bool {
	rc := &e.retries[c]
	if e.allowInto(c, r, &rc.DeniedBy) {
		return true
	}
	rc.Denied++
	return false
}

// allowInto is allow, counting a denial in denied. (A class that is not
// budgeted allows every copy: no case below holds.)
func (e *engine) allowInto(c int, r *request, denied *Denied) bool {
	st := &e.classes[c]
	b := &e.cfg.Classes[c].Policy.Budget
	s := &e.stats[c]
	switch {
	case st.est != nil && !st.est.warm():
		denied.WarmUp++
	case b.MaxHedgeShare > 0 && r.hedgedCopies == 0 && float64(s.hedged+1) > b.MaxHedgeShare*float64(s.requests):
		denied.HedgeShare++
	case b.Throttle != nil && !(st.throttle > b.Throttle.MaxTokens/2):
		denied.Throttle++
	case (b.MaxInFlightRatio > 0 || b.MinInFlight > 0) &&
		float64(st.inflightCopies+1) > math.Max(float64(b.MinInFlight), b.MaxInFlightRatio*float64(st.inflightReqs)):
		denied.InFlight++
	case b.MaxParallel > 0 && st.inflightCopies >= b.MaxParallel:
		denied.Parallel++
	case b.HedgesPerSecond > 0 && !st.bucket.has(e.now, 1):
		denied.Rate++
	default:
		if b.HedgesPerSecond > 0 {
			st.bucket.take(1)
		}
		return true
	}
	return false
}

// attemptDone feeds a finished attempt into the class's retry throttle:
// −1 for a failure, +TokenRatio for a success, within [0, MaxTokens].
func (st *classState) attemptDone(p *Policy, ok bool) {
	t := p.Budget.Throttle
	if t == nil {
		return
	}
	if ok {
		st.throttle = math.Min(t.MaxTokens, st.throttle+t.TokenRatio)
	} else {
		st.throttle = math.Max(0, st.throttle-1)
	}
}

// estimator is an adaptive delay: a percentile of the latencies in a
// sliding window, recomputed every max(1, n/32) samples.
type estimator struct {
	cfg     *Adaptive
	ring    []sample // circular buffer of the window
	head, n int      // index of the oldest sample; samples held
	seen    int      // samples ever added
	since   int      // samples added since the last recomputation
	delay   time.Duration
	scratch []time.Duration
	trace   []DelaySample
	every   int // record one trace point per this many recomputations
	recomps int
}

type sample struct {
	at, lat time.Duration
}

// DelaySample is the adaptive delay in force from a time on.
type DelaySample struct {
	At    float64 `json:"t_s"`     // simulated time, seconds
	Delay float64 `json:"delay_s"` // the delay in seconds
}

const maxWindowTime = 1 << 16

func newEstimator(a *Adaptive) *estimator {
	size := a.Window
	if a.WindowTime > 0 {
		size = maxWindowTime
	}
	return &estimator{cfg: a, ring: make([]sample, size), delay: a.Min, every: 1}
}

// warm reports whether the warm-up is over.
func (x *estimator) warm() bool { return x.seen >= x.cfg.WarmUp && x.n > 0 }

// add records latency lat observed at time now.
func (x *estimator) add(now, lat time.Duration) {
	if x.cfg.WindowTime > 0 {
		for x.n > 0 && x.ring[x.head].at < now-x.cfg.WindowTime {
			x.head = (x.head + 1) % len(x.ring)
			x.n--
		}
	}
	if x.n == len(x.ring) { // full: drop the oldest
		x.head = (x.head + 1) % len(x.ring)
		x.n--
	}
	x.ring[(x.head+x.n)%len(x.ring)] = sample{now, lat}
	x.n++
	x.seen++
	x.since++
	if x.since >= max(1, x.n/32) {
		x.since = 0
		x.recompute(now)
	}
}

// recompute sets the delay to the window's percentile (nearest rank),
// clamped to [Min, Max].
func (x *estimator) recompute(now time.Duration) {
	x.scratch = x.scratch[:0]
	for i := range x.n {
		x.scratch = append(x.scratch, x.ring[(x.head+i)%len(x.ring)].lat)
	}
	rank := int(math.Ceil(x.cfg.Percentile*float64(x.n))) - 1
	d := selectKth(x.scratch, max(rank, 0))
	d = max(d, x.cfg.Min)
	if x.cfg.Max > 0 {
		d = min(d, x.cfg.Max)
	}
	x.delay = d
	x.recomps++
	if x.recomps%x.every == 0 {
		x.trace = append(x.trace, DelaySample{At: now.Seconds(), Delay: d.Seconds()})
		if len(x.trace) >= 2048 { // keep at most ~2k points: halve and sample less often
			for i := range len(x.trace) / 2 {
				x.trace[i] = x.trace[2*i]
			}
			x.trace = x.trace[:len(x.trace)/2]
			x.every *= 2
		}
	}
}

// selectKth returns the k-th smallest element of v (0-based), reordering v
// (Hoare's quickselect with a median-of-three pivot; expected O(n)).
func selectKth(v []time.Duration, k int) time.Duration {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}
