package fit

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/dist"
)

// CheckedQuantiles are the percentiles every fit is checked at.
var CheckedQuantiles = []float64{0.50, 0.90, 0.95, 0.99}

// Level is the confidence level of the order-statistic intervals.
const Level = 0.95

// QuantileRanks returns the 1-based ranks (l, u) of the distribution-free
// confidence interval [X₍ₗ₎, X₍ᵤ₎] for the p-quantile ξₚ of a continuous
// distribution from n sorted observations, at the given level. The number
// B of observations below ξₚ is Binomial(n, p), and
//
//	P(X₍ₗ₎ ≤ ξₚ ≤ X₍ᵤ₎) = P(l ≤ B ≤ u − 1),
//
// so l is the largest rank with P(B ≤ l − 1) ≤ (1 − level)/2 and u the
// smallest with P(B ≤ u − 1) ≥ (1 + level)/2, each tail holding at most
// (1 − level)/2 (exact binomial, gonum distuv.Binomial; Hahn & Meeker,
// Statistical Intervals, §5.2). l = 0 means no lower bound and u = n + 1 no
// upper bound within the sample: too few observations for that level.
func QuantileRanks(n int, p, level float64) (l, u int) {
	if n < 1 {
		return 0, 1
	}
	b := distuv.Binomial{N: float64(n), P: p}
	a := (1 - level) / 2
	// cdf(k) = P(B ≤ k) is non-decreasing in k; search the rank space.
	l = sort.Search(n+1, func(r int) bool { return b.CDF(float64(r)) > a }) // first r with P(B ≤ r) > a
	// P(B ≤ l−1) ≤ a: rank l is the lower end.
	u = sort.Search(n+1, func(r int) bool { return b.CDF(float64(r)) >= 1-a }) + 1
	return l, u
}

// QuantileCheck compares one percentile of a model with the observations.
type QuantileCheck struct {
	// P is the probability (0.95 for p95).
	P float64
	// Observed is the nearest-rank sample quantile (gonum stat.Empirical,
	// R type 1).
	Observed float64
	// Lo and Hi bound the order-statistic confidence interval at Level for
	// the true quantile (QuantileRanks); an end the sample cannot bound is
	// ±Inf.
	Lo float64
	Hi float64
	// Model is the model's quantile (exact, or from simulated draws).
	Model float64
	// ModelLo and ModelHi bound the model's quantile when it comes from
	// simulated draws: their own order-statistic interval at Level (±Inf
	// where the draws cannot bound it). For an exact model both are Model.
	ModelLo, ModelHi float64
	// Inside reports that the model's quantile is consistent with the
	// observations: Lo ≤ Model ≤ Hi for an exact model; for simulated
	// draws, that the two intervals [Lo, Hi] and [ModelLo, ModelHi]
	// overlap (as benchstat and hedgesim compare judge two samples).
	Inside bool
}

// Bounded reports whether the sample bounds the quantile on both sides.
func (q QuantileCheck) Bounded() bool { return !math.IsInf(q.Lo, 0) && !math.IsInf(q.Hi, 0) }

// Name returns "p50", "p99", "p99.9".
func (q QuantileCheck) Name() string { return pName(q.P) }

func pName(p float64) string { return fmt.Sprintf("p%g", 100*p) }

// observedQuantile returns the quantile check of sorted observations x for
// probability p, without the model part.
func observedQuantile(x []float64, p float64) QuantileCheck {
	n := len(x)
	q := QuantileCheck{P: p, Observed: stat.Quantile(p, stat.Empirical, x, nil), Lo: math.Inf(-1), Hi: math.Inf(1)}
	l, u := QuantileRanks(n, p, Level)
	if l >= 1 {
		q.Lo = x[l-1]
	}
	if u <= n {
		q.Hi = x[u-1]
	}
	return q
}

// Goodness says how well a model matches observations.
type Goodness struct {
	// N is the number of observations.
	N int
	// KS is the Kolmogorov–Smirnov distance sup |Fₙ(x) − F(x)| between the
	// sample and the model, computed by gonum's two-sample
	// stat.KolmogorovSmirnov against a deterministic M-point sample of the
	// model (its (i − ½)/M quantiles, M = 4000), which is within 1/(2M) of
	// the exact one-sample distance; or against simulated draws.
	KS float64
	// KSCritical is 1.358/√n, the asymptotic 5 % critical value of the
	// one-sample KS test. The model's parameters were fitted to the same
	// sample, so the test is conservative (Lilliefors 1967): a distance
	// above it is strong evidence of a poor fit. For a model known by M
	// simulated draws it is the two-sample value 1.358·√((n + M)/(n·M)):
	// the draws' own noise counts too.
	KSCritical float64
	// M is the number of simulated draws the model is known by (0 for a
	// model known exactly).
	M int
	// Quantiles compares the model with the sample at CheckedQuantiles.
	Quantiles []QuantileCheck
	// Poor is set when a model percentile up to p95 falls outside its
	// interval, a bounded p99 does, or KS exceeds KSCritical; Reasons
	// say which, in words.
	Poor    bool
	Reasons []string
}

// gridSize is M, the number of model quantiles KS compares against.
const gridSize = 4000

// modelGrid returns the (i − ½)/M quantiles of d, i = 1…M, ascending. A
// numerically inverted quantile can dip by an ulp at extreme scales (found
// by FuzzFitValues: a mixture of components 1e-12 wide at 1e-238 s), and
// gonum's KS statistic panics on unsorted input, so the grid is made
// non-decreasing with a running maximum.
func modelGrid(d dist.Continuous) []float64 {
	g := make([]float64, gridSize)
	for i := range g {
		g[i] = d.Quantile((float64(i) + 0.5) / gridSize)
		if i > 0 && g[i] < g[i-1] {
			g[i] = g[i-1]
		}
	}
	return g
}

// Assess compares the fitted distribution d with the sorted observations
// x: its quantiles at CheckedQuantiles against the order-statistic
// intervals, and the KS distance.
func Assess(x []float64, d dist.Continuous) Goodness {
	return assess(x, d.Quantile, modelGrid(d), 0)
}

// AssessSample is Assess for a model known only by simulated draws: sim
// is a sorted sample of the model, and the model's quantiles are sim's
// nearest-rank quantiles. Both samples are noisy, and the verdict allows
// for both sizes: a percentile passes when its observed interval and the
// draws' interval overlap, and KS is held to the two-sample critical
// value 1.358·√((n + m)/(n·m)) (m = len(sim)). Judged as if the draws
// were the exact model, a log much larger than the simulation fails
// however right the model is.
func AssessSample(x, sim []float64) Goodness {
	return assess(x, func(p float64) float64 { return stat.Quantile(p, stat.Empirical, sim, nil) }, sim, len(sim))
}

// assess compares sorted x with a model given by its quantile function and
// a sorted sample of it (a grid, or m simulated draws; m = 0: the model is
// exact and the sample a grid of its quantiles).
func assess(x []float64, quantile func(float64) float64, sample []float64, m int) Goodness {
	n := len(x)
	g := Goodness{N: n, M: m, KS: stat.KolmogorovSmirnov(x, nil, sample, nil), KSCritical: 1.358 / math.Sqrt(float64(n))}
	if m > 0 {
		g.KSCritical = 1.358 * math.Sqrt(float64(n+m)/(float64(n)*float64(m)))
	}
	for _, p := range CheckedQuantiles {
		q := observedQuantile(x, p)
		q.Model = quantile(p)
		q.ModelLo, q.ModelHi = q.Model, q.Model
		if m > 0 {
			mq := observedQuantile(sample, p)
			q.ModelLo, q.ModelHi = mq.Lo, mq.Hi
		}
		q.Inside = q.Lo <= q.ModelHi && q.ModelLo <= q.Hi
		g.Quantiles = append(g.Quantiles, q)
		if q.Inside || (p > 0.95 && !q.Bounded()) {
			continue
		}
		g.Poor = true
		side := "above"
		bound := q.Hi
		if q.ModelHi < q.Lo {
			side, bound = "below", q.Lo
		}
		what := "model " + fmtNum(q.Model)
		if m > 0 {
			what = fmt.Sprintf("model %s (%.0f%% interval [%s, %s] from %d draws)", fmtNum(q.Model), 100*Level, fmtNum(q.ModelLo), fmtNum(q.ModelHi), m)
		}
		g.Reasons = append(g.Reasons, fmt.Sprintf("%s: %s is %s the observed %.0f%% interval (%s %s; observed %s)",
			q.Name(), what, side, 100*Level, boundWord(side), fmtNum(bound), fmtNum(q.Observed)))
	}
	if g.KS > g.KSCritical {
		g.Poor = true
		rule := "1.358/√n"
		if m > 0 {
			rule = "the two-sample 1.358·√((n+m)/(n·m))"
		}
		g.Reasons = append(g.Reasons, fmt.Sprintf("KS distance %.3f exceeds %s = %.3f: the shapes differ", g.KS, rule, g.KSCritical))
	}
	return g
}

func boundWord(side string) string {
	if side == "above" {
		return "upper bound"
	}
	return "lower bound"
}

// boundedAt reports whether n observations bound the p-quantile's interval.
func boundedAt(n int, p float64) bool {
	l, u := QuantileRanks(n, p, Level)
	return l >= 1 && u <= n
}

// SampleWarnings returns what n observations are too few for: a percentile in
// CheckedQuantiles whose interval the sample cannot bound, and a p99 that
// rests on fewer than 10 observations above it.
func SampleWarnings(n int) []string {
	var w []string
	for _, p := range CheckedQuantiles {
		if boundedAt(n, p) {
			continue
		}
		need := n + 1
		for !boundedAt(need, p) {
			need++
		}
		w = append(w, fmt.Sprintf("n = %d is too few to bound %s: its %.0f%% interval reaches the sample's extreme (needs n ≥ %d)",
			n, pName(p), 100*Level, need))
	}
	if above := int(math.Floor(0.01 * float64(n))); above < 10 {
		w = append(w, fmt.Sprintf("p99 rests on %d observation(s) above it; treat it as a rough guide", above))
	}
	return w
}

// fmtNum formats a value with 4 significant digits.
func fmtNum(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return fmt.Sprintf("%.4g", v)
}
