package optimize

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/sim"
)

// Intervals of a candidate's shares and added cost. For independent
// requests the answered share, the share answered within the target and
// the shares that met the class's target, were rescued and were harmed
// get Wilson's score interval (stats.go's wilson); the added cost, on the
// USD basis, gets the paired ratio estimate's interval over the run's
// 1000 arrival sections, with no hedging's on the same requests (common
// random numbers; sim.PairedAddedCostCI), as `run` gives it: from the
// standard error its measurement kept, or, for a pipeline's candidate
// (one policy per step), from the section costs it keeps. When
// the class's requests interact, each figure's interval comes from its
// values in the 30 batches of sim's fixed grid over the whole run
// (sim.ClassResult.GridShares) — the requests the figures are over — as
// est ± t · s/√B (sim.BatchInterval); the added cost's batch values are
// paired with no hedging's, batch by batch (the same requests, on common
// random numbers): 100·(c_b − c₀_b)/c₀_b. The met, rescued and harmed
// shares of such a run get theirs from the same batches
// (sim.ClassResult.GridFates: the run counts them per arrival section),
// when it was paired; none otherwise.

// CIMethodWilson and CIMethodGrid name how a candidate's intervals were
// made (Candidate.CIMethod): for independent requests, of its shares (the
// added cost's is named by Candidate.AddedCostPctCIMethod alone); when
// they interact, of its shares and added cost.
const (
	CIMethodWilson = "Wilson score (independent requests)"
	CIMethodGrid   = "batch means over 30 arrival-ordered batches of the whole run (t interval); the added cost paired with no hedging batch by batch"
)

// CIMethodAddedCostGrid names the added cost's interval of a candidate
// whose requests interact (Candidate.AddedCostPctCIMethod); for
// independent requests it is sim.CIMethodAddedCostPaired.
const CIMethodAddedCostGrid = "paired batch means over 30 arrival-ordered batches of the whole run, with and without hedging (t interval)"

// setIntervals fills c's intervals of its shares and added cost at the
// level, base being the class's no-hedging candidate and basis its cost
// basis; within says the objective has a target (AnsweredWithinShare is
// measured).
func setIntervals(c, base *Candidate, basis string, level float64, within bool) {
	if c.Requests <= 0 {
		return
	}
	if c.batchS[0] == nil {
		z := distuv.UnitNormal.Quantile((1 + level) / 2)
		c.CIMethod = CIMethodWilson
		lo, hi := wilson(c.AnsweredShare, c.Requests, z)
		c.AnsweredShareCI95 = wireCI([2]float64{lo, hi})
		if within {
			lo, hi := wilson(c.AnsweredWithinShare, c.Requests, z)
			c.AnsweredWithinShareCI95 = wireCI([2]float64{lo, hi})
		}
		w := func(share float64) *[2]*float64 {
			lo, hi := wilson(share, c.Requests, z)
			return wireCI([2]float64{lo, hi})
		}
		c.MetShareCI95 = w(c.MetShare)
		if c.RescuedShare != nil && c.HarmedShare != nil {
			c.RescuedShareCI95, c.HarmedShareCI95 = w(*c.RescuedShare), w(*c.HarmedShare)
		}
		if basis == CostUSD && c.Requests == base.Requests {
			ci := sim.AddedCostCIFromSE(c.AddedCostPct, c.costSE, c.costK, level)
			if c == base || c.costK == 0 && c.secCost != nil {
				// No, or a pipeline's, candidate: it keeps its section
				// costs, paired with no hedging's here.
				ci = sim.PairedAddedCostCI(c.AddedCostPct, c.secCost, base.secCost, level)
			}
			if c.AddedCostPctCI95 = wireCI(ci); c.AddedCostPctCI95 != nil {
				c.AddedCostPctCIMethod = sim.CIMethodAddedCostPaired
			}
		}
		return
	}
	c.CIMethod = CIMethodGrid
	// A share lies in [0, 1]: bounds past it are clipped, and batches all
	// at a bound get a width (sim.BatchShareInterval).
	c.AnsweredShareCI95 = wireCI(sim.BatchShareInterval(c.AnsweredShare, c.batchS[0], level))
	if within && c.batchS[1] != nil {
		c.AnsweredWithinShareCI95 = wireCI(sim.BatchShareInterval(c.AnsweredWithinShare, c.batchS[1], level))
	}
	if f := c.batchF; f[0] != nil {
		share := func(x float64, per []float64) *[2]*float64 {
			return wireCI(sim.BatchShareInterval(x, per, level))
		}
		c.MetShareCI95 = share(c.MetShare, f[0])
		if c.RescuedShare != nil && c.HarmedShare != nil {
			c.RescuedShareCI95 = share(*c.RescuedShare, f[1])
			c.HarmedShareCI95 = share(*c.HarmedShare, f[2])
		}
	}
	cc, bc := c.batchS[2], base.batchS[2]
	if basis != CostUSD || cc == nil || len(cc) != len(bc) {
		return
	}
	xs := make([]float64, len(cc))
	for j := range cc {
		xs[j] = math.NaN()
		if bc[j] > 0 {
			xs[j] = 100 * (cc[j] - bc[j]) / bc[j]
		}
	}
	if c.AddedCostPctCI95 = wireCI(sim.BatchInterval(c.AddedCostPct, xs, level)); c.AddedCostPctCI95 != nil {
		c.AddedCostPctCIMethod = CIMethodAddedCostGrid
	}
}

// wireCI is an interval on the wire: nil when it was not formed (NaN
// bounds), a null bound when it is infinite.
func wireCI(ci [2]float64) *[2]*float64 {
	if math.IsNaN(ci[0]) || math.IsNaN(ci[1]) {
		return nil
	}
	return &[2]*float64{finitePtr(ci[0]), finitePtr(ci[1])}
}

// pairedAnswered returns the paired difference b − a of the answered
// share over the candidates' batches, and whether it could be formed
// (both batched alike, every batch with requests).
func pairedAnswered(a, b *Candidate, level float64) (sim.PairedDiff, bool) {
	pa, pb := a.batchS[0], b.batchS[0]
	if len(pa) < 2 || len(pa) != len(pb) {
		return sim.PairedDiff{}, false
	}
	d := sim.PairDiff(a.AnsweredShare, pa, b.AnsweredShare, pb, level)
	return d, !math.IsNaN(d.CI[0]) && !math.IsNaN(d.CI[1])
}

// pairedWithin returns the paired difference b − a of the share answered
// within the target over the candidates' batches, and whether it could
// be formed (both batched alike, every batch with requests).
func pairedWithin(a, b *Candidate, level float64) (sim.PairedDiff, bool) {
	pa, pb := a.batchS[1], b.batchS[1]
	if len(pa) < 2 || len(pa) != len(pb) {
		return sim.PairedDiff{}, false
	}
	d := sim.PairDiff(a.AnsweredWithinShare, pa, b.AnsweredWithinShare, pb, level)
	return d, !math.IsNaN(d.CI[0]) && !math.IsNaN(d.CI[1])
}
