package sim

import (
	"fmt"
	"math"
	"time"
)

// A router that does not count its own open requests reads each replica's
// load from the replica — vLLM's /load endpoint polled every few seconds
// (vllm-project/router#177), a Prometheus scrape — and so sees the past.
// A View says how old: the balancer's load of a replica (attempts queued
// or in service there) is the load at its last refresh, not now. Acting
// on old load, least_outstanding and p2c send a burst of requests to the
// replica that looked emptiest at the last refresh (herding; Mitzenmacher,
// "How useful is old information?", IEEE TPDS 11(1), 2000).
//
// What it observes: each replica's load just before a refresh time T (its
// left limit: changes at T itself come after the refresh). When it acts:
// never on its own — it is lazy. A replica's snapshot is brought up to date
// when the balancer reads it (pool.load) or just before its load changes
// (pool.touch, called where an attempt takes or leaves a replica's slot or
// queue): every refresh between the last such moment and now saw the same
// load, the one held since, so the snapshot is exact without an event per
// refresh. Cost: O(1) per read or change, plus, with Jitter, O(1) per
// refresh that fell due since the replica's last read or change.
//
// Where it enters the loop: pool.load, which every load-reading balancer
// (least_outstanding, p2c, latency_ewma) calls, and pool.touch in
// dispatchPool, releaseReplica and leavePool.

// MinJitteredRefresh bounds View.Refresh from below when scrapes are
// jittered: each scrape's interval is drawn in turn when the replica is
// next read or changes, so a refresh of nanoseconds would draw billions
// of them between two events.
const MinJitteredRefresh = time.Millisecond

// View is how a pool's balancer sees its replicas' load (Pool.View): a
// snapshot refreshed every Refresh, all replicas together or each on its
// own scrape schedule, in which some replicas' reported load may be stuck.
type View struct {
	// Refresh is the time between refreshes; > 0.
	Refresh time.Duration
	// Scrape gives each replica its own schedule, at a phase drawn
	// uniformly in [0, Refresh) per replica, as a Prometheus server
	// spreads its targets' scrapes; otherwise every replica is
	// refreshed together at 0, Refresh, 2·Refresh, …
	Scrape bool
	// Jitter, with Scrape, draws each interval between a replica's
	// scrapes uniformly in Refresh·[1 − Jitter, 1 + Jitter]; in [0, 1),
	// and when > 0 Refresh must be ≥ MinJitteredRefresh.
	Jitter float64
	// Stuck lists periods in which a replica's reported load stops
	// updating: its refreshes in [At, At + For) leave the load the
	// balancer sees as it was.
	Stuck []Stuck
}

// Stuck is a period in which one replica's reported load stops updating.
type Stuck struct {
	// Replica is the replica's index, in [0, Pool.Replicas).
	Replica int
	// At is when the signal sticks, ≥ 0; For how long, 0 meaning until
	// the end of the run, else ≥ View.Refresh (a shorter period would
	// miss at most one refresh, and none unless one falls in it).
	At, For time.Duration
}

// validate checks v for a pool of n replicas.
func (v *View) validate(n int) error {
	if v.Refresh <= 0 {
		return fmt.Errorf("pool: view refresh %v: must be > 0", v.Refresh)
	}
	if !(v.Jitter >= 0 && v.Jitter < 1) {
		return fmt.Errorf("pool: scrape jitter %v: must be in [0, 1)", v.Jitter)
	}
	if v.Jitter > 0 && !v.Scrape {
		return fmt.Errorf("pool: scrape jitter %v needs each replica on its own scrape schedule (Scrape)", v.Jitter)
	}
	if v.Jitter > 0 && v.Refresh < MinJitteredRefresh {
		return fmt.Errorf("pool: view refresh %v with scrape jitter: must be ≥ %v", v.Refresh, MinJitteredRefresh)
	}
	for _, s := range v.Stuck {
		if s.Replica < 0 || s.Replica >= n {
			return fmt.Errorf("pool: a stuck load signal of replica %d: must be in [0, %d)", s.Replica, n)
		}
		if s.At < 0 || s.For < 0 {
			return fmt.Errorf("pool: replica %d's load signal stuck at %v for %v: both must be ≥ 0", s.Replica, s.At, s.For)
		}
		if s.For > 0 && s.For < v.Refresh {
			return fmt.Errorf("pool: replica %d's load signal stuck for %v, less than the view refresh %v: it misses at most one refresh, and none unless one falls in it; want For ≥ Refresh, or 0 (until the end of the run)", s.Replica, s.For, v.Refresh)
		}
	}
	return nil
}

// view is the run-time state of a pool's View.
type view struct {
	cfg  *View
	reps []viewRep
	// stuck holds each replica's stuck periods as [from, to) windows; nil
	// without any.
	stuck [][2]time.Duration
	// work counts the jittered scrapes drawn (units of work,
	// engine.chargeWork) since the pool's takeWork last took them.
	work int
}

// viewRep is what the balancer sees of one replica.
type viewRep struct {
	// next is the first refresh not yet applied, phase the replica's first
	// refresh (0 unless Scrape).
	next, phase time.Duration
	// load is the load the balancer sees: the replica's at its last
	// refresh, or 0 before its first.
	load int32
	// rep is the replica's index, src its scrape schedule's stream.
	rep int32
	src splitMix
}

// viewKey is the stream key of a view's scrape schedules.
const viewKey = 0x9004 << 32

// newView returns the run-time view of c for a pool of n replicas of
// provider prov, or nil when c is.
func newView(c *View, n int, seed uint64, prov int) *view {
	if c == nil {
		return nil
	}
	v := &view{cfg: c, reps: make([]viewRep, n)}
	for i := range v.reps {
		s := &v.reps[i]
		s.rep = int32(i)
		if c.Scrape {
			s.src.s = splitmix64(seed ^ viewKey ^ uint64(prov)<<16 ^ uint64(i))
			s.phase = time.Duration(s.src.float64() * float64(c.Refresh))
			s.next = s.phase
		}
	}
	for _, st := range c.Stuck {
		to := time.Duration(math.MaxInt64)
		if st.For > 0 && st.At <= math.MaxInt64-st.For {
			to = st.At + st.For
		}
		if v.stuck == nil {
			v.stuck = make([][2]time.Duration, 0, len(c.Stuck))
		}
		v.stuck = append(v.stuck, [2]time.Duration{st.At, to})
	}
	return v
}

// load returns the load of replica rp of pl — attempts queued or in
// service — as its balancer sees it at now: the live count, or, with a
// view, the count at the view's last refresh. Every balancer that reads
// load reads it here. It inlines; the view's part does not.
func (pl *pool) load(rp *replica, now time.Duration) int {
	if pl.view == nil {
		return rp.busy + rp.waiting
	}
	return pl.view.viewed(rp, now)
}

// touch brings the view of replica rp up to date at now just before its
// load changes: the refreshes due by now saw the load it holds until
// then. Without a view it does nothing.
func (pl *pool) touch(rp *replica, now time.Duration) {
	if pl.view != nil {
		pl.view.viewed(rp, now)
	}
}

// viewed returns the load v shows at now of replica rp.
//
//go:noinline
func (v *view) viewed(rp *replica, now time.Duration) int {
	return v.see(rp.stats.Replica, now, rp.busy+rp.waiting)
}

// see returns the load the balancer sees of replica i at now, whose live
// load is live and has been since the replica's last read or change.
func (v *view) see(i int, now time.Duration, live int) int {
	s := &v.reps[i]
	if now >= s.next {
		v.refresh(s, now, live)
	}
	return int(s.load)
}

// refresh applies the refreshes of s due in [s.next, now], which all saw
// load live: the snapshot takes it when one of them is not in a stuck
// period of the replica.
func (v *view) refresh(s *viewRep, now time.Duration, live int) {
	from := s.next
	last := time.Duration(-1) // the last refresh in [from, now] not stuck
	d := v.cfg.Refresh
	if v.cfg.Jitter == 0 {
		last = s.phase + (now-s.phase)/d*d
		s.next = last + d
		if v.stuck != nil {
			last = v.unstuck(int(s.rep), last, s.phase)
		}
	} else {
		for t := s.next; t <= now; t = s.next {
			if v.stuck == nil || !v.isStuck(int(s.rep), t) {
				last = t
			}
			span := float64(d) * (1 + v.cfg.Jitter*(2*s.src.float64()-1))
			s.next = t + max(1, time.Duration(span))
			v.work++
		}
	}
	if last >= from {
		s.load = int32(live)
	}
}

// isStuck reports whether replica i's signal is stuck at t.
func (v *view) isStuck(i int, t time.Duration) bool {
	for j, w := range v.stuck {
		if v.cfg.Stuck[j].Replica == i && t >= w[0] && t < w[1] {
			return true
		}
	}
	return false
}

// unstuck returns the latest refresh at or before t, on the schedule
// phase + k·Refresh, that is not in a stuck period of replica i; −1 when
// none is.
func (v *view) unstuck(i int, t, phase time.Duration) time.Duration {
	d := v.cfg.Refresh
	for t >= 0 && v.isStuck(i, t) {
		var from time.Duration
		for j, w := range v.stuck {
			if v.cfg.Stuck[j].Replica == i && t >= w[0] && t < w[1] {
				from = w[0]
				break
			}
		}
		if from <= phase {
			return -1
		}
		t = phase + (from-phase-1)/d*d // the last refresh before from
	}
	return t
}
