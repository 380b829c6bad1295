package retune

import (
	"fmt"
	"math"
	"strings"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/readers"
)

// A shifted model's live fit replaces the scenario's model (Model.Refit)
// only when it is a model of the live latency to re-plan on. With many
// observations a chi-square test rejects every fit whose shape is not
// exactly the latency's (a lognormal mixture of latencies that are
// uniform on their paths, say), and such a fit can still describe the
// counts far better than the scenario's model; with few buckets the fit
// may be tried only as a lognormal, which can describe them worse. So a
// fit is not applied when both hold:
//
//   - its own goodness-of-fit test rejects it at the run's level: the
//     fit's chi-square (fit.BinnedCandidate: buckets pooled to 5
//     expected, df = cells − 1 − parameters) has p < alpha;
//   - the live counts are no less likely under it than under the
//     scenario's model: its censored log-likelihood
//     ℓ = Σᵢ nᵢ · ln(F(Uᵢ) − F(Lᵢ)) over the histogram's buckets (the
//     one the fit maximises) is ≤ the scenario's model's on the same
//     counts.
//
// The drift verdict stands (the model did shift); there is only no model
// of the live latency to re-check or re-pick policies on.

// fitRejected says why the live fit hf of histogram h is not a model of
// the live latency to re-plan on, against the scenario's model scen at
// level alpha (see above), or "" when it is. A fit whose test has no
// degree of freedom is not rejected (its counts cannot reject it).
func fitRejected(h *readers.Histogram, hf *fit.HistogramFit, scen dist.Continuous, alpha float64) string {
	c := hf.Best()
	if c.DF < 1 || !(c.PValue < alpha) {
		return ""
	}
	ls := logLik(h, scen)
	if c.LogLik > ls {
		return ""
	}
	why := fmt.Sprintf("the live fit (%s) is rejected by its own test at the run's level (chi-square %.1f on %d df, p = %s < %g) and explains the live counts no better than the scenario's model (log-likelihood %.1f against the scenario's %.1f), so there is no model of the live latency to re-plan on",
		c.Name, c.ChiSquare, c.DF, pText(c.PValue), alpha, c.LogLik, ls)
	buckets := len(h.Counts)
	var untried, need []string
	for _, n := range hf.Notes {
		name, _, ok := strings.Cut(n, " not tried:")
		var k int
		if _, err := fmt.Sscanf(name, "mixture-%d", &k); ok && err == nil {
			// 3k − 1 parameters, and a degree of freedom left.
			untried, need = append(untried, name), append(need, fmt.Sprint(3*k+1))
		}
	}
	if len(untried) > 0 {
		return why + fmt.Sprintf("; %s not tried on these %d buckets (%s at least %s): give a histogram with more buckets, or model the latency by hand (hedgesim fit shows the buckets and the fit)",
			strings.Join(untried, " and "), buckets, map[bool]string{true: "it needs", false: "they need"}[len(untried) == 1], strings.Join(need, " and "))
	}
	return why + fmt.Sprintf("; no fitted model passes its test on these %d buckets: model the latency by hand (hedgesim fit shows the buckets and every fit)", buckets)
}

// logLik returns the censored log-likelihood of h's counts under d,
// Σᵢ nᵢ · ln(F(Uᵢ) − F(Lᵢ)), buckets without observations left out; −Inf
// when d puts no mass in a bucket that holds some.
func logLik(h *readers.Histogram, d dist.Continuous) float64 {
	l := 0.0
	for i, n := range h.Counts {
		if n <= 0 {
			continue
		}
		p := mass(d, h.Lower[i], h.Upper[i])
		if p <= 0 {
			return math.Inf(-1)
		}
		l += n * math.Log(p)
	}
	return l
}

// openTopRejected says why the live fit of h, whose every observation lies
// in its open last bucket (fit.AllAboveTop), is not a model to re-plan on:
// the counts say only that every latency exceeds the top bound, so any
// fitted location and spread are the fit's starting values, not the data's.
func openTopRejected(h *readers.Histogram) string {
	top := h.Lower[len(h.Lower)-1]
	return fmt.Sprintf("every one of its %g observations lies above its top bound %g s, which says only that every latency exceeds %g s: no model of the live latency can be fitted to it; export buckets above %g s", h.Total(), top, top, top)
}

// spreadRejected says why the live fit hf of h, whose observations lie in
// fewer than fit.MinOccupied buckets (fit.HistogramFit.SpreadUnresolved),
// is not a model to re-plan on: the counts cannot tell how widely the
// latencies spread, so the fit's σ and percentiles are artefacts of the
// fit, as its own warning says, not of the data.
func spreadRejected(h *readers.Histogram, hf *fit.HistogramFit) string {
	var held []string
	for i, n := range h.Counts {
		if n > 0 {
			held = append(held, fmt.Sprintf("(%g, %g] s", h.Lower[i], h.Upper[i]))
		}
	}
	return fmt.Sprintf("only %d of its %d buckets hold observations (%s), so the live fit's σ and percentiles are artefacts of the fit, not of the data: there is no model of the live latency to re-plan on; export finer buckets around the observed latencies",
		hf.Occupied, len(h.Counts), strings.Join(held, ", "))
}

// testRejectedBrief is fitRejected's reason in a clause, and what to do.
func testRejectedBrief(hf *fit.HistogramFit) (brief, advice string) {
	return "its live fit (" + hf.Best().Name + ") is rejected by its own test and explains the live counts no better than the scenario's model",
		"give a histogram with more buckets, or model the latency by hand"
}

// spreadRejectedBrief is spreadRejected's reason in a clause, and what to
// do.
func spreadRejectedBrief(hf *fit.HistogramFit) (brief, advice string) {
	return fmt.Sprintf("only %d of its buckets hold observations, so its live fit's σ and percentiles are artefacts of the fit, not of the data", hf.Occupied),
		"export finer buckets around the observed latencies"
}

// openTopRejectedBrief is openTopRejected's reason in a clause, and what
// to do.
func openTopRejectedBrief(hf *fit.HistogramFit) (brief, advice string) {
	return "every one of its observations lies above its top bound, so no model of the live latency can be fitted to it",
		"export buckets above the top bound"
}
