package fit

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/optimize"
)

// The mean constraint. A Prometheus histogram's _sum (OTLP's sum) over its
// _count is the mean latency m of every observation, the +Inf bucket's
// included, which the buckets alone only bound. When it is known and the
// buckets allow it, each model is fitted by maximising the censored ℓ
// under E[X] = m: for a lognormal μ = ln m − σ²/2, leaving σ free; for a
// mixture Σⱼ wⱼ·e^(μⱼ + σⱼ²/2) = m, met by shifting every μⱼ by one δ.
// The maximiser is Nelder–Mead on the 3K − 2 free values (K − 1 weight
// logits, the K − 1 offsets μⱼ − μ₁ and the K ln σⱼ), started from the
// unconstrained fit. A constraint that costs the fit much likelihood —
// 2·(ℓ free − ℓ constrained) above the χ²₁ quantile 0.999, 10.83 — says
// the sum and the buckets disagree (another window, or far outliers in
// the +Inf bucket), and the fit warns.

// lrCritical is the χ²₁ quantile 0.999: a likelihood-ratio statistic above
// it rejects the mean constraint.
const lrCritical = 10.828

// Mean returns the mixture's mean, Σⱼ wⱼ·e^(μⱼ + σⱼ²/2), in seconds.
func (m LogNormalMixture) Mean() float64 {
	s := 0.0
	for j := range m.Weights {
		s += m.Weights[j] * math.Exp(m.Mu[j]+m.Sigma[j]*m.Sigma[j]/2)
	}
	return s
}

// meanBounds returns the least and the greatest mean the buckets allow:
// every observation at its bucket's lower, or upper, bound (+Inf when the
// open last bucket holds any).
func (b *bins) meanBounds() (lo, hi float64) {
	for i, c := range b.counts {
		if c == 0 {
			continue
		}
		lo += c * math.Exp(b.lo[i])
		hi += c * math.Exp(b.hi[i])
	}
	return lo / b.n, hi / b.n
}

// withMean returns m with every μⱼ shifted by one δ so that its mean is
// mean.
func withMean(m LogNormalMixture, mean float64) LogNormalMixture {
	d := math.Log(mean) - math.Log(m.Mean())
	out := LogNormalMixture{Weights: append([]float64(nil), m.Weights...), Mu: make([]float64, m.K()), Sigma: append([]float64(nil), m.Sigma...)}
	for j := range m.Mu {
		out.Mu[j] = m.Mu[j] + d
	}
	return out
}

// fitWithMean maximises ℓ over the mixtures of m's size whose mean is
// mean, from m.
func (b *bins) fitWithMean(m LogNormalMixture, mean float64) LogNormalMixture {
	k := m.K()
	decode := func(x []float64) (LogNormalMixture, bool) {
		out := LogNormalMixture{Weights: make([]float64, k), Mu: make([]float64, k), Sigma: make([]float64, k)}
		tot := 1.0
		out.Weights[0] = 1
		for j := 1; j < k; j++ {
			out.Weights[j] = math.Exp(x[j-1])
			tot += out.Weights[j]
		}
		for j := range k {
			out.Weights[j] /= tot
			if j > 0 {
				out.Mu[j] = x[k-1+j-1]
			}
			out.Sigma[j] = math.Exp(x[2*(k-1)+j])
			if !(out.Sigma[j] >= minSigma && out.Sigma[j] <= maxSigma) || !(out.Weights[j] > 0) {
				return out, false
			}
		}
		out = withMean(out, mean)
		for j := range k {
			if math.IsNaN(out.Mu[j]) || math.IsInf(out.Mu[j], 0) {
				return out, false
			}
		}
		return out, true
	}
	x0 := make([]float64, 3*k-2)
	for j := 1; j < k; j++ {
		x0[j-1] = math.Log(math.Max(m.Weights[j], 1e-6) / math.Max(m.Weights[0], 1e-6))
		x0[k-1+j-1] = m.Mu[j] - m.Mu[0]
	}
	for j := range k {
		x0[2*(k-1)+j] = math.Log(math.Min(math.Max(m.Sigma[j], 2*minSigma), maxSigma/2))
	}
	f := func(x []float64) float64 {
		mm, ok := decode(x)
		if !ok {
			return math.Inf(1)
		}
		return -b.logLik(mm)
	}
	start, _ := decode(x0)
	res, err := optimize.Minimize(optimize.Problem{Func: f}, x0,
		&optimize.Settings{Converger: &optimize.FunctionConverge{Absolute: 1e-9, Relative: 1e-10, Iterations: 50}, MajorIterations: 2000 * k},
		&optimize.NelderMead{})
	if (err != nil && res == nil) || !(res.F <= f(x0)) {
		return start
	}
	out, _ := decode(res.X)
	if k > 1 {
		sortComponents(&out)
	}
	return out
}

// meanFrom returns the observed mean h.Sum/N when the histogram gives a
// sum the buckets allow (0 otherwise), and the warning when they do not.
func (b *bins) meanFrom(sum float64, has bool) (float64, string) {
	if !has {
		return 0, ""
	}
	m := sum / b.n
	lo, hi := b.meanBounds()
	if !(m > 0) || m < lo*(1-1e-9) || m > hi*(1+1e-9) {
		return 0, fmt.Sprintf("the mean from the sum and count (%s s) lies outside what the buckets allow (%s to %s s, every observation at its bucket's lower or upper bound): the sum and the buckets do not describe the same observations (another window or series?); the sum is ignored", fmtNum(m), fmtNum(lo), fmtNum(hi))
	}
	return m, ""
}

// occupiedWarning warns when fewer than MinOccupied buckets hold
// observations (HistogramFit.SpreadUnresolved): the
// counts then cannot tell the spread, and the fitted σ (which collapses
// toward its floor when one bucket holds all) is an artefact.
func (b *bins) occupiedWarning(c *BinnedCandidate) string {
	var held []string
	for i, n := range b.counts {
		if n > 0 {
			held = append(held, fmt.Sprintf("(%s, %s] s", fmtNum(math.Exp(b.lo[i])), fmtNum(math.Exp(b.hi[i]))))
		}
	}
	if len(held) >= MinOccupied {
		return ""
	}
	return fmt.Sprintf("only %d of %d buckets hold observations (%s): the buckets cannot tell how widely latencies spread, so the fitted σ (%s) and the percentiles are artefacts of the fit, not of the data; export finer buckets around the observed latencies", len(held), len(b.counts), strings.Join(held, ", "), fmtSigmas(c.Mixture.Sigma))
}

func fmtSigmas(s []float64) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%.3g", x)
	}
	return out
}
