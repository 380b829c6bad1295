package sim

import (
	"math"
	"slices"
	"time"
)

// Batched intervals of utilisation. A provider's utilisation (and a pool
// replica's) is its time-average number of attempts in service ÷ its
// concurrency limit. When requests interact (batchmeans.go) a run also
// adds each attempt's time in service to its request's arrival section,
// per provider and per replica (numSections float64 each, nothing per
// request). After the run, the sections from the overall row's warm-up
// cut on are grouped into the numBatches batches of the latency figures;
// batch b's utilisation is
//
//	U_b = S_b ÷ (T_b · c),
//
// S_b the time in service of the attempts of the requests that arrived in
// the batch, T_b the batch's span of arrivals (from the last arrival of
// the section before it to its own last arrival) and c the concurrency
// (the limit; for a pool, the replicas' limits summed, as Utilisation
// is). The interval is U ± t₀.₉₇₅,B−1 · s_U/√B around the reported
// utilisation U (over the whole run, as before; its warm-up bias is of the
// order of one queue's relaxation time over the run's span), s_U the
// standard deviation of the U_b (batch means: Law & Kelton, Simulation
// Modeling and Analysis, §9.5.3). Attributing an attempt's whole service
// to its request's section misplaces at most one service time per batch
// boundary, small against a batch of hundreds of requests.

// CIMethodLoad names how a provider's or replica's utilisation interval
// was computed (ProviderResult.CIMethod, ReplicaResult.CIMethod).
const CIMethodLoad = "batch means of the time in service of each batch of arrival-ordered requests after the warm-up cut over the batch's span (t interval)"

// loadSections are a batched run's per-section times in service, in
// seconds: prov[i][k] of provider i's attempts whose request arrived in
// section k, rep[i][j][k] the same of replica j of provider i's pool
// (nil until one is served).
type loadSections struct {
	prov [][]float64
	rep  [][][]float64
	// rows holds at p·repRows + rep, rep an attempt's (attempt.rep: 0
	// without a pool's replica, below repRows), the sections loadSection
	// adds the attempt's time in service to, once both are made: its
	// provider's and its replica's (nil for none). exit adds through it,
	// with one lookup and without loadSection's call.
	rows []loadRow
}

// loadRow is one entry of loadSections.rows.
type loadRow struct{ prov, rep *[numSections]float64 }

// rowOf returns the row of e.load.rows that attempt a adds its time in
// service through, or nil when loadSection must add it: the run is grown,
// a's sections are not made yet, or its replica is beyond repRows.
func (e *engine) rowOf(a *attempt) *loadRow {
	if ls := e.load; ls != nil && e.grow == nil {
		if i := uint(a.prov)*repRows + uint(a.rep); i < uint(len(ls.rows)) {
			if row := &ls.rows[i]; row.prov != nil {
				return row
			}
		}
	}
	return nil
}

// repRows is how many replicas (and the provider itself) each provider
// has rows for in loadSections.rows: attempts of replicas beyond are added
// by loadSection. 256 covers pools of up to 255 replicas (a row is 16
// bytes: 4 KiB a provider, made once a run).
const repRows = 256

// loadSection adds d, the time in service of attempt a of request r, to
// r's arrival section of a's provider, pv, and, in a pool, of its replica.
// The sections are made as they are first needed (loadSectionsFor), off
// the path every attempt takes; once they are, exit books an attempt of a
// run not grown itself, without this call.
func (e *engine) loadSection(pv *provider, r *request, a *attempt, d time.Duration) {
	p := int(a.prov)
	ls := e.load
	var sec []float64
	if ls != nil {
		sec = ls.prov[p]
	}
	if sec == nil {
		ls = e.loadSectionsFor(p)
		sec = ls.prov[p]
	}
	k := r.sec         // a pipeline's call: its pipeline request's
	s := posSeconds(d) // d > 0
	sec[k] += s
	if e.grow != nil {
		id := r.id
		if int(r.class) >= e.users { // a pipeline's call: its request's id
			id &= 1<<32 - 1
		}
		e.grow.loadSection(e, a, id, s)
	}
	if pv.pool == nil || a.rep == 0 {
		ls.row(p, int(a.rep), sec, nil)
		return
	}
	j := int(a.rep) - 1
	var rs []float64
	if reps := ls.rep[p]; j < len(reps) {
		rs = reps[j]
	}
	if rs == nil {
		rs = ls.replicaSections(p, j)[j]
	}
	rs[k] += s
	ls.row(p, int(a.rep), sec, rs)
}

// row keeps in ls.rows the sections an attempt of provider p and replica
// rep (attempt.rep) adds to: its provider's, ps, and its replica's, rs
// (nil for none), when rep is below repRows. Sections once made stay
// where they are, so a row stays right.
func (ls *loadSections) row(p, rep int, ps, rs []float64) {
	if rep >= repRows {
		return
	}
	if ls.rows == nil {
		ls.rows = make([]loadRow, len(ls.prov)*repRows)
	}
	r := &ls.rows[p*repRows+rep]
	r.prov = (*[numSections]float64)(ps)
	if rs != nil {
		r.rep = (*[numSections]float64)(rs)
	}
}

// posSeconds is d.Seconds() for d ≥ 0, the same number, found by an unsigned
// division: no sign to correct.
func posSeconds(d time.Duration) float64 {
	u := uint64(d)
	s := u / 1e9
	return float64(int64(s)) + float64(int64(u-s*1e9))/1e9
}

// loadSectionsFor returns e's load sections, made if need be, with
// provider p's.
func (e *engine) loadSectionsFor(p int) *loadSections {
	ls := e.load
	if ls == nil {
		ls = &loadSections{prov: make([][]float64, len(e.provs)), rep: make([][][]float64, len(e.provs))}
		e.load = ls
	}
	if ls.prov[p] == nil {
		ls.prov[p] = make([]float64, numSections)
	}
	return ls
}

// replicaSections returns provider p's replicas' sections, with replica
// j's made if need be.
func (ls *loadSections) replicaSections(p, j int) [][]float64 {
	if j >= len(ls.rep[p]) {
		ls.rep[p] = append(ls.rep[p], make([][]float64, j+1-len(ls.rep[p]))...)
	}
	if ls.rep[p][j] == nil {
		ls.rep[p][j] = make([]float64, numSections)
	}
	return ls.rep[p]
}

// batchSpans returns the arrival spans in seconds of the batches of the
// sections from cut on (the grouping of groupBatches), given the last
// arrival time of each section (secLast; 0 for an empty section).
func batchSpans(secLast []time.Duration, cut int) []float64 {
	kept := numSections - cut
	nb := min(numBatches, kept)
	if nb <= 0 || len(secLast) != numSections {
		return nil
	}
	end := make([]time.Duration, nb) // last arrival up to each batch's end
	var last time.Duration
	for k := range numSections {
		last = max(last, secLast[k])
		if k >= cut {
			end[(k-cut)*nb/kept] = last
		}
	}
	var start time.Duration
	if cut > 0 {
		for k := range cut {
			start = max(start, secLast[k])
		}
	}
	out := make([]float64, nb)
	for j := range nb {
		out[j] = (end[j] - start).Seconds()
		start = end[j]
	}
	return out
}

// utilisationCI returns the batched 95 % interval of a utilisation u whose
// sections' times in service are sec (see above), or nil when none can be
// formed (no interval, no busy time, fewer than two batches).
func utilisationCI(u *float64, meanInService float64, sec []float64, spans []float64, cut int) *[2]*float64 {
	if u == nil || !(*u > 0) || sec == nil || len(spans) < 2 {
		return nil
	}
	c := meanInService / *u // the concurrency Utilisation divides by
	nb := len(spans)
	kept := numSections - cut
	busy := make([]float64, nb)
	for k := cut; k < numSections; k++ {
		busy[(k-cut)*nb/kept] += sec[k]
	}
	xs := make([]float64, nb)
	for j := range nb {
		xs[j] = math.NaN()
		if spans[j] > 0 {
			xs[j] = busy[j] / (spans[j] * c)
		}
	}
	return wireCIOpt(ClipShare(BatchInterval(*u, xs, 0.95)))
}

// setLoadIntervals gives r's providers and pool replicas with a
// concurrency limit the batched interval of their utilisation, when the
// requests of hedged (the run r reports) interact; ob is the overall row's
// batched analysis, whose warm-up cut the batches start at. The providers
// and pools are copied first: hedged is left as it was.
func (r *Report) setLoadIntervals(hedged *Result, ob *batchSummary) {
	ls := hedged.load
	if ls == nil || ob == nil || !hedged.Overall.lat.sectioned() {
		return
	}
	cut := ob.cutSec
	spans := batchSpans(hedged.Overall.lat.secLast, cut)
	if len(spans) < 2 {
		return
	}
	r.Providers = slices.Clone(r.Providers)
	for i := range r.Providers {
		p := &r.Providers[i]
		if i >= len(ls.prov) {
			break
		}
		if p.UtilisationCI95 = utilisationCI(p.Utilisation, p.MeanInService, ls.prov[i], spans, cut); p.UtilisationCI95 != nil {
			p.CIMethod = CIMethodLoad
		}
	}
	r.Pools = slices.Clone(r.Pools)
	for i := range r.Pools {
		pl := &r.Pools[i]
		pi := slices.IndexFunc(r.Providers, func(p ProviderResult) bool { return p.Name == pl.Provider })
		if pi < 0 || pi >= len(ls.rep) {
			continue
		}
		pl.Replicas = slices.Clone(pl.Replicas)
		for j := range pl.Replicas {
			rr := &pl.Replicas[j]
			if j >= len(ls.rep[pi]) {
				break
			}
			if rr.UtilisationCI95 = utilisationCI(rr.Utilisation, rr.MeanInService, ls.rep[pi][j], spans, cut); rr.UtilisationCI95 != nil {
				rr.CIMethod = CIMethodLoad
			}
		}
	}
}
