package sim

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// outcome is the fate of an attempt or a request.
type outcome uint8

const (
	outNone           outcome = iota
	outOK                     // a valid answer
	outError                  // an error response (5xx, outage)
	outRateLimited            // a 429 from a rate limit
	outInvalid                // an answer that is not usable
	outAttemptTimeout         // an attempt abandoned after its timeout
	outTimeout                // the request reached its deadline (requests only)
)

// attState is where an attempt is in its life.
type attState uint8

const (
	attInFlight attState = iota
	attDone              // responded (or won) and has been accounted
	attGone              // ended by the request's end or a timeout, and accounted
	attSkipped           // a copy a budget denied: never sent
)

// attempt is one call to one model. Times are absolute simulated times.
// Until service starts (it may wait in its provider's queue), first, genFrom
// and end are unknown and the work fields hold what service will take.
type attempt struct {
	model   int32
	prov    int32
	kind    outcome       // what the call will return if it runs to the end
	state   attState      // in flight, done, gone or skipped
	queued  bool          // waiting in the provider's queue
	serving bool          // holds a slot of a provider with a concurrency limit
	start   time.Duration // when it was sent
	svc     time.Duration // when its service started
	first   time.Duration // first token (streamed form) or full answer
	genFrom time.Duration // output tokens are generated linearly from here …
	end     time.Duration // … to here; for an error, when the error arrives

	// Work to do once in service: time to first token (or the whole call),
	// then decoding; for an error, the time until it is reported.
	workFirst, workDecode, workErr time.Duration
	degU                           float64 // uniform deciding a degraded-period failure
	streamed                       bool    // TTFT form: tokens flow from first on
	limitedBy                      gate    // the gate that answered 429
}

// request is the state of one request while it is in flight. Slots are
// reused; gen tells a live request from stale events of an earlier one.
type request struct {
	gen      uint32
	class    int32
	id       int64
	arrival  time.Duration
	in, out  float64 // input and output tokens
	sent     uint8   // attempts sent so far (primary included)
	inflight uint8
	lastFail outcome
	timer    uint8 // copy index of the pending hedge timer, or noTimer
	// hedgedCopies counts copies actually sent (not denied).
	hedgedCopies uint8
	att          [MaxCopies + 1]attempt
	innov        [MaxCopies + 1]float64 // copula: independent normal draw of each attempt
}

// classStats accumulates one class's results.
type classStats struct {
	requests, answered, timeoutsOpen, timeoutsClosed int64
	errors, invalid, hedged                          int64
	sent, completed, failed, invalidAtt, cancelled   int64
	rateLimited, reqRateLimited, timedOut            int64
	wastedOutput                                     float64
	// billed[2m] and billed[2m+1] are what model m billed for attempts that
	// responded and for cancelled ones. Token counts are whole numbers, so
	// their sums are exact and independent of the order of events.
	billed []bill
	// latencies are the times to a usable answer of the answered
	// requests, and missEnds the times until the other requests ended
	// (misses: no usable answer by the deadline), in the order they end.
	latencies, missEnds []time.Duration
}

// record books the latency d of a request that ended with outcome o: the
// time to its usable answer, or, for a miss, the time until it ended.
func (s *classStats) record(o outcome, d time.Duration) {
	if o == outOK {
		s.latencies = append(s.latencies, d)
	} else {
		s.missEnds = append(s.missEnds, d)
	}
}

// engine is one simulation run.
type engine struct {
	cfg     *Config
	rng     streams
	q       eventQueue
	seq     uint64
	now     time.Duration
	slots   []request
	free    []int32
	next    int64         // index of the next request to arrive
	lastArr time.Duration // arrival time of request next-1
	shares  []float64     // cumulative class shares
	stats   []classStats
	trace   func(*AttemptRecord) // optional, see RunTrace

	isolated   bool  // requests do not interact: run them one at a time
	arrival    event // the next arrival, when arrivalDue
	arrivalDue bool  // whether arrival is pending (global runs)
	// deadline is the current request\'s deadline when isolated and
	// deadlineDue.
	deadline    event
	deadlineDue bool
	deadlines   []fifo // per class, deadlines in time order
	rec         AttemptRecord
	provs       []provider
	copula      [][][]float64 // per class, the copula factor; nil when independent
	modelProv   []int         // provider index of each model
	gates       [][]gate      // per model: its rate limit, then its provider's
	lastEvent   time.Duration // when the last request or attempt ended: the run's length
	classes     []classState  // per class: budgets and adaptive delay
	// queueAllTimers turns off the skipping of timers that cannot fire
	// (endsBy), for the test that checks it changes nothing.
	queueAllTimers bool
}

func newEngine(cfg *Config) *engine {
	e := &engine{cfg: cfg, rng: streams{seed: cfg.Seed}}
	e.q = make(eventQueue, 0, 1024)
	e.deadlines = make([]fifo, len(cfg.Classes))
	e.isolated = cfg.independent()
	var cum float64
	for _, c := range cfg.Classes {
		cum += c.Share
		e.shares = append(e.shares, cum)
	}
	e.provs, e.modelProv = cfg.providers()
	e.gates = make([][]gate, len(cfg.Models))
	for i := range cfg.Models {
		e.gates[i] = newGates(&cfg.Models[i], &e.provs[e.modelProv[i]])
	}
	if cfg.correlated() {
		e.copula = make([][][]float64, len(cfg.Classes))
		for i := range cfg.Classes {
			// Validate has checked that the factor exists.
			e.copula[i], _ = copulaFactor(cfg.Correlation, &cfg.Classes[i].Policy, cfg.Models)
		}
	}
	e.stats = make([]classStats, len(cfg.Classes))
	e.classes = make([]classState, len(cfg.Classes))
	for i := range cfg.Classes {
		e.classes[i] = newClassState(&cfg.Classes[i].Policy)
	}
	for i, c := range cfg.Classes {
		e.stats[i].billed = make([]bill, 2*len(cfg.Models))
		e.stats[i].latencies = getDurations(int(float64(cfg.Requests)*c.Share*1.05) + 16)
	}
	return e
}

func (e *engine) schedule(at time.Duration, kind eventKind, slot int32, gen uint32, k uint8) {
	e.seq++
	ev := event{at: at, seq: e.seq, slot: slot, gen: gen, kind: kind, k: k}
	switch kind {
	case evArrival:
		e.arrival, e.arrivalDue = ev, true
	case evDeadline:
		if e.isolated {
			e.deadline, e.deadlineDue = ev, true // the current request's only deadline
		} else {
			e.deadlines[e.slots[slot].class].push(ev)
		}
	default:
		e.q.push(ev)
	}
}

// pop removes and returns the next event in (time, sequence) order, or false
// when nothing is left. Events live in three places, all ordered: the heap
// (responses and timers), the single pending arrival, and one FIFO of
// deadlines per class — a class's deadlines fall due in arrival order, so
// they need no heap.
// Requests that cannot affect each other are run by runIsolated instead.
func (e *engine) pop() (event, bool) {
	var best *event
	src := -2 // -2 none, -1 heap, -3 arrival, ≥ 0 deadline FIFO of that class
	if len(e.q) > 0 {
		best, src = &e.q[0], -1
	}
	for c := range e.deadlines {
		if h := e.deadlines[c].head(); h != nil && (best == nil || h.before(best)) {
			best, src = h, c
		}
	}
	if e.arrivalDue && (best == nil || e.arrival.before(best)) {
		best, src = &e.arrival, -3
	}
	switch {
	case src == -2:
		return event{}, false
	case src == -1:
		return e.q.pop(), true
	case src == -3:
		e.arrivalDue = false
		return e.arrival, true
	}
	return e.deadlines[src].pop(), true
}

// run processes events until every request has ended.
func (e *engine) run() {
	if e.isolated {
		e.runIsolated()
		return
	}
	e.scheduleArrival()
	for {
		ev, ok := e.pop()
		if !ok {
			return
		}
		e.now = ev.at
		e.handle(ev)
	}
}

// runIsolated runs requests that cannot affect each other one at a time:
// each arrives, then its events are processed until it has ended, and only
// then does the next arrive. Each request sees exactly the events it would
// see in global time order, and the heap stays a few events deep; its
// deadline waits in e.deadline rather than in the heap.
func (e *engine) runIsolated() {
	for e.next < int64(e.cfg.Requests) {
		e.now = e.arrivalTime()
		e.arrive()
		for {
			var ev event
			switch {
			case e.deadlineDue && (len(e.q) == 0 || e.deadline.before(&e.q[0])):
				e.deadlineDue = false
				ev = e.deadline
			case len(e.q) > 0:
				ev = e.q.pop()
			default:
				ev.kind = evArrival // nothing left: on to the next request
			}
			if ev.kind == evArrival {
				break
			}
			e.now = ev.at
			e.handle(ev)
		}
	}
}

// handle processes one event other than an arrival in a global run, or
// any event of an isolated one.
func (e *engine) handle(ev event) {
	switch ev.kind {
	case evArrival:
		e.arrive()
		return
	case evRelease:
		e.release(int(ev.slot))
		return
	}
	r := &e.slots[ev.slot]
	if r.gen != ev.gen {
		return // the request has ended; a stale timer or response
	}
	switch ev.kind {
	case evTimer:
		if int(r.sent) == int(ev.k) {
			e.send(ev.slot, r)
			e.settle(ev.slot, r)
		}
	case evResponse:
		e.respond(ev.slot, r, int(ev.k))
	case evDeadline:
		e.finish(ev.slot, r, outTimeout)
	case evAttemptTimeout:
		e.attemptTimeout(ev.slot, r, int(ev.k))
	}
}

// arrivalTime draws the arrival time of request e.next.
func (e *engine) arrivalTime() time.Duration {
	var at time.Duration
	switch e.cfg.Arrivals.Process {
	case Constant:
		at = seconds(float64(e.next) / e.cfg.Arrivals.Rate)
	case Replay:
		at = e.cfg.Arrivals.Trace.Arrivals[e.next]
	default:
		src := e.rng.at(e.next, arrivalStream)
		gap := rand.New(src).ExpFloat64() / e.cfg.Arrivals.Rate
		at = e.lastArr + seconds(gap)
	}
	e.lastArr = at
	return at
}

// scheduleArrival queues the arrival of request e.next, if any.
func (e *engine) scheduleArrival() {
	if e.next < int64(e.cfg.Requests) {
		e.schedule(e.arrivalTime(), evArrival, -1, 0, 0)
	}
}

// arrive starts request e.next: it draws the class and token counts, arms
// the deadline and sends the primary.
func (e *engine) arrive() {
	id := e.next
	e.next++
	var slot int32
	if n := len(e.free); n > 0 {
		slot = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		e.slots = append(e.slots, request{})
		slot = int32(len(e.slots) - 1)
	}
	r := &e.slots[slot]
	gen := r.gen
	*r = request{gen: gen, id: id, arrival: e.now, timer: noTimer}

	src := e.rng.at(id, requestStream)
	u := uniform(src)
	c := 0
	for c < len(e.shares)-1 && u >= e.shares[c] {
		c++
	}
	tr := e.cfg.Arrivals.Trace
	if tr != nil && tr.Class != nil {
		c = tr.Class[id]
	}
	r.class = int32(c)
	cl := &e.cfg.Classes[c]
	r.in = tokens(cl.InputTokens.Rand(src))
	r.out = tokens(cl.OutputTokens.Rand(src))
	if tr != nil && tr.Input != nil {
		r.in = tokens(tr.Input[id])
	}
	if tr != nil && tr.Output != nil {
		r.out = tokens(tr.Output[id])
	}
	e.stats[c].requests++
	e.classes[c].inflightReqs++
	if id%1024 == 0 {
		for i := range e.provs {
			for _, st := range e.provs[i].stages {
				st.forget(e.now) // nothing later asks about times before this arrival
			}
		}
	}

	if cl.Deadline > 0 {
		e.schedule(e.now+cl.Deadline, evDeadline, slot, r.gen, 0)
	}
	e.send(slot, r)
	if !e.isolated {
		e.scheduleArrival()
	}
}

// send sends the next copy of r now — unless a budget denies it, in which
// case the copy is skipped — and arms the timer of the one after it, or
// sends that at once when its gap is 0. A copy with a negative gap
// (fallback) gets no timer: only a failure under a NonFatal rule sends it.
func (e *engine) send(slot int32, r *request) {
	cl := &e.cfg.Classes[r.class]
	p := &cl.Policy
	r.timer = noTimer
	for {
		k := int(r.sent)
		r.sent++
		if k == 0 || e.allow(int(r.class), r) {
			e.draw(r, e.target(r, k), k)
			r.inflight++
			st := &e.stats[r.class]
			st.sent++
			if k > 0 {
				e.classes[r.class].inflightCopies++
				if r.hedgedCopies == 0 {
					st.hedged++
				}
				r.hedgedCopies++
			}
			e.dispatch(slot, r, k) // schedules events only: r stays live
		} else {
			r.att[k].state = attSkipped
		}
		if k >= p.Copies {
			return
		}
		g := e.gap(int(r.class), k+1)
		if g < 0 {
			return // fallback: sent only after a failure
		}
		if g > 0 {
			r.timer = uint8(k + 1)
			if !e.endsBy(r, e.now+g) {
				e.schedule(e.now+g, evTimer, slot, r.gen, uint8(k+1))
			}
			return
		}
	}
}

// endsBy reports whether request r is certain to end no later than t — by
// its deadline, or by an attempt in service (not queued) whose response
// wins and is due by t — so that a hedge timer at t could never fire and
// need not be queued: either event was queued before the timer and pops
// first. An attempt timeout could intervene, so with one the answer is no.
func (e *engine) endsBy(r *request, t time.Duration) bool {
	if e.queueAllTimers {
		return false
	}
	cl := &e.cfg.Classes[r.class]
	if cl.Deadline > 0 && r.arrival+cl.Deadline <= t {
		return true
	}
	p := &cl.Policy
	if p.AttemptTimeout > 0 {
		return false
	}
	for k := 0; k < int(r.sent); k++ {
		a := &r.att[k]
		if a.state != attInFlight || a.queued {
			continue
		}
		at, wins := a.end, false
		switch p.Winner {
		case FirstValid:
			wins = a.kind == outOK
		case FirstToken:
			wins = a.kind == outOK || a.kind == outInvalid
			if wins {
				at = a.first
			}
		case FirstResponse:
			wins = true
		}
		if wins && at <= t {
			return true
		}
	}
	return false
}

// noTimer marks a request with no hedge timer pending.
const noTimer = 0xff

// gap returns the delay before copy j of a class's requests: the policy's
// gap, or the adaptive delay in force when the policy has one.
func (e *engine) gap(c, j int) time.Duration {
	p := &e.cfg.Classes[c].Policy
	g := p.gap(j)
	if g > 0 && p.Adaptive != nil {
		return max(e.classes[c].est.delay, 1) // a gap of 0 would mean "at once"
	}
	return g
}

// target returns the model copy k of r goes to.
func (e *engine) target(r *request, k int) int {
	p := &e.cfg.Classes[r.class].Policy
	if k > 0 && p.NewProvider {
		for _, m := range p.Targets {
			tried := false
			for j := range k {
				a := &r.att[j]
				if a.state != attSkipped && e.modelProv[a.model] == e.modelProv[m] {
					tried = true
					break
				}
			}
			if !tried {
				return m
			}
		}
	}
	return p.target(k)
}

// dispatch takes attempt k of r, just sent, through its provider: the rate
// limits (over a limit: a 429 after the reject latency), then the queue of a
// provider with a concurrency limit, then service.
func (e *engine) dispatch(slot int32, r *request, k int) {
	a := &r.att[k]
	pv := &e.provs[a.prov]
	pv.stats.Sent++
	if to := e.cfg.Classes[r.class].Policy.AttemptTimeout; to > 0 {
		e.schedule(e.now+to, evAttemptTimeout, slot, r.gen, uint8(k))
	}
	if by := admitAll(e.now, r.in+r.out, e.gates[a.model]); by != nil {
		a.kind = outRateLimited
		a.limitedBy = by
		a.svc, a.first, a.genFrom = e.now, e.now, e.now
		a.end = e.now + by.rejection().RejectLatency
		e.schedule(a.end, evResponse, slot, r.gen, uint8(k))
		return
	}
	if pv.capacity > 0 {
		if pv.busy >= pv.capacity {
			a.queued = true
			pv.enqueue(waiter{slot: slot, gen: r.gen, k: uint8(k)})
			return
		}
		pv.busy++
		a.serving = true
	}
	e.serve(slot, r, k)
}

// serve starts the service of attempt k of r now: the degraded periods of
// its provider stretch its work and may fail it, and its deciding response
// is scheduled.
func (e *engine) serve(slot int32, r *request, k int) {
	a := &r.att[k]
	pv := &e.provs[a.prov]
	a.svc = e.now
	pv.waitSum.add(e.now - a.start)
	pv.stats.started++
	for _, st := range pv.stages {
		if a.kind != outError && st.fails(e.now, a.degU) {
			a.kind = outError
		}
	}
	a.first = finishAll(pv.stages, e.now, a.workFirst)
	a.end = finishAll(pv.stages, e.now, a.workFirst+a.workDecode)
	a.genFrom = e.now
	if a.streamed {
		a.genFrom = a.first
	}
	if a.kind == outError && a.workErr >= 0 {
		a.end = finishAll(pv.stages, e.now, a.workErr)
	}
	at := a.end
	if a.kind != outError && e.cfg.Classes[r.class].Policy.Winner == FirstToken {
		at = a.first
	}
	e.schedule(at, evResponse, slot, r.gen, uint8(k))
}

// release frees one slot of provider i at now and starts the next attempt
// waiting in its queue, skipping attempts whose request has ended.
func (e *engine) release(i int) {
	pv := &e.provs[i]
	pv.busy--
	for {
		w, ok := pv.dequeue()
		if !ok {
			return
		}
		r := &e.slots[w.slot]
		if r.gen != w.gen {
			continue
		}
		a := &r.att[w.k]
		if a.state != attInFlight || !a.queued {
			continue
		}
		a.queued = false
		a.serving = true
		pv.busy++
		e.serve(w.slot, r, int(w.k))
		return
	}
}

// vacate ends attempt a's hold on its provider at time t: its service time
// is added to the provider's busy time, and a slot of a provider with a
// concurrency limit is released at t (now, or by an event when t is later).
func (e *engine) vacate(a *attempt, t time.Duration) {
	pv := &e.provs[a.prov]
	if a.queued {
		a.queued = false // leaves the queue at once; release skips it
		return
	}
	if a.kind == outRateLimited {
		return
	}
	e.lastEvent = max(e.lastEvent, t)
	if t > a.svc {
		pv.busySum.add(t - a.svc)
	}
	if !a.serving {
		return
	}
	a.serving = false
	if t <= e.now {
		e.release(int(a.prov))
		return
	}
	e.schedule(t, evRelease, int32(a.prov), 0, 0)
}

// draw fills attempt k of request r, sent now to model m. It consumes only
// the stream of (request, attempt k), always in the same order, so the same
// attempt to the same model is identical under every policy; with a copula,
// attempt k's latency also depends on the normal draws of attempts < k.
func (e *engine) draw(r *request, m, k int) {
	a := &r.att[k]
	md := &e.cfg.Models[m]
	src := e.rng.at(r.id, uint8(k))
	uErr, uInv, uDeg := uniform(src), uniform(src), uniform(src)
	*a = attempt{model: int32(m), prov: int32(e.modelProv[m]), start: e.now, kind: outOK, degU: uDeg, workErr: -1}
	if e.copula != nil {
		r.innov[k] = rand.New(src).NormFloat64()
		z := 0.0
		for j, l := range e.copula[r.class][k][:k+1] {
			z += l * r.innov[j]
		}
		// A slow draw is slow throughout: TTFT at score z, decode speed at −z.
		if md.Latency != nil {
			a.workFirst = seconds(dist.FromNormal(md.Latency, z))
		} else {
			a.streamed = true
			a.workFirst = seconds(dist.FromNormal(md.TTFT, z))
			a.workDecode = seconds(r.out / dist.FromNormal(md.TokensPerSecond, -z))
		}
	} else if md.Latency != nil {
		a.workFirst = seconds(md.Latency.Rand(src))
	} else {
		a.streamed = true
		a.workFirst = seconds(md.TTFT.Rand(src))
		a.workDecode = seconds(r.out / md.TokensPerSecond.Rand(src))
	}
	switch {
	case uErr < md.ErrorRate:
		a.kind = outError
		if md.ErrorLatency != nil {
			a.workErr = seconds(md.ErrorLatency.Rand(src))
		}
	case uInv < md.InvalidRate:
		a.kind = outInvalid
	}
}

// respond handles the deciding response of attempt k: it either wins the
// request or is a failure handled by the policy's error rules.
func (e *engine) respond(slot int32, r *request, k int) {
	a := &r.att[k]
	if a.state != attInFlight {
		return
	}
	cl := &e.cfg.Classes[r.class]
	p := &cl.Policy
	st := &e.stats[r.class]
	e.leaveFlight(r, k, attDone)
	answered := a.kind == outOK || a.kind == outInvalid
	if p.Winner == FirstToken && answered {
		e.vacate(a, a.end) // the winner streams on to its end
	} else {
		e.vacate(a, e.now)
	}
	cs := &e.classes[r.class]
	cs.attemptDone(p, a.kind == outOK)
	if x := cs.est; x != nil && answered && (x.cfg.Source == FromAttempts || (x.cfg.Source == FromPrimaries && k == 0)) {
		x.add(e.now, e.now-a.start)
	}

	win := false
	switch p.Winner {
	case FirstValid:
		win = a.kind == outOK
	case FirstToken:
		win = answered
	case FirstResponse:
		win = true
	}
	end := e.now
	if p.Winner == FirstToken && answered {
		end = a.end
	}
	e.account(st, r, k, end, win)
	if win {
		e.finish(slot, r, a.kind)
		return
	}
	e.fail(slot, r, a.kind, e.retryAfter(a))
}

// fail applies the policy's rule for a failed attempt of the given kind:
// end the request (Fatal), send the next copy now — or after a 429's
// retry-after hint — (NonFatal), or keep waiting (Ignore). A request with
// nothing in flight and no copy that can still be sent ends at once with
// the failure.
func (e *engine) fail(slot int32, r *request, kind outcome, retryAfter time.Duration) {
	p := &e.cfg.Classes[r.class].Policy
	r.lastFail = kind
	rule := p.OnError
	switch kind {
	case outInvalid:
		rule = p.OnInvalid
	case outRateLimited:
		rule = p.OnRateLimited
	case outAttemptTimeout:
		rule = p.OnAttemptTimeout
	}
	switch rule {
	case Fatal:
		e.finish(slot, r, kind)
		return
	case NonFatal:
		if int(r.sent) <= p.Copies {
			if retryAfter > 0 {
				r.timer = r.sent
				e.schedule(e.now+retryAfter, evTimer, slot, r.gen, r.sent)
			} else {
				e.send(slot, r)
			}
		}
	}
	e.settle(slot, r)
}

// settle ends r with its last failure when nothing is in flight and no
// copy can still be sent: every copy is used up, or none has a timer (the
// rest are fallback copies, or budgets denied them). It must not wait for
// the deadline.
func (e *engine) settle(slot int32, r *request) {
	p := &e.cfg.Classes[r.class].Policy
	if r.inflight == 0 && (int(r.sent) > p.Copies || r.timer == noTimer) {
		e.finish(slot, r, r.lastFail)
	}
}

// leaveFlight marks attempt k of r as no longer in flight.
func (e *engine) leaveFlight(r *request, k int, s attState) {
	r.att[k].state = s
	r.inflight--
	if k > 0 {
		e.classes[r.class].inflightCopies--
	}
}

// attemptTimeout abandons attempt k of r if it is still in flight: it is
// cancelled like a loser and counts as a failed attempt of kind timeout.
func (e *engine) attemptTimeout(slot int32, r *request, k int) {
	if r.att[k].state != attInFlight {
		return
	}
	e.leaveFlight(r, k, attGone)
	e.cancel(r, k, e.now+e.cfg.Classes[r.class].Policy.CancelLatency, "timed_out")
	e.stats[r.class].timedOut++
	e.provs[r.att[k].prov].stats.Cancelled++
	e.classes[r.class].attemptDone(&e.cfg.Classes[r.class].Policy, false)
	e.fail(slot, r, outAttemptTimeout, 0)
}

// retryAfter returns the retry-after hint of a 429, or 0.
func (e *engine) retryAfter(a *attempt) time.Duration {
	if a.kind != outRateLimited || a.limitedBy == nil {
		return 0
	}
	return a.limitedBy.rejection().RetryAfter
}

// account books attempt k of r, which ran to its response at time end:
// counts, cost and wasted tokens. won says whether its response ended the
// request.
func (e *engine) account(st *classStats, r *request, k int, end time.Duration, won bool) {
	a := &r.att[k]
	pv := &e.provs[a.prov].stats
	switch a.kind {
	case outError:
		st.failed++
		pv.Failed++
		e.emit(r, k, end, "failed", won, 0, 0, false)
		return
	case outRateLimited:
		st.rateLimited++
		pv.RateLimited++
		e.emit(r, k, end, "rate_limited", won, 0, 0, false)
		return
	case outInvalid:
		st.invalidAtt++
		pv.Invalid++
		st.wastedOutput += r.out
		e.emit(r, k, end, "invalid", won, r.in, r.out, true)
	default:
		st.completed++
		pv.Completed++
		if !won {
			st.wastedOutput += r.out
		}
		e.emit(r, k, end, "completed", won, r.in, r.out, true)
	}
	st.billed[2*a.model].add(r.in, r.out)
}

// finish ends request r now with outcome o: it records the latency, ends the
// attempts still in flight (a loser that completes before its cancel lands
// is billed in full; otherwise it is cancelled and billed per the policy),
// and frees the slot.
func (e *engine) finish(slot int32, r *request, o outcome) {
	cl := &e.cfg.Classes[r.class]
	p := &cl.Policy
	st := &e.stats[r.class]
	switch o {
	case outOK:
		st.answered++
	case outError:
		st.errors++
	case outRateLimited:
		st.errors++
		st.reqRateLimited++
	case outAttemptTimeout:
		st.errors++
	case outInvalid:
		st.invalid++
	case outTimeout:
		if cl.OnTimeout == FailClosed {
			st.timeoutsClosed++
		} else {
			st.timeoutsOpen++
		}
	}
	st.record(o, e.now-r.arrival)
	e.lastEvent = max(e.lastEvent, e.now)
	cancelAt := e.now + p.CancelLatency
	for k := 0; k < int(r.sent); k++ {
		a := &r.att[k]
		if a.state != attInFlight {
			continue
		}
		e.leaveFlight(r, k, attGone)
		if !a.queued && a.end <= cancelAt {
			e.vacate(a, a.end)
			e.account(st, r, k, a.end, false)
			continue
		}
		st.cancelled++
		e.provs[a.prov].stats.Cancelled++
		e.cancel(r, k, cancelAt, "cancelled")
	}
	cs := &e.classes[r.class]
	cs.inflightReqs--
	if x := cs.est; x != nil && x.cfg.Source == FromRequests {
		x.add(e.now, e.now-r.arrival)
	}
	r.gen++
	e.free = append(e.free, slot)
	if e.isolated {
		// Every queued event belongs to this request and is now stale.
		e.q = e.q[:0]
		e.deadlineDue = false
	}
}

// cancel ends attempt k of r, in flight or queued, with a cancel that
// lands at cancelAt: it leaves its provider then (a queued attempt at once)
// and is billed per the policy's cancellation billing. outcome names it in
// the trace.
func (e *engine) cancel(r *request, k int, cancelAt time.Duration, outcome string) {
	a := &r.att[k]
	p := &e.cfg.Classes[r.class].Policy
	st := &e.stats[r.class]
	wasQueued := a.queued
	e.vacate(a, cancelAt)
	if wasQueued || a.kind == outRateLimited || p.CancelBilling == BillNone {
		// Never reached the model, or cancels are free: nothing to bill.
		e.emit(r, k, cancelAt, outcome, false, 0, 0, false)
		return
	}
	in, out := r.in, 0.0
	switch p.CancelBilling {
	case BillGenerated:
		if a.kind != outError && cancelAt > a.genFrom && a.end > a.genFrom {
			out = math.Floor(r.out * float64(min(cancelAt, a.end)-a.genFrom) / float64(a.end-a.genFrom))
		}
	case BillFull:
		if a.kind != outError {
			out = r.out
		}
	}
	st.billed[2*a.model+1].add(in, out)
	st.wastedOutput += out
	e.emit(r, k, cancelAt, outcome, false, in, out, true)
}

// bill counts billed attempts and tokens.
type bill struct {
	attempts      int64
	input, output float64 // whole tokens
}

func (b *bill) add(in, out float64) {
	b.attempts++
	b.input += in
	b.output += out
}

// cost is what b costs in USD at model m's prices.
func (b *bill) cost(m *Model) float64 {
	return (b.input*m.PriceInputPerMTok+b.output*m.PriceOutputPerMTok)/1e6 + float64(b.attempts)*m.PricePerRequest
}

// price is the cost in USD of one billed attempt.
func price(m *Model, in, out float64) float64 {
	return (in*m.PriceInputPerMTok+out*m.PriceOutputPerMTok)/1e6 + m.PricePerRequest
}

// maxDelay caps a single drawn duration at 2⁵⁸ ns (about 9 years), so that
// the few durations a request's times add up cannot overflow; a run whose
// latencies reach it reports that they were capped.
const maxDelay = time.Duration(1 << 58)

// seconds converts seconds to a Duration, rounding to the nanosecond and
// saturating at maxDelay.
func seconds(s float64) time.Duration {
	ns := s * 1e9
	if !(ns < float64(maxDelay)) {
		return maxDelay
	}
	if ns >= 0 {
		return time.Duration(ns + 0.5) // rounds half up; draws are ≥ 0
	}
	return time.Duration(math.Round(ns))
}

// tokens rounds a token-count draw to a whole number of tokens ≥ 0.
func tokens(x float64) float64 {
	if x < 0 || math.IsNaN(x) {
		return 0
	}
	return math.Round(x)
}
