package sim

import (
	"math"
	"slices"
	"time"
)

// The engine runs a pipeline request as a driver over ordinary requests:
// each call of a step is a request of the step's class (Config.withSteps),
// started by the driver instead of by an arrival, and its end (finish)
// calls back into the driver (callEnded). The driver counts the stage's
// calls done and failed, starts the next stage or iteration, and ends the
// pipeline; a pipeline's end-to-end deadline and a call whose stream goes
// on past its first token (FirstToken) are events of their own. A class
// that is not a pipeline never reaches this file.

// pipeState is one pipeline request in flight. Slots are reused; gen tells
// a live pipeline from stale events of an earlier one.
type pipeState struct {
	gen   uint32
	class int32
	// pc is its class's driver state, e.pipeOf[class].
	pc      *pipeClass
	id      int64
	arrival time.Duration
	// sec is the request's arrival section (engine.section), kept so that
	// its calls and its end need no division each; a growing run halves it
	// at each stage (nextStage), as it does a request slot's.
	sec uint16
	// in and out are the token counts the arrival drew for the first call
	// (the first step's distributions, or the replayed trace's counts).
	in, out float64
	stage   int // the stage in progress
	// st is the stage in progress as the driver reads it,
	// &pc.stages[stage] (startStage), with its calls at once and the
	// calls that must be done.
	st     *pipeStage
	iter   int     // its iteration (a repeated step), from 0
	iters  int     // its iterations in all
	done   int     // calls done (answered, or failed open)
	failed int     // calls failed closed
	fail   outcome // the first call of the stage that failed closed
	// openFail is the outcome of the first call of the request's answer
	// step (pipeClass.answer) that failed open.
	openFail outcome
	// answerOK is set when a call of the answer step answered, seen by
	// callDone; answerCut when the answer step's stage was done by its
	// other calls without one (pipeClass.answerRace): the request has no
	// answer.
	answerOK, answerCut bool
	start               time.Duration // when the stage started (its first iteration)
	ended               bool
	degraded            uint64        // bit s: a call of step s failed open
	hedged              bool          // a call sent a copy
	visible             time.Duration // the first visible token, absolute; −1 before
	// visibleAt and visibleInst are when the call that showed it ended,
	// and its instance.
	visibleAt   time.Duration
	visibleInst int
	live        []int32         // request slots of the stage's calls still running
	tok         []float64       // per step: input tokens, output tokens (2 each); kept only when a step reads them (pipeClass.reads)
	stepEnd     []time.Duration // per step: when its last call ended; −1 none yet
	left        []int           // per step of the stage: calls not yet done or failed
	stepDur     []float32       // per step: seconds, for the tail attribution
	deferred    []deferredCall  // calls answered whose stream goes on (FirstToken)
	// held is set when the pipeline waits to see one call, seen now, kept
	// in heldCall rather than in deferred (callEnded, pipeCall).
	held     bool
	heldCall deferredCall
}

// deferredCall is a call that has ended and that the pipeline sees at at:
// when it ended, or, when its answer streams on past its first token, when
// the answer completes.
type deferredCall struct {
	at   time.Duration
	step int
	o    outcome
	inst int // the call's instance: its order in the stage
}

// pipeClass is what the engine knows of a pipeline class: its steps'
// classes and what its requests did, beyond classStats.
type pipeClass struct {
	pl        *Pipeline
	firstStep int32 // class index of its step 0
	// steps and stages are pl's steps and stages as the driver reads
	// them, without pointers to follow (pipeStep, pipeStage).
	steps       []pipeStep
	stages      []pipeStage
	base        []int   // per step: its first call instance
	stageStarts []int   // per step: the stage it belongs to
	degraded    []int64 // per step: requests in which a call of it failed open
	degradedAny int64
	timedOut    int64     // requests ended by the end-to-end deadline
	cut         []int64   // per step: calls let go of when their stage was done or the pipeline ended
	durs        []float32 // per request as it ended: each step's seconds
	ttfv        endTimes  // the time to first visible token (with a visible step)
	// checked holds each request's end-to-end time, answered when it went
	// through checked (every call answered, none failed open).
	checked endTimes
	// answer is Pipeline.AnswerStep: a request in which it failed open
	// has no answer (recordPipeline).
	answer int
	// guards is set when a step other than the answer step fails open: a
	// call of it that its stage lets go of leaves the request unchecked
	// (markUnjudged).
	guards bool
	// answerRace is set when the answer step shares a stage that needs
	// fewer than all its calls (wait_for any, or k of n), answerStage:
	// that stage may be done with every call of the answer step let go
	// of, leaving the request without an answer (answerCut).
	answerRace  bool
	answerStage int
	// answerCut counts the requests through their last stage without an
	// answer so (PipelineResult.AnswerCut).
	answerCut int64
	// single is set when every stage is of one step: its requests keep no
	// per-step ends or counts (pipeStage.single).
	single bool
	// chain is set when every stage is one call (one step, neither fanned
	// out nor repeated): step g is stage g, and a stage is done when its
	// call is (pipeCall).
	chain bool
	// quick is set with chain: an answered call hands on to the next
	// stage's by callEnded's short path (engine.handNext) and startNext,
	// and the last call's answer ends the pipeline in callEnded without
	// callDone and endPipeline; false only in tests, which compare them
	// with pipeCall's, startCall's and callDone's.
	quick bool
	// deadline is the class's end-to-end deadline, 0 for none.
	deadline time.Duration
	// reads is set when a step reads earlier steps' tokens (Step.InputFrom):
	// only then does a request keep its steps' tokens (pipeState.tok).
	reads bool
	// visible has bit s set when step s is Step.Visible.
	visible uint64
	// sec are the per-section counts of a run whose requests interact
	// (pipeline_sections.go); nil otherwise.
	sec pipeSections
	// stepDeg is, in such a run, each step's degraded requests per
	// arrival section: step s's section k at [s·numSections + k]
	// (pipeline_sections.go); nil until one is.
	stepDeg []int64
	// stepBill is, in such a run, each step's cost in USD per arrival
	// section of its pipeline requests, step s's section k at
	// [s·numSections+k] (allocated when the first call bills).
	stepBill []float64
}

// pipeStep is what the driver reads of a step of a pipeline class.
type pipeStep struct {
	class    int32 // the step's class index
	fanOut   int32 // Step.FanOut
	base     int32 // its first call instance
	repeat   bool  // Step.Repeat is set
	failOpen bool  // its calls fail open (Call.OnTimeout)
	visible  bool  // Step.Visible
	inputs   bool  // Step.InputFrom is not empty
	// constTok is set when its class's token counts are both constants,
	// inTok and outTok: its calls draw none, and need no stream
	// (callRequest).
	constTok bool
	// plain is set when constTok is, and the step neither reads earlier
	// steps' tokens nor is repeated: its calls' token counts are inTok and
	// outTok, but for the pipeline's first call (startCall).
	plain bool
	// validWins is set when its class's winner is FirstValid and it has
	// no attempt timeout: a valid answer in service ends a call at its
	// end (callEndsBefore).
	validWins     bool
	inTok, outTok float64
	deadline      time.Duration // its class's per-call deadline, 0 for none
	// cl is its class, &e.cfg.Classes[class] (the run's Config, which a
	// fork shares).
	cl *Class
}

// pipeStage is what the driver reads of a stage of a pipeline class: its
// steps first ≤ s < end (consecutive, Stage.Steps), its calls at once and
// the calls it needs done (Stage.Need, or all).
type pipeStage struct {
	first, end   int
	ncalls, need int
	// single is set for a stage of one step: its time is the stage's
	// (closeStageAt), so the driver keeps no per-step end or count for it.
	single bool
	// repeat is set when its first step is repeated (Step.Repeat), and
	// fanOut is that step's Step.FanOut.
	repeat bool
	fanOut int
}

// setupPipelines prepares the driver for the pipeline classes of e.cfg,
// whose step classes start at steps[c].
func (e *engine) setupPipelines(steps []int, users int, n int) {
	e.users = users
	e.pipeOf = make([]*pipeClass, users)
	e.stepOwner = make([]int32, len(e.cfg.Classes)-users)
	for i := range e.stepOwner {
		e.stepOwner[i] = -1
	}
	e.stepBills = make([]stepBilling, len(e.cfg.Classes)) // indexed by class (billSection)
	for c := 0; c < users; c++ {
		pl := e.cfg.Classes[c].Pipeline
		if pl == nil {
			continue
		}
		pc := &pipeClass{pl: pl, firstStep: int32(steps[c])}
		pc.base = make([]int, len(pl.Steps))
		pc.stageStarts = make([]int, len(pl.Steps))
		inst := 0
		for s := range pl.Steps {
			pc.base[s] = inst
			inst += pl.Steps[s].FanOut * max(1, pl.Steps[s].MaxRepeat)
		}
		for g, st := range pl.Stages {
			for _, s := range st.Steps {
				pc.stageStarts[s] = g
			}
		}
		pc.steps = make([]pipeStep, len(pl.Steps))
		for s := range pl.Steps {
			step := &pl.Steps[s]
			pc.steps[s] = pipeStep{
				class: int32(steps[c] + s), fanOut: int32(step.FanOut), base: int32(pc.base[s]),
				repeat: step.Repeat != nil, failOpen: step.Call.OnTimeout == FailOpen,
				visible: step.Visible, inputs: len(step.InputFrom) > 0,
				deadline: e.cfg.Classes[steps[c]+s].Deadline,
				constTok: e.inputs[steps[c]+s].kind == sampleConstant && e.outputs[steps[c]+s].kind == sampleConstant,
				inTok:    e.inputs[steps[c]+s].tok, outTok: e.outputs[steps[c]+s].tok,
				validWins: step.Call.Policy.Winner == FirstValid && step.Call.Policy.AttemptTimeout <= 0,
			}
			ps := &pc.steps[s]
			ps.cl = &e.cfg.Classes[steps[c]+s]
			ps.plain = ps.constTok && !ps.inputs && !ps.repeat
		}
		pc.stages = make([]pipeStage, len(pl.Stages))
		for g, st := range pl.Stages {
			ps := pipeStage{first: st.Steps[0], end: st.Steps[len(st.Steps)-1] + 1, need: st.Need, single: len(st.Steps) == 1}
			for _, s := range st.Steps {
				ps.ncalls += pl.Steps[s].FanOut
			}
			if ps.need == 0 {
				ps.need = ps.ncalls
			}
			ps.repeat, ps.fanOut = pl.Steps[ps.first].Repeat != nil, pl.Steps[ps.first].FanOut
			pc.stages[g] = ps
		}
		pc.degraded = make([]int64, len(pl.Steps))
		pc.cut = make([]int64, len(pl.Steps))
		share := e.cfg.Classes[c].Share
		pc.durs = make([]float32, 0, int(float64(n)*share*1.05+16)*len(pl.Steps))
		if pl.visibleStep() >= 0 {
			pc.ttfv = newEndTimes(int(float64(n)*share*1.05) + 16)
		}
		pc.checked = newEndTimes(int(float64(n)*share*1.05) + 16)
		if e.batched {
			// The checked times keep their requests' arrival sections,
			// as the class's own: CheckedTimes is then batched.
			pc.checked.stepSectioned(e.cfg.warmUpCut())
		}
		pc.answer = pl.AnswerStep()
		pc.answerStage = pc.stageStarts[pc.answer]
		pc.answerRace = pc.stages[pc.answerStage].need < pc.stages[pc.answerStage].ncalls
		pc.deadline = e.cfg.Classes[c].Deadline
		pc.single, pc.chain = true, true
		for _, st := range pc.stages {
			pc.single = pc.single && st.single
			pc.chain = pc.chain && st.single && !st.repeat && st.fanOut == 1
		}
		pc.quick = pc.chain
		for s := range pl.Steps {
			pc.reads = pc.reads || len(pl.Steps[s].InputFrom) > 0
			if pl.Steps[s].Visible {
				pc.visible |= 1 << s
			}
			pc.guards = pc.guards || s != pc.answer && pc.steps[s].failOpen
		}
		e.pipeOf[c] = pc
		for s := range pl.Steps {
			// Room for the step's calls of its share of n requests.
			sc := steps[c] + s
			e.stepOwner[sc-users] = int32(c)
			calls := float64(pl.Steps[s].FanOut)
			if pl.Steps[s].Repeat != nil {
				calls = pl.Steps[s].Repeat.Mean()
			}
			if !(calls > 0) || math.IsInf(calls, 0) {
				calls = 1
			}
			e.stats[sc].times = newEndTimes(int(float64(n)*share*calls*1.05) + 16)
			if e.batched {
				e.stats[sc].times.stepSectioned(e.cfg.warmUpCut())
			}
		}
	}
}

// visibleStep returns the index of the step marked Visible, or −1.
func (p *Pipeline) visibleStep() int {
	for i := range p.Steps {
		if p.Steps[i].Visible {
			return i
		}
	}
	return -1
}

// startPipeline starts pipeline request r, which has just arrived in slot
// and drawn its class: it moves to a pipeline slot of its own, arms the
// end-to-end deadline and starts the first stage.
//
// The first call of a first stage of one step, not repeated, runs in the
// arrival's slot: retire and allocSlot would give it back (the free slots
// are taken last in, first out), and the arrival's reset and draws are its
// call's (callRequest's for instance 0) but for the class (startCall).
// Requests run one at a time (isolated) keep retire, which clears their
// queue.
func (e *engine) startPipeline(slot int32, r *request) {
	c := r.class
	id, arrival, sec, in, out := r.id, r.arrival, r.sec, r.in, r.out
	first := &e.pipeOf[c].stages[0]
	inSlot := first.single && !first.repeat && !e.isolated
	if !inSlot {
		e.retire(slot, r)
	}
	var ps int32
	if n := len(e.pipeFree); n > 0 {
		ps = e.pipeFree[n-1]
		e.pipeFree = e.pipeFree[:n-1]
	} else {
		e.pipes = append(e.pipes, pipeState{})
		ps = int32(len(e.pipes) - 1)
	}
	p := &e.pipes[ps]
	e.resetPipe(p, c, id, arrival, sec, in, out)
	pc := p.pc
	if d := pc.deadline; d > 0 {
		e.schedule(arrival+d, evPipeDeadline, ps, p.gen, 0)
	}
	if inSlot { // startStage's commonest way, the first call in slot
		p.st = first
		p.start, p.iter, p.iters = e.now, 0, 1
		p.done, p.failed, p.fail = 0, 0, outNone
		e.startCall(p, pc, ps, 0, 0, slot)
		for j := 1; j < first.fanOut; j++ {
			e.startCall(p, pc, ps, 0, j, -1)
		}
		return
	}
	e.startStage(p, pc, ps)
}

// resetPipe makes p pipeline request id of class c, arriving at arrival
// in arrival section sec (engine.section) with the first call's token
// counts in and out.
func (e *engine) resetPipe(p *pipeState, c int32, id int64, arrival time.Duration, sec uint16, in, out float64) {
	pc := e.pipeOf[c]
	steps := len(pc.pl.Steps)
	p.class, p.pc, p.id, p.arrival, p.in, p.out = c, pc, id, arrival, in, out
	p.sec = sec
	p.stage, p.ended, p.degraded, p.visible, p.hedged, p.held = 0, false, 0, -1, false, false
	p.openFail = outNone
	p.answerOK, p.answerCut = false, false
	if !pc.single { // only a stage of more than one step reads them
		p.stepEnd = resized(p.stepEnd, steps)
		// A stage of more than one step sets its steps' counts as it
		// starts (startCalls), and the lane never writes them (its calls
		// are done or past when a stage closes): left needs no clearing.
		p.left = resized(p.left, steps)
	}
	// Each step's time is set when its stage ends, or when the request
	// ends before it (endPipeline, lanePipeEnd): stepDur needs no clearing.
	p.stepDur = resized(p.stepDur, steps)
	if pc.reads {
		p.tok = resized(p.tok, 2*steps)
		clear(p.tok)
	}
	p.live, p.deferred = p.live[:0], p.deferred[:0]
}

// resized returns x with length n, reusing its array when it is large
// enough (the contents are not cleared).
func resized[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	return x[:n]
}

// startStage starts the calls of pipeline ps's current stage: its first
// iteration, for a repeated step (startCalls). p is &e.pipes[ps] and pc
// its class: the driver passes them down, as e.pipes does not move while
// it runs (only an arrival adds a pipeline slot).
//
// A repeated step that draws no iteration is skipped: its stage makes no
// call and takes no time, and the next stage starts now — or, when it was
// the last, the pipeline ends now, through it.
func (e *engine) startStage(p *pipeState, pc *pipeClass, ps int32) {
	for {
		st := &pc.stages[p.stage]
		p.st = st
		p.start, p.iter, p.iters = e.now, 0, 1
		if st.single && !st.repeat { // the commonest: startCalls' way for one step, run once
			p.done, p.failed, p.fail = 0, 0, outNone
			for j := range st.fanOut {
				e.startCall(p, pc, ps, st.first, j, -1)
			}
			return
		}
		if !st.single {
			for s := st.first; s < st.end; s++ {
				p.stepEnd[s] = -1
			}
		}
		if st.repeat {
			p.iters = e.repeats(p.id, st.first, &pc.pl.Steps[st.first])
			if p.iters == 0 { // skipped (a repeated step is a stage of its own)
				p.stepDur[st.first] = 0
				if p.stage+1 < len(pc.stages) {
					p.stage++
					continue
				}
				e.endPipeline(ps, outOK, false)
				return
			}
		}
		e.startCalls(p, pc, ps)
		return
	}
}

// startCalls starts every call of the current iteration of pipeline ps's
// stage (p and pc as startStage says). Call j of step s is a request of
// the step's class, arriving now; its draws come from the streams of a
// request index of its own — the pipeline's for the first call (so that a
// one-step pipeline is exactly the one-call class), the pipeline's plus
// its instance number above bit 32 for the others (callRequest).
func (e *engine) startCalls(p *pipeState, pc *pipeClass, ps int32) {
	st := p.st
	p.done, p.failed, p.fail = 0, 0, outNone
	if st.single {
		// One step: no per-step count to keep (closeStageAt).
		s, n := st.first, st.fanOut
		for j := 0; j < n; j++ {
			e.startCall(p, pc, ps, s, p.iter*n+j, -1)
		}
		return
	}
	for s := st.first; s < st.end; s++ {
		n := int(pc.steps[s].fanOut)
		p.left[s] = n
		for j := 0; j < n; j++ {
			e.startCall(p, pc, ps, s, p.iter*n+j, -1)
		}
	}
}

// startCall starts call j of step s of pipeline ps (p and pc as
// startStage says) in a request slot of its own — or, for the pipeline's
// first call, in the arrival's slot when slot ≥ 0 (startPipeline).
func (e *engine) startCall(p *pipeState, pc *pipeClass, ps int32, s, j int, slot int32) {
	var r *request
	step := &pc.steps[s]
	if slot >= 0 {
		// retire's and callRequest's steps for the arrival's request, the
		// call's but for its class.
		r = &e.slots[slot]
		r.gen++
		r.class = step.class
		if pc.reads {
			p.tok[0] += r.in
			p.tok[1] += r.out
		}
	} else if slot = e.allocSlot(); step.plain && !pc.reads {
		r = &e.slots[slot]
		// callRequest's way for a call of constant token counts that reads
		// no earlier step's and is not repeated.
		inst := int(step.base) + j
		id := p.id + int64(inst)<<32
		r.reset(id, e.rng.keyOf(id), e.now, p.sec)
		r.class = step.class
		if inst == 0 {
			r.in, r.out = p.in, p.out
		} else {
			r.in, r.out = step.inTok, step.outTok
		}
	} else {
		r = &e.slots[slot]
		e.callRequest(p, pc, r, s, j)
	}
	r.pipe, r.pstep, r.doneAt = ps+1, uint8(s), -1
	p.live = append(p.live, slot)
	c := step.class
	e.stats[c].requests++
	e.classes[c].inflightReqs++
	cl := step.cl
	d := step.deadline
	if d <= 0 || e.isolated {
		if d > 0 {
			e.scheduleIn(fifoIndex(c, chanDeadline), e.now+d, evDeadline, slot, r.gen, 0)
		}
		// A new request's primary, as an arrival's: send's first turn
		// without its loop (sendFirst).
		e.sendFirst(slot, r, cl)
		return
	}
	// The deadline is numbered before the primary's events, as if queued
	// first, but queued after them, and only when the call may still run
	// at it: one certain to end before (callEndsBefore) would find it
	// dead, so leaving it out changes nothing but the queue's length.
	e.seq++
	seq, at := e.seq, e.now+d
	e.sendFirst(slot, r, cl) // schedules events only: r stays live
	if a := &r.att[0]; step.validWins && a.kind == outOK && a.end < at && a.state == attInFlight && !a.queued && !e.queueAllTimers {
		return // callEndsBefore's commonest yes: the primary's answer, in service
	}
	if !e.callEndsBefore(cl, r, at) {
		e.queueCallDeadline(c, at, seq, slot, r.gen)
	}
}

// startNext starts call 0 of step s > 0 of chain pipeline ps (p and pc as
// startStage says): startCall's way, with its tests for the commonest
// such call taken once — in a slot of its own, of constant token counts
// that read no earlier step's (Step.plain; not instance 0, the
// pipeline's first call, as step 0's calls come first), with a per-call
// deadline, in a run whose requests do not run one at a time. Any other
// call goes to startCall.
func (e *engine) startNext(p *pipeState, pc *pipeClass, ps int32, s int) {
	step := &pc.steps[s]
	if !pc.quick || !step.plain || pc.reads || step.deadline <= 0 || e.isolated {
		e.startCall(p, pc, ps, s, 0, -1)
		return
	}
	slot := e.allocSlot()
	r := &e.slots[slot]
	id := p.id + int64(step.base)<<32
	r.reset(id, e.rng.keyOf(id), e.now, p.sec)
	c := step.class
	r.class, r.in, r.out = c, step.inTok, step.outTok
	r.pipe, r.pstep, r.doneAt = ps+1, uint8(s), -1
	p.live = append(p.live, slot)
	e.stats[c].requests++
	e.classes[c].inflightReqs++
	// startCall's deadline: numbered before the primary's events, queued
	// after them when the call may still run at it.
	e.seq++
	seq, at := e.seq, e.now+step.deadline
	cl := step.cl
	e.sendFirst(slot, r, cl)
	if a := &r.att[0]; step.validWins && a.kind == outOK && a.end < at && a.state == attInFlight && !a.queued && !e.queueAllTimers {
		return
	}
	if !e.callEndsBefore(cl, r, at) {
		e.queueCallDeadline(c, at, seq, slot, r.gen)
	}
}

// callEndsBefore reports whether call r, of class cl, just sent, is
// certain to end before t, its deadline: endsBy's test, strictly before t
// (the deadline is numbered before the call's responses, so one due at t
// would come after it) — an attempt in service whose response wins and is
// due before t, and no attempt timeout to intervene.
func (e *engine) callEndsBefore(cl *Class, r *request, t time.Duration) bool {
	if e.queueAllTimers || cl.Policy.AttemptTimeout > 0 {
		return false
	}
	for k := range int(r.sent) {
		if a := &r.att[k]; a.state == attInFlight && !a.queued && a.winsBy(cl, t-1) {
			return true
		}
	}
	return false
}

// queueCallDeadline queues the deadline of the call in slot, of class c,
// due at at and numbered seq, taken before its primary's events were
// (startCall): scheduleIn's way, under that number. The class's FIFO of
// deadlines holds only earlier ones, due no later and numbered lower, so
// it stays in order.
func (e *engine) queueCallDeadline(c int32, at time.Duration, seq uint64, slot int32, gen uint32) {
	last := e.seq
	e.seq = seq - 1 // scheduleIn's increment makes it seq
	e.scheduleIn(fifoIndex(c, chanDeadline), at, evDeadline, slot, gen, 0)
	e.seq = last
}

// callRequest makes r call j of step s of pipeline p, of class pc,
// arriving now: its request index, class and token counts (drawn, plus the
// earlier steps' tokens it reads and its iteration's growth), which it
// adds to p's.
func (e *engine) callRequest(p *pipeState, pc *pipeClass, r *request, s, j int) {
	ps := &pc.steps[s]
	inst := int(ps.base) + j
	id := p.id + int64(inst)<<32
	c := ps.class
	r.reset(id, e.rng.keyOf(id), e.now, p.sec)
	r.class = c
	switch {
	case inst == 0:
		r.in, r.out = p.in, p.out
	case ps.constTok:
		// What the draws below would give, without seeding their stream
		// (a constant draws nothing).
		r.in, r.out = ps.inTok, ps.outTok
	default:
		src := e.rng.at(id, requestStream)
		src.float64() // the class draw of a request, unused: a call's tokens come next
		r.in = e.inputs[c].tokens(src)
		r.out = e.outputs[c].tokens(src)
	}
	if ps.inputs {
		for _, ref := range pc.pl.Steps[s].InputFrom {
			if ref.Output {
				r.in += p.tok[2*ref.Step+1]
			} else {
				r.in += p.tok[2*ref.Step]
			}
		}
	}
	if ps.repeat {
		r.in += float64(p.iter) * tokens(pc.pl.Steps[s].InputGrowth)
	}
	if pc.reads {
		p.tok[2*s] += r.in
		p.tok[2*s+1] += r.out
	}
}

// callEnded is finish's call into the driver: the call in slot, of
// pipeline r.pipe−1, has ended now with outcome o. The pipeline sees it in
// an event of its own, now or — for an answer that streams on past its
// first token (FirstToken) — when the answer completes.
func (e *engine) callEnded(slot int32, r *request, o outcome) {
	ps := r.pipe - 1
	s := int(r.pstep)
	r.pipe = 0
	p := &e.pipes[ps]
	pc := p.pc
	if r.hedgedCopies > 0 {
		p.hedged = true
	}
	if n := len(p.live) - 1; n >= 0 && p.live[n] == slot { // the commonest: the last started
		p.live = p.live[:n]
	} else if i := slices.Index(p.live, slot); i >= 0 {
		p.live[i] = p.live[n]
		p.live = p.live[:n]
	}
	// A call of the last stage ends the pipeline at its own end — its first
	// token, under FirstToken — as a one-call class's request ends; a call
	// of an earlier stage hands on once its answer is complete.
	last := p.stage+1 == len(pc.stages)
	at := e.now
	if r.doneAt > at && !last {
		at = r.doneAt
	}
	// The first visible token is the first the user sees: of the first
	// call of the visible step to end with an answer (ties: the first in
	// the stage's order).
	inst := int((r.id - p.id) >> 32)
	if pc.visible != 0 && pc.visible>>s&1 != 0 && o == outOK && r.doneAt >= 0 &&
		(p.visible < 0 || p.visibleAt == e.now && inst < p.visibleInst) {
		p.visible, p.visibleAt, p.visibleInst = r.firstAt, e.now, inst
	}
	// The driver runs from the event loop, never inside finish: starting
	// the next calls there would grow the request slots under finish's
	// callers. Ending the pipeline starts none: the last call of its last
	// stage, seen now while nothing else is due now and no call of it
	// runs, ends it here. Its event would have been the first handled
	// after this one, and what this one does after finish (retire the
	// call, end other requests) reads nothing of the pipeline's class
	// (endPipeline): only the event's number is taken, as it was. (A
	// release answer handles as its last step is due now as though in
	// soon: relPending.)
	if last && !p.held && len(p.deferred) == 0 && len(p.live) == 0 && p.iter+1 >= p.iters &&
		len(e.soon) == 0 && e.handOn == 0 && !e.relPending && !e.nowQueued() { // at is now
		e.seq++
		if pc.quick && o == outOK {
			// callDone's and endPipeline's steps for a chain's last call,
			// answered: its stage is done (one call, none left running,
			// nothing deferred) and was the last, so the pipeline ends
			// answered now.
			p.stepDur[s] = toSeconds32(e.now - p.start)
			p.ended = true
			e.recordPipeline(p, outOK, false)
			if e.loops != nil {
				e.meterEnd(p.class)
			}
			e.classes[p.class].inflightReqs--
			p.gen++
			e.pipeFree = append(e.pipeFree, ps)
			return
		}
		e.callDone(p, pc, ps, s, o)
		return
	}
	// A chain's answered call before its last stage, seen now while the
	// pipeline waits to see no other, as the first event due now: the
	// chain goes on to its next stage right after this event (handHeld,
	// chainOn), pipeCall's way for it, without holding the call in p. Its
	// stage's only call has ended, so nothing but the next stage's call
	// can change the pipeline before then.
	if pc.quick && o == outOK && !last && at == e.now && !p.held && len(p.deferred) == 0 &&
		!e.isolated && !e.heapOnly && len(e.soon) == 0 && e.handOn == 0 && e.grow == nil && !e.nowQueued() {
		e.seq++ // schedule's way for an event due now
		e.handOn, e.handGen, e.handNext = ps+1, p.gen, true
		return
	}
	// The commonest call, seen now while the pipeline waits to see no
	// other, is held apart for its event (pipeCall).
	if p.held { // another call: pipeCall picks among them
		p.held = false
		p.deferred = append(p.deferred, p.heldCall)
	}
	if at == e.now && len(p.deferred) == 0 {
		p.held, p.heldCall = true, deferredCall{at: at, step: s, o: o, inst: inst}
	} else {
		p.deferred = append(p.deferred, deferredCall{at: at, step: s, o: o, inst: inst})
	}
	if at == e.now && !e.isolated {
		e.seq++ // schedule's way for an event due now
		if !e.heapOnly {
			// The first event due now, when nothing queued or in soon is
			// (dueNow), is handled right after this one: it is kept as
			// handOn, numbered, not queued (handHeld) — unless a growing
			// run may hold after this event (fork.go), which would keep it
			// for after the hold.
			if len(e.soon) == 0 && e.handOn == 0 && e.grow == nil && !e.nowQueued() {
				e.handOn, e.handGen = ps+1, p.gen
				return
			}
			e.queueNow(evPipeCall, ps, p.gen, 0)
			return
		}
		e.put(0, at, evPipeCall, ps, p.gen, 0)
		return
	}
	e.schedule(at, evPipeCall, ps, p.gen, 0)
}

// handHeld handles the call callEnded kept in handOn, as its evPipeCall
// event, numbered before every event scheduled after it, would have been
// handled: first after the event that ended the call. pipeCall ends no
// call (the calls it starts schedule events only, sendFirst), so it sets
// no handOn of its own.
func (e *engine) handHeld() {
	ps := e.handOn - 1
	e.handOn = 0
	if e.handNext {
		e.handNext = false
		if p := &e.pipes[ps]; p.gen == e.handGen && !p.ended {
			e.chainOn(p, p.pc, ps, p.stage)
		}
		return
	}
	e.pipeCall(ps, e.handGen)
}

// chainOn hands chain pipeline ps on from stage s, whose one call has
// just been answered, to stage s+1, not its last (p and pc as startStage
// says): callDone's way for the answer of a stage of one call, before the
// last, and startStage's for the next. No call is left running (its
// stage's only call ended), the stage's counts stay 0 (one answered call
// is enough), and its iterations 1.
func (e *engine) chainOn(p *pipeState, pc *pipeClass, ps int32, s int) {
	p.stepDur[s] = toSeconds32(e.now - p.start)
	p.stage = s + 1
	p.st = &pc.stages[s+1]
	p.start = e.now
	e.startNext(p, pc, ps, s+1)
}

// pipeCall handles a deferred call of pipeline ps completing now.
func (e *engine) pipeCall(ps int32, gen uint32) {
	p := &e.pipes[ps]
	if p.gen != gen || p.ended {
		return
	}
	if p.held { // the only call seen now (callEnded)
		p.held = false
		pc, s := p.pc, p.heldCall.step
		if pc.chain && p.heldCall.o == outOK && s+1 < len(pc.stages) {
			e.chainOn(p, pc, ps, s)
			return
		}
		e.callDone(p, pc, ps, s, p.heldCall.o)
		return
	}
	// Of the calls that hand on now, the first in the stage's order: the
	// order in which same-time ends are seen does not depend on the order
	// of events (the lane sees them so too).
	k := -1
	if len(p.deferred) == 1 { // the commonest: one call seen at a time
		if p.deferred[0].at == e.now {
			k = 0
		}
	} else {
		for i, d := range p.deferred { // few: the stage's calls
			if d.at == e.now && (k < 0 || d.inst < p.deferred[k].inst) {
				k = i
			}
		}
	}
	if k >= 0 {
		d := p.deferred[k]
		if last := len(p.deferred) - 1; k == last {
			p.deferred = p.deferred[:last]
		} else {
			p.deferred = slices.Delete(p.deferred, k, k+1) // in order
		}
		e.callDone(p, p.pc, ps, d.step, d.o)
	}
}

// callDone counts a call of step s of pipeline ps as done or failed, by
// its outcome o and the step's fail-open/closed rule, and judges the
// stage: done once need calls are done — the next iteration or stage
// starts, or the pipeline ends answered — failed once too many calls
// failed to reach need (p and pc as startStage says).
func (e *engine) callDone(p *pipeState, pc *pipeClass, ps int32, s int, o outcome) {
	st := p.st
	if !st.single {
		p.stepEnd[s] = e.now
		p.left[s]--
	}
	switch {
	case o == outOK:
		p.done++
		if s == pc.answer {
			p.answerOK = true
		}
	case pc.steps[s].failOpen:
		p.done++
		p.degraded |= 1 << s
		if s == pc.answer && p.openFail == outNone {
			p.openFail = o
		}
	default:
		p.failed++
		if p.fail == outNone {
			p.fail = o
		}
	}
	switch {
	case p.done >= st.need:
		if pc.guards && (len(p.live) > 0 || len(p.deferred) > 0) {
			e.markUnjudged(p, pc)
		}
		if pc.answerRace && !p.answerOK && p.stage == pc.answerStage {
			p.answerCut = !e.answerTied(p, pc)
		}
		if len(p.live) > 0 {
			e.cutLive(ps, hidByPipeline)
		} else {
			p.deferred = p.deferred[:0]
		}
		if p.iter+1 < p.iters {
			p.iter++
			e.startCalls(p, pc, ps)
			return
		}
		if st.single { // closeStageAt's way for a stage of one step
			p.stepDur[s] = toSeconds32(e.now - p.start)
		} else {
			e.closeStageAt(p, pc, e.now)
		}
		if p.stage+1 < len(pc.stages) {
			p.stage++
			e.startStage(p, pc, ps)
			return
		}
		e.endPipeline(ps, outOK, false)
	case p.failed > st.ncalls-st.need:
		e.endPipeline(ps, p.fail, false)
	}
}

// closeStageAt records how long each step of pipeline p's current stage,
// ending at now, took: from the stage's start to its last call's end, or
// to now for a step with a call still running (cut short) and for a
// repeated step. pc is p's class.
func (e *engine) closeStageAt(p *pipeState, pc *pipeClass, now time.Duration) {
	st := &pc.stages[p.stage]
	if st.single {
		// Its step ran until now: a stage of one step ends when the step
		// is done (its last call's end, now) or is cut short now.
		p.stepDur[st.first] = toSeconds32(now - p.start)
		return
	}
	for s := st.first; s < st.end; s++ {
		end := p.stepEnd[s]
		if end < 0 || end > now || p.left[s] > 0 || pc.steps[s].repeat {
			end = now
		}
		p.stepDur[s] = toSeconds32(end - p.start)
	}
}

// markUnjudged marks pipeline p degraded by each fail-open step, other
// than the answer step, with a call its stage, done now (wait_for any, or
// k of n), lets go of: still running, or ended but not yet seen — ended
// without an answer, or answered but streaming on. Such a call gave no
// verdict in time, so the request is not checked. A call answered now and
// not yet seen, a tie with the call that closed the stage, did give its
// verdict. pc is p's class.
func (e *engine) markUnjudged(p *pipeState, pc *pipeClass) {
	for _, slot := range p.live {
		if s := int(e.slots[slot].pstep); s != pc.answer && pc.steps[s].failOpen {
			p.degraded |= 1 << s
		}
	}
	for _, d := range p.deferred {
		if s := d.step; s != pc.answer && pc.steps[s].failOpen && (d.o != outOK || d.at > e.now) {
			p.degraded |= 1 << s
		}
	}
}

// answerTied reports whether a call of pipeline p's answer step answered
// now, ended but not yet seen: a tie with the call that closed the stage,
// which gave its answer in time (markUnjudged's rule for a verdict). pc
// is p's class.
func (e *engine) answerTied(p *pipeState, pc *pipeClass) bool {
	for _, d := range p.deferred {
		if d.step == pc.answer && d.o == outOK && d.at == e.now {
			return true
		}
	}
	return false
}

// pipeDeadline ends pipeline ps at its end-to-end deadline.
func (e *engine) pipeDeadline(ps int32, gen uint32) {
	if p := &e.pipes[ps]; p.gen == gen && !p.ended {
		e.endPipeline(ps, outTimeout, true)
	}
}

// cutLive lets go of the calls of pipeline ps still running: they leave
// their step's counts (a call cut short is counted apart, as cut) and
// their attempts are cancelled as losers are; cause says why, for the
// breakers (hidByPipeline, or hidByTurnDeadline at the end-to-end
// deadline).
func (e *engine) cutLive(ps int32, cause hideCause) {
	for {
		p := &e.pipes[ps]
		if len(p.live) == 0 {
			p.deferred = p.deferred[:0]
			return
		}
		slot := p.live[len(p.live)-1]
		p.live = p.live[:len(p.live)-1]
		r := &e.slots[slot]
		pc := p.pc
		pc.cut[r.pstep]++
		p.hedged = p.hedged || r.hedgedCopies > 0
		r.pipe = 0
		e.stats[r.class].requests--
		e.classes[r.class].inflightReqs--
		e.letGoAll(slot, r, cause)
		r.ended = true
		if r.live == 0 {
			e.retire(slot, r)
		}
	}
}

// endPipeline ends pipeline ps now with outcome o: through its last stage
// (outOK), at its end-to-end deadline (outTimeout, e2e set), or with the
// outcome of the call that failed its stage closed. It records the request
// and frees its slot.
//
// The request is answered when it went through its last stage with an
// answer from its answer step (Pipeline.AnswerStep) — checked (every call
// answered) or degraded (another fail-open step's call without an
// answer): the user got the answer, at its end-to-end time. When a call
// of the answer step failed open, there is no answer: the request takes
// that call's outcome — a timeout open, an error, an invalid answer —
// as a pipeline of one plain step (Pipeline.OneCall) is counted exactly
// as the same call written as a class. When the answer step's stage was
// done by other calls (wait_for) with every call of it let go of, none
// answered (pipeState.answerCut), there is no answer either: the request
// went on without one, a timeout open. At its
// end-to-end deadline the request is a timeout open or closed by the
// class's rule; failed closed, it has the failing call's outcome (its own
// deadline: a timeout closed). Both are misses.
func (e *engine) endPipeline(ps int32, o outcome, e2e bool) {
	p := &e.pipes[ps]
	if len(p.live) > 0 {
		cause := hidByPipeline
		if e2e {
			cause = hidByTurnDeadline
		}
		e.cutLive(ps, cause)
	} else {
		p.deferred = p.deferred[:0]
	}
	p.ended = true
	pc := p.pc
	if o != outOK {
		e.closeStageAt(p, pc, e.now)
		if g := p.stage + 1; g < len(pc.stages) {
			clear(p.stepDur[pc.stages[g].first:])
		}
	}
	e.recordPipeline(p, o, e2e)
	if e.loops != nil {
		e.meterEnd(p.class)
	}
	e.classes[p.class].inflightReqs--
	p.gen++
	e.pipeFree = append(e.pipeFree, ps)
}

// recordPipeline books pipeline request p, ending now with outcome o (as
// endPipeline says), in its class's counts.
func (e *engine) recordPipeline(p *pipeState, o outcome, e2e bool) {
	pc := p.pc
	st := &e.stats[p.class]
	through := o == outOK
	switch {
	case !through:
	case p.degraded&(1<<pc.answer) != 0:
		o = p.openFail // the answer step failed open: no answer
	case p.answerCut:
		// Its stage was done without the answer step's answer, every call
		// of it let go of: the request went on without one, a timeout open.
		o = outTimeout
		pc.answerCut++
	}
	// answered: through with an answer, checked or degraded.
	answered := o == outOK
	switch o {
	case outOK:
		st.answered++
	case outTimeout:
		if through {
			st.timeoutsOpen++ // the fail-open answer step's deadline, or its calls let go of
		} else if !e2e || e.cfg.Classes[p.class].OnTimeout == FailClosed {
			st.timeoutsClosed++
		} else {
			st.timeoutsOpen++
		}
	case outInvalid:
		st.invalid++
	default:
		st.errors++
		switch o {
		case outRateLimited:
			st.reqRateLimited++
		case outRejected:
			st.reqRejected++
		case outStalled:
			st.reqStalled++
		}
	}
	if e2e {
		pc.timedOut++
	}
	if answered && p.degraded != 0 {
		pc.degradedAny++
		for s := range pc.degraded {
			if p.degraded&(1<<s) != 0 {
				pc.degraded[s]++
			}
		}
	}
	e.recordAt(st, o, p.sec, p.arrival)
	if e.batched {
		pc.pipeSection(p.sec, answered && p.degraded == 0, answered && p.degraded != 0, e2e)
		if answered && p.degraded != 0 {
			pc.stepDegradedSection(p.sec, p.degraded)
		}
	}
	pc.checked.addAt(e.now-p.arrival, answered && p.degraded == 0, p.sec, p.arrival)
	e.lastEvent = max(e.lastEvent, e.now)
	if pc.ttfv.buf != nil {
		if p.visible >= 0 { // the user saw a first token, whatever came after
			pc.ttfv.add(p.visible-p.arrival, true)
		} else {
			pc.ttfv.add(e.now-p.arrival, false)
		}
	}
	if p.hedged {
		st.hedged++
	}
	pc.durs = append(pc.durs, p.stepDur...)
}

// pipeMoved records that a call of pipeline ps moved from request slot
// from to slot to (its class's retry re-runs it in a fresh slot).
func (e *engine) pipeMoved(ps int32, from, to int32) {
	p := &e.pipes[ps]
	if i := slices.Index(p.live, from); i >= 0 {
		p.live[i] = to
	}
}
