package sim

import (
	"fmt"
	"math"
)

// Offered load. A provider with a concurrency limit c and an unbounded
// queue is stable only while the work offered to it per second is below
// c: at or above, its queue grows for as long as requests arrive, and
// every figure of the run depends on how long it is. The run marks, for
// each limited provider, the attempts that have started service (S) and
// those waiting (W) at the arrival of the middle request and of the last;
// between the two marks the queue grew by ΔW while ΔS attempts were
// served. The offered load ρ — work offered per second over c — is
// estimated as
//
//	ρ̂ = U · (ΔS + ΔW) / ΔS
//
// with U the provider's utilisation (over its own span): a stable queue
// does not grow (ΔW ≈ 0) and ρ̂ ≈ U = ρ; an overloaded one is busy
// throughout (U ≈ 1) and takes on ρ attempts for each it serves, so ρ̂ ≈
// ρ. Work that deadlines cancel (queued attempts freed, attempts in
// service cut short) is not offered: it counts only as far as it ran. The
// queue is growing when, besides ρ̂ ≥ 1, ΔW exceeds 3·√(W_mid + W_last +
// 1), three times the fluctuation of a queue that does not grow: a
// saturated queue that stays short does not count as growing — its
// figures do not depend on the run's length. A replica pool's replicas
// queue apart, so each replica with a concurrency limit and an unbounded
// queue is marked and judged on its own (ReplicaResult.Unstable): a
// balancer that ignores queues (random, round robin) keeps sending a slow
// replica its share however long its queue, which grows while the pool as
// a whole is far from full.

// loadMark is what a provider had served and held waiting at one arrival.
type loadMark struct {
	started, waiting int64
	set              bool
}

// markOrHold is called when request e.next − 1, sent by closed-loop
// client cl (or by the open arrivals when cl < 0), has started and e.next
// is the middle request or the last (markLoad), or a growing run's
// pauseAt, where it holds after the current event (fork.go).
func (e *engine) markOrHold(cl int32) {
	if e.next == e.pauseAt {
		e.hold(cl < 0)
	}
	if e.next == e.end || e.next == e.half() {
		e.markLoad(e.next != e.end)
	}
}

// half is the middle request, e.end/2, by a shift: e.end is never
// negative, and arriveFrom asks on every arrival (a signed division
// costs a sign correction).
func (e *engine) half() int64 { return int64(uint64(e.end) >> 1) }

// markLoad records every limited provider's — and every limited
// replica's — served and waiting attempts at the middle request's arrival
// (mid) or the last's.
func (e *engine) markLoad(mid bool) {
	k := 1
	if mid {
		k = 0
	}
	for i := range e.provs {
		pv := &e.provs[i]
		if pv.capacity > 0 {
			pv.marks[k] = loadMark{started: pv.stats.started, waiting: int64(pv.waiting), set: true}
		}
		if pl := pv.pool; pl != nil && pl.cfg.Concurrency > 0 {
			for j := range pl.reps {
				rp := &pl.reps[j]
				rp.marks[k] = loadMark{started: rp.stats.started, waiting: int64(rp.waiting), set: true}
			}
		}
	}
}

// offeredLoad returns pv's ρ̂ for utilisation u, and whether its queue is
// growing; 0 and false when it has no concurrency limit, no marks, a
// bounded queue (which cannot grow) or a replica pool (whose replicas
// queue apart).
func (pv *provider) offeredLoad(u float64) (float64, bool) {
	if pv.capacity == 0 || pv.bounded || pv.pool != nil {
		return 0, false
	}
	return growth(pv.marks, u)
}

// replicaLoad returns replica rp's ρ̂ for utilisation u, and whether its
// queue is growing; 0 and false when its pool has no concurrency limit
// or bounds its queues.
func (pl *pool) replicaLoad(rp *replica, u float64) (float64, bool) {
	if pl.cfg.Concurrency == 0 || pl.cfg.RejectWhenFull {
		return 0, false
	}
	return growth(rp.marks, u)
}

// growth returns ρ̂ for utilisation u from the marks at the middle and the
// last arrival, and whether the queue grew (see Offered load); 0 and
// false when a mark is missing.
func growth(marks [2]loadMark, u float64) (float64, bool) {
	a, b := marks[0], marks[1]
	if !a.set || !b.set {
		return 0, false
	}
	ds, dw := float64(b.started-a.started), float64(b.waiting-a.waiting)
	rho := u
	if ds > 0 {
		rho = u * (ds + dw) / ds
	} else if dw > 0 {
		rho = u * (1 + dw) // nothing served between the marks
	}
	return rho, rho >= 1 && dw > 3*math.Sqrt(float64(a.waiting+b.waiting+1))
}

// OfferedLoad returns the provider's estimated offered load in the run, as
// a fraction of its concurrency (see Offered load); 0 for a provider
// without a concurrency limit or with a bounded queue.
func (p *ProviderResult) OfferedLoad() float64 { return p.offered }

// Unstable reports whether the provider's offered load is at or above its
// capacity and its queue grew: it grows for as long as requests arrive.
func (p *ProviderResult) Unstable() bool { return p.growing }

// unstableWarning says that provider p is unstable in the run named by
// run ("without hedging", "with hedging").
func unstableWarning(p *ProviderResult, run string) string {
	return fmt.Sprintf("provider %s is offered %.0f%% of its capacity %s (utilisation %.1f%%): its queue grows without bound while requests arrive, so every figure of this run depends on how long it is; lower the load, raise its concurrency, or bound its queue (queue_limit)",
		p.Name, 100*p.offered, run, 100*deref(p.Utilisation))
}

// OfferedLoad returns the replica's estimated offered load in the run, as
// a fraction of its concurrency (see Offered load); 0 for a replica
// without a concurrency limit or with a bounded queue.
func (r *ReplicaResult) OfferedLoad() float64 { return r.offered }

// Unstable reports whether the replica's offered load is at or above its
// concurrency and its queue grew: it grows for as long as requests
// arrive, whatever the rest of its pool does.
func (r *ReplicaResult) Unstable() bool { return r.growing }

// unstableReplicaWarning says that replica r of the pool p is unstable in
// the run named by run, with the pool's utilisation as a whole (poolUtil;
// nil when unknown).
func unstableReplicaWarning(p *PoolResult, r *ReplicaResult, run string, poolUtil *float64) string {
	whole := ""
	if poolUtil != nil {
		whole = fmt.Sprintf(" while the pool as a whole is at %.1f%% utilisation", 100**poolUtil)
	}
	return fmt.Sprintf("replica %d of the pool of provider %s is offered %.0f%% of its capacity %s (utilisation %.1f%%, mean queue wait %s)%s: its queue grows without bound while requests arrive, so every figure of this run depends on how long it is; its balancer (%s) sends it more than it serves — lower the load, raise its concurrency%s, or bound its queues (queue_limit)",
		r.Replica, p.Provider, 100*r.offered, run, 100*deref(r.Utilisation), FormatSeconds(r.MeanQueueWait), whole, p.Balancer, queueBlindAdvice(p.Balancer))
}

func deref(x *float64) float64 {
	if x == nil {
		return 0
	}
	return *x
}
