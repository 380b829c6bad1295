package sim

import (
	"math"
	"slices"
	"time"
)

// Pipelines whose calls cannot affect one another — no queue, rate limit,
// budget, breaker or retry, and nothing else that keeps a one-call class
// off the lane — run on the lane without events: each pipeline request in
// turn, each of its calls raced on the lane (laneRace) from its start, so
// its end, answer and first token are known before the next call starts.
// That is exact when no call is ever let go of before its end by its
// stage: every stage waits for all its calls and, when a stage has more
// than one call, every one of them fails open (none fails the request
// while the others run). A call still running at the end-to-end deadline
// is cut there, as the event loop's driver cuts it (cutLive), by racing it
// against that deadline. TestPipelineLaneMatchesEventLoop checks that the
// reports are the event loop's, byte for byte.

// pipeLaneOK reports whether e's run takes the pipelines' lane.
func (e *engine) pipeLaneOK() bool {
	if e.pipeOf == nil || e.noLane || e.trace != nil || e.copula != nil || !e.cfg.laneableCalls() {
		return false
	}
	for _, pc := range e.pipeOf {
		if pc == nil {
			continue
		}
		for _, st := range pc.pl.Stages {
			calls := 0
			open := true
			for _, s := range st.Steps {
				calls += pc.pl.Steps[s].FanOut
				open = open && pc.pl.Steps[s].Call.OnTimeout == FailOpen
			}
			if st.Need != 0 && st.Need != calls || calls > 1 && !open {
				return false
			}
		}
	}
	return true
}

// runLanePipelines runs every request on the lane, a pipeline's calls one
// after another.
func (e *engine) runLanePipelines() {
	e.laneSetup()
	r := &request{}
	var p pipeState
	// When every class is a pipeline, a request's class needs no look
	// before its draws.
	mixed := slices.Contains(e.pipeOf, nil)
	for e.more() {
		e.now = e.arrivalTime()
		e.costMark()
		if mixed && e.pipeOf[e.nextClass()] == nil {
			e.laneRequest(r)
			continue
		}
		r.id, r.arrival, r.sec = e.next, e.now, e.section(e.next)
		e.next++
		e.drawRequest(r, -1)
		e.stats[r.class].requests++
		e.resetPipe(&p, r.class, r.id, r.arrival, r.sec, r.in, r.out)
		e.lanePipeline(&p, r)
	}
	e.laneFold()
}

// nextClass returns the class of request e.next without drawing anything
// else (drawRequest draws it again).
func (e *engine) nextClass() int32 {
	var r request
	r.id = e.next
	e.drawRequest(&r, -1)
	return r.class
}

// lanePipeline runs pipeline request p, arriving now, to its end, its
// calls in r — or, when the run is stopped (spent, a call counting one
// unit), leaves it half run.
func (e *engine) lanePipeline(p *pipeState, r *request) {
	pc := p.pc
	cut := never
	if d := pc.deadline; d > 0 {
		cut = p.arrival + d
	}
	t := p.arrival
	for g := range pc.stages {
		st := &pc.stages[g]
		p.stage, p.start = g, t
		// A stage of one step keeps no end per step (closeStageAt).
		if !st.single {
			for s := st.first; s < st.end; s++ {
				p.stepEnd[s] = -1
			}
		}
		// A repeated step that draws 0 runs no iteration: its stage makes
		// no call and takes no time (closeStageAt at its start).
		p.iters = 1
		if pc.steps[st.first].repeat {
			p.iters = e.repeats(p.id, st.first, &pc.pl.Steps[st.first])
		}
		last := g+1 == len(pc.stages)
		for p.iter = 0; p.iter < p.iters; p.iter++ {
			// The calls of one iteration start together at t; the next
			// starts when the last of them is done.
			var end time.Duration
			// The first call of the answer step to fail open sets the
			// request's outcome (recordPipeline); within an iteration, the
			// first to end.
			firstFail, failedHere := never, false
			// Likewise the first visible token: of the first call to end.
			visibleAt, visibleHere := never, false
			failed := outNone
			for s := st.first; s < st.end; s++ {
				step := &pc.steps[s]
				n := int(step.fanOut)
				for j := 0; j < n; j++ {
					if e.spent(1) {
						return // stopped: the run is given up (more)
					}
					e.now = t
					e.callRequest(p, pc, r, s, p.iter*n+j)
					r.sent, r.inflight, r.live, r.hedgedCopies = 0, 0, 0, 0
					r.ended, r.lastFail, r.timer, r.doneAt = false, outNone, noTimer, -1
					e.laneRace(r, cut)
					o := e.ln.outcome
					if r.hedgedCopies > 0 {
						p.hedged = true
					}
					if e.now == cut && o == outTimeout {
						pc.cut[s]++ // let go of at the end-to-end deadline
						end = max(end, cut)
						if !st.single {
							p.stepEnd[s] = max(p.stepEnd[s], cut) // running until then
						}
						continue
					}
					done := e.now
					if r.doneAt > done && !last {
						done = r.doneAt // the answer completes before the next stage
					}
					if step.visible && o == outOK && r.doneAt >= 0 && (p.visible < 0 || visibleHere && e.now < visibleAt) {
						p.visible, visibleAt, visibleHere = r.firstAt, e.now, true
					}
					if !st.single {
						p.stepEnd[s] = max(p.stepEnd[s], done)
					}
					end = max(end, done)
					switch {
					case o == outOK:
					case step.failOpen:
						p.degraded |= 1 << s
						if s == pc.answer && (p.openFail == outNone || failedHere && done < firstFail) {
							p.openFail, firstFail, failedHere = o, done, true
						}
					default:
						failed = o // one call per stage here: it ends the request
					}
				}
			}
			if end >= cut {
				e.now = cut
				e.closeStageAt(p, pc, cut)
				e.lanePipeEnd(p, outTimeout, true)
				return
			}
			e.now, t = end, end
			if failed != outNone {
				e.closeStageAt(p, pc, end)
				e.lanePipeEnd(p, failed, false)
				return
			}
		}
		e.closeStageAt(p, pc, t)
	}
	e.lanePipeEnd(p, outOK, false)
}

// lanePipeEnd books pipeline p, ending now with outcome o, and clears the
// times of the stages it did not reach.
func (e *engine) lanePipeEnd(p *pipeState, o outcome, e2e bool) {
	pc := p.pc
	for g := p.stage + 1; g < len(pc.pl.Stages); g++ {
		for _, s := range pc.pl.Stages[g].Steps {
			p.stepDur[s] = 0
		}
	}
	e.recordPipeline(p, o, e2e)
}

// repeats draws the iterations of repeated step s of pipeline request id:
// 0 to step.MaxRepeat, 0 when the step is skipped.
func (e *engine) repeats(id int64, s int, step *Step) int {
	src := e.rng.at(id+int64(s+1)<<48, requestStream)
	n := math.Round(step.Repeat.Rand(src))
	return int(min(max(n, 0), float64(step.MaxRepeat)))
}
