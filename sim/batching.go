package sim

import (
	"fmt"
	"math"
	"time"
)

// Continuous batching (Pool.Batching): a replica serves the attempts in
// service as one batch, as vLLM and TGI do, and each sequence's work goes
// slower the more sequences share the replica. The model's latency draws
// are an attempt's work at batch size 1; with n sequences in service each
// progresses at speed(n) ÷ speed(1) of that — its time to first token
// (prefill, which competes with the decoding of the others) and its
// decoding alike — divided by the replica's slowdown.
//
// The replica keeps a virtual clock V, the work done by a sequence in
// service since V = 0, in seconds at batch size 1, with dV/dt =
// speed(n)/speed(1)/slowdown. A sequence that joins at V₀ reaches its
// first token at V₀ + its time to first token and ends at V₀ + its whole
// work. The sequences are kept in a heap by their next milestone, and the
// replica has one event queued, for the earliest; when n changes, the
// event is replaced (its predecessor, still in the queue, is recognised by
// its sequence number and ignored). The event loop enters through
// batchDue (evBatch); an attempt's life through joinBatch (serve),
// letGoBatch (letGo) and cancelBatch (cancelLands).
//
// The batch limit is the pool's Concurrency (0: none); further attempts
// wait in the replica's FIFO queue. An attempt that will fail (an error
// drawn for it, an outage) is not batched: it holds a slot and returns its
// error after its error latency, as without batching. A loser or a
// timed-out attempt leaves the batch when its cancel lands, or at its end,
// whichever is first.

// Batching is a pool's continuous-batching model: the per-sequence decode
// speed by batch size, given as a table or by a formula.
type Batching struct {
	// TokensPerSecond, when not empty, is the per-sequence decode speed in
	// tokens/s at batch size 1, 2, …, len(TokensPerSecond): each > 0 and
	// non-increasing. The pool's Concurrency (the batch limit) must be
	// ≥ 1 and ≤ its length.
	TokensPerSecond []float64
	// Base and Contention give speed(n) = Base / (1 + Contention·(n − 1))
	// when TokensPerSecond is empty: Base > 0 in tokens/s, Contention in
	// [0, ∞). Contention 1 is ideal sharing (a processor-sharing
	// server: the replica's throughput does not grow with the batch), 0
	// no slowdown at all.
	Base, Contention float64
}

// speed returns the per-sequence speed in tokens/s at batch size n ≥ 1.
func (b *Batching) speed(n int) float64 {
	if len(b.TokensPerSecond) > 0 {
		return b.TokensPerSecond[min(n, len(b.TokensPerSecond))-1]
	}
	return b.Base / (1 + b.Contention*float64(n-1))
}

// validate checks the model against the pool's batch limit, concurrency.
func (b *Batching) validate(concurrency int) error {
	if t := b.TokensPerSecond; len(t) > 0 {
		for i, x := range t {
			if !(x > 0) || math.IsInf(x, 0) {
				return fmt.Errorf("batching: tokens per second %v at batch size %d: must be finite and > 0", x, i+1)
			}
			if i > 0 && x > t[i-1] {
				return fmt.Errorf("batching: tokens per second %v at batch size %d is above %v at %d: the per-sequence speed must not grow with the batch", x, i+1, t[i-1], i)
			}
		}
		if concurrency < 1 || concurrency > len(t) {
			return fmt.Errorf("batching: a table of %d speeds needs a batch limit (concurrency) in [1, %d], not %d", len(t), len(t), concurrency)
		}
		return nil
	}
	if !(b.Base > 0) || math.IsInf(b.Base, 0) {
		return fmt.Errorf("batching: base speed %v tokens/s: must be finite and > 0", b.Base)
	}
	if !(b.Contention >= 0) || math.IsInf(b.Contention, 0) {
		return fmt.Errorf("batching: contention %v: must be finite and ≥ 0", b.Contention)
	}
	return nil
}

// validateBatching checks what batching does not model: it times work on
// a virtual clock that slow periods, cold starts, stalls and streams ended
// at the first token would have to change.
func (cfg *Config) validateBatching() error {
	batching := make(map[string]bool)
	for i := range cfg.Providers {
		p := &cfg.Providers[i]
		pl := p.Pool
		if pl == nil || pl.Batching == nil {
			continue
		}
		batching[p.Name] = true
		slow := func(d *Degraded) bool { return d != nil && d.Slowdown != 1 }
		if slow(p.Degraded) || slow(pl.Degraded) {
			return invalid("provider %q: batching with slow periods (a degraded slowdown ≠ 1) is not modelled", p.Name)
		}
		for _, o := range pl.Overrides {
			if slow(o.Degraded) {
				return invalid("provider %q: replica %d: batching with slow periods (a degraded slowdown ≠ 1) is not modelled", p.Name, o.Replica)
			}
		}
		if pl.ColdStart != nil {
			return invalid("provider %q: batching with cold starts is not modelled", p.Name)
		}
	}
	if len(batching) == 0 {
		return nil
	}
	on := func(m int) bool {
		if m < 0 || m >= len(cfg.Models) {
			return false
		}
		md := &cfg.Models[m]
		name := md.Provider
		if name == "" {
			name = md.Name
		}
		return batching[name]
	}
	for m := range cfg.Models {
		if on(m) && cfg.Models[m].Stalls.Rate > 0 {
			return invalid("model %q: stalls on a batching pool are not modelled", cfg.Models[m].Name)
		}
	}
	check := func(name string, p *Policy) error {
		if p.Winner != FirstToken && !p.StreamCuts.on() {
			return nil
		}
		for _, m := range append([]int{p.Primary}, p.Targets...) {
			if on(m) {
				return invalid("class %q: winner first_token and stream cuts on a batching pool (model %q) are not modelled", name, cfg.Models[m].Name)
			}
		}
		return nil
	}
	for i := range cfg.Classes {
		c := &cfg.Classes[i]
		if err := check(c.Name, &c.Policy); err != nil {
			return err
		}
		if c.Pipeline != nil {
			for j := range c.Pipeline.Steps {
				if err := check(c.Name, &c.Pipeline.Steps[j].Call.Policy); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// batch is the run-time state of one replica's batch.
type batch struct {
	// v is the virtual clock (seconds of work at batch size 1), brought
	// up to date at last; rel is its rate at the batch size of the last
	// rebatch, which every change of the batch is followed by:
	// speed(n) ÷ speed(1) ÷ the replica's slowdown.
	v    float64
	last time.Duration
	rel  float64
	seqs []batchSeq // a min-heap by next
	// due is the sequence number of the one queued event that is not
	// stale (0: none), dueAt its time.
	due   uint64
	dueAt time.Duration
	// Integrals over the run, in seconds: of 1 while the batch is not
	// empty, and of the batch size.
	busy, seqTime float64
	// tokens and decoding are, over the sequences that left the batch,
	// the output tokens they decoded in it and the seconds they spent
	// decoding (decoded).
	tokens, decoding float64
}

// batchSeq is a sequence in a batch: attempt k of the request in slot,
// of generation gen. next is its next milestone on the virtual clock —
// its first token while first is set, then its end.
type batchSeq struct {
	next, end float64
	slot      int32
	gen       uint32
	k         uint8
	first     bool
}

// advance brings the batch's virtual clock and integrals up to now.
func (bt *batch) advance(now time.Duration) {
	if n := len(bt.seqs); n > 0 && now > bt.last {
		dt := (now - bt.last).Seconds()
		bt.v += dt * bt.rel
		bt.busy += dt
		bt.seqTime += dt * float64(n)
	}
	bt.last = now
}

// decoded counts a sequence leaving the batch at now that decoded the
// share f in [0, 1] of its out output tokens from from (its first token;
// its join for an attempt not streamed, whose whole work is its
// decoding): the speed it decoded at is then its model's own at batch
// size 1 × speed(n) ÷ speed(1) ÷ the replica's slowdown, whatever the
// table's speed(1).
func (bt *batch) decoded(now, from time.Duration, out, f float64) {
	if from == never || now <= from {
		return
	}
	bt.tokens += out * f
	bt.decoding += (now - from).Seconds()
}

// joinBatch starts the service of attempt k of r, in the slot it holds at
// its replica of a batching pool: it joins the replica's batch now, and
// its first token and end are set as the batch reaches them (batchDue).
func (e *engine) joinBatch(pv *provider, slot int32, r *request, k int) {
	a := &r.att[k]
	pl, prov, i := pv.pool, a.prov, int(a.rep-1)
	rp := &pl.reps[i]
	bt := rp.batch
	bt.advance(e.now)
	v0 := bt.v
	end := v0 + (a.workFirst + a.workDecode).Seconds()
	s := batchSeq{next: end, end: end, slot: slot, gen: r.gen, k: uint8(k)}
	if a.streamed {
		s.next, s.first = v0+a.workFirst.Seconds(), true
	}
	bt.seqs = append(bt.seqs, s)
	bt.up(len(bt.seqs) - 1)
	a.inBatch = true
	a.first, a.end, a.genFrom = never, never, e.now
	if a.streamed {
		a.genFrom = never
	}
	e.rebatch(pl, rp, int32(prov), i)
}

// rebatch sets the rate of replica i's virtual clock for its batch size
// and queues the event of its next milestone, replacing the one queued
// unless that one falls at the same time.
func (e *engine) rebatch(pl *pool, rp *replica, prov int32, i int) {
	bt := rp.batch
	if len(bt.seqs) == 0 {
		bt.due = 0
		bt.v = 0 // nothing refers to the clock: restart it, for precision
		return
	}
	if bt.v > rebaseAt {
		bt.rebase()
	}
	b := pl.cfg.Batching
	sp := b.speed(len(bt.seqs))
	bt.rel = sp / b.speed(1) / rp.slowdown
	at := bt.when(e.now, bt.seqs[0].next)
	if bt.due != 0 && at == bt.dueAt {
		return // the queued event stands (the speed did not change)
	}
	e.seq++
	ev := e.q.add(at, e.seq)
	ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, prov, uint32(i+1), evBatch, 0
	bt.due, bt.dueAt = e.seq, at
}

// rebaseAt is how far the virtual clock runs, in seconds, before it is
// moved back to 0 with its sequences' milestones: a clock near 2¹⁰ s
// keeps a float64's rounding per step near 10⁻¹³ s, where one of a
// replica busy for days would lose nanoseconds.
const rebaseAt = 1 << 10

// rebase moves the virtual clock and every milestone back by v, which
// keeps their order and differences.
func (bt *batch) rebase() {
	for j := range bt.seqs {
		bt.seqs[j].next -= bt.v
		bt.seqs[j].end -= bt.v
	}
	bt.v = 0
}

// batchDue handles the event of a batch's next milestone (slot = provider
// index, gen = 1 + replica index): the sequences whose first token or end
// the virtual clock has reached get them now. An ended sequence leaves the
// batch: its response is queued now — or, for an attempt its request has
// let go of, it leaves the system now. A replaced event is ignored.
func (e *engine) batchDue(ev *event) {
	pl := e.provs[ev.slot].pool
	i := int(ev.gen - 1)
	rp := &pl.reps[i]
	bt := rp.batch
	if ev.seq != bt.due {
		return
	}
	bt.due = 0 // this event is spent: rebatch queues the next
	bt.advance(e.now)
	// The event was queued for the heap's top, rounded to the nearest
	// nanosecond: that one is due even when rounding leaves v a hair short.
	for due := true; len(bt.seqs) > 0 && (due || bt.seqs[0].next <= bt.v); due = false {
		s := &bt.seqs[0]
		r := &e.slots[s.slot]
		a := &r.att[s.k]
		if s.first {
			a.first, a.genFrom = e.now, e.now
			s.first, s.next = false, s.end
			bt.down(0)
			continue
		}
		slot, gen, k := s.slot, s.gen, s.k
		bt.remove(0)
		bt.decoded(e.now, a.genFrom, r.out, 1)
		a.inBatch = false
		a.end = e.now
		if !a.streamed {
			a.first = e.now
		}
		if a.state == attAbandoned {
			how := a.kind
			if a.abandonedAs == outAttemptTimeout {
				how = outAttemptTimeout
			}
			e.exit(slot, r, int(k), e.now, how, false)
			continue
		}
		e.scheduleResponse(e.now, slot, gen, k)
	}
	e.rebatch(pl, rp, ev.slot, i)
}

// letGoBatch lets go of attempt k of r, in a batch: it stays there until
// its cancel lands (cancelBatch) or its end, whichever is first. The
// cancel of an attempt let go of while it waited is already on its way.
func (e *engine) letGoBatch(slot int32, r *request, k int) {
	a := &r.att[k]
	if a.cancelAt <= e.now {
		e.leaveBatch(slot, r, k)
		e.exit(slot, r, k, e.now, a.abandonedAs, false)
		return
	}
	if a.state == attAbandoned {
		return
	}
	a.state = attAbandoned
	if a.cancelAt != never {
		e.scheduleIn(fifoIndex(r.class, chanCancel), a.cancelAt, evCancel, slot, r.gen, uint8(k))
	}
}

// cancelBatch handles the cancel of attempt k of r landing while it is in
// a batch: it leaves the batch and the system now, billed as cancelled.
func (e *engine) cancelBatch(slot int32, r *request, k int) {
	a := &r.att[k]
	e.leaveBatch(slot, r, k)
	e.exit(slot, r, k, e.now, a.abandonedAs, false)
}

// leaveBatch takes attempt k of r out of its replica's batch now. Its
// first token, when not reached, and its end are set to when they would
// come at the batch's current speed, and genFrom so that the tokens it
// generated by now (generated) are the share of its decoding done.
func (e *engine) leaveBatch(slot int32, r *request, k int) {
	a := &r.att[k]
	pl := e.provs[a.prov].pool
	i := int(a.rep - 1)
	rp := &pl.reps[i]
	bt := rp.batch
	bt.advance(e.now)
	for j := range bt.seqs {
		s := &bt.seqs[j]
		if s.slot != slot || s.k != uint8(k) || s.gen != r.gen {
			continue
		}
		a.end = bt.when(e.now, s.end)
		if s.end <= bt.v {
			a.end = e.now // at its end: billed in full
		}
		switch {
		case s.first:
			a.first, a.genFrom = bt.when(e.now, s.next), bt.when(e.now, s.next)
		case !a.streamed:
			total := (a.workFirst + a.workDecode).Seconds()
			bt.decoded(e.now, a.genFrom, r.out, doneShare(s.end-bt.v, total))
			a.first = a.end
			a.genFrom = decodedFrom(e.now, a.end, s.end-bt.v, total)
		default:
			bt.decoded(e.now, a.genFrom, r.out, doneShare(s.end-bt.v, a.workDecode.Seconds()))
			a.genFrom = decodedFrom(e.now, a.end, s.end-bt.v, a.workDecode.Seconds())
		}
		bt.remove(j)
		break
	}
	a.inBatch = false
	e.rebatch(pl, rp, a.prov, i)
}

// doneShare returns the share of a sequence's decoding done, (total −
// left) ÷ total in [0, 1], left and total in seconds of work: 1 when
// nothing is left.
func doneShare(left, total float64) float64 {
	if !(left > 0) || !(total > 0) {
		return 1
	}
	return max(0, 1-left/total)
}

// decodedFrom returns the start of a linear generation ending at end
// that has generated by now the share of a sequence's decoding done:
// (total − left) ÷ total, left and total in seconds of work.
func decodedFrom(now, end time.Duration, left, total float64) time.Duration {
	f := 1 - left/total
	if !(f > 0) || !(f < 1) || end == never {
		return now // nothing generated (or, f = 1, the cancel is at the end)
	}
	return now - time.Duration(math.Round(float64(end-now)*f/(1-f)))
}

// when returns when, from now, the virtual clock reaches v at its current
// rate, rounded to the nearest nanosecond (so that at rate 1 a sequence
// ends exactly its work after it joined) and saturated at never.
func (bt *batch) when(now time.Duration, v float64) time.Duration {
	ns := math.Round((v - bt.v) / bt.rel * 1e9)
	switch {
	case !(ns > 0):
		return now
	case ns >= float64(never-now):
		return never
	}
	return now + time.Duration(ns)
}

// up, down and remove keep bt.seqs a min-heap by next.
func (bt *batch) up(j int) {
	h := bt.seqs
	for j > 0 {
		p := (j - 1) / 2
		if !(h[j].next < h[p].next) {
			break
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
}

func (bt *batch) down(j int) {
	h := bt.seqs
	for {
		c := 2*j + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].next < h[c].next {
			c++
		}
		if !(h[c].next < h[j].next) {
			return
		}
		h[j], h[c] = h[c], h[j]
		j = c
	}
}

func (bt *batch) remove(j int) {
	last := len(bt.seqs) - 1
	bt.seqs[j] = bt.seqs[last]
	bt.seqs = bt.seqs[:last]
	if j < last {
		bt.down(j)
		bt.up(j)
	}
}
