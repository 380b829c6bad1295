package sim

import "slices"

// Every run of this package's tests checks its accounting when it ends.
func init() { auditRuns = true }

// RunEventLoop runs cfg through the event loop in one global time order,
// never taking the direct path: the reference the direct path is checked
// against.
func RunEventLoop(cfg *Config) *Result {
	e := newEngine(cfg)
	e.isolated = false
	e.run()
	return e.result()
}

// Independent reports whether cfg's requests cannot affect each other, so
// that Run takes the direct path.
func Independent(cfg *Config) bool { return cfg.independent() }

// RunDirect runs cfg, whose requests must be independent, one request at a
// time through the event handlers (runDirect), never on the lane.
func RunDirect(cfg *Config) *Result {
	e := newEngine(cfg)
	e.noLane = true
	e.run()
	return e.result()
}

// RunHeapOnly runs cfg through the event loop in one global time order
// with every event in the heap — none in the FIFOs of events due in
// scheduling order — and reports every attempt to fn (which may be nil).
func RunHeapOnly(cfg *Config, fn func(*AttemptRecord)) *Result {
	e := newEngine(cfg)
	e.isolated = false
	e.heapOnly = true
	e.trace = fn
	e.run()
	return e.result()
}

// RunWithoutPlainFirst is RunGlobal with respond's short path for
// first-token answers off (plainFirst 0): every response takes its whole
// path.
func RunWithoutPlainFirst(cfg *Config, fn func(*AttemptRecord)) *Result {
	e := newEngine(cfg)
	e.isolated = false
	e.plainFirst = 0
	e.trace = fn
	e.run()
	return e.result()
}

// RunWithoutQuickLetGo is RunGlobal with serveLetGo off: an attempt let
// go of while it waited that reaches service starts by serveAt.
func RunWithoutQuickLetGo(cfg *Config, fn func(*AttemptRecord)) *Result {
	e := newEngine(cfg)
	e.isolated = false
	e.quickLetGo = false
	e.trace = fn
	e.run()
	return e.result()
}

// RunWithoutQuickChain is RunGlobal with pipeClass.quick off: a chain
// pipeline's answered call is held for pipeCall, the next stage's call
// started by startCall, and the last call's answer seen by callDone.
func RunWithoutQuickChain(cfg *Config, fn func(*AttemptRecord)) *Result {
	e := newEngine(cfg)
	e.isolated = false
	for _, pc := range e.pipeOf {
		if pc != nil {
			pc.quick = false
		}
	}
	e.trace = fn
	e.run()
	return e.result()
}

// RunGlobal is RunHeapOnly with the FIFOs in use, as Run uses them.
func RunGlobal(cfg *Config, fn func(*AttemptRecord)) *Result {
	e := newEngine(cfg)
	e.isolated = false
	e.trace = fn
	e.run()
	return e.result()
}

// ResponseLook is responseLook, the heap's look by default.
const ResponseLook = responseLook

// RunLook is RunGlobal with the heap's look (eventQueue.look) set to
// look: 0 leaves every dead response to be popped (dropResponse) and turns
// none into a release (releaseCancelled). It also returns the most events
// the heap held at once.
func RunLook(cfg *Config, look int, fn func(*AttemptRecord)) (*Result, int) {
	e := newEngine(cfg)
	e.isolated = false
	e.q.look = look
	e.trace = fn
	e.run()
	return e.result(), len(e.q.ev)
}

// Canonical returns a copy of r whose latencies are each held in one
// ascending part, so that results equal as what they report — the order in
// which requests ended is not part of a result — are reflect.DeepEqual.
func Canonical(r *Result) *Result {
	c := *r
	c.Classes = slices.Clone(r.Classes)
	canon := func(s *latencySet) {
		join := func(parts [][]float32) [][]float32 {
			var all []float32
			for _, p := range parts {
				all = append(all, p...)
			}
			slices.Sort(all)
			if len(all) == 0 {
				return nil
			}
			return [][]float32{all}
		}
		s.ans, s.miss = join(s.ans), join(s.miss)
	}
	for i := range c.Classes {
		canon(&c.Classes[i].lat)
	}
	canon(&c.Overall.lat)
	return &c
}

// LaneOK reports whether cfg's runs take the lane.
func LaneOK(cfg *Config) bool { return newEngine(cfg).laneOK() }

// SharesDraws reports whether RunPoliciesEach shares draws between runs
// of cfg: off the lane, and shareable.
func SharesDraws(cfg *Config) bool {
	e := newEngine(cfg)
	return cfg.shareable() && !e.pipeLaneOK() && !e.laneOK()
}

// PipelineLane reports whether Run takes the pipelines' lane for cfg.
func PipelineLane(cfg *Config) bool { return newEngine(cfg).pipeLaneOK() }

// SectionCounts returns, per arrival section of c's batched run, its
// requests and the sum of their stored latencies in seconds; nil when c
// has no sections.
func SectionCounts(c *ClassResult) ([]int64, []float64) {
	if !c.lat.sectioned() {
		return nil, nil
	}
	ss := newSectionSums(&c.lat)
	return ss.cnt[:], ss.sum[:]
}

// MSERCut is mserCut: the leading values of ys that MSER drops.
func MSERCut(ys []float64) int { return mserCut(ys) }

// HiddenCounts returns the failures cancelled calls hid from breaker b
// and the failures it saw (hiddenFailures).
func (b *BreakerResult) HiddenCounts() (hidden, seen int64) { return b.hiddenN, b.seenN }
