package sim

import (
	"reflect"
	"slices"

	clone "github.com/huandu/go-clone"
)

// Growing runs whose requests interact. A run of n requests whose requests
// interact (queues, limits, budgets, breakers, pools, closed loops,
// retries, adaptive delays, pipelines on the event loop) is, up to the
// moment request n − 1 has started, the run of 2n requests: every draw
// depends only on (seed, request, attempt), and nothing before that moment
// looks at the planned count but
//
//   - whether request n is to arrive (the run of n schedules no arrival
//     after request n − 1's, and from then on its ends are the drain of
//     closed loops, and a replica pool's scaler stops ticking once nothing
//     is left to do);
//   - the load marks (load.go), taken at the arrival of the middle request
//     and the last: n/2 and n;
//   - the arrival sections of the batched intervals (batchmeans.go,
//     loadsections.go, pipeline_sections.go): request i's section is
//     ⌊i·numSections/n⌋.
//
// A growing engine is the run of the largest count it may reach (most, n
// doubled j times): it holds (engine.pauseAt) right after the event that
// starts request n/2 − 1 and every n·2ʲ − 1 below most, where it records
// the load marks, and at a count asked for it forks: the fork is a deep
// copy of the engine (github.com/huandu/go-clone, with the *Config and
// the ziggurat tables shared; the samplers and the configuration's
// sub-objects the engine points to are copied too, but not the levels
// ahead, which are the original's alone) that drops the arrival of request n·2ʲ
// scheduled by the event it held after, takes the marks and closed-loop
// meters the run of n·2ʲ would have, and drains as that run does; the
// original goes on. The events due at the same time that were still to be
// handled after the held one (engine.soon) wait in both for the run to go
// on, so that none is handled before the fork knows its end. Its sections are kept for the count of the next hold
// point: the integer ones (per-request sections, per-section last
// arrivals and pipeline counts, independent calls' cost sections) are
// merged two at a time, ⌊⌊i·numSections/n⌋/2⌋ = ⌊i·numSections/2n⌋; the
// float sums (bills and times in service per section), whose sums would
// round differently if merged, are kept from the start for every count
// ahead and added to in the same order as in a run of that count.
//
// A fork briefly holds the state of the run twice (the latencies kept, 4
// to 6 bytes per request, the requests in flight, the samplers' tables). Runs that record or
// compare met bits (Config.Pair, whose bits are sized for the planned
// count) and pipelines whose calls are independent (run on the lane, not
// the event loop) are not grown: their runs to a precision simulate again
// from the start.

// growState is a growing engine's state (engine.grow).
type growState struct {
	// points are the hold points ahead, ascending: the counts n at which
	// the engine holds right after request n − 1 started; first the
	// middle request of the first count (when ≥ 1), then every doubling of
	// the first count below the engine's end.
	points []int64
	// first is the first count; a hold point at or above it is a count
	// that may be asked for (a stage).
	first int64
	// levels are the counts of the stages after the current one (e.cfg.
	// Requests), up to the engine's end; bill and load are, per level,
	// each class's section bills (endTimes.secBill) and the times in
	// service per section, kept as a run of that count keeps them.
	levels []int64
	bill   [][][]float64
	load   []*loadSections
	// step are, per level and pipeline class, its steps' own section
	// bills (pipeClass.stepBill), kept as a run of that count keeps them.
	step [][][]float64
	// marks are the load marks at each hold point passed.
	marks map[int64]loadSnap
	// meters are the closed-loop meters before the first request end
	// after the held point's request started, nil when none ended.
	meters []rateMeter
	// arrival says the event after which the engine holds was an open
	// arrival, which scheduled the next one; soon are the events due then
	// that were still to be handled after it (engine.soon).
	arrival bool
	soon    []event
}

// loadSnap is every limited provider's and replica's load mark at one
// hold point: prov[i] for provider i, rep[i][j] for replica j of its pool.
type loadSnap struct {
	prov []loadMark
	rep  [][]loadMark
}

// growable reports whether runs of cfg can grow by forking: their requests
// interact and take the event loop, and they record and compare no met
// bits.
func (cfg *Config) growable() bool {
	if cfg.Pair != nil || cfg.independent() {
		return false
	}
	return !newEngineFor(cfg, 0).pipeLaneOK()
}

// newGrowingEngine returns an engine for cfg (growable) that runs up to
// most requests, holding at the hold points of a first count
// cfg.Requests (≥ 1) doubled up to most.
func newGrowingEngine(cfg *Config, most int64) *engine {
	e := newEngineFor(cfg, cfg.Requests)
	c := *e.cfg // the sections follow e.cfg.Requests: the current stage
	e.cfg = &c
	e.end = most
	n := int64(cfg.Requests)
	g := &growState{first: n, marks: map[int64]loadSnap{}}
	if n/2 >= 1 {
		g.points = append(g.points, n/2)
	}
	for p := n; p < most; p *= 2 {
		g.points = append(g.points, p)
	}
	for l := 2 * n; l <= most; l *= 2 {
		g.addLevel(e, l)
	}
	e.grow = g
	if len(g.points) > 0 {
		e.pauseAt = g.points[0]
	}
	return e
}

// addLevel adds the sections kept for a run of l requests.
func (g *growState) addLevel(e *engine, l int64) {
	bill := make([][]float64, len(e.stats))
	for c := range e.stats {
		if e.stats[c].times.secBill != nil {
			bill[c] = make([]float64, 2*numSections)
		}
	}
	g.levels = append(g.levels, l)
	g.bill = append(g.bill, bill)
	g.load = append(g.load, nil)
	g.step = append(g.step, make([][]float64, len(e.pipeOf)))
}

// levelSection is request id's arrival section in a run of n requests.
func levelSection(id, n int64) uint16 { return uint16(min(id*numSections/n, numSections-1)) }

// billSection adds what attempt a of r billed to every level's section of
// its request, as engine.billSection adds it to e's.
func (g *growState) billSection(e *engine, r *request, a *attempt, in, out float64, completed bool) {
	id, c, step := r.id, int(r.class), -1
	if c >= e.users { // a step's class: r is a pipeline's call
		c = int(e.stepOwner[c-e.users])
		if c >= 0 {
			step = int(r.class - e.pipeOf[c].firstStep)
		}
		id &= 1<<32 - 1
	}
	if c < 0 || e.stats[c].times.secBill == nil {
		return
	}
	usd := price(&e.cfg.Models[a.model], in, out)
	for l, n := range g.levels {
		sec := int(levelSection(id, n))
		k := 2 * sec
		if !completed {
			k++
		}
		g.bill[l][c][k] += usd
		if step >= 0 {
			b := g.step[l][c]
			if b == nil {
				b = make([]float64, len(e.pipeOf[c].pl.Steps)*numSections)
				g.step[l][c] = b
			}
			b[step*numSections+sec] += usd
		}
	}
}

// loadSection adds s seconds in service of attempt a of request id to
// every level's section of id, as engine.loadSection adds them to e's.
func (g *growState) loadSection(e *engine, a *attempt, id int64, s float64) {
	p, j := int(a.prov), -1
	if e.provs[p].pool != nil && a.rep != 0 {
		j = int(a.rep) - 1
	}
	for l, n := range g.levels {
		ls := g.load[l]
		if ls == nil {
			ls = &loadSections{prov: make([][]float64, len(e.provs)), rep: make([][][]float64, len(e.provs))}
			g.load[l] = ls
		}
		k := levelSection(id, n)
		if ls.prov[p] == nil {
			ls.prov[p] = make([]float64, numSections)
		}
		ls.prov[p][k] += s
		if j < 0 {
			continue
		}
		if j >= len(ls.rep[p]) {
			ls.rep[p] = append(ls.rep[p], make([][]float64, j+1-len(ls.rep[p]))...)
		}
		if ls.rep[p][j] == nil {
			ls.rep[p][j] = make([]float64, numSections)
		}
		ls.rep[p][j][k] += s
	}
}

// hold makes the event loop stop after the current event, which started
// request pauseAt − 1: an open arrival (which scheduled the arrival of
// request pauseAt) or a closed-loop client's send.
func (e *engine) hold(arrival bool) {
	e.holding = true
	e.grow.arrival = arrival
	e.lookAt = 0 // the loop looks after this event (lookAtEvents)
	// The events due now that follow the current one wait for the run to
	// go on (continueRun): those after it in soon when it is one of them
	// (handleSoon), else all.
	from := 0
	for i := range e.soon {
		if s := &e.soon[i]; s.seq == e.cur.seq && s.kind == e.cur.kind && s.slot == e.cur.slot && s.at == e.cur.at {
			from = i + 1
			break
		}
	}
	e.grow.soon = append([]event(nil), e.soon[from:]...)
	e.soon = e.soon[:from]
}

// keepMeters keeps the closed-loop meters before a request ends after
// the held point's request started, which the run of that count counts
// in its drain (engine.ended).
func (g *growState) keepMeters(e *engine) {
	if g.meters != nil {
		return
	}
	g.meters = make([]rateMeter, len(e.loops))
	for i := range e.loops {
		g.meters[i] = e.loops[i].meter
		g.meters[i].marks = slices.Clone(e.loops[i].meter.marks)
	}
}

// loadMarks returns the load marks markLoad would record now.
func (e *engine) loadMarks() loadSnap {
	s := loadSnap{prov: make([]loadMark, len(e.provs)), rep: make([][]loadMark, len(e.provs))}
	for i := range e.provs {
		pv := &e.provs[i]
		if pv.capacity > 0 {
			s.prov[i] = loadMark{started: pv.stats.started, waiting: int64(pv.waiting), set: true}
		}
		if pl := pv.pool; pl != nil && pl.cfg.Concurrency > 0 {
			s.rep[i] = make([]loadMark, len(pl.reps))
			for j := range pl.reps {
				rp := &pl.reps[j]
				s.rep[i][j] = loadMark{started: rp.stats.started, waiting: int64(rp.waiting), set: true}
			}
		}
	}
	return s
}

// setMarks makes mark k (0 the middle request's, 1 the last's) of every
// limited provider and replica s's (unset when s has none: a replica
// added after it, or no mark taken).
func (e *engine) setMarks(k int, s loadSnap) {
	for i := range e.provs {
		pv := &e.provs[i]
		if pv.capacity > 0 {
			pv.marks[k] = loadMark{}
			if i < len(s.prov) {
				pv.marks[k] = s.prov[i]
			}
		}
		if pl := pv.pool; pl != nil && pl.cfg.Concurrency > 0 {
			for j := range pl.reps {
				pl.reps[j].marks[k] = loadMark{}
				if i < len(s.rep) && j < len(s.rep[i]) {
					pl.reps[j].marks[k] = s.rep[i][j]
				}
			}
		}
	}
}

// continueRun goes on with a held run (or a fork) until it holds again or
// ends, and audits it when it ends: the event loop of engine.run, entered
// where it held.
func (e *engine) continueRun() {
	e.holding = false
	e.lookAt = 0
	if len(e.soon) > 0 || e.handOn != 0 {
		e.handleSoon()
	}
	if !e.holding {
		e.drain()
	}
	if (e.stop == nil || e.stop.err == nil) && !e.holding {
		e.auditIfOn()
	}
}

// growTo runs the growing engine e (started tells whether it has run)
// until request target − 1 has started, target a stage, and returns the
// engine that makes the run of target requests: a fork draining as that
// run does, not yet run (drain it with continueRun), or, when target is
// e's end, e itself, run to its end. It returns nil when the run was
// stopped (e.stop.err).
func (e *engine) growTo(target int64, started bool) *engine {
	g := e.grow
	for {
		if started {
			e.soon = append(g.soon, e.soon...)
			g.soon = nil
			e.continueRun()
		} else {
			e.run()
			started = true
		}
		if e.stop != nil && e.stop.err != nil {
			return nil
		}
		if !e.holding {
			return e // ran to its end: target is e.end
		}
		p := e.next
		g.marks[p] = e.loadMarks()
		var f *engine
		if p == target {
			f = e.fork(p)
		}
		if p >= g.first {
			e.nextStage()
		}
		g.points = g.points[1:]
		e.pauseAt = -1
		if len(g.points) > 0 {
			e.pauseAt = g.points[0]
		}
		g.meters = nil
		if f != nil {
			return f
		}
	}
}

// forkCloner copies an engine deeply, sharing its *Config, its ziggurat
// tables and its stopper, and keeping pointers that alias one another
// aliased.
var forkCloner = func() clone.Cloner {
	a := clone.NewAllocator(nil, nil)
	for _, t := range []any{(*Config)(nil), (*ziggurat)(nil), (*zigguratN)(nil), (*stopper)(nil)} {
		a.MarkAsOpaquePointer(reflect.TypeOf(t))
	}
	return clone.MakeCloner(a)
}()

// fork returns a copy of e, held after request p − 1 started, that makes
// the run of p requests: its arrivals end at p, it has the marks and
// closed-loop meters of that run, and it no longer grows.
func (e *engine) fork(p int64) *engine {
	g := e.grow
	e.grow = nil // the levels ahead are the original's alone: not copied
	// The step bills' cache points into section bills that a copy would
	// not alias: emptied, each engine finds its own again (stepBillingOf).
	clear(e.stepBills)
	f := forkCloner.CloneSlowly(e).(*engine)
	e.grow = g
	if f.load != nil {
		f.load.rows = nil // its copies do not point at the copy's sections: made again
	}
	f.pauseAt, f.end = -1, p
	f.soon = append(slices.Clone(e.grow.soon), f.soon...)
	if e.grow.arrival {
		f.noArrival() // the arrival of request p, which the run of p never schedules
	}
	f.setMarks(0, e.grow.marks[p/2])
	f.setMarks(1, e.grow.marks[p])
	if ms := e.grow.meters; ms != nil {
		for i := range f.loops {
			m := ms[i]
			m.marks = slices.Clone(m.marks)
			m.all, m.end = f.loops[i].meter.all, f.loops[i].meter.end
			f.loops[i].meter = m
		}
	}
	return f
}

// nextStage moves e's sections from the current stage's count to the
// next level's (twice as many requests): the integer ones merge two at a
// time, the float sums are the level's own.
func (e *engine) nextStage() {
	g := e.grow
	c := *e.cfg
	c.Requests = int(g.levels[0])
	e.cfg = &c
	for i := range e.stats {
		t := &e.stats[i].times
		if t.sec != nil {
			for j := range t.a {
				t.sec[j] >>= 1
			}
			for j := len(t.sec) - t.m; j < len(t.sec); j++ {
				t.sec[j] >>= 1
			}
			for k := range numSections / 2 {
				t.secLast[k] = max(t.secLast[2*k], t.secLast[2*k+1])
			}
			clear(t.secLast[numSections/2:])
		}
		if t.secBill != nil {
			t.secBill = g.bill[0][i]
		}
	}
	clear(e.stepBills) // the bills they point to have moved
	for c, pc := range e.pipeOf {
		if pc != nil && pc.stepBill != nil {
			pc.stepBill = g.step[0][c]
		}
		if pc == nil || pc.sec == nil {
			continue
		}
		for k := range numSections / 2 {
			for f := range 4 {
				pc.sec[4*k+f] = pc.sec[8*k+f] + pc.sec[8*k+4+f]
			}
		}
		clear(pc.sec[4*(numSections/2):])
		for s := 0; s < len(pc.stepDeg); s += numSections {
			d := pc.stepDeg[s : s+numSections]
			for k := range numSections / 2 {
				d[k] = d[2*k] + d[2*k+1]
			}
			clear(d[numSections/2:])
		}
	}
	for i := range e.slots { // requests in flight keep their arrival section (request.sec)
		e.slots[i].sec >>= 1
	}
	for i := range e.pipes { // and so do pipeline requests (pipeState.sec)
		e.pipes[i].sec >>= 1
	}
	e.costs.coarsen(1)
	e.load = g.load[0]
	g.levels, g.bill, g.load, g.step = g.levels[1:], g.bill[1:], g.load[1:], g.step[1:]
}
