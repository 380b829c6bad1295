package sim

import (
	"fmt"
	"time"
)

// engine is one simulation run: the event loop (this file), the life of
// each attempt (attempt.go) and of each request (request.go).
type engine struct {
	cfg       *Config
	modelSent []int64  // attempts sent to each model, for Result.Models
	stop      *stopper // cancellation, checked by work done (context.go)
	left      int      // units of work before the next look at stop (spent)
	lookAt    uint64   // the event loop's next look at stop, by seq (lookAtEvents)
	rng       streams
	exp       *ziggurat  // zigguratExp(), for Poisson arrivals
	norm      *zigguratN // zigguratNorm(), for the copula's normal draws
	q         eventQueue
	seq       uint64
	now       time.Duration
	slots     []request
	free      []int32
	next      int64         // index of the next request to arrive
	end       int64         // index after the last request this engine runs
	lastArr   time.Duration // arrival time of request next-1
	shares    []float64     // cumulative shares of the classes Run was given (a pipeline's steps, after them, are never drawn)
	// inputs and outputs sample each class's token counts; models each
	// model's latency distributions.
	inputs, outputs []sampler
	models          []modelSamplers
	stats           []classStats
	trace           func(*AttemptRecord) // optional, see RunTrace

	// plainRequests: a request's class and token counts are drawn from
	// nothing (drawRequest's values without its draws): one class, of
	// constant token counts, neither from a trace nor from clients:
	// plainIn and plainOut, the class's constants rounded (sampler.tok).
	// One pipeline class of share 1 is one class too: the classes of its
	// steps (Config.withSteps) come after it, of share 0, and a draw of
	// drawRequest's, below 1, never reaches them.
	plainRequests     bool
	plainIn, plainOut float64

	// load are a batched run's times in service per arrival section
	// (loadsections.go); costs an independent run's bills per arrival
	// section (costsections.go).
	load  *loadSections
	costs *costSections

	isolated  bool       // requests do not interact: run them one at a time (runDirect)
	batched   bool       // requests interact: record arrival sections (batchmeans.go)
	fl        flight     // the pending events of the current request, when isolated
	ln        lane       // the same on the lane (runLane)
	batch     *drawCache // draws shared with other engines on the lane (runLanes), or nil
	stranded  int        // lane requests left with nothing pending, unended (a bug)
	noLane    bool       // run independent requests by runDirect even when the lane could
	arrival   event      // the next arrival of a global run, due at the greatest time when none is pending (noArrival)
	cur       event      // the event being handled (drain, popDirect)
	rec       AttemptRecord
	provs     []provider
	copula    [][][]float64 // per class, the copula factor; nil when independent
	pair      *pairState    // met bits recorded or compared (pair.go); nil when neither
	modelProv []int         // provider index of each model
	gates     [][]gate      // per model: its rate limit, then its provider's
	gatedMask uint64        // bit m&63 set for each model m with gates
	lastEvent time.Duration // when the last request or attempt ended: the run's length
	classes   []classState  // per class: budgets and adaptive delay
	clients   []client      // closed-loop clients (closed.go)
	loops     []loopStats   // per class and overall, when there are clients
	breakers  []*breaker    // per model, its circuit breaker or nil; nil when no model or provider has one
	// per provider, its circuit breaker or nil; nil when none has one
	provBreakers []*breaker
	retries      []RetryCounts // per class, what its retries did; nil when no class retries
	slotClient   []int32       // per request slot, the closed-loop client that sent it, or −1
	// queueAllTimers turns off the skipping of timers and of requests'
	// and pipeline calls' deadlines that cannot fire (endsBy,
	// callEndsBefore), for the tests that check it changes nothing.
	queueAllTimers bool
	// users is the number of classes of the configuration Run was given;
	// the classes after them are pipeline steps (Config.withSteps). pipeOf
	// is, per such class, its pipeline's driver state, or nil; pipes and
	// pipeFree are the pipeline requests in flight and the free slots.
	users  int
	pipeOf []*pipeClass
	// stepOwner is, per class after the users' (a pipeline step's), the
	// pipeline class it belongs to, or −1.
	stepOwner []int32
	// stepBills is, per class, where the billed attempts of a step's
	// calls go in a run that bills sections (billSection) — a user class's
	// stays empty, and a run without pipelines has none; emptied when
	// those bills move (nextStage) and before a copy (fork).
	stepBills []stepBilling
	pipes     []pipeState
	pipeFree  []int32
	// pipeRetries is, per pipeline class, what its steps' retries did
	// (stepResults); nil when no step retries.
	pipeRetries []*RetryCounts
	// chans are the FIFOs of events that mostly fall due in the order they
	// are scheduled (see chanOf), FIFO 0 the events due now (due); heads
	// are the heads of those that are not empty, latest first, and fmin
	// is the one of those whose head is due first (noFIFO when none), with
	// its head's time and sequence in fminAt and fminSeq. heapOnly sends
	// every such event to the heap instead, and drain handles dead events
	// too, for the test that checks the FIFOs change nothing.
	chans    []fifo
	heads    fifoHeads
	fmin     int
	fminAt   time.Duration
	fminSeq  uint64
	heapOnly bool
	// soon holds the events due now that are to be handled right after
	// the current one, in order, without going through drain (dueNow).
	soon []event
	// pools says whether any provider has a replica pool (pool.go);
	// ewma whether one whose balancer is latency_ewma, which observes
	// the latencies of its attempts (observe), can get any (reachesEWMA).
	pools, ewma bool
	// plainAnswer has bit c set for each class c whose answered
	// attempt respond ends its request with at once (plainAnswers).
	plainAnswer uint64
	// plainFirst has bit c set for each class c whose answered attempt
	// wins at its first token with nothing else to look at (plainAnswers):
	// respond's short path for a first_token rule.
	plainFirst uint64
	// quickLetGo sends an attempt let go of while it waited, which reaches
	// service before its cancel lands, through serveLetGo when it may
	// (release); false only in tests, which compare the two.
	quickLetGo bool
	// answerReleases says answer may handle its slot's release itself
	// when soon is empty (answer): no closed-loop clients, whose ends may
	// start requests and hold (fork.go). relPending says answer has such
	// a release to handle once its other steps are done: the event due
	// now that soon would hold, which a pipeline's call's end looks for
	// (callEnded).
	answerReleases, relPending bool
	// shaping says some model stalls or some class cuts streams, so that
	// a streamed attempt's stream may be shaped at its service's start
	// (shapes); without it servePlain serves streamed attempts too.
	shaping bool
	// shared holds draws other runs of the same requests made or take
	// (shared.go); nil when none are shared.
	shared *sharedDraws
	// sharesDraws is, per model, whether its first calls' draws may be
	// shared (sharesDraws).
	sharesDraws []bool
	// plainDraws is, per model, its plainDraw: whether draw may take its
	// plain branch, and for a one-draw latency or a streamed one.
	plainDraws []plainDraw
	// stageErr is, per model, whether draw gives its attempts a stage
	// failure's latency (stagefail.go); nil when no model's is.
	stageErr []bool
	// pauseAt is the request count at which a growing run holds (fork.go):
	// the event loop stops right after the event that started request
	// pauseAt − 1, holding set (markOrHold); −1 never. grow is a growing
	// run's state, nil otherwise.
	pauseAt int64
	holding bool
	grow    *growState
	// handOn is a pipeline's call seen now, pipeline slot handOn − 1 of
	// generation handGen, 0 for none: the evPipeCall event callEnded would
	// have queued first in soon, numbered but not queued, which the event
	// loop handles right after the current event, before soon's
	// (handHeld).
	handOn  int32
	handGen uint32
	// handNext is set when the call held in handOn is a chain's answered
	// call before its last stage, kept by callEnded without pipeCall's
	// state (pipeState.held): handHeld starts the next stage's call
	// (chainOn).
	handNext bool
}

// auditRuns makes every run check its accounting when it ends (audit) and
// panic if it does not balance. The package's tests turn it on.
var auditRuns bool

func newEngine(cfg *Config) *engine { return newEngineFor(cfg, cfg.Requests) }

// newEngineFor returns an engine for cfg that sizes its latency buffers for
// n requests; it runs requests 0 to cfg.Requests − 1 unless next and end
// are changed.
func newEngineFor(cfg *Config, n int) *engine {
	users := len(cfg.Classes)
	cfg, steps := cfg.withSteps()
	e := &engine{users: users, cfg: cfg, rng: streams{seed: cfg.Seed}, end: int64(cfg.Requests), pauseAt: -1, exp: zigguratExp(), norm: zigguratNorm(), lookAt: checkWork}
	e.q = newEventQueue(1024)
	e.chans = make([]fifo, 1+len(cfg.Classes)*chansPerClass)
	e.isolated = cfg.independent()
	e.batched = cfg.batched()
	var cum float64
	for _, c := range cfg.Classes[:users] { // a pipeline's steps, after them, are never drawn
		cum += c.Share
		e.shares = append(e.shares, cum)
	}
	e.provs, e.modelProv = cfg.providers()
	for i := range cfg.Providers { // the listed providers come first in e.provs
		if c := cfg.Providers[i].Pool; c != nil {
			e.provs[i].pool = newPool(c, cfg.Seed, i, e.provs[i].stages)
			e.pools = true
		}
	}
	e.ewma = e.pools && e.reachesEWMA(cfg)
	e.modelSent = make([]int64, len(cfg.Models))
	e.gates = make([][]gate, len(cfg.Models))
	for i := range cfg.Models {
		e.gates[i] = newGates(&cfg.Models[i], &e.provs[e.modelProv[i]])
		if len(e.gates[i]) > 0 {
			e.gatedMask |= 1 << (i & 63)
		}
	}
	if cfg.correlated() {
		e.copula = make([][][]float64, len(cfg.Classes))
		for i := range cfg.Classes {
			// Validate has checked that the factor exists.
			e.copula[i], _ = copulaFactor(cfg.Correlation, &cfg.Classes[i].Policy, cfg.Models)
		}
	}
	if cfg.closedLoop() {
		e.setupClients()
	}
	for i := range cfg.Models {
		if b := cfg.Models[i].Breaker; b != nil {
			if e.breakers == nil {
				e.breakers = make([]*breaker, len(cfg.Models))
			}
			e.breakers[i] = &breaker{cfg: b}
		}
	}
	for i := range cfg.Providers { // the listed providers come first in e.provs
		if b := cfg.Providers[i].Breaker; b != nil {
			if e.provBreakers == nil {
				e.provBreakers = make([]*breaker, len(e.provs))
			}
			e.provBreakers[i] = &breaker{cfg: b}
			if e.breakers == nil {
				e.breakers = make([]*breaker, len(cfg.Models))
			}
		}
	}
	for _, c := range cfg.Classes {
		e.inputs = append(e.inputs, newSampler(c.InputTokens))
		e.outputs = append(e.outputs, newSampler(c.OutputTokens))
	}
	if tr := cfg.Arrivals.Trace; (len(cfg.Classes) == 1 || users == 1 && cfg.Classes[0].Share >= 1) && !cfg.closedLoop() && (tr == nil || tr.Class == nil && tr.Input == nil && tr.Output == nil) {
		e.plainRequests = e.inputs[0].kind == sampleConstant && e.outputs[0].kind == sampleConstant
		e.plainIn, e.plainOut = e.inputs[0].tok, e.outputs[0].tok
	}
	e.sharesDraws = make([]bool, len(cfg.Models))
	e.plainDraws = make([]plainDraw, len(cfg.Models))
	e.stageErr = e.stageErrs(cfg)
	for i := range cfg.Models {
		e.models = append(e.models, newModelSamplers(&cfg.Models[i]))
		e.sharesDraws[i] = sharesDraws(&cfg.Models[i])
		e.plainDraws[i] = plainDrawOf(&cfg.Models[i], e.models[i].latency.kind, cfg.correlated(), e.stageErr != nil && e.stageErr[i])
	}
	e.stats = make([]classStats, len(cfg.Classes))
	if cfg.retrying() {
		e.retries = make([]RetryCounts, len(cfg.Classes))
	}
	e.classes = make([]classState, len(cfg.Classes))
	for i := range cfg.Classes {
		e.classes[i] = newClassState(&cfg.Classes[i].Policy)
	}
	e.plainAnswers()
	e.quickLetGo = true
	for i := range cfg.Models {
		e.shaping = e.shaping || cfg.Models[i].Stalls.Rate > 0
	}
	for i := range cfg.Classes {
		e.shaping = e.shaping || cfg.Classes[i].Policy.StreamCuts.on()
	}
	for i := range cfg.Classes {
		e.stats[i].billed = make([]bill, 2*len(cfg.Models))
		e.stats[i].won = make([]int64, 1+len(cfg.Models))
	}
	e.pair = newPairState(cfg, e.stats)
	e.endSetup()
	e.sizeTimes(n)
	if steps != nil {
		e.setupPipelines(steps, users, n)
	}
	e.answerReleases = e.loops == nil
	e.costsSetup()
	return e
}

// run processes events until every request has ended and every attempt
// has left the system.
func (e *engine) run() {
	switch {
	case e.pipeLaneOK():
		e.runLanePipelines()
	case e.laneOK():
		e.runLane()
	case e.isolated:
		e.runDirect()
	default:
		if len(e.heads) == 0 {
			e.noHead() // before drain looks at the FIFOs
		}
		if e.arrival.seq == 0 { // never scheduled (an event's seq is at least 1)
			e.noArrival() // before drain looks at it
		}
		if e.clients == nil || e.cfg.hasOpen() {
			e.scheduleArrival()
		}
		e.startClients()
		if len(e.soon) > 0 || e.handOn != 0 { // due at 0, scheduled before the first event
			e.handleSoon()
		}
		if e.holding { // held among them (fork.go): the first clients' sends
			break
		}
		e.drain()
	}
	if (e.stop == nil || e.stop.err == nil) && !e.holding {
		e.auditIfOn() // a stopped or held run is left half done
	}
}

// auditIfOn checks e's accounting (audit) when auditRuns is on, and
// panics if it does not balance.
func (e *engine) auditIfOn() {
	if auditRuns {
		if err := e.audit(); err != nil {
			panic("sim: " + err.Error())
		}
	}
}

// handle processes one event other than an arrival in a global run, or
// any event of an isolated one. Once a request has ended only the cancels
// of its attempts still waiting in a queue matter; its other events are
// stale. One switch over every kind (a jump table) picks the handler; the
// events of a request look up its slot on their way (live).
func (e *engine) handle(ev *event) {
	switch ev.kind {
	case evResponse:
		if r := e.live(ev); r != nil {
			e.respond(ev.slot, r, int(ev.k))
		}
	case evArrival:
		if e.clients != nil && !e.more() {
			return // closed-loop clients took the last requests
		}
		e.arrive()
	case evRelease:
		if ev.gen != 0 {
			e.releaseReplica(int(ev.slot), int(ev.gen-1))
			return
		}
		e.release(int(ev.slot))
	case evTimer:
		if r := e.live(ev); r != nil && int(r.sent) == int(ev.k) {
			e.send(ev.slot, r)
			e.settle(ev.slot, r)
		}
	case evDeadline:
		if r := e.live(ev); r != nil {
			e.finish(ev.slot, r, outTimeout)
		}
	case evCancel:
		if r := &e.slots[ev.slot]; r.gen == ev.gen { // even once it has ended
			e.cancelLands(ev.slot, r, int(ev.k))
		}
	case evAttemptTimeout:
		if r := e.live(ev); r != nil {
			e.attemptTimeout(ev.slot, r, int(ev.k))
		}
	case evRetry:
		if r := e.live(ev); r != nil {
			e.resend(ev.slot, r, int(ev.k))
		}
	case evRound:
		if r := e.live(ev); r != nil {
			e.startRound(ev.slot, r)
		}
	case evThink:
		e.clientSends(ev.slot)
	case evPipeDeadline:
		e.pipeDeadline(ev.slot, ev.gen)
	case evPipeCall:
		e.pipeCall(ev.slot, ev.gen)
	case evBatch:
		e.batchDue(ev)
	case evScale:
		e.scale(ev.slot, ev.gen)
	}
}

// live returns the request of a request's event, or nil when the event is
// stale: its slot has been reused, or the request has ended.
func (e *engine) live(ev *event) *request {
	r := &e.slots[ev.slot]
	if r.gen != ev.gen || r.ended {
		return nil
	}
	return r
}

// arrivalTime draws the arrival time of request e.next.
func (e *engine) arrivalTime() time.Duration {
	if e.shared != nil {
		if at, ok := e.shared.keptArrival(e.next); ok {
			e.lastArr = at
			return at
		}
	}
	var at time.Duration
	switch e.cfg.Arrivals.Process {
	case Constant:
		at = seconds(float64(e.next) / e.cfg.Arrivals.Rate)
	case Replay:
		at = e.cfg.Arrivals.Trace.Arrivals[e.next]
	default:
		at = e.lastArr + e.poissonGap(e.next)
	}
	e.lastArr = at
	if e.shared != nil {
		e.shared.keepArrival(e.next, at)
	}
	return at
}

// poissonGap draws the gap before request i of Poisson arrivals. Its
// stream is seeded as streams.at seeds it, without at's call; the hash of
// i it leaves in the cache is request i's key's (keyOf, at its arrival).
func (e *engine) poissonGap(i int64) time.Duration {
	src := &e.rng.gen
	src.s = splitmix64(e.rng.keyOf(i) ^ arrivalStream<<56)
	x, ok := e.exp.first(src.Uint64()) // expFloat64, its first step inline
	if !ok {
		x = src.expSlow()
	}
	return seconds(x / e.cfg.Arrivals.Rate)
}

// scheduleArrival queues the arrival of request e.next, if any, at
// arrivalTime's time. Its two commonest cases are taken here, without
// arrivalTime's and poissonGap's calls: a time kept by a run before this
// one sharing its draws, and a Poisson gap in a run sharing none; and a
// global run's arrival is queued as schedule queues it, without its call.
func (e *engine) scheduleArrival() {
	if !e.more() {
		return
	}
	var at time.Duration
	switch d := e.shared; {
	case d != nil && e.next < int64(len(d.at)):
		at = d.at[e.next]
	case d == nil && e.cfg.Arrivals.Process == Poisson: // poissonGap's draw
		src := &e.rng.gen
		src.s = splitmix64(e.rng.keyOf(e.next) ^ arrivalStream<<56)
		x, ok := e.exp.first(src.Uint64())
		if !ok {
			x = src.expSlow()
		}
		at = e.lastArr + seconds(x/e.cfg.Arrivals.Rate)
	default:
		at = e.arrivalTime()
	}
	e.lastArr = at
	e.seq++ // schedule's steps, without its call
	if e.isolated {
		e.scheduleOther(at, evArrival, -1, 0, 0)
		return
	}
	ev := &e.arrival // a global run's one pending arrival
	ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, -1, 0, evArrival, 0
}

// arrive starts request e.next from the open arrivals.
func (e *engine) arrive() { e.arriveFrom(-1) }

// allocSlot returns a free request slot, reused or appended (the slots
// may grow, so pointers into them taken before are stale).
func (e *engine) allocSlot() int32 {
	if n := len(e.free); n > 0 {
		slot := e.free[n-1]
		e.free = e.free[:n-1]
		return slot
	}
	e.slots = append(e.slots, request{})
	return int32(len(e.slots) - 1)
}

// arriveFrom starts request e.next, sent by closed-loop client cl (or by
// the open arrivals when cl < 0): it draws the class and token counts, arms
// the deadline and sends the primary.
func (e *engine) arriveFrom(cl int32) {
	id := e.next
	e.next++
	slot := e.allocSlot()
	r := &e.slots[slot]
	r.reset(id, e.rng.keyOf(id), e.now, e.section(id))
	if e.clients != nil {
		e.setClient(slot, cl)
	}

	switch {
	case e.plainRequests: // drawRequest's values, without a draw
		r.class, r.in, r.out = 0, e.plainIn, e.plainOut
	case e.shared != nil:
		e.drawRequestShared(r)
	default:
		e.drawRequest(r, cl)
	}
	c := r.class
	cls := &e.cfg.Classes[c]
	e.stats[c].requests++
	e.classes[c].inflightReqs++
	if id%1024 == 0 {
		for i := range e.provs {
			for _, st := range e.provs[i].stages {
				st.forget(e.now) // nothing later asks about times before this arrival
			}
		}
		if e.pools {
			e.forgetPools(e.now)
		}
	}
	if cls.Pipeline != nil {
		e.startPipeline(slot, r)
		if e.next == e.end || e.next == e.half() || e.next == e.pauseAt {
			e.markOrHold(cl)
		}
		if cl < 0 {
			e.scheduleArrival()
		}
		return
	}

	switch d := cls.Deadline; {
	case d <= 0:
		e.sendFirst(slot, r, cls)
	case e.isolated:
		e.scheduleIn(fifoIndex(c, chanDeadline), e.now+d, evDeadline, slot, r.gen, 0)
		e.sendFirst(slot, r, cls)
	default:
		// The deadline is numbered before the primary's events, as if
		// queued first, but queued after them, and only when the request
		// may still run at it: one certain to end before (callEndsBefore)
		// would find it dead, so leaving it out changes nothing but the
		// queue's length (as a pipeline call's, startCall).
		e.seq++
		seq, at := e.seq, e.now+d
		e.sendFirst(slot, r, cls) // schedules events only: r stays live
		// callEndsBefore's commonest answers, without its call: no when
		// the primary, the one attempt sent, waits in a queue (or has
		// left); yes when its valid answer, in service, is due before the
		// deadline, which wins under every winner rule (its first token
		// comes no later).
		if a := &r.att[0]; a.queued || a.state != attInFlight {
			if r.sent == 1 || !e.callEndsBefore(cls, r, at) {
				e.queueDeadline(fifoIndex(c, chanDeadline), at, seq, slot, r.gen)
			}
		} else if !(a.kind == outOK && a.end < at && cls.Policy.AttemptTimeout <= 0 && !e.queueAllTimers) && !e.callEndsBefore(cls, r, at) {
			e.queueDeadline(fifoIndex(c, chanDeadline), at, seq, slot, r.gen)
		}
	}
	if e.next == e.end || e.next == e.half() || e.next == e.pauseAt {
		e.markOrHold(cl)
	}
	if !e.isolated && cl < 0 {
		e.scheduleArrival()
	}
}

// drawRequest draws the class and token counts of request r.id from its
// request stream, or takes them from the replayed trace.
func (e *engine) drawRequest(r *request, cl int32) {
	id := r.id
	src := &e.rng.gen // seeded as streams.at seeds it, without its call
	src.s = splitmix64(e.rng.keyOf(id) ^ requestStream<<56)
	u := src.float64()
	// The first class whose cumulative share exceeds u (the last one when
	// rounding leaves u above them all), by binary search.
	c, hi := 0, len(e.shares)-1
	for c < hi {
		mid := int(uint(c+hi) >> 1)
		if u < e.shares[mid] {
			hi = mid
		} else {
			c = mid + 1
		}
	}
	tr := e.cfg.Arrivals.Trace
	if tr != nil && tr.Class != nil {
		c = tr.Class[id]
	}
	if e.clients != nil {
		c = e.closedClass(cl, u)
	}
	r.class = int32(c)
	r.in = e.inputs[c].tokens(src)
	r.out = e.outputs[c].tokens(src)
	if tr != nil && tr.Input != nil {
		r.in = tokens(tr.Input[id])
	}
	if tr != nil && tr.Output != nil {
		r.out = tokens(tr.Output[id])
	}
}

// audit checks, once a run is over, that every attempt left the system
// exactly once: per class and per provider, the attempts sent equal the
// sum of those completed, invalid, failed, rate-limited, rejected, timed
// out, stalled and cancelled, and requests ended stalled are among the
// errors; no request is still held; and no provider still
// counts a slot in use or an attempt waiting.
func (e *engine) audit() error {
	for i := range e.stats {
		s := &e.stats[i]
		if ended := s.completed + s.invalidAtt + s.failed + s.rateLimited + s.rejected + s.timedOut + s.stalled + s.cancelled; ended != s.sent {
			return fmt.Errorf("class %q: %d attempts sent, %d accounted (completed %d, invalid %d, failed %d, 429 %d, rejected %d, timed out %d, stalled %d, cancelled %d)",
				e.cfg.Classes[i].Name, s.sent, ended, s.completed, s.invalidAtt, s.failed, s.rateLimited, s.rejected, s.timedOut, s.stalled, s.cancelled)
		}
		if s.reqStalled > s.errors {
			return fmt.Errorf("class %q: %d requests ended stalled, more than its %d errors", e.cfg.Classes[i].Name, s.reqStalled, s.errors)
		}
	}
	for i := range e.provs {
		p := &e.provs[i]
		s := &p.stats
		if ended := s.Completed + s.Invalid + s.Failed + s.RateLimited + s.Rejected + s.TimedOut + s.Stalled + s.Cancelled; ended != s.Sent {
			return fmt.Errorf("provider %q: %d attempts sent, %d accounted", p.name, s.Sent, ended)
		}
		if p.busy != 0 || p.waiting != 0 {
			return fmt.Errorf("provider %q: %d slots still in use and %d attempts still waiting after the run", p.name, p.busy, p.waiting)
		}
	}
	if err := e.auditPools(); err != nil {
		return err
	}
	if err := e.auditBreakers(); err != nil {
		return err
	}
	if e.stranded > 0 {
		return fmt.Errorf("%d requests left with nothing pending before they ended", e.stranded)
	}
	if len(e.pipeFree) != len(e.pipes) {
		return fmt.Errorf("%d of %d pipeline slots still held after the run", len(e.pipes)-len(e.pipeFree), len(e.pipes))
	}
	if len(e.free) != len(e.slots) {
		return fmt.Errorf("%d of %d request slots still held after the run", len(e.slots)-len(e.free), len(e.slots))
	}
	return nil
}
