package sim

import (
	"math"
	"time"
)

// outcome is the fate of an attempt or a request.
type outcome uint8

const (
	outNone    outcome = iota
	outOK              // a valid answer
	outError           // an error response
	outInvalid         // an answer that is not usable
	outTimeout         // the request reached its deadline (requests only)
)

// attState is where an attempt is in its life.
type attState uint8

const (
	attInFlight attState = iota
	attDone              // responded (or won) and has been accounted
	attGone              // ended by the request's end and accounted
)

// attempt is one call to one model. Times are absolute simulated times.
type attempt struct {
	model   int32
	kind    outcome  // what the call will return if it runs to the end
	state   attState //
	start   time.Duration
	first   time.Duration // first token (streamed form) or full answer
	genFrom time.Duration // output tokens are generated linearly from here …
	end     time.Duration // … to here; for an error, when the error arrives
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
	att      [MaxCopies + 1]attempt
}

// classStats accumulates one class's results.
type classStats struct {
	requests, answered, timeoutsOpen, timeoutsClosed int64
	errors, invalid, hedged                          int64
	sent, completed, failed, invalidAtt, cancelled   int64
	wastedOutput                                     float64
	// billed[2m] and billed[2m+1] are what model m billed for attempts that
	// responded and for cancelled ones. Token counts are whole numbers, so
	// their sums are exact and independent of the order of events.
	billed    []bill
	latencies []float64 // seconds, in arrival-completion order
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

	isolated   bool   // requests do not interact: run them one at a time
	arrival    event  // the next arrival, when arrivalDue
	arrivalDue bool   //
	deadlines  []fifo // per class, deadlines in time order
	rec        AttemptRecord
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
	e.stats = make([]classStats, len(cfg.Classes))
	for i, c := range cfg.Classes {
		e.stats[i].billed = make([]bill, 2*len(cfg.Models))
		e.stats[i].latencies = make([]float64, 0, int(float64(cfg.Requests)*c.Share*1.05)+16)
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
		e.deadlines[e.slots[slot].class].push(ev)
	default:
		e.q.push(ev)
	}
}

// pop removes and returns the next event in (time, sequence) order, or false
// when nothing is left. Events live in three places, all ordered: the heap
// (responses and timers), the single pending arrival, and one FIFO of
// deadlines per class — a class's deadlines fall due in arrival order, so
// they need no heap.
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
	// Requests that cannot affect each other are run one at a time: the next
	// arrival waits until the current request's events are all done. Each
	// request sees exactly the events it would see in global time order, and
	// the queue stays a few events deep.
	if e.arrivalDue && (best == nil || (!e.isolated && e.arrival.before(best))) {
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
	e.scheduleArrival()
	for {
		ev, ok := e.pop()
		if !ok {
			return
		}
		e.now = ev.at
		if ev.kind == evArrival {
			e.arrive()
			continue
		}
		r := &e.slots[ev.slot]
		if r.gen != ev.gen {
			continue // the request has ended; a stale timer or response
		}
		switch ev.kind {
		case evTimer:
			if int(r.sent) == int(ev.k) {
				e.send(ev.slot, r)
			}
		case evResponse:
			e.respond(ev.slot, r, int(ev.k))
		case evDeadline:
			e.finish(ev.slot, r, outTimeout)
		}
	}
}

// scheduleArrival draws the arrival time of request e.next and queues it.
func (e *engine) scheduleArrival() {
	if e.next >= int64(e.cfg.Requests) {
		return
	}
	var at time.Duration
	switch e.cfg.Arrivals.Process {
	case Constant:
		at = seconds(float64(e.next) / e.cfg.Arrivals.Rate)
	case Replay:
		at = e.cfg.Arrivals.Trace.Arrivals[e.next]
	default:
		src := e.rng.at(e.next, requestStream)
		gap := -math.Log(1-uniform(src)) / e.cfg.Arrivals.Rate
		at = e.lastArr + seconds(gap)
	}
	e.lastArr = at
	e.schedule(at, evArrival, -1, 0, 0)
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
	*r = request{gen: gen, id: id, arrival: e.now}

	// Request draws: the inter-arrival gap was the stream's first number.
	src := e.rng.at(id, requestStream)
	_ = src.Uint64()
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

	if cl.Deadline > 0 {
		e.schedule(e.now+cl.Deadline, evDeadline, slot, r.gen, 0)
	}
	e.send(slot, r)
	e.scheduleArrival()
}

// send sends the next attempt of r now, and arms the timer of the one
// after it (or sends it at once when the gap is 0).
func (e *engine) send(slot int32, r *request) {
	cl := &e.cfg.Classes[r.class]
	p := &cl.Policy
	for {
		k := int(r.sent)
		m := p.target(k)
		e.draw(&r.att[k], r, m, k)
		r.sent++
		r.inflight++
		st := &e.stats[r.class]
		st.sent++
		if k == 1 {
			st.hedged++
		}
		a := &r.att[k]
		at := a.end
		if a.kind != outError {
			switch p.Winner {
			case FirstToken:
				at = a.first
			}
		}
		e.schedule(at, evResponse, slot, r.gen, uint8(k))
		if k >= p.Copies {
			return
		}
		g := p.gap(k + 1)
		if g > 0 {
			e.schedule(e.now+g, evTimer, slot, r.gen, uint8(k+1))
			return
		}
	}
}

// draw fills attempt a of request r sent now to model m. It consumes only
// the stream of (request, attempt k), always in the same order, so the same
// attempt to the same model is identical under every policy.
func (e *engine) draw(a *attempt, r *request, m, k int) {
	md := &e.cfg.Models[m]
	src := e.rng.at(r.id, uint8(k))
	uErr, uInv := uniform(src), uniform(src)
	*a = attempt{model: int32(m), start: e.now, kind: outOK}
	if md.Latency != nil {
		d := seconds(md.Latency.Rand(src))
		a.genFrom = e.now
		a.first = e.now + d
		a.end = a.first
	} else {
		ttft := md.TTFT.Rand(src)
		speed := md.TokensPerSecond.Rand(src)
		a.first = e.now + seconds(ttft)
		a.genFrom = a.first
		a.end = a.first + seconds(r.out/speed)
	}
	switch {
	case uErr < md.ErrorRate:
		a.kind = outError
		if md.ErrorLatency != nil {
			a.end = e.now + seconds(md.ErrorLatency.Rand(src))
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
	a.state = attDone
	r.inflight--

	win := false
	switch p.Winner {
	case FirstValid:
		win = a.kind == outOK
	case FirstToken:
		win = a.kind != outError
	case FirstResponse:
		win = true
	}
	end := e.now
	if p.Winner == FirstToken && a.kind != outError {
		end = a.end // the winner streams on to its end
	}
	e.account(st, r, k, end, win)
	if win {
		e.finish(slot, r, a.kind)
		return
	}
	r.lastFail = a.kind
	rule := p.OnError
	if a.kind == outInvalid {
		rule = p.OnInvalid
	}
	switch rule {
	case Fatal:
		e.finish(slot, r, a.kind)
		return
	case NonFatal:
		if int(r.sent) <= p.Copies {
			e.send(slot, r)
		}
	}
	if r.inflight == 0 && int(r.sent) > p.Copies {
		e.finish(slot, r, r.lastFail)
	}
}

// account books attempt k of r, which ran to its response at time end:
// counts, cost and wasted tokens. won says whether its response ended the
// request.
func (e *engine) account(st *classStats, r *request, k int, end time.Duration, won bool) {
	a := &r.att[k]
	md := &e.cfg.Models[a.model]
	switch a.kind {
	case outError:
		st.failed++
		e.emit(r, k, end, "failed", won, 0, 0, 0)
		return
	case outInvalid:
		st.invalidAtt++
		st.wastedOutput += r.out
		e.emit(r, k, end, "invalid", won, r.in, r.out, price(md, r.in, r.out))
	default:
		st.completed++
		if !won {
			st.wastedOutput += r.out
		}
		e.emit(r, k, end, "completed", won, r.in, r.out, price(md, r.in, r.out))
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
	case outInvalid:
		st.invalid++
	case outTimeout:
		if cl.OnTimeout == FailClosed {
			st.timeoutsClosed++
		} else {
			st.timeoutsOpen++
		}
	}
	st.latencies = append(st.latencies, (e.now - r.arrival).Seconds())
	cancelAt := e.now + p.CancelLatency
	for k := 0; k < int(r.sent); k++ {
		a := &r.att[k]
		if a.state != attInFlight {
			continue
		}
		a.state = attGone
		if a.end <= cancelAt {
			e.account(st, r, k, a.end, false)
			continue
		}
		st.cancelled++
		in, out := r.in, 0.0
		switch p.CancelBilling {
		case BillNone:
			e.emit(r, k, cancelAt, "cancelled", false, 0, 0, 0)
			continue
		case BillGenerated:
			if a.kind != outError && cancelAt > a.genFrom {
				out = math.Floor(r.out * float64(cancelAt-a.genFrom) / float64(a.end-a.genFrom))
			}
		case BillFull:
			if a.kind != outError {
				out = r.out
			}
		}
		cost := price(&e.cfg.Models[a.model], in, out)
		st.billed[2*a.model+1].add(in, out)
		st.wastedOutput += out
		e.emit(r, k, cancelAt, "cancelled", false, in, out, cost)
	}
	r.gen++
	e.free = append(e.free, slot)
	if e.isolated {
		// Every queued event belongs to this request and is now stale.
		e.q = e.q[:0]
		for c := range e.deadlines {
			e.deadlines[c].reset()
		}
	}
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

// maxDelay caps a single drawn duration (about 146 years) so that sums of
// simulated times cannot overflow.
const maxDelay = time.Duration(1 << 62)

// seconds converts seconds to a Duration, rounding to the nanosecond and
// saturating at maxDelay.
func seconds(s float64) time.Duration {
	ns := s * 1e9
	if !(ns < float64(maxDelay)) {
		return maxDelay
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
