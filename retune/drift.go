package retune

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/sim"
)

// Verdicts of a Drift.
const (
	Unchanged  = "unchanged"
	Shifted    = "shifted"
	CannotTell = "cannot tell"
)

// MinObservations is the fewest observations a drift verdict needs; with
// fewer the verdict is CannotTell.
const MinObservations = 50

// Drift compares one live histogram with the scenario's model of the same
// latency on the histogram's buckets.
type Drift struct {
	// N is the number of observations (the sum of the counts).
	N float64 `json:"observations"`
	// ChiSquare is Pearson's X² = Σ (O − E)²/E of the observed counts O
	// against the scenario model's expected counts E = N·(F(U) − F(L)),
	// adjacent buckets pooled from the left until each expects ≥ 5 (a
	// short last cell joins the one before). The model is fixed, not
	// fitted to these counts, so DF = pooled cells − 1. PValue is
	// P(χ²_DF > X²) (gonum distuv.ChiSquared), or, for dependent calls
	// with a design effect above 1, Dependence's F test's (distuv.F).
	// When DF < 1 (the pooling
	// left one cell) PValue is the exact test at the bucket bounds
	// (boundTest) when that rejects, and the verdict is Shifted; NaN
	// otherwise.
	ChiSquare float64 `json:"chi_square"`
	DF        int     `json:"df"`
	PValue    float64 `json:"p_value"`
	// Alpha is the test's level: the model is rejected when PValue < Alpha.
	Alpha float64 `json:"alpha"`
	// Percentiles compare p50, p95 and p99 (see Shift).
	Percentiles []Shift `json:"percentiles"`
	// Dependence, for a model judged against a simulated sample of calls
	// that interact (a queue), is the design effect measured on that
	// sample and the test it corrects (Rao–Scott; see Dependence): PValue
	// is then its F test's when DesignEffect > 1, and the percentiles'
	// intervals and the shares' SEs are widened. Absent for independent
	// calls.
	Dependence *Dependence `json:"dependence,omitempty"`
	// Shares compare, for a scenario model that is a mixture, each
	// component's weight (the share of calls on that path) with the
	// weight the live counts give it, the components held fixed (see
	// ShareShift); nil otherwise.
	Shares []ShareShift `json:"shares,omitempty"`
	// Verdict is Unchanged, Shifted or CannotTell; Where names what moved
	// for Shifted ("median", "tail", "bimodal share"; "shape" when the
	// test rejects but no percentile or share moved beyond its interval);
	// Why says it in words.
	Verdict string   `json:"verdict"`
	Where   []string `json:"where"`
	Why     string   `json:"why"`
	// Warnings say what makes the verdict doubtful: counts that are not
	// whole numbers (fit.NotWholeWarning; with fewer than
	// MinObservations Why says it instead), then what the reader assumed
	// of a file that does not add up (readers.Histogram.Warnings: a
	// _count that disagrees with the +Inf bucket, no +Inf bucket), then,
	// from Assess, the live fit's own warnings, as fit prints them.
	Warnings []string `json:"warnings,omitempty"`
}

// Shift is one percentile: the scenario model's value and the live one in
// seconds. Lo and Hi bound the live percentile at the level 1 − Alpha: the
// ranks n·p ± z·√(n·p·(1−p)) of a sample of N (the normal approximation to
// the binomial order-statistic interval, which assumes independent
// observations; for dependent ones, Drift.Dependence, z·√… becomes
// t·√(n·p·(1−p)·δ_p), δ_p the design effect of {x ≤ the percentile} when
// above 1 and t Student's on the batches' B − 1 df, and a rank beyond the
// sample's ends opens the interval there, Lo to the lowest bound and Hi
// to +Inf: the percentile may lie beyond every observation), widened to
// the buckets that hold them — the histogram cannot place a percentile
// more finely; Hi is +Inf when the rank falls in the open last bucket. Live is the fitted live model's percentile,
// clamped into the bucket holding the rank n·p (the bucket the data place
// the percentile in, as the live fit's warnings name it; for the open
// last bucket, at least its lower bound, the top finite bound), so it
// always lies in [Lo, Hi]; without a fit, that bucket's midpoint, or its
// lower bound when it is open. Moved is true when the scenario's value lies outside
// (Lo, Hi]; ChangePct is 100·(Live/Scenario − 1).
type Shift struct {
	P         float64 `json:"p"`
	Scenario  float64 `json:"scenario_s"`
	Live      float64 `json:"live_s"`
	Lo        float64 `json:"lo_s"`
	Hi        float64 `json:"hi_s"`
	Moved     bool    `json:"moved"`
	ChangePct float64 `json:"change_pct"`
}

// ShareShift is one component of a mixture model: its weight in the
// scenario and the live weight that best explains the counts with every
// component's shape held as the scenario has it (maximum likelihood by EM
// over the buckets: McLachlan and Jones, Biometrics 44, 1988). SE is the
// live weight's standard error from the observed Fisher information of
// the K − 1 free weights (assuming independent observations and the
// components' shapes right; for dependent ones, Drift.Dependence, it is
// multiplied by √DesignEffect, the first-order Rao–Scott inflation of a
// variance, and z becomes Student's t on the batches' B − 1 df); Moved
// is true when |Live − Scenario| > z·SE.
type ShareShift struct {
	Component int     `json:"component"`
	Median    float64 `json:"median_s"`
	Scenario  float64 `json:"scenario"`
	Live      float64 `json:"live"`
	SE        float64 `json:"se"`
	Moved     bool    `json:"moved"`
}

// Judge compares the histogram h with the scenario's model scen at level
// alpha (in (0, 0.5); the chi-square test's size and 1 − the intervals'
// level). live, the model fitted to h, gives the live percentiles' point
// values; nil uses the bucket midpoints of the intervals. The verdict is
// CannotTell below MinObservations or when the buckets leave the test no
// degree of freedom and the exact test at the bucket bounds (boundTest)
// does not reject either; Shifted when PValue < alpha (a warning then
// asks whether the bounds are milliseconds when the live p50's interval
// read as milliseconds holds the scenario's p50: msHint); Unchanged
// otherwise.
// Counts that are not whole numbers (h.Whole false) are taken as counts
// of observations, with a warning; h.Warnings are passed on.
func Judge(h *readers.Histogram, scen, live dist.Continuous, alpha float64) Drift {
	return judge(h, scen, live, alpha, 0, nil, "the scenario's model")
}

// judgedPercentiles are the percentiles a Drift compares.
var judgedPercentiles = []float64{0.5, 0.95, 0.99}

// judge is Judge against scen, called what in the verdict's words. sample
// > 0 is the number of draws scen is the empirical distribution of (a
// simulation's): its expected counts then carry that sample's noise too,
// and X² is divided by 1 + N/sample, the variance of each cell's O − E
// being N·p·(1 − p)·(1 + N/sample) for independent draws of both. seq,
// when not nil, is that sample in completion order, of calls that
// interact: the test, the percentiles' intervals and the shares' standard
// errors are then corrected for their dependence (Dependence, measured on
// seq; the variance of O − E being N·p·(1 − p)·δ·(1 + N/sample)).
func judge(h *readers.Histogram, scen, live dist.Continuous, alpha float64, sample float64, seq []float64, what string) Drift {
	d := Drift{N: h.Total(), Alpha: alpha, PValue: math.NaN()}
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	expected := make([]float64, len(h.Counts))
	for i := range h.Counts {
		expected[i] = d.N * mass(scen, h.Lower[i], h.Upper[i])
	}
	d.ChiSquare, d.DF = fit.PooledChiSquare(h.Counts, expected, 0)
	if sample > 0 {
		d.ChiSquare /= 1 + d.N/sample
	}
	if d.DF >= 1 {
		d.PValue = distuv.ChiSquared{K: float64(d.DF)}.Survival(d.ChiSquare)
	}
	// Each percentile's and share's critical value times its standard
	// error's inflation: z for independent calls.
	crit := []float64{z, z, z}
	shareCrit, shareSE := z, 1.0
	if seq != nil {
		qs := make([]float64, len(judgedPercentiles))
		for i, p := range judgedPercentiles {
			qs[i] = scen.Quantile(p)
		}
		if dep := dependence(seq, h, expected, qs); dep != nil {
			d.Dependence = dep
			// A design effect of 1 keeps the independent calls' figure;
			// above, the batch estimate's own noise takes Student's t on
			// B − 1 df, as sim's batched intervals do.
			t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dep.Batches - 1)}.Quantile(1 - alpha/2)
			for i, de := range dep.Percentiles {
				if de > 1 {
					crit[i] = t * math.Sqrt(de)
				}
			}
			if dep.DesignEffect > 1 {
				shareCrit, shareSE = t, math.Sqrt(dep.DesignEffect)
			}
			if d.DF >= 1 && dep.DesignEffect > 1 {
				dep.F = d.ChiSquare / dep.trace
				dep.DF1 = dep.trace * dep.trace / dep.trace2
				dep.DF2 = float64(dep.Batches - 1)
				d.PValue = distuv.F{D1: dep.DF1, D2: dep.DF2}.Survival(dep.F)
			}
		}
	}
	for i, p := range judgedPercentiles {
		d.Percentiles = append(d.Percentiles, shift(h, scen, live, p, crit[i], d.Dependence != nil && crit[i] != z))
	}
	if m, ok := scen.(*dist.Mixture); ok && len(m.Components) > 1 {
		d.Shares = shares(h, m, shareCrit, shareSE)
	}
	if !h.Whole && d.N >= MinObservations {
		d.Warnings = append(d.Warnings, fit.NotWholeWarning)
	}
	d.Warnings = append(d.Warnings, h.Warnings...)
	defer func() {
		if d.Verdict == CannotTell {
			// No test: no percentile is told to have moved.
			for i := range d.Percentiles {
				d.Percentiles[i].Moved = false
			}
			for i := range d.Shares {
				d.Shares[i].Moved = false
			}
		}
	}()
	switch {
	case d.N < MinObservations:
		d.Verdict = CannotTell
		d.Why = fmt.Sprintf("only %s observations; a verdict needs at least %d", countText(d.N), MinObservations)
		if !h.Whole {
			d.Why += "; the counts are not whole numbers (a rate, not a count?): query increase() over a window instead of rate()"
		}
	case d.DF < 1:
		// The pooling has merged the buckets into one cell, which
		// cannot disagree with the model even when the observations lie
		// where it expects none; the bounds' exact tests still can.
		b, p := boundTest(h, scen)
		if p >= alpha {
			d.Verdict = CannotTell
			d.Why = "the buckets, pooled to 5 expected observations each, leave the test no degree of freedom"
			break
		}
		d.PValue = p
		d.Verdict = Shifted
		d.Where = movedWhere(&d)
		above := 0.0
		for i := b + 1; i < len(h.Counts); i++ {
			above += h.Counts[i]
		}
		d.Why = fmt.Sprintf("the buckets, pooled to 5 expected observations each, leave the chi-square no degree of freedom, but the counts reject %s at the bound %s s: %s of %s observations above it, where it expects %s (exact binomial test, Bonferroni over %d bounds: p = %s < %g)",
			what, num(h.Upper[b]), countText(above), countText(d.N), num(d.N*scen.Survival(h.Upper[b])), finiteBounds(h), pText(p), alpha)
		if hint := msHint(&d); hint != "" {
			d.Warnings = append(d.Warnings, hint)
		}
	case d.PValue < alpha:
		d.Verdict = Shifted
		d.Where = movedWhere(&d)
		d.Why = fmt.Sprintf("the counts reject %s: X² = %.1f on %d df%s, p = %s < %g", what, d.ChiSquare, d.DF, d.dependenceText(), pText(d.PValue), alpha)
	default:
		d.Verdict = Unchanged
		d.Why = fmt.Sprintf("the counts agree with %s: X² = %.1f on %d df%s, p = %.3g ≥ %g", what, d.ChiSquare, d.DF, d.dependenceText(), d.PValue, alpha)
	}
	return d
}

// dependenceText says, for a test corrected for dependent calls (design
// effect above 1), how: "; the simulated calls are correlated (…)"; ""
// otherwise.
func (d *Drift) dependenceText() string {
	dep := d.Dependence
	if dep == nil || dep.DesignEffect <= 1 || dep.DF1 == 0 {
		return ""
	}
	return fmt.Sprintf("; the simulated calls are correlated (queueing), design effect %.3g from %d batches of %d: the test counts the %s observations as about %s independent ones (Rao–Scott F = %.3g on %.3g and %.3g df)",
		dep.DesignEffect, dep.Batches, dep.BatchSize, countText(d.N), countText(math.Round(d.N/dep.DesignEffect)), dep.F, dep.DF1, dep.DF2)
}

// movedWhere names what moved beyond its interval for a Shifted verdict:
// "median", "tail" (p95 or p99), "bimodal share"; "shape" when nothing did.
func movedWhere(d *Drift) []string {
	var where []string
	for _, s := range d.Percentiles {
		w := "tail"
		if s.P == 0.5 {
			w = "median"
		}
		if s.Moved && !contains(where, w) {
			where = append(where, w)
		}
	}
	for _, s := range d.Shares {
		if s.Moved && !contains(where, "bimodal share") {
			where = append(where, "bimodal share")
		}
	}
	if len(where) == 0 {
		where = []string{"shape"}
	}
	return where
}

// boundTest is the test of scen against h when the pooled chi-square has no
// degree of freedom (all its expected count in one cell). At each finite
// bucket bound u_i, the number of observations above it, K_i (rounded to
// a whole number), is Binomial(N, S(u_i)) under scen (S its survival
// function; independent observations); the two-sided exact p-value is
// min(1, 2·min(P(X ≤ K_i), P(X ≥ K_i))). It returns the bucket i whose
// upper bound gives the least p-value and that p-value times the number of
// finite bounds (Bonferroni), capped at 1: a test of level alpha whatever
// the bounds. With no finite bound it returns (0, 1).
func boundTest(h *readers.Histogram, scen dist.Continuous) (int, float64) {
	n := math.Round(h.Total())
	best, bestP := 0, 1.0
	for i := range h.Counts {
		u := h.Upper[i]
		if math.IsInf(u, 1) {
			break
		}
		k := 0.0
		for j := i + 1; j < len(h.Counts); j++ {
			k += h.Counts[j]
		}
		k = math.Round(k)
		if p := binomialTwoSided(n, scen.Survival(u), k); p < bestP || i == 0 {
			best, bestP = i, p
		}
	}
	return best, math.Min(1, bestP*float64(finiteBounds(h)))
}

// finiteBounds returns the number of h's finite upper bucket bounds.
func finiteBounds(h *readers.Histogram) int {
	m := 0
	for _, u := range h.Upper {
		if !math.IsInf(u, 1) {
			m++
		}
	}
	return m
}

// binomialTwoSided returns min(1, 2·min(P(X ≤ k), P(X ≥ k))) for X ~
// Binomial(n, q), k a whole number in [0, n]; q of 0 or 1 puts X at 0 or n.
func binomialTwoSided(n, q, k float64) float64 {
	var le, ge float64 // P(X ≤ k), P(X ≥ k)
	switch {
	case q <= 0:
		le, ge = 1, 0
		if k == 0 {
			ge = 1
		}
	case q >= 1:
		le, ge = 0, 1
		if k == n {
			le = 1
		}
	default:
		b := distuv.Binomial{N: n, P: q}
		le = b.CDF(k)
		ge = 1
		if k > 0 {
			ge = b.Survival(k - 1)
		}
	}
	return math.Min(1, 2*math.Min(le, ge))
}

// msHint returns a warning when a Shifted drift reads as bucket bounds
// written in milliseconds under a _seconds name: the live median is
// msHintFloor seconds or more and the live p50 interval, read as
// milliseconds, holds the scenario's p50. "" otherwise.
func msHint(d *Drift) string {
	for _, s := range d.Percentiles {
		if s.P != 0.5 {
			continue
		}
		if s.Live >= msHintFloor && s.Scenario > s.Lo/1000 && s.Scenario <= s.Hi/1000 {
			return fmt.Sprintf("the live p50 (%s s, in (%s, %s] s) is about 1000× the scenario's (%s s): are the bucket bounds milliseconds under a _seconds name? did you mean %s s (%s ms)?",
				num(s.Live), num(s.Lo), num(s.Hi), num(s.Scenario), num(s.Live/1000), num(s.Live))
		}
	}
	return ""
}

// msHintFloor is the least live median, in seconds, that msHint reads as
// possibly milliseconds: a model call with a median of half a minute or
// more is rarely meant, while 30 ms is a plausible one (as validate's
// unit warning reads a scenario's median).
const msHintFloor = 30.0

// Describe says the verdict with where and how much: "shifted in median,
// tail: p50 +20% (1 → 1.2 s); …".
func (d *Drift) Describe() string {
	if d.Verdict != Shifted {
		return d.Verdict
	}
	var parts []string
	for _, s := range d.Percentiles {
		if s.Moved {
			parts = append(parts, fmt.Sprintf("p%g %s%% (%s → %s s)", s.P*100, sim.SignedChange(s.ChangePct, 0), num(s.Scenario), num(s.Live)))
		}
	}
	for _, s := range d.Shares {
		if s.Moved {
			parts = append(parts, fmt.Sprintf("path at median %s s: share %.3g → %.3g (±%.2g)", num(s.Median), s.Scenario, s.Live, s.SE))
		}
	}
	if len(parts) == 0 {
		return "shifted in shape: no percentile or share beyond its interval"
	}
	return "shifted in " + strings.Join(d.Where, ", ") + ": " + strings.Join(parts, "; ")
}

// mass returns the probability d puts in (lo, hi], from the upper tail
// when the bucket lies above the median, to keep far buckets' precision.
func mass(d dist.Continuous, lo, hi float64) float64 {
	var p float64
	if d.CDF(lo) > 0.5 {
		su := 0.0
		if !math.IsInf(hi, 1) {
			su = d.Survival(hi)
		}
		p = d.Survival(lo) - su
	} else {
		cu := 1.0
		if !math.IsInf(hi, 1) {
			cu = d.CDF(hi)
		}
		p = cu - d.CDF(lo)
	}
	return math.Max(p, 0)
}

// shift computes the Shift of percentile p, its rank interval's half-width
// z·√(n·p·(1−p)) (z the critical value times any inflation of the
// standard error). open, for dependent calls, opens the interval to the
// histogram's end (its lowest bound, or +Inf) on a side whose rank falls
// beyond the sample.
func shift(h *readers.Histogram, scen, live dist.Continuous, p, z float64, open bool) Shift {
	n := h.Total()
	half := z * math.Sqrt(n*p*(1-p))
	loRank := math.Max(math.Floor(n*p-half), 1)
	hiRank := math.Min(math.Ceil(n*p+half), n)
	s := Shift{P: p, Scenario: scen.Quantile(p)}
	s.Lo = h.Lower[bucketOfRank(h, loRank)]
	s.Hi = h.Upper[bucketOfRank(h, hiRank)]
	if open {
		// Dependent calls: a rank beyond the sample's ends says the
		// percentile may lie beyond every observation.
		if n*p-half < 1 {
			s.Lo = h.Lower[0]
		}
		if n*p+half > n {
			s.Hi = h.Upper[len(h.Upper)-1]
		}
	}
	// The live value lies in the bucket holding the rank n·p, where the
	// data place the percentile (and the live fit's warnings say they
	// do), not merely in the interval: a fit that misses that bucket is
	// clamped to its nearer bound.
	b := bucketOfRank(h, n*p)
	at, to := h.Lower[b], h.Upper[b]
	switch {
	case live != nil:
		s.Live = math.Min(math.Max(live.Quantile(p), at), to)
	case math.IsInf(to, 1):
		s.Live = at
	default:
		s.Live = (at + to) / 2
	}
	s.Moved = !(s.Scenario > s.Lo && s.Scenario <= s.Hi)
	if s.Scenario > 0 {
		s.ChangePct = 100 * (s.Live/s.Scenario - 1)
	}
	return s
}

// bucketOfRank returns the index of the bucket holding the r-th smallest
// observation (r ≥ 1).
func bucketOfRank(h *readers.Histogram, r float64) int {
	cum := 0.0
	for i, c := range h.Counts {
		cum += c
		if cum >= r {
			return i
		}
	}
	return len(h.Counts) - 1
}

// shareIterations bounds the weights-only EM; it stops earlier when no
// weight moves by more than shareTolerance.
const (
	shareIterations = 2000
	shareTolerance  = 1e-10
)

// shares fits the weights of m's components to h with their shapes fixed.
// Each standard error is multiplied by inflate (1 for independent calls;
// √δ̄ for dependent ones, Dependence) and a share moved when it is beyond
// crit of them.
func shares(h *readers.Histogram, m *dist.Mixture, crit, inflate float64) []ShareShift {
	k := len(m.Components)
	nb := len(h.Counts)
	pm := make([][]float64, nb) // pm[i][j]: component j's mass in bucket i
	for i := range nb {
		pm[i] = make([]float64, k)
		for j, c := range m.Components {
			pm[i][j] = mass(c, h.Lower[i], h.Upper[i])
		}
	}
	n := h.Total()
	w := append([]float64(nil), m.Weights...)
	next := make([]float64, k)
	for range shareIterations {
		clear(next)
		for i, c := range h.Counts {
			tot := 0.0
			for j := range k {
				tot += w[j] * pm[i][j]
			}
			if c == 0 || tot <= 0 {
				continue
			}
			for j := range k {
				next[j] += c * w[j] * pm[i][j] / tot
			}
		}
		moved := 0.0
		for j := range k {
			next[j] /= n
			moved = math.Max(moved, math.Abs(next[j]-w[j]))
		}
		copy(w, next)
		if moved < shareTolerance {
			break
		}
	}
	// Observed information of the free weights w₀…w_{k−2} (w_{k−1} = 1 − Σ):
	// I = Σᵢ nᵢ gᵢ gᵢᵀ / pᵢ², gᵢⱼ = Pᵢⱼ − Pᵢ,ₖ₋₁.
	info := mat.NewSymDense(k-1, nil)
	for i, c := range h.Counts {
		p := 0.0
		for j := range k {
			p += w[j] * pm[i][j]
		}
		if c == 0 || p <= 0 {
			continue
		}
		for a := range k - 1 {
			ga := pm[i][a] - pm[i][k-1]
			for b := a; b < k-1; b++ {
				gb := pm[i][b] - pm[i][k-1]
				info.SetSym(a, b, info.At(a, b)+c*ga*gb/(p*p))
			}
		}
	}
	se := make([]float64, k)
	var chol mat.Cholesky
	if chol.Factorize(info) {
		var inv mat.SymDense
		if err := chol.InverseTo(&inv); err == nil {
			last := 0.0
			for a := range k - 1 {
				se[a] = math.Sqrt(math.Max(inv.At(a, a), 0))
				for b := range k - 1 {
					last += inv.At(a, b)
				}
			}
			se[k-1] = math.Sqrt(math.Max(last, 0))
		}
	} else {
		for j := range se {
			se[j] = math.Inf(1) // the buckets cannot tell the components apart
		}
	}
	out := make([]ShareShift, k)
	for j := range k {
		out[j] = ShareShift{Component: j, Median: m.Components[j].Quantile(0.5), Scenario: m.Weights[j], Live: w[j], SE: se[j] * inflate}
		out[j].Moved = math.Abs(w[j]-m.Weights[j]) > crit*out[j].SE
	}
	return out
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// num formats seconds to 3 significant digits.
func num(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return fmt.Sprintf("%.3g", v)
}

// countText formats a count of observations as fit prints it
// (fit.FormatCount: whole, or to one decimal), except one below 1 (a
// rate's, to 3 significant digits: "0.0579") and one of 10¹⁵ or more
// ("1e+301"), which would print as a row of digits.
func countText(v float64) string {
	switch {
	case math.Abs(v) >= 1e15:
		return strconv.FormatFloat(v, 'g', 4, 64)
	case v != math.Trunc(v) && math.Abs(v) < 1:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return fit.FormatCount(v)
}
