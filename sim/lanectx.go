package sim

import "time"

// laneClass is what the lane reads of a class on every request, gathered
// once per run so that a request looks it up once (the class's Config
// entry is large: indexing it costs a bounds check and a multiply).
type laneClass struct {
	p     *Policy
	st    *classStats
	tally []laneTally // per model: the class's attempts to it
	// deadline is the class's deadline (≤ 0: none); cancel the policy's
	// cancel latency.
	deadline, cancel time.Duration
	copies           int // the policy's Copies
	// gap[j] is the gap between copies j−1 and j (Policy.gap), for 1 ≤ j ≤
	// copies; target[k] the model copy k goes to when !newProvider.
	gap         [MaxCopies + 1]time.Duration
	target      [MaxCopies + 1]int32
	billing     Billing // the policy's CancelBilling
	newProvider bool    // targets depend on the providers tried (engine.target)
	firstToken  bool    // Winner == FirstToken: a first token decides
}

// laneTally counts one class's attempts to one model on the lane: sent,
// and by how they left, with their time in service — what exit would count
// attempt by attempt in the class, the provider and the model. laneFold
// adds them there once the lane has run (the sums are of whole numbers,
// exact in any order).
type laneTally struct {
	sent, completed, invalid, failed, cancelled int64
	busy                                        wideSum
	last                                        time.Duration // the last end of service
	wonPrimary, wonCopy                         int64         // requests the model answered as primary, as a copy
}

// laneModel is what the lane reads of a model on every attempt.
type laneModel struct {
	md   *Model
	ms   *modelSamplers
	pv   *provider
	prov int32 // pv's index
	// cancels says whether a cancel stops the model's work (its provider
	// does not ignore cancels); plain that the model has a whole-call
	// latency and neither an error nor an invalid rate above 0.
	cancels, plain bool
}

// laneSetup gathers the lane's per-class and per-model contexts.
func (e *engine) laneSetup() {
	ln := &e.ln
	ln.classes = make([]laneClass, len(e.cfg.Classes))
	for c := range e.cfg.Classes {
		cl := &e.cfg.Classes[c]
		p := &cl.Policy
		lc := &ln.classes[c]
		*lc = laneClass{
			p: p, st: &e.stats[c], deadline: cl.Deadline, cancel: p.CancelLatency,
			copies: p.Copies, newProvider: p.NewProvider, billing: p.CancelBilling,
			firstToken: p.Winner == FirstToken,
			tally:      make([]laneTally, len(e.cfg.Models)),
		}
		for k := 0; k <= p.Copies && k <= MaxCopies; k++ {
			lc.target[k] = int32(p.target(k))
			if k > 0 {
				lc.gap[k] = p.gap(k)
			}
		}
	}
	ln.models = make([]laneModel, len(e.cfg.Models))
	for m := range e.cfg.Models {
		md, pv := &e.cfg.Models[m], &e.provs[e.modelProv[m]]
		ln.models[m] = laneModel{
			md: md, ms: &e.models[m], pv: pv,
			prov: int32(e.modelProv[m]), cancels: !pv.ignoresCancel,
			plain: md.Latency != nil && !(md.ErrorRate > 0) && !(md.InvalidRate > 0),
		}
	}
}

// laneFold adds the lane's tallies to the counts of the classes, providers
// and models, and zeroes them. runLane calls it when its requests have
// run; so must any other driver of laneRequest.
func (e *engine) laneFold() {
	e.costsDone()
	for c := range e.ln.classes {
		lc := &e.ln.classes[c]
		st := lc.st
		for m := range lc.tally {
			t := &lc.tally[m]
			pv := e.ln.models[m].pv
			st.sent += t.sent
			st.completed += t.completed
			st.invalidAtt += t.invalid
			st.failed += t.failed
			st.failedBy[statusServer] += t.failed
			st.cancelled += t.cancelled
			st.won[0] += t.wonPrimary
			st.won[1+m] += t.wonCopy
			ps := &pv.stats
			ps.Sent += t.sent
			ps.started += t.sent // served at once: no queue wait to add
			ps.Completed += t.completed
			ps.Invalid += t.invalid
			ps.Failed += t.failed
			ps.Cancelled += t.cancelled
			pv.busySum.addSum(t.busy)
			pv.lastEnd = max(pv.lastEnd, t.last)
			e.modelSent[m] += t.sent
			*t = laneTally{}
		}
	}
}
