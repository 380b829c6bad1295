package sim

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"
	"time"
)

// bucket is a token bucket refilled continuously at rate per second up to
// capacity. A rate of 0 means no limit.
type bucket struct {
	rate, capacity, level float64
	last                  time.Duration
}

func newBucket(perMinute float64, burst time.Duration) bucket {
	if perMinute <= 0 {
		return bucket{}
	}
	c := perMinute / 60 * burstOf(burst).Seconds()
	return bucket{rate: perMinute / 60, capacity: c, level: c}
}

// burstOf is a rate limit's burst, how much refill a full bucket holds:
// burst, or a minute's when it is 0 (RateLimit.Burst's default).
func burstOf(burst time.Duration) time.Duration {
	if burst == 0 {
		return time.Minute
	}
	return burst
}

// refill brings the level up to time now.
func (b *bucket) refill(now time.Duration) {
	if now > b.last {
		b.level = min(b.capacity, b.level+b.rate*(now-b.last).Seconds()) // math.Min's value, inline
		b.last = now
	}
}

// has reports whether n units are available at now (always, when off).
func (b *bucket) has(now time.Duration, n float64) bool {
	if b.rate == 0 {
		return true
	}
	b.refill(now)
	return b.level >= n
}

func (b *bucket) take(n float64) {
	if b.rate != 0 {
		b.level -= n
	}
}

// takeDebt takes n units, letting the level fall as low as −capacity (a
// debt of one full bucket), as a sliding window that counts every request
// would.
func (b *bucket) takeDebt(now time.Duration, n float64) {
	if b.rate != 0 {
		b.refill(now)
		b.level = max(b.level-n, -b.capacity) // math.Max's value, inline
	}
}

// limiter is the pair of buckets of a RateLimit.
type limiter struct {
	req, tok bucket
	cfg      RateLimit
}

func newLimiter(r RateLimit) *limiter {
	if r.RequestsPerMinute <= 0 && r.TokensPerMinute <= 0 {
		return nil
	}
	return &limiter{req: newBucket(r.RequestsPerMinute, r.Burst), tok: newBucket(r.TokensPerMinute, r.Burst), cfg: r}
}

// can reports whether the buckets have one request and n tokens at now.
func (l *limiter) can(now time.Duration, n float64) bool {
	return l.req.has(now, 1) && l.tok.has(now, n)
}

func (l *limiter) take(n float64) {
	l.req.take(1)
	l.tok.take(n)
}

// reject books an attempt of n tokens the limiter rejected: when the
// limit counts rejected requests, it takes them from the buckets too,
// down to a debt of one full bucket.
func (l *limiter) reject(now time.Duration, n float64) {
	if !l.cfg.CountRejected {
		return
	}
	l.req.takeDebt(now, 1)
	l.tok.takeDebt(now, n)
}

// regime is a provider's alternating normal/degraded timeline, generated
// lazily from the provider's own random stream: switches[i] is the time of
// the i-th change of state, and the state before switches[0] is degraded0.
type regime struct {
	cfg       *Degraded
	src       rand.PCG
	degraded0 bool
	// switches are the switch times from the dropped-th on; earlier ones
	// lie before any time still to be asked about and have been trimmed.
	switches []time.Duration
	dropped  int
	last     int // index in switches of the period at asked about last
	// meanRate is the long-run work done per unit of wall time.
	meanRate float64
}

// maxWalk is how many periods finish walks one by one; the rest of a very
// long piece of work proceeds at the long-run mean rate (the law of large
// numbers), which keeps time and memory bounded whatever the latencies.
const maxWalk = 1000

func newRegime(d *Degraded, seed uint64, provider int) *regime {
	g := &regime{cfg: d}
	g.src.Seed(splitmix64(seed^0x5eed0fdeadbeef), splitmix64(uint64(provider)+0x9e37))
	// Start in the stationary distribution.
	mn, md := d.MeanNormal.Seconds(), d.MeanDegraded.Seconds()
	g.degraded0 = uniform(&g.src) < md/(md+mn)
	g.meanRate = (mn + md) / (mn + md*d.Slowdown)
	return g
}

// extend generates switches until one lies beyond t.
func (g *regime) extend(t time.Duration) {
	for len(g.switches) == 0 || g.switches[len(g.switches)-1] <= t {
		last := time.Duration(0)
		if n := len(g.switches); n > 0 {
			last = g.switches[n-1]
		}
		mean := g.cfg.MeanNormal
		if g.stateAfter(g.dropped + len(g.switches)) {
			mean = g.cfg.MeanDegraded
		}
		g.switches = append(g.switches, last+seconds(-math.Log(1-uniform(&g.src))*mean.Seconds()))
	}
}

// trim forgets the switches at or before t; no later question may ask
// about a time before t. It only works when enough have piled up.
func (g *regime) trim(t time.Duration) {
	if g == nil || len(g.switches) < 4096 {
		return
	}
	k := sort.Search(len(g.switches), func(i int) bool { return g.switches[i] > t })
	if k == len(g.switches) {
		k-- // keep the last switch: extend continues from it
	}
	if k < len(g.switches)/2 {
		return
	}
	n := copy(g.switches, g.switches[k:])
	g.switches = g.switches[:n]
	g.dropped += k
	g.last = 0
}

// stateAfter returns whether the provider is degraded after i switches.
// (i ≥ 0, so its low bit is its parity.)
func (g *regime) stateAfter(i int) bool { return g.degraded0 != (i&1 == 1) }

// at returns whether the provider is degraded at t, and the index in
// switches of the end of the period t lies in.
//
// serve asks about the same time more than once in a row (whether the
// attempt fails, when its first token and its end come, when a failed
// attempt's error comes), so the last answer is checked first: when t
// lies in its period, a switch beyond t is already made, and nothing need
// be generated (extend) or searched.
func (g *regime) at(t time.Duration) (bool, int) {
	i := g.last
	if i < len(g.switches) && g.switches[i] > t && (i == 0 || g.switches[i-1] <= t) {
		return g.stateAfter(g.dropped + i), i
	}
	return g.atSearch(t)
}

// atSearch is at when t lies outside the period asked about last.
func (g *regime) atSearch(t time.Duration) (bool, int) {
	g.extend(t)
	i := sort.Search(len(g.switches), func(i int) bool { return g.switches[i] > t })
	g.last = i
	return g.stateAfter(g.dropped + i), i
}

// finish returns when work w of service, started at t0, is done: service
// progresses at rate 1 in normal periods and 1/Slowdown in degraded ones,
// so every attempt in service during a slowdown is slowed for the part of
// its work that overlaps it. After maxWalk periods the rest of the work
// proceeds at the long-run mean rate.
func (g *regime) finish(t0, w time.Duration) time.Duration {
	if g == nil || g.cfg.Slowdown == 1 {
		return t0 + w
	}
	// at(t0), its check of the last period asked about written out
	i := g.last
	var deg bool
	if i < len(g.switches) && g.switches[i] > t0 && (i == 0 || g.switches[i-1] <= t0) {
		deg = g.stateAfter(g.dropped + i)
	} else {
		deg, i = g.atSearch(t0)
	}
	t := t0
	for walked := 0; ; walked++ {
		if walked == maxWalk {
			return t + satMul(w, 1/g.meanRate)
		}
		if i >= len(g.switches) { // the period after the last switch made
			g.extend(t)
		}
		end := g.switches[i]
		span := end - t
		if deg {
			need := satMul(w, g.cfg.Slowdown)
			if need <= span {
				return t + need
			}
			w -= time.Duration(float64(span) / g.cfg.Slowdown)
		} else {
			if w <= span {
				return t + w
			}
			w -= span
		}
		t = end
		i++
		deg = !deg
	}
}

// finishPair returns finish(t0, w1) and finish(t0, w2), finding the
// period t0 lies in once and walking the periods once. With w1 ≤ w2 the
// first work is done no later than the second (in no later a period), and
// both lose the same share of each period they outlast, so one walk gives
// both values finish gives.
func (g *regime) finishPair(t0, w1, w2 time.Duration) (time.Duration, time.Duration) {
	if g == nil || g.cfg.Slowdown == 1 {
		return t0 + w1, t0 + w2
	}
	if w1 > w2 {
		return g.finish(t0, w1), g.finish(t0, w2)
	}
	// at(t0), its check of the last period asked about written out
	i := g.last
	var deg bool
	if i < len(g.switches) && g.switches[i] > t0 && (i == 0 || g.switches[i-1] <= t0) {
		deg = g.stateAfter(g.dropped + i)
		if !deg && w2 <= g.switches[i]-t0 {
			// The walk's first step, when both works end in the normal
			// period t0 lies in: the commonest, without the walk.
			return t0 + w1, t0 + w2
		}
	} else {
		deg, i = g.atSearch(t0)
	}
	t, t1, done1 := t0, time.Duration(0), false
	for walked := 0; ; walked++ {
		if walked == maxWalk {
			if !done1 {
				t1 = t + satMul(w1, 1/g.meanRate)
			}
			return t1, t + satMul(w2, 1/g.meanRate)
		}
		if i >= len(g.switches) { // the period after the last switch made
			g.extend(t)
		}
		end := g.switches[i]
		span := end - t
		if deg {
			if !done1 {
				if need := satMul(w1, g.cfg.Slowdown); need <= span {
					t1, done1 = t+need, true
				} else {
					w1 -= time.Duration(float64(span) / g.cfg.Slowdown)
				}
			}
			if done1 { // else w2 ≥ w1 outlasts this period too
				if need := satMul(w2, g.cfg.Slowdown); need <= span {
					return t1, t + need
				}
			}
			w2 -= time.Duration(float64(span) / g.cfg.Slowdown)
		} else {
			if !done1 {
				if w1 <= span {
					t1, done1 = t+w1, true
				} else {
					w1 -= span
				}
			}
			if done1 && w2 <= span {
				return t1, t + w2
			}
			w2 -= span
		}
		t = end
		i++
		deg = !deg
	}
}

// wideSum is an exact, order-independent sum of non-negative durations in
// 128 bits, so totals neither overflow nor depend on the order of events.
type wideSum struct{ hi, lo uint64 }

func (w *wideSum) add(d time.Duration) {
	var carry uint64
	w.lo, carry = bits.Add64(w.lo, uint64(d), 0)
	w.hi += carry
}

// seconds returns the sum in seconds.
func (w *wideSum) seconds() float64 {
	return (float64(w.hi)*(1<<64) + float64(w.lo)) / 1e9
}

// satMul returns d·f, saturating at maxDelay.
func satMul(d time.Duration, f float64) time.Duration {
	x := float64(d) * f
	if !(x < float64(maxDelay)) {
		return maxDelay
	}
	return time.Duration(x)
}

// waiter is an attempt waiting in a provider's queue.
type waiter struct {
	slot int32
	gen  uint32
	k    uint8
}

// provider is the run-time state of one failure domain.
type provider struct {
	name      string
	capacity  int // 0 = unlimited
	busy      int
	waitQueue      // FIFO; entries whose attempt has left are skipped
	waiting   int  // attempts in the queue that have not left it
	bounded   bool // rejects an attempt when queueLimit are waiting
	// queueLimit is how many attempts may wait when bounded.
	queueLimit    int
	ignoresCancel bool // cancels never stop work here
	limit         *limiter
	stages        []stage // service stages: degraded periods
	failing       bool    // a stage may fail attempts: mayFail(stages)
	stats         ProviderResult
	waitSum       wideSum // total queue wait of attempts that started service
	busySum       wideSum // total time attempts spent in service
	// lastEnd is when the last attempt left service here: the end of the
	// provider's own span, over which its mean in service is taken.
	lastEnd time.Duration
	// marks hold the served and waiting attempts at the middle and the
	// last arrival (load.go).
	marks [2]loadMark
	// pool, when the provider has one, serves its attempts instead of
	// its own slots and queue (pool.go).
	pool *pool
}

// waitQueue is a FIFO of waiters: a provider's queue, or a replica's.
type waitQueue struct {
	queue []waiter
	qhead int
}

// providers returns the run-time providers of cfg — the listed ones, then
// one unlimited provider per further name that models use — and the
// provider index of each model.
func (cfg *Config) providers() ([]provider, []int) {
	var ps []provider
	index := map[string]int{}
	for i := range cfg.Providers {
		c := &cfg.Providers[i]
		p := provider{name: c.Name, capacity: c.Concurrency, limit: newLimiter(c.RateLimit),
			stages: newStages(c, cfg.Seed, i), bounded: c.RejectWhenFull, queueLimit: c.QueueLimit,
			ignoresCancel: c.IgnoresCancel}
		p.failing = mayFail(p.stages)
		index[c.Name] = len(ps)
		ps = append(ps, p)
	}
	of := make([]int, len(cfg.Models))
	for m := range cfg.Models {
		name := cfg.Models[m].Provider
		if name == "" {
			name = cfg.Models[m].Name
		}
		i, ok := index[name]
		if !ok {
			i = len(ps)
			index[name] = i
			ps = append(ps, provider{name: name})
		}
		of[m] = i
	}
	for i := range ps {
		ps[i].stats.Name = ps[i].name
	}
	return ps, of
}

// enqueue adds w at the tail of the queue. As in fifo.add, a full buffer
// at least half of which lies before the head has the waiters left moved
// to its front instead of growing, so the queue stays within four times
// the most waiters it ever held (cache-resident), each moved O(1) times on
// average.
func (p *waitQueue) enqueue(w waiter) {
	if len(p.queue) == cap(p.queue) && p.qhead > 0 && p.qhead*2 >= len(p.queue) {
		n := copy(p.queue, p.queue[p.qhead:])
		p.queue, p.qhead = p.queue[:n], 0
	}
	p.queue = append(p.queue, w)
}

// empty drops every waiter in the queue, as dequeuing them all would.
func (p *waitQueue) empty() { p.queue, p.qhead = p.queue[:0], 0 }

func (p *waitQueue) dequeue() (waiter, bool) {
	if p.qhead == len(p.queue) {
		return waiter{}, false
	}
	w := p.queue[p.qhead]
	if p.qhead++; p.qhead == len(p.queue) {
		p.queue, p.qhead = p.queue[:0], 0 // empty: start again at the front
	}
	return w, true
}
