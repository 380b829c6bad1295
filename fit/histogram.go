package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/readers"
)

// A histogram says only how many latencies fell in each bucket (L, U]: the
// data are interval-censored. The log-likelihood of a distribution F is
//
//	ℓ = Σᵢ nᵢ · ln(F(Uᵢ) − F(Lᵢ)),
//
// maximised here for a lognormal directly (Nelder–Mead on μ and ln σ) and
// for mixtures of 2 or 3 lognormals by EM over the bins (McLachlan and
// Jones, "Fitting mixture models to grouped and truncated data via the EM
// algorithm", Biometrics 44, 1988): the E-step splits each bucket's count
// among the components in proportion to wⱼ·Pᵢⱼ, Pᵢⱼ the component's mass
// in the bucket; the M-step sets wⱼ to the component's share of the
// counts and refits its μⱼ, σⱼ to its share of every bucket, a censored
// lognormal fit. EM never lowers ℓ.

// BinnedCandidate is one model fitted to a histogram.
type BinnedCandidate struct {
	// Name is "lognormal", "mixture-2" or "mixture-3"; Mixture its
	// parameters (seconds) and Dist the distribution.
	Name    string
	Mixture LogNormalMixture
	Dist    dist.Continuous
	// LogLik is the censored log-likelihood ℓ and BIC = −2ℓ + p·ln N
	// (N observations, p = 3K − 1 parameters).
	LogLik, BIC float64
	Params      int
	// Expected are the model's counts per bucket, N·(F(U) − F(L)).
	Expected []float64
	// ChiSquare is Pearson's X² = Σ (O − E)²/E over the buckets, adjacent
	// buckets pooled until each expects at least 5; DF = pooled buckets −
	// 1 − Params, or 0 when that is negative (the model has more
	// parameters than the pooled buckets can check: none is left); PValue
	// is P(χ²_DF > X²), NaN when DF < 1.
	ChiSquare float64
	DF        int
	PValue    float64
	// MaxCDFGap is the largest |observed − model| cumulative share at the
	// buckets' upper bounds (the Kolmogorov–Smirnov distance the buckets
	// can see).
	MaxCDFGap float64
}

// HistogramFit is the fit of a latency histogram.
type HistogramFit struct {
	Hist *readers.Histogram
	// N is the number of observations (the sum of the counts).
	N float64
	// Candidates are the models fitted; Chosen the index of the one picked
	// (Options.Model, or the lowest BIC).
	Candidates []BinnedCandidate
	Chosen     int
	// Percentiles compare, for p50, p90, p95 and p99, the model's value
	// with the bucket the data place it in.
	Percentiles []BinnedPercentile
	// Warnings say what limits the fit: buckets too coarse to resolve
	// p95/p99, counts that are not whole numbers, too few observations.
	Warnings []string
	// Notes say which models were not tried and why.
	Notes []string
	// Mean is the observed mean in seconds, the histogram's sum over its
	// count, to which every model is fitted (see histmean.go); 0 when the
	// histogram has no sum or one the buckets cannot hold.
	Mean float64
	// Occupied is the number of buckets that hold observations, and
	// SpreadUnresolved whether it is under 3 (MinOccupied): the counts
	// then cannot tell how widely latencies spread, so the fitted σ and
	// the percentiles are artefacts of the fit, not of the data (Warnings
	// says so, naming the buckets); a caller should not take the fit as a
	// model of the latency, but ask for finer buckets around the observed
	// latencies.
	Occupied         int
	SpreadUnresolved bool
}

// MinOccupied is the least number of buckets holding observations from
// which a histogram's fit can tell the spread (HistogramFit.Occupied).
const MinOccupied = 3

// BinnedPercentile is a percentile of the chosen model and the bucket
// (Lo, Hi] of the histogram that holds the observed percentile.
type BinnedPercentile struct {
	P      float64
	Model  float64
	Lo, Hi float64
	// Inside says whether the model's value lies in (Lo, Hi].
	Inside bool
}

// Best returns the chosen candidate.
func (h *HistogramFit) Best() *BinnedCandidate { return &h.Candidates[h.Chosen] }

// coarseRatio is the widest bucket, as upper/lower bound, that resolves a
// percentile: a wider one places it only within a larger factor.
const coarseRatio = 1.5

// FitHistogram fits a lognormal and, when the buckets allow (more buckets
// than parameters + 1), 2- and 3-component lognormal mixtures to the
// histogram h by maximum likelihood on the interval-censored counts, and
// checks each against the counts (chi-square, max CDF gap). opt.Model
// "empirical" is not available for a histogram.
func FitHistogram(h *readers.Histogram, opt Options) (*HistogramFit, error) {
	return FitHistogramContext(context.Background(), h, opt)
}

// FitHistogramContext is FitHistogram that stops when ctx is done,
// returning ctx's error: it is checked in every EM iteration.
func FitHistogramContext(ctx context.Context, h *readers.Histogram, opt Options) (*HistogramFit, error) {
	opt, err := opt.check()
	if err != nil {
		return nil, err
	}
	if opt.Model == ModelEmpirical {
		return nil, errors.New("a histogram has no individual latencies: the empirical model is not available; use auto, lognormal, mixture-2 or mixture-3")
	}
	b := newBins(h)
	if b.n <= 0 {
		return nil, errors.New("the histogram is empty")
	}
	if err := AllAboveTop(h); err != nil && !opt.OpenTop {
		return nil, err
	}
	out := &HistogramFit{Hist: h, N: b.n}
	var sumWarning string
	out.Mean, sumWarning = b.meanFrom(h.Sum, h.HasSum)
	var free []LogNormalMixture // each candidate without the mean constraint
	ks := []int{1}
	for k := 2; k <= opt.MaxComponents; k++ {
		ks = append(ks, k)
	}
	// The models to try, each fitted on a goroutine of its own (the fits
	// are independent, and each is the same wherever it runs).
	type tried struct {
		name       string
		k          int
		free, held LogNormalMixture
		err        error
	}
	var try []*tried
	for _, k := range ks {
		name := ModelLogNormal
		if k > 1 {
			name = fmt.Sprintf("mixture-%d", k)
		}
		forced := opt.Model == name
		if !forced && opt.Model != ModelAuto {
			continue
		}
		p := 3*k - 1
		if len(b.counts)-1-p < 1 && k > 1 {
			out.Notes = append(out.Notes, fmt.Sprintf("%s not tried: its %d parameters need at least %d buckets (one degree of freedom left for the chi-square test); the histogram has %d", name, p, p+2, len(b.counts)))
			if forced {
				return nil, fmt.Errorf("%s needs at least %d buckets; the histogram has %d", name, p+2, len(b.counts))
			}
			continue
		}
		try = append(try, &tried{name: name, k: k})
	}
	var wg sync.WaitGroup
	for _, t := range try {
		wg.Go(func() {
			if t.k == 1 {
				t.free = b.fitLogNormal()
			} else if t.free, t.err = b.fitMixtureEM(ctx, t.k); t.err != nil {
				return
			}
			t.held = t.free
			if out.Mean > 0 {
				t.held = b.fitWithMean(t.free, out.Mean)
			}
		})
	}
	wg.Wait()
	for _, t := range try {
		if t.err != nil {
			return nil, t.err
		}
		free = append(free, t.free)
		out.Candidates = append(out.Candidates, b.assess(t.name, t.held))
	}
	if len(out.Candidates) == 0 {
		return nil, errors.New("no model could be fitted")
	}
	var chooseWarning string
	out.Chosen, chooseWarning = b.choose(out, opt.Model)
	out.Percentiles, out.Warnings = b.percentiles(out.Best().Dist)
	if chooseWarning != "" {
		out.Warnings = append(out.Warnings, chooseWarning)
	}
	if w := b.occupiedWarning(out.Best()); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	for _, n := range b.counts {
		if n > 0 {
			out.Occupied++
		}
	}
	out.SpreadUnresolved = out.Occupied < MinOccupied
	if sumWarning != "" {
		out.Warnings = append(out.Warnings, sumWarning)
	}
	if c := out.Best(); out.Mean > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("every model is fitted with the observed mean, sum ÷ count = %s s", fmtNum(out.Mean)))
		if lr := 2 * (b.logLik(free[out.Chosen]) - c.LogLik); lr > lrCritical {
			out.Warnings = append(out.Warnings, fmt.Sprintf("the observed mean (sum ÷ count, %s s) costs the fit: the buckets alone fit a %s with mean %s s, and holding the mean lowers the log-likelihood by %.1f (2Δℓ = %.1f > %.2f, the χ²₁ 0.999 quantile): the sum and the buckets disagree — far outliers in the last bucket, or another window; the model honours the mean, so its body may sit off the counts",
				fmtNum(out.Mean), c.Name, fmtNum(free[out.Chosen].Mean()), lr/2, lr, lrCritical))
		}
	}
	out.Warnings = append(out.Warnings, h.Warnings...)
	if !h.Whole {
		out.Warnings = append(out.Warnings, NotWholeWarning)
	}
	if b.n < 100 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("only %g observations: every fitted percentile is rough", b.n))
	}
	return out, nil
}

// NotWholeWarning is the warning about a histogram whose counts are not
// whole numbers (readers.Histogram.Whole false): a rate, most likely,
// whose counts do not tell how many observations there were.
const NotWholeWarning = "the counts are not whole numbers (a rate, not a count?): the chi-square test and BIC assume counts of observations; query increase() over a window instead of rate()"

// choose returns the index of the candidate to pick: the one named model,
// or under ModelAuto the lowest BIC among those that are sound — a
// chi-square test with a degree of freedom left that does not reject it
// (PValue ≥ rejectLevel), and no component the buckets cannot see
// (b.spike) — falling back to the lowest BIC among those with no such
// component, then among all. A candidate the counts reject is no sounder
// than one they cannot test, so it is not preferred to one of lower BIC
// for being testable. It adds to out's notes each candidate passed over
// for a lower BIC, and returns a warning of what is unsound in the pick
// ("" when nothing is).
func (b *bins) choose(out *HistogramFit, model string) (int, string) {
	spikes := make([]string, len(out.Candidates))
	for i := range out.Candidates {
		spikes[i] = b.spike(out.Candidates[i].Mixture)
	}
	chosen := -1
	if model != ModelAuto {
		chosen = slices.IndexFunc(out.Candidates, func(c BinnedCandidate) bool { return c.Name == model })
	}
	if chosen < 0 {
		lowest := func(ok func(i int) bool) int {
			best := -1
			for i, c := range out.Candidates {
				if ok(i) && (best < 0 || c.BIC < out.Candidates[best].BIC) {
					best = i
				}
			}
			return best
		}
		if chosen = lowest(func(i int) bool {
			c := &out.Candidates[i]
			return spikes[i] == "" && c.DF >= 1 && c.PValue >= rejectLevel
		}); chosen < 0 {
			if chosen = lowest(func(i int) bool { return spikes[i] == "" }); chosen < 0 {
				chosen = lowest(func(int) bool { return true })
			}
		}
		for i, c := range out.Candidates {
			if i == chosen || c.BIC >= out.Candidates[chosen].BIC {
				continue
			}
			why := spikes[i]
			switch {
			case why != "":
			case c.DF >= 1:
				why = fmt.Sprintf("the counts reject it (chi-square p = %.3g < %g)", c.PValue, rejectLevel)
			default:
				why = untestable
			}
			out.Notes = append(out.Notes, fmt.Sprintf("%s, of lower BIC, passed over: %s", c.Name, why))
		}
	}
	if c := &out.Candidates[chosen]; spikes[chosen] != "" {
		return chosen, fmt.Sprintf("the chosen %s is not sound: %s", c.Name, spikes[chosen])
	} else if c.DF < 1 {
		return chosen, fmt.Sprintf("the chosen %s is not tested: %s", c.Name, untestable)
	} else if c.PValue < rejectLevel {
		return chosen, fmt.Sprintf("the chosen %s is rejected by the counts (chi-square %.1f on %d df, p = %.3g < %g): its shape does not reproduce the buckets, and its percentiles may lie off the data's", c.Name, c.ChiSquare, c.DF, c.PValue, rejectLevel)
	}
	return chosen, ""
}

// rejectLevel is the chi-square p-value below which the counts reject a
// candidate's shape (the level the fit's table names).
const rejectLevel = 0.05

// untestable says why a candidate's chi-square test has no p-value.
const untestable = "the buckets, pooled to 5 expected observations each, leave its chi-square test no degree of freedom, so the counts cannot reject it"

// spike says, for a mixture of two or more components, which component
// the buckets cannot see: one whose sigma is at the fitter's floor, or
// whose bulk (its median ± 3.29 sigma, 99.9 % of its mass) spans less
// than a tenth of the bucket holding its median (on a log scale). Its
// spread is then anything the buckets allow, and the fit may squeeze it
// into a spike at a bucket's edge (as a mean held to a _sum the buckets
// disagree with does). "" when there is none.
func (b *bins) spike(m LogNormalMixture) string {
	if m.K() < 2 {
		return ""
	}
	const z = 3.2905 // the normal's 0.9995 quantile
	for j := range m.Weights {
		i := sort.Search(len(b.hi), func(i int) bool { return m.Mu[j] <= b.hi[i] })
		if i == len(b.hi) {
			i--
		}
		width := b.hi[i] - b.lo[i]
		if m.Sigma[j] <= 2*minSigma || !math.IsInf(width, 0) && 2*z*m.Sigma[j] < width/10 {
			return fmt.Sprintf("its component at median %s s (weight %.3g, sigma %.3g) is narrower than a tenth of the bucket (%s, %s] s that holds it, which cannot tell its spread: a spike the counts do not show",
				fmtNum(math.Exp(m.Mu[j])), m.Weights[j], m.Sigma[j], fmtNum(math.Exp(b.lo[i])), fmtNum(math.Exp(b.hi[i])))
		}
	}
	return ""
}

// bins is a histogram ready for the likelihood: log bounds (−Inf for 0,
// +Inf for the open last bucket) and counts, empty buckets included.
type bins struct {
	lo, hi []float64 // ln of the bounds
	counts []float64
	n      float64
}

func newBins(h *readers.Histogram) *bins {
	b := &bins{}
	for i := range h.Counts {
		b.lo = append(b.lo, math.Log(h.Lower[i]))
		b.hi = append(b.hi, math.Log(h.Upper[i]))
		b.counts = append(b.counts, h.Counts[i])
		b.n += h.Counts[i]
	}
	return b
}

// massLN is the probability a lognormal(mu, sigma) puts in (e^lo, e^hi],
// computed from the tail nearer the bucket so that far buckets keep their
// relative precision.
func massLN(lo, hi, mu, sigma float64) float64 {
	a, z := (lo-mu)/sigma, (hi-mu)/sigma
	n := distuv.UnitNormal
	if a > 0 {
		return n.Survival(a) - n.Survival(z)
	}
	return n.CDF(z) - n.CDF(a)
}

// minMass keeps ln P finite when a model puts (almost) nothing in a bucket
// that has counts.
const minMass = 1e-300

// logLik returns ℓ of the mixture m.
func (b *bins) logLik(m LogNormalMixture) float64 {
	var buf [maxStackBins]float64
	mass := b.scratch(&buf, len(m.Weights))
	for j := range m.Weights {
		b.massesLN(m.Mu[j], m.Sigma[j], mass[j*len(b.lo):(j+1)*len(b.lo)])
	}
	ll := 0.0
	for i, c := range b.counts {
		if c == 0 {
			continue
		}
		p := 0.0
		for j := range m.Weights {
			p += m.Weights[j] * mass[j*len(b.lo)+i]
		}
		ll += c * math.Log(math.Max(p, minMass))
	}
	return ll
}

// weightedLN returns −Σᵢ wᵢ ln P_i(μ, σ) for the weights w per bucket.
func (b *bins) weightedNegLL(w []float64, mu, sigma float64) float64 {
	var buf [maxStackBins]float64
	mass := b.scratch(&buf, 1)
	b.massesLN(mu, sigma, mass)
	s := 0.0
	for i, c := range w {
		if c == 0 {
			continue
		}
		s -= c * math.Log(math.Max(mass[i], minMass))
	}
	return s
}

// maxStackBins is how many bucket masses the likelihoods keep on the
// stack before they allocate.
const maxStackBins = 64

// scratch returns room for k masses per bucket: buf's when it holds them.
func (b *bins) scratch(buf *[maxStackBins]float64, k int) []float64 {
	if n := k * len(b.lo); n <= len(buf) {
		return buf[:n]
	}
	return make([]float64, k*len(b.lo))
}

// massesLN sets out[i] to massLN(b.lo[i], b.hi[i], mu, sigma) for every
// bucket, each bound that two adjacent buckets share (b.lo[i] ==
// b.hi[i−1]) evaluated once when both take the same tail of it: the same
// normal CDF or survival of the same argument, so out is bit for bit what
// massLN gives, for about half the calls to erf.
func (b *bins) massesLN(mu, sigma float64, out []float64) {
	n := distuv.UnitNormal
	// prev is the last bucket's upper bound's tail (survival when
	// prevSurv, else CDF); have says whether there is one.
	var prev float64
	prevSurv, have := false, false
	for i := range b.lo {
		a, z := (b.lo[i]-mu)/sigma, (b.hi[i]-mu)/sigma
		shared := have && i > 0 && b.lo[i] == b.hi[i-1]
		if a > 0 {
			sa := prev
			if !shared || !prevSurv {
				sa = n.Survival(a)
			}
			sz := n.Survival(z)
			out[i] = sa - sz
			prev, prevSurv = sz, true
		} else {
			ca := prev
			if !shared || prevSurv {
				ca = n.CDF(a)
			}
			cz := n.CDF(z)
			out[i] = cz - ca
			prev, prevSurv = cz, false
		}
		have = true
	}
}

// Bounds on σ keep the optimiser away from degenerate fits (a component
// collapsing into one bucket).
const (
	minSigma = 1e-3
	maxSigma = 20
)

// fitCensoredLN maximises Σᵢ wᵢ ln Pᵢ over a lognormal's μ and σ from the
// start (mu0, sigma0), by Nelder–Mead on (μ, ln σ).
func (b *bins) fitCensoredLN(w []float64, mu0, sigma0 float64) (float64, float64) {
	f := func(x []float64) float64 {
		s := math.Exp(x[1])
		if !(s >= minSigma && s <= maxSigma) || math.IsNaN(x[0]) {
			return math.Inf(1)
		}
		return b.weightedNegLL(w, x[0], s)
	}
	sigma0 = math.Min(math.Max(sigma0, 2*minSigma), maxSigma/2)
	res, err := optimize.Minimize(optimize.Problem{Func: f}, []float64{mu0, math.Log(sigma0)},
		&optimize.Settings{Converger: &optimize.FunctionConverge{Absolute: 1e-9, Relative: 1e-10, Iterations: 20}, MajorIterations: 500},
		&optimize.NelderMead{})
	if err != nil && res == nil {
		return mu0, sigma0
	}
	if res.F > f([]float64{mu0, math.Log(sigma0)}) {
		return mu0, sigma0
	}
	return res.X[0], math.Exp(res.X[1])
}

// mid returns a representative log-latency of bucket i for starting
// values: the middle of its log bounds, or one bucket width beyond the
// finite bound for the open first and last buckets.
func (b *bins) mid(i int) float64 {
	lo, hi := b.lo[i], b.hi[i]
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return 0
	case math.IsInf(lo, -1):
		return hi - math.Ln2
	case math.IsInf(hi, 1):
		return lo + math.Ln2
	}
	return (lo + hi) / 2
}

// startLN returns starting values from the bucket midpoints' weighted mean
// and standard deviation in log space.
func (b *bins) startLN(w []float64) (float64, float64) {
	var sw, m, m2 float64
	for i, c := range w {
		x := b.mid(i)
		sw += c
		m += c * x
		m2 += c * x * x
	}
	if sw == 0 {
		return 0, 1
	}
	m /= sw
	v := m2/sw - m*m
	return m, math.Sqrt(math.Max(v, 0.01))
}

func (b *bins) fitLogNormal() LogNormalMixture {
	mu0, s0 := b.startLN(b.counts)
	mu, s := b.fitCensoredLN(b.counts, mu0, s0)
	return LogNormalMixture{Weights: []float64{1}, Mu: []float64{mu}, Sigma: []float64{s}}
}

// emIterations and emTolerance bound the EM loop: it stops when ℓ gains
// less than emTolerance·|ℓ| in an iteration.
const (
	emIterations = 300
	emTolerance  = 1e-9
)

// fitMixtureEM fits a k-component mixture by EM over the bins from two
// deterministic starts (components at the count-weighted quantiles
// (j+½)/k of the bucket midpoints; and the lognormal fit split at ±σ),
// keeping the one with the higher ℓ.
func (b *bins) fitMixtureEM(ctx context.Context, k int) (LogNormalMixture, error) {
	ln := b.fitLogNormal()
	var starts []LogNormalMixture
	// Start 1: quantiles of the binned data.
	s1 := LogNormalMixture{}
	cum := 0.0
	j := 0
	for i, c := range b.counts {
		cum += c
		for j < k && cum >= (float64(j)+0.5)/float64(k)*b.n {
			s1.Mu = append(s1.Mu, b.mid(i))
			j++
		}
	}
	for len(s1.Mu) < k {
		s1.Mu = append(s1.Mu, b.mid(len(b.counts)-1))
	}
	for range k {
		s1.Weights = append(s1.Weights, 1/float64(k))
		s1.Sigma = append(s1.Sigma, math.Max(ln.Sigma[0]/float64(k), 0.1))
	}
	starts = append(starts, s1)
	// Start 2: the lognormal spread over ±σ.
	s2 := LogNormalMixture{}
	for j := range k {
		off := -1 + 2*float64(j)/float64(k-1)
		s2.Weights = append(s2.Weights, 1/float64(k))
		s2.Mu = append(s2.Mu, ln.Mu[0]+off*ln.Sigma[0])
		s2.Sigma = append(s2.Sigma, math.Max(ln.Sigma[0]/2, 0.05))
	}
	starts = append(starts, s2)
	best, bestLL := LogNormalMixture{}, math.Inf(-1)
	for _, m := range starts {
		m, err := b.em(ctx, m)
		if err != nil {
			return LogNormalMixture{}, err
		}
		if ll := b.logLik(m); ll > bestLL {
			best, bestLL = m, ll
		}
	}
	sortComponents(&best)
	return best, nil
}

// em runs EM from m; it stops with ctx's error when ctx is done.
func (b *bins) em(ctx context.Context, m LogNormalMixture) (LogNormalMixture, error) {
	k := m.K()
	r := make([][]float64, k) // r[j][i]: expected count of bucket i from component j
	for j := range r {
		r[j] = make([]float64, len(b.counts))
	}
	prev := b.logLik(m)
	for range emIterations {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		// E-step.
		for j := range k {
			b.massesLN(m.Mu[j], m.Sigma[j], r[j])
		}
		for i, c := range b.counts {
			tot := 0.0
			for j := range k {
				r[j][i] = m.Weights[j] * r[j][i]
				tot += r[j][i]
			}
			for j := range k {
				if tot > 0 {
					r[j][i] = c * r[j][i] / tot
				} else {
					r[j][i] = c / float64(k)
				}
			}
		}
		// M-step.
		next := LogNormalMixture{Weights: make([]float64, k), Mu: make([]float64, k), Sigma: make([]float64, k)}
		for j := range k {
			nj := 0.0
			for _, x := range r[j] {
				nj += x
			}
			next.Weights[j] = nj / b.n
			if nj < 1e-9*b.n {
				next.Mu[j], next.Sigma[j] = m.Mu[j], m.Sigma[j]
				continue
			}
			next.Mu[j], next.Sigma[j] = b.fitCensoredLN(r[j], m.Mu[j], m.Sigma[j])
		}
		ll := b.logLik(next)
		if ll < prev-1e-9*math.Abs(prev) {
			break // numerical M-step fell short: keep the better mixture
		}
		m = next
		if ll-prev <= emTolerance*math.Abs(prev) {
			break
		}
		prev = ll
	}
	return m, nil
}

// sortComponents orders components by Mu (fastest mode first).
func sortComponents(m *LogNormalMixture) {
	idx := make([]int, m.K())
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return m.Mu[idx[a]] < m.Mu[idx[b]] })
	w, mu, s := make([]float64, m.K()), make([]float64, m.K()), make([]float64, m.K())
	for i, j := range idx {
		w[i], mu[i], s[i] = m.Weights[j], m.Mu[j], m.Sigma[j]
	}
	m.Weights, m.Mu, m.Sigma = w, mu, s
}

// assess computes the goodness of fit of m to the bins.
func (b *bins) assess(name string, m LogNormalMixture) BinnedCandidate {
	c := BinnedCandidate{Name: name, Mixture: m, Dist: m.Dist(), Params: m.Params()}
	c.LogLik = b.logLik(m)
	c.BIC = BIC(c.LogLik, c.Params, int(math.Round(b.n)))
	var cumO, cumE float64
	for i, o := range b.counts {
		p := 0.0
		for j := range m.Weights {
			p += m.Weights[j] * massLN(b.lo[i], b.hi[i], m.Mu[j], m.Sigma[j])
		}
		e := b.n * p
		c.Expected = append(c.Expected, e)
		cumO += o
		cumE += e
		if !math.IsInf(b.hi[i], 1) {
			c.MaxCDFGap = math.Max(c.MaxCDFGap, math.Abs(cumO-cumE)/b.n)
		}
	}
	c.ChiSquare, c.DF = PooledChiSquare(b.counts, c.Expected, c.Params)
	c.DF = max(c.DF, 0)
	c.PValue = math.NaN()
	if c.DF >= 1 {
		c.PValue = distuv.ChiSquared{K: float64(c.DF)}.Survival(c.ChiSquare)
	}
	return c
}

// minExpected is the expected count each pooled cell needs for the
// chi-square approximation (the usual rule of thumb).
const minExpected = 5

// PooledChiSquare returns Pearson's X² of observed counts o against
// expected counts e (same length), pooling adjacent cells from the left
// until each expects ≥ 5 (a short last cell joins the one before), and its
// degrees of freedom, cells − 1 − params. X² is +Inf when a pooled cell
// has counts where e puts nothing.
func PooledChiSquare(o, e []float64, params int) (float64, int) {
	var po, pe []float64
	var ao, ae float64
	for i := range o {
		ao += o[i]
		ae += e[i]
		if ae >= minExpected {
			po, pe = append(po, ao), append(pe, ae)
			ao, ae = 0, 0
		}
	}
	if ae > 0 || ao > 0 {
		if len(pe) == 0 {
			po, pe = append(po, ao), append(pe, ae)
		} else {
			po[len(po)-1] += ao
			pe[len(pe)-1] += ae
		}
	}
	x2 := 0.0
	for i := range po {
		switch {
		case pe[i] > 0:
			x2 += (po[i] - pe[i]) * (po[i] - pe[i]) / pe[i]
		case po[i] > 0:
			x2 = math.Inf(1) // counts where the model puts nothing
		}
	}
	return x2, len(po) - 1 - params
}

// percentiles places p50/p90/p95/p99 of d against the buckets and warns
// when the buckets cannot resolve p95 or p99.
func (b *bins) percentiles(d dist.Continuous) ([]BinnedPercentile, []string) {
	var out []BinnedPercentile
	var warn []string
	for _, p := range []float64{0.5, 0.9, 0.95, 0.99} {
		cum := 0.0
		i := 0
		for ; i < len(b.counts); i++ {
			cum += b.counts[i]
			if cum >= p*b.n {
				break
			}
		}
		i = min(i, len(b.counts)-1)
		lo, hi := math.Exp(b.lo[i]), math.Exp(b.hi[i])
		q := d.Quantile(p)
		out = append(out, BinnedPercentile{P: p, Model: q, Lo: lo, Hi: hi, Inside: q > lo && q <= hi})
		if p < 0.95 {
			continue
		}
		name := pName(p)
		inside := q > lo && q <= hi
		// Where the model's percentile is, against the bucket.
		model := fmt.Sprintf("the model's %s (%s s) lies in it, placed there by the model's shape, not by the data", name, fmtNum(q))
		if !inside {
			model = fmt.Sprintf("the model's %s (%s s) lies outside it: the fit does not reproduce the data's %s", name, fmtNum(q), name)
		}
		switch {
		case math.IsInf(hi, 1):
			warn = append(warn, fmt.Sprintf("the observed %s lies above the last finite bucket bound (%s s): the histogram only says it is larger; the model's %s (%s s) comes from its tail shape alone", name, fmtNum(lo), name, fmtNum(q)))
		case lo == 0:
			warn = append(warn, fmt.Sprintf("the buckets are too coarse to resolve %s: the data place it only in the first bucket, (0, %s] s; %s", name, fmtNum(hi), model))
		case hi/lo > coarseRatio:
			warn = append(warn, fmt.Sprintf("the buckets are too coarse to resolve %s: the data place it only in (%s, %s] s, a factor of %.3g wide; %s", name, fmtNum(lo), fmtNum(hi), hi/lo, model))
		case !inside:
			warn = append(warn, fmt.Sprintf("the data place %s in (%s, %s] s; %s", name, fmtNum(lo), fmtNum(hi), model))
		}
	}
	return out, warn
}
