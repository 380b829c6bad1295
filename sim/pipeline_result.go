package sim

import (
	"math"
	"slices"
)

// PipelineResult is what a pipeline class's requests did beyond the
// class's end-to-end figures (ClassResult): each step's calls, the
// requests that went through checked or degraded, and the time to first
// visible token.
//
// The class's figures count a request as answered when it went through
// its last stage with its answer step's answer (Pipeline.AnswerStep),
// checked or degraded — the user got the answer — and its latency is then
// its end-to-end time; a request that a fail-closed step stopped, whose
// fail-open answer step gave no answer, or that its end-to-end deadline
// ended, is a miss; so is a request whose answer step's stage was done by
// its other steps' calls while every call of the answer step was let go of
// (AnswerCut). (A pipeline of one plain step is counted as its call's
// class: Pipeline.OneCall.)
type PipelineResult struct {
	// Steps are the pipeline's steps in order, each with its calls' figures
	// as requests of their own: latency per call, outcomes, attempts,
	// cost.
	Steps []StepResult
	// Checked is the number of requests that went through their last
	// stage with each fail-open step answered in time: none of its calls
	// ended without an answer or was let go of by its stage (wait for
	// any, or k of n) before giving one.
	Checked int64
	// DegradedAny is the number of requests that went through their last
	// stage, answered, although a call of a fail-open step other than the
	// answer step ended without an answer or was let go of by its stage
	// before giving one: they were answered unchecked.
	// Checked + DegradedAny is the class's Answered.
	DegradedAny int64
	// TimedOut is the number of requests ended by the end-to-end deadline
	// (Class.Deadline), whatever its fail-open/closed rule.
	TimedOut int64
	// AnswerCut is the number of requests that went through their last
	// stage without an answer because the answer step's stage (wait for
	// any, or k of n, shared with other steps) was done by other calls
	// while every call of the answer step was let go of, none answered:
	// they are misses, counted in the class's TimeoutsOpen.
	AnswerCut int64
	// stages lists each stage's steps; durs holds, per request in the
	// order they ended, each step's seconds (see Breakdown).
	stages  [][]int
	durs    []float32
	ttfv    latencySet
	checked latencySet
	hasTTF  bool
	// sec are the per-section counts of a run whose requests interact
	// (pipeline_sections.go); nil otherwise. stepDeg are the steps'
	// degraded requests per section (pipeClass.stepDeg).
	sec     pipeSections
	stepDeg []int64
}

// StepResult is one step of a pipeline.
type StepResult struct {
	// ClassResult holds the step's calls as requests: Requests counts the
	// calls that ran to their own end, Latency each call's time from its
	// start to a usable answer.
	ClassResult
	// Cut counts calls let go of before their end: their stage was done
	// without them (wait for any, or k of n), or the pipeline ended.
	Cut int64
	// Degraded counts answered pipeline requests in which a call of this
	// step, failing open, ended without an answer or was let go of by its
	// stage before giving one.
	Degraded int64
	// secBill is, when the requests interact, the step's cost in USD per
	// arrival section of its pipeline requests (batchmeans.go's
	// billSection); nil otherwise.
	secBill []float64
}

// stepResults folds each pipeline step's attempts, bills and denied copies
// into its pipeline class's stats and returns, per class of e.cfg that the
// caller gave (e.users), its steps' results (nil for a one-call class).
func (e *engine) stepResults() [][]StepResult {
	if e.pipeOf == nil {
		return nil
	}
	out := make([][]StepResult, e.users)
	for c, pc := range e.pipeOf {
		if pc == nil {
			continue
		}
		for s := range pc.pl.Steps {
			sc := int(pc.firstStep) + s
			st := &e.stats[sc]
			e.stats[c].addAttempts(st)
			e.classes[c].denied.add(e.classes[sc].denied)
			r := StepResult{ClassResult: st.result(pc.pl.Steps[s].Name, e.cfg.Models), Cut: pc.cut[s], Degraded: pc.degraded[s]}
			r.Denied = e.classes[sc].denied
			if call := &e.cfg.Classes[sc]; e.retries != nil && (call.Retry != nil || call.AttemptRetry != nil) {
				rc := e.retries[sc]
				r.Retries = &rc
				if e.pipeRetries == nil {
					e.pipeRetries = make([]*RetryCounts, e.users)
				}
				if e.pipeRetries[c] == nil {
					e.pipeRetries[c] = &RetryCounts{}
				}
				e.pipeRetries[c].add(&rc)
			}
			out[c] = append(out[c], r)
		}
	}
	return out
}

// attachSteps gives each pipeline class of res its PipelineResult.
func (e *engine) attachSteps(res *Result, steps [][]StepResult) {
	for c, pc := range e.pipeOf {
		if pc == nil {
			continue
		}
		pr := &PipelineResult{Steps: steps[c], Checked: int64(pc.checked.a), DegradedAny: pc.degradedAny, TimedOut: pc.timedOut, AnswerCut: pc.answerCut, durs: pc.durs}
		pr.checked.addTimes(&pc.checked)
		pr.sec, pr.stepDeg = pc.sec, pc.stepDeg
		if pc.stepBill != nil {
			for s := range pr.Steps {
				pr.Steps[s].secBill = pc.stepBill[s*numSections : (s+1)*numSections]
			}
		}
		for _, st := range pc.pl.Stages {
			pr.stages = append(pr.stages, st.Steps)
		}
		if pc.ttfv.buf != nil {
			pr.hasTTF = true
			pr.ttfv.addTimes(&pc.ttfv)
		}
		res.Classes[c].Pipeline = pr
	}
}

// addAttempts adds o's attempt counts, bills and wasted tokens to s (add
// adds its requests too): what a pipeline's step calls sent, counted for
// the pipeline.
func (s *classStats) addAttempts(o *classStats) {
	s.sent += o.sent
	s.completed += o.completed
	s.failed += o.failed
	for k, n := range o.failedBy {
		s.failedBy[k] += n
	}
	s.invalidAtt += o.invalidAtt
	s.cancelled += o.cancelled
	s.rateLimited += o.rateLimited
	s.rejected += o.rejected
	s.timedOut += o.timedOut
	s.stalled += o.stalled
	s.wastedOutput += o.wastedOutput
	if s.billed == nil {
		s.billed = make([]bill, len(o.billed))
	}
	for j, b := range o.billed {
		s.billed[j].attempts += b.attempts
		s.billed[j].input += b.input
		s.billed[j].output += b.output
	}
}

// HasTTFV reports whether the pipeline has a visible step, whose first
// token is the time to first visible token (TTFV).
func (p *PipelineResult) HasTTFV() bool { return p.hasTTF }

// TTFV returns the time to first visible token as a ClassResult holding
// only latencies: from each request's arrival to the first token of its
// visible step's call; a request that never showed one (it failed, or the
// visible step failed open) is a miss. Counts other than Requests and
// Answered are zero.
func (p *PipelineResult) TTFV() *ClassResult {
	return &ClassResult{Name: "ttfv", Requests: int64(p.ttfv.n()), Answered: int64(p.ttfv.na), lat: p.ttfv}
}

// CheckedTimes returns the end-to-end times as a ClassResult holding only
// latencies: a request that went through checked (Checked) is answered at
// its end-to-end time; every other one — degraded, failed, ended by the
// end-to-end deadline — is a miss. Counts other than Requests and Answered
// are zero. In a run whose requests interact it is Batched (each time
// keeps its request's arrival section, as the class's own), so its
// GridShares give the checked share within a target per batch.
func (p *PipelineResult) CheckedTimes() *ClassResult {
	return &ClassResult{Name: "checked", Requests: int64(p.checked.n()), Answered: int64(p.checked.na), lat: p.checked}
}

// CheckedWithin returns how many requests went through checked within t
// seconds of their arrival (their stored float32 end-to-end time at most
// t): the figure objective "checked" maximises.
func (p *PipelineResult) CheckedWithin(t float64) int64 {
	return int64(p.checked.countAtMost(t))
}

// Breakdown returns, per step in seconds, the mean time the slowest
// requests spent in it — the 5 % with the longest end-to-end time, by rank
// (byEndToEnd) — and the mean time the
// median requests spent in it (ranks from 45 % to 55 %), with the number of
// requests in each group. A step's time runs from its stage's start to its
// last call's end (cut at the stage's end); the end-to-end time of a
// request is the sum over its stages of their longest step.
func (p *PipelineResult) Breakdown() (slow, median []float64, nSlow, nMedian int) {
	steps := len(p.Steps)
	slow, median = make([]float64, steps), make([]float64, steps)
	order := p.byEndToEnd()
	n := len(order)
	if n == 0 {
		return slow, median, 0, 0
	}
	mean := func(into []float64, rs []int) {
		for _, i := range rs {
			for s, x := range p.durs[i*steps : (i+1)*steps] {
				into[s] += float64(x)
			}
		}
		for s := range into {
			into[s] /= float64(len(rs))
		}
	}
	top := order[slowFrom(n):]
	mid := order[NearestRank(n, 0.45) : NearestRank(n, 0.55)+1]
	mean(slow, top)
	mean(median, mid)
	return slow, median, len(top), len(mid)
}

// slowFrom is the first rank (0-based) of the slowest 5 % of n requests.
func slowFrom(n int) int { return NearestRank(n, 0.95) }

// TailAttribution returns, per step, the share of the slowest requests
// (the slowest 5 %, as Breakdown) in which that step took the most time; a
// request whose longest steps tie counts a fraction for each of them (the
// steps of a group cut at the stage's end, say), and one that spent no time
// in any step (each skipped) counts for none. The shares sum to the share
// of the slowest requests that spent time in a step, 1 unless some spent
// none; every share is NaN when none did (every step skipped, or no
// requests): there is nothing to attribute.
func (p *PipelineResult) TailAttribution() []float64 {
	steps := len(p.Steps)
	out := make([]float64, steps)
	order := p.byEndToEnd()
	top := order[slowFrom(len(order)):]
	spent := 0
	for _, i := range top {
		d := p.durs[i*steps : (i+1)*steps]
		m := slices.Max(d)
		if m <= 0 {
			continue
		}
		spent++
		k := 0
		for _, x := range d {
			if x == m {
				k++
			}
		}
		for s, x := range d {
			if x == m {
				out[s] += 1 / float64(k)
			}
		}
	}
	for s := range out {
		out[s] /= float64(len(top))
		if spent == 0 {
			out[s] = math.NaN()
		}
	}
	return out
}

// byEndToEnd returns the requests' indices ordered by end-to-end time,
// ties by their steps' times: requests that tie on both are alike, so the
// groups' figures do not depend on the order in which requests ended.
func (p *PipelineResult) byEndToEnd() []int {
	e2e, n := p.endToEnd()
	steps := len(p.Steps)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case e2e[a] < e2e[b]:
			return -1
		case e2e[a] > e2e[b]:
			return 1
		}
		return slices.Compare(p.durs[a*steps:(a+1)*steps], p.durs[b*steps:(b+1)*steps])
	})
	return order
}

// endToEnd returns each request's end-to-end time rebuilt from its steps'
// times, and the number of requests.
func (p *PipelineResult) endToEnd() ([]float64, int) {
	steps := len(p.Steps)
	if steps == 0 {
		return nil, 0
	}
	n := len(p.durs) / steps
	out := make([]float64, n)
	for i := range out {
		d := p.durs[i*steps : (i+1)*steps]
		var t float64
		for _, st := range p.stages {
			var m float32
			for _, s := range st {
				m = max(m, d[s])
			}
			t += float64(m)
		}
		out[i] = t
	}
	return out, n
}
