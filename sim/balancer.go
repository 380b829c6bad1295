package sim

import (
	"math"
	"math/bits"
)

// A pool's balancer picks the replica of each attempt when it passes its
// gates (dispatchPool). It sees, per replica, the attempts queued and in
// service there (losers included until their cancel lands: what a router
// tracking its open requests sees), or with a View their number at the
// view's last refresh (pool.load, view.go), and, for LatencyEWMA, a moving
// average of the replica's response times (observe; unmeasured.go for a
// replica without one). Replicas out of service for a restart are left
// out (restart.go). Random draws come from the stream of (request,
// replicaStream + attempt, try), apart from the attempt's other draws, so
// every policy sends request i's attempt k to the same replica under a
// random balancer, and pools change no other draw.

// replicaStream is the first of the streams of the balancer's draws:
// attempt k draws from replicaStream + k (k ≤ MaxCopies).
const replicaStream = 0xe8

// pick returns the index of the replica of pool pl that attempt k of r
// goes to, by the pool's balancer. Unless the pool has AnyReplica set,
// the replicas that hold another attempt of r — queued or in service, let
// go of but not yet gone included — are left out, and so is avoid − 1 when
// avoid > 0 (the replica of the call that attempt k retries); when that
// leaves none, none is left out (and the pick counts as shared). Replicas
// out of service are left out too, unless that leaves none (leaveOut).
// Each pick costs O(attempts²) for the exclusions (O(attempts + out of
// service) with restarts), plus O(1) for random, round robin, p2c and
// latency_ewma and O(replicas) for least_outstanding, whose scan walks
// the ascending left-out list beside the replicas. The per-replica work
// counts towards the run's next look at its context (chargeWork).
//
// a is &r.att[k].
//
// A pool without a scaler or restarts (pool.plainPick) takes pick's own
// path, which calls out only where it must, so it saves no registers —
// pickTurn for round robin and least_outstanding; pickAny does the rest.
func (e *engine) pick(pl *pool, r *request, k int, a *attempt, avoid uint16) int {
	if !pl.plainPick {
		return e.pickAny(pl, r, k, a, avoid)
	}
	n := len(pl.reps) // every replica is up
	// left: as in pickAny. A copy of a request with one other attempt
	// and no replica to avoid (most copies) leaves out at most that
	// attempt's replica (lone), without exclusions' scan.
	var left []int
	if (avoid != 0 || r.sent > 1) && !pl.anyReplica {
		if avoid == 0 && r.sent == 2 && k < 2 && n > 1 {
			left = pl.lone(&r.att[k^1], a.prov, n)
		} else {
			left = pl.exclusions(r, k, a.prov, avoid, n)
		}
	}
	if pl.turns {
		return e.pickTurn(pl, r, k, a, left)
	}
	// The first state of the stream e.rng.atTry(r.id, replicaStream+k,
	// try key) would return, from r's stream key (request.stream).
	s := r.stream(replicaStream+uint8(k), tryKey(r.round, a.try))
	c := n - len(left) // replicas to pick from
	u1 := scaled(splitmix64(s), c)
	if pl.random || c == 1 {
		return nth(left, u1)
	}
	u2 := scaled(splitmix64(s+0x9e3779b97f4a7c15), c-1)
	if u2 >= u1 {
		u2++
	}
	i, j := u1, u2
	if len(left) != 0 {
		i, j = nth(left, u1), nth(left, u2)
	}
	if pl.view != nil || pl.ewma {
		return e.pickOfTwo(pl, i, j)
	}
	// p2c on live load: the one with fewer attempts, the first on a tie.
	ri, rj := &pl.reps[i], &pl.reps[j]
	if rj.busy+rj.waiting < ri.busy+ri.waiting {
		return j
	}
	return i
}

// replicaState returns the first state of the stream of the balancer's
// draws for attempt k of r (a is &r.att[k]): the state
// e.rng.atTry(r.id, replicaStream+k, try key) would hold, from r's stream
// key (request.stream) without a call. The stream's first two numbers, as
// splitMix.Uint64 draws them from state s, are splitmix64 of s and of
// s + γ: drawn so, the state stays in a register.
func (e *engine) replicaState(r *request, k int, a *attempt) uint64 {
	return r.stream(replicaStream+uint8(k), tryKey(r.round, a.try))
}

// pickTurn is pick's round robin or least_outstanding (pool.turns) at a
// pool without a scaler or restarts, whose n = len(pl.reps) replicas are
// all up, over those not in left (ascending).
func (e *engine) pickTurn(pl *pool, r *request, k int, a *attempt, left []int) int {
	if pl.cfg.Balancer == RoundRobin {
		// roundRobin's turn: pl.next < n, as n never changes.
		n := len(pl.reps)
		i := pl.next
		for len(left) != 0 && contains(left, i) {
			if i++; i == n {
				i = 0
			}
		}
		if pl.next = i + 1; pl.next == n {
			pl.next = 0
		}
		return i
	}
	if pl.view != nil {
		return e.leastOutstanding(pl, len(pl.reps), left, &splitMix{e.replicaState(r, k, a)})
	}
	// leastOutstanding on live load, with the same result: leastScan
	// finds the least load and its ties, and the draws leastOutstanding's
	// reservoir would make are made only for the ties at the least load
	// (keptTie, lastTie), the stream not seeded at all without a tie.
	if len(pl.reps) <= 64 {
		if best, ties, draws, at := leastIdle(pl.reps, left, pl.idle); ties == 1 {
			return best
		} else if ties > 1 {
			e.chargeWork(best) // the replicas walked before best
			return keptTie(at, ties, draws, e.replicaState(r, k, a))
		}
	}
	e.chargeWork(len(pl.reps)) // a replica looked at is a unit of work
	best, ties, load, draws, at := leastScan(pl.reps, left)
	if ties == 1 {
		return best
	}
	s := e.replicaState(r, k, a)
	if len(pl.reps) > 64 {
		return lastTie(pl.reps, left, best, ties, load, draws, s)
	}
	return keptTie(at, ties, draws, s)
}

// leastScan returns the first of the replicas not in left (ascending)
// with the least live load, load, the number of them, ties, the number
// of draws leastOutstanding's reservoir makes over the replicas (one
// per tie with the least load so far), and, when there are at most 64
// replicas, the ties as the bits of at (bit i for replica i).
//
// Not inlined: alone, its loop keeps its values in registers.
//
//go:noinline
func leastScan(reps []replica, left []int) (best, ties, load, draws int, at uint64) {
	load = math.MaxInt
	next := 0 // left[next] is the next left-out replica to skip
	for i := range reps {
		if next < len(left) && left[next] == i {
			next++
			continue
		}
		l := reps[i].busy + reps[i].waiting
		if l > load {
			continue
		}
		bit := uint64(1) << (uint(i) & 63) // used for i < 64 only
		if l == load {
			ties++
			draws++
			at |= bit
			continue
		}
		best, ties, load, at = i, 1, l, bit
	}
	return best, ties, load, draws, at
}

// leastIdle is leastScan for at most 64 replicas, idle having bit i set
// when replica i has nothing queued or in service (pool.idle): when one
// not in left (ascending) is idle, the least load is 0 and its ties are
// those, found without a scan; only the draws leastOutstanding's
// reservoir made before the first of them, best, take a walk of the
// replicas before it. ties is 0 when none is idle.
func leastIdle(reps []replica, left []int, idle uint64) (best, ties, draws int, at uint64) {
	at = idle
	for _, x := range left {
		at &^= 1 << uint(x)
	}
	if at == 0 {
		return 0, 0, 0, 0
	}
	best, ties = bits.TrailingZeros64(at), bits.OnesCount64(at)
	draws = ties - 1
	if ties > 1 && best != 0 {
		// The draws before best: one per replica not in left whose
		// load ties the least before it (all ≥ 1).
		load, next := math.MaxInt, 0
		for i := range reps[:best] {
			if next < len(left) && left[next] == i {
				next++
				continue
			}
			if l := reps[i].busy + reps[i].waiting; l < load {
				load = l
			} else if l == load {
				draws++
			}
		}
	}
	return best, ties, draws, at
}

// drawsBefore is leastIdle's count of the draws before best, the first
// idle replica, for best ≤ 2 and at most one replica, x, left out (none
// when x < 0): the replicas before best are busy; the first of them not
// left out draws nothing, and the second (both ahead of best = 2,
// neither left out) draws when its load ties the first's.
func drawsBefore(reps []replica, best, x int) int {
	if best == 2 && uint(x) > 1 && reps[0].busy+reps[0].waiting == reps[1].busy+reps[1].waiting {
		return 1
	}
	return 0
}

// walkDraws is leastIdle's count of the draws before best, the first
// idle replica, reps being the replicas before it, all busy, and x the
// one left out (none when x < 0 or x ≥ len(reps)): one per replica that
// ties the least load of those before it, the first drawing nothing.
//
//go:noinline
func walkDraws(reps []replica, x int) (draws int) {
	load := math.MaxInt
	for i := range reps {
		if i == x {
			continue
		}
		if l := reps[i].busy + reps[i].waiting; l < load {
			load = l
		} else if l == load {
			draws++
		}
	}
	return draws
}

// The ties at the least load drew the last ties − 1 of the draws numbers
// of leastOutstanding's reservoir, from the stream of first state s (the
// m-th, from 0, being splitmix64(s + m·γ)), the tie that made ties its
// count drawing number draws − 1 and kept when it is 0 in [0, ties):
// walked from the last tie back, the first kept is the one the
// reservoir kept last, and none kept leaves the first, best.

// keptTie returns the replica leastOutstanding's reservoir keeps of the
// ties whose bits at holds (bit i for replica i; its lowest the first).
// The walk back finds the count t of the tie kept, its draw's state
// stepped back by γ a tie, and only then the tie, the t-th of at's bits.
func keptTie(at uint64, ties, draws int, s uint64) int {
	x := s + uint64(draws-1)*0x9e3779b97f4a7c15 // the state of draw number draws − 1
	t := ties
	for ; t > 1; t-- {
		if scaled(splitmix64(x), t) == 0 {
			break
		}
		x -= 0x9e3779b97f4a7c15
	}
	for ; t > 1; t-- {
		at &= at - 1 // the lowest tie is not kept
	}
	return bits.TrailingZeros64(at)
}

// lastTie is keptTie for any number of replicas: the ties are the
// replicas not in left (ascending) whose live load is load, the first
// best.
func lastTie(reps []replica, left []int, best, ties, load, draws int, s uint64) int {
	next := len(left) - 1
	for i := len(reps) - 1; i > best; i-- {
		if next >= 0 && left[next] == i {
			next--
			continue
		}
		if reps[i].busy+reps[i].waiting != load {
			continue
		}
		draws--
		if scaled(splitmix64(s+uint64(draws)*0x9e3779b97f4a7c15), ties) == 0 {
			return i
		}
		ties--
	}
	return best
}

// pickOfTwo is pick's choice between replicas i and j (drawn in that
// order) of a p2c pool with a view or of a latency_ewma pool.
func (e *engine) pickOfTwo(pl *pool, i, j int) int {
	ri, rj := &pl.reps[i], &pl.reps[j]
	la, lb := pl.load(ri, e.now), pl.load(rj, e.now)
	if !pl.ewma {
		if lb < la {
			return j
		}
		return i
	}
	// LatencyEWMA: the lower avg × (outstanding + 1).
	cj, ci := pl.cost(rj, lb), pl.cost(ri, la)
	if pl.work != 0 { // a scan of unmeasured replicas (unmeasured.go)
		e.chargeWork(pl.work)
		pl.work = 0
	}
	if cj < ci {
		return j
	}
	return i
}

// lone is exclusions for a pick whose request has one other attempt, b,
// and no replica to avoid, in a pool of n > 1 replicas: b's replica when
// b holds one below n at pl's provider, prov, in flight or let go of but
// not yet gone, else none. (One replica left out of n > 1 leaves some:
// the pick is never shared.)
func (pl *pool) lone(b *attempt, prov int32, n int) []int {
	if b.rep == 0 || b.prov != prov || b.state != attInFlight && b.state != attAbandoned {
		return nil
	}
	x := int(b.rep - 1)
	if x >= n {
		return nil
	}
	pl.ex[0] = x
	return pl.ex[:1]
}

// pickAny is pick for any pool.
func (e *engine) pickAny(pl *pool, r *request, k int, a *attempt, avoid uint16) int {
	n := pl.routable() // replicas [0, n) are up
	// left holds the left-out replicas, ascending and distinct. A
	// request's first call of its primary (sent = 1, no avoid) leaves none
	// out: the scan of its attempts is skipped.
	var left []int
	if (avoid != 0 || r.sent > 1) && !pl.cfg.AnyReplica {
		left = pl.exclusions(r, k, a.prov, avoid, n)
	}
	if pl.churn != nil {
		left = pl.leaveOut(e.now, left) // replicas out of service too
	}
	bal := pl.cfg.Balancer
	if bal == RoundRobin {
		return pl.roundRobin(n, left)
	}
	// The first state of the stream e.rng.atTry(r.id, replicaStream+k,
	// try key) would return, from r's stream key (request.stream).
	s := r.stream(replicaStream+uint8(k), tryKey(r.round, a.try))
	if bal == LeastOutstanding {
		return e.leastOutstanding(pl, n, left, &splitMix{s})
	}
	c := n - len(left) // replicas to pick from
	u1 := scaled(splitmix64(s), c)
	if bal == RandomBalancer || c == 1 {
		return nth(left, u1)
	}
	u2 := scaled(splitmix64(s+0x9e3779b97f4a7c15), c-1)
	if u2 >= u1 {
		u2++
	}
	i, j := u1, u2
	if len(left) != 0 {
		i, j = nth(left, u1), nth(left, u2)
	}
	ri, rj := &pl.reps[i], &pl.reps[j]
	var la, lb int
	if pl.view == nil { // pl.load without a view
		la, lb = ri.busy+ri.waiting, rj.busy+rj.waiting
	} else {
		la, lb = pl.load(ri, e.now), pl.load(rj, e.now)
	}
	if bal == PowerOfTwo {
		if lb < la {
			return j
		}
		return i
	}
	// LatencyEWMA: the lower avg × (outstanding + 1).
	cj, ci := pl.cost(rj, lb), pl.cost(ri, la)
	if pl.work != 0 { // a scan of unmeasured replicas (unmeasured.go)
		e.chargeWork(pl.work)
		pl.work = 0
	}
	if cj < ci {
		return j
	}
	return i
}

// roundRobin is pick's round robin over the replicas [0, n) not in left.
func (pl *pool) roundRobin(n int, left []int) int {
	i := pl.next % n // the replicas up may have fallen
	for ; ; i = (i + 1) % n {
		if !contains(left, i) {
			break
		}
	}
	pl.next = (i + 1) % n
	return i
}

// leastOutstanding is pick's least_outstanding over the replicas [0, n)
// not in left, its ties broken by draws from src.
func (e *engine) leastOutstanding(pl *pool, n int, left []int, src *splitMix) int {
	best, ties, load := -1, 0, 0
	e.chargeWork(n) // a replica looked at is a unit of work
	next := 0       // left[next] is the next left-out replica to skip
	for i := range pl.reps[:n] {
		if next < len(left) && left[next] == i {
			next++
			continue
		}
		l := pl.load(&pl.reps[i], e.now)
		switch {
		case best < 0 || l < load:
			best, ties, load = i, 1, l
		case l == load:
			// Reservoir sampling: each of the ties is kept with
			// probability 1/ties.
			if ties++; below(src, ties) == 0 {
				best = i
			}
		}
	}
	return best
}

// nth returns the u-th replica, from 0, of those not in left (ascending).
func nth(left []int, u int) int {
	for _, x := range left {
		if x <= u {
			u++
		}
	}
	return u
}

// exclusions returns, in pl.ex, the replicas below n that attempt k of
// r is to avoid: avoid − 1 when avoid > 0, and those holding another of
// r's attempts at pl's provider, prov — none, counting the pick as
// shared, when that leaves none.
func (pl *pool) exclusions(r *request, k int, prov int32, avoid uint16, n int) []int {
	ex := &pl.ex
	m := 0
	if x := int(avoid) - 1; x >= 0 && x < n { // a replica not up (scaler.go) is never picked
		ex[0], m = x, 1
	}
	for j := 0; j < int(r.sent); j++ {
		b := &r.att[j]
		if j == k || b.rep == 0 || b.prov != prov || b.state != attInFlight && b.state != attAbandoned {
			continue
		}
		x := int(b.rep - 1)
		if x >= n {
			continue
		}
		i := 0 // insert x at its place, once
		for i < m && ex[i] < x {
			i++
		}
		if i < m && ex[i] == x {
			continue
		}
		for q := m; q > i; q-- {
			ex[q] = ex[q-1]
		}
		ex[i] = x
		m++
	}
	if m >= n {
		m = 0
		pl.shared++
	}
	return ex[:m]
}

// below returns a uniform integer in [0, n) from src, by the high word of
// a 64 × 64-bit product (Lemire's method without its rejection step: a
// bias below n/2⁶⁴).
func below(src *splitMix, n int) int { return scaled(src.Uint64(), n) }

// scaled returns the integer in [0, n) that below draws from the random
// number u.
func scaled(u uint64, n int) int {
	hi, _ := bits.Mul64(u, uint64(n))
	return int(hi)
}

// contains reports whether the ascending xs hold x.
func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y >= x {
			return y == x
		}
	}
	return false
}
