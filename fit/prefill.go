package fit

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Prefill is the least-squares regression of the time to first token on
// the prompt length, TTFTᵢ = a + b·inputᵢ + εᵢ, over a log's successful
// requests: the model behind a scenario's prefill_tokens_per_s, where the
// prefill of a prompt takes input ÷ speed on top of a base TTFT (the
// prefill phase of Splitwise, Patel et al., ISCA 2024, and DistServe,
// Zhong et al., OSDI 2024, is compute-bound and linear in the prompt to
// first order). The slope's standard error is the ordinary least-squares
// one, SE(b) = √(Σ eᵢ² / (n − 2) / Σ (xᵢ − x̄)²), and its interval and
// p-value come from Student's t with n − 2 degrees of freedom. A
// heavy-tailed TTFT inflates SE(b), so the test errs toward "not
// significant".
type Prefill struct {
	// N is the number of requests regressed; InputMin and InputMax their
	// range of input tokens.
	N                  int
	InputMin, InputMax float64
	// Intercept (s) and Slope (s per input token) are the least-squares
	// line; SlopeSE is the slope's standard error, SlopeLo and SlopeHi
	// its Level (95 %) interval.
	Intercept, Slope, SlopeSE, SlopeLo, SlopeHi float64
	// T is Slope ÷ SlopeSE and P its two-sided p-value (H₀: slope 0).
	T, P float64
	// Significant is set when P < 1 − Level: the dependence is real.
	Significant bool
	// Speed is 1 ÷ Slope in tokens/s, and SpeedLo, SpeedHi the interval
	// 1 ÷ SlopeHi … 1 ÷ SlopeLo (+Inf when SlopeLo ≤ 0: the data do not
	// rule out an instant prefill). Meaningful when Slope > 0.
	Speed, SpeedLo, SpeedHi float64
	// Used is set when the scenario block models the dependence:
	// significant with Slope > 0 — and, in FitLog, at most 10 % of the
	// requests with a base TTFT (Base) ≤ 0.
	Used bool
	// Note says in one sentence what was found and what the block does.
	Note string
}

// ErrConstantInput is returned by FitPrefill when every request has the
// same prompt length, so no slope can be estimated.
var ErrConstantInput = errors.New("every request has the same number of input tokens")

// FitPrefill regresses ttft (s) on input (tokens), pairwise; both have
// the same length n ≥ 3. It returns ErrConstantInput (wrapped) when the
// input never varies.
func FitPrefill(input, ttft []float64) (*Prefill, error) {
	n := len(input)
	if n != len(ttft) {
		return nil, fmt.Errorf("prefill: %d input counts for %d TTFTs", n, len(ttft))
	}
	if n < 3 {
		return nil, fmt.Errorf("prefill: %d requests; a regression needs at least 3", n)
	}
	p := &Prefill{N: n, InputMin: math.Inf(1), InputMax: math.Inf(-1)}
	for _, x := range input {
		p.InputMin, p.InputMax = math.Min(p.InputMin, x), math.Max(p.InputMax, x)
	}
	if p.InputMin == p.InputMax {
		return nil, fmt.Errorf("prefill: %w (%g in all %d)", ErrConstantInput, p.InputMin, n)
	}
	p.Intercept, p.Slope = stat.LinearRegression(input, ttft, nil, false)
	mx := stat.Mean(input, nil)
	var sxx, sse float64
	for i, x := range input {
		sxx += (x - mx) * (x - mx)
		e := ttft[i] - p.Intercept - p.Slope*x
		sse += e * e
	}
	df := float64(n - 2)
	p.SlopeSE = math.Sqrt(sse / df / sxx)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	q := t.Quantile(1 - (1-Level)/2)
	p.SlopeLo, p.SlopeHi = p.Slope-q*p.SlopeSE, p.Slope+q*p.SlopeSE
	switch {
	case p.SlopeSE > 0:
		p.T = p.Slope / p.SlopeSE
		p.P = 2 * t.Survival(math.Abs(p.T))
	case p.Slope != 0: // an exact line
		p.T, p.P = math.Copysign(math.Inf(1), p.Slope), 0
	default:
		p.T, p.P = 0, 1
	}
	p.Significant = p.P < 1-Level
	p.Speed, p.SpeedLo, p.SpeedHi = 1/p.Slope, 1/p.SlopeHi, math.Inf(1)
	if p.SlopeLo > 0 {
		p.SpeedHi = 1 / p.SlopeLo
	}
	p.Used = p.Significant && p.Slope > 0
	perK := fmtNum(1000 * p.Slope)
	switch {
	case p.Used:
		p.Note = fmt.Sprintf("TTFT grows with the prompt: %s s per 1000 input tokens (p %s), a prefill speed of %s tokens/s, 95%% interval [%s, %s]; the block uses prefill_tokens_per_s and fits ttft to TTFT − input/speed",
			perK, fmtP(p.P), fmtNum(p.Speed), fmtNum(p.SpeedLo), fmtNum(p.SpeedHi))
	case p.Significant:
		p.Note = fmt.Sprintf("TTFT falls as the prompt grows (%s s per 1000 input tokens, p %s): not a prefill cost, so not modelled; the block's ttft ignores the prompt length",
			perK, fmtP(p.P))
	default:
		p.Note = fmt.Sprintf("no significant dependence of TTFT on the prompt length (%s s per 1000 input tokens, 95%% interval [%s, %s], p %s); the block's ttft ignores it",
			perK, fmtNum(1000*p.SlopeLo), fmtNum(1000*p.SlopeHi), fmtP(p.P))
	}
	return p, nil
}

// Base returns the base TTFTs, ttftᵢ − inputᵢ ÷ Speed, of the requests
// whose base is > 0 (a draw of the block's ttft must be), and how many
// were dropped for being ≤ 0 (requests faster than the average speed
// would prefill their prompt).
func (p *Prefill) Base(input, ttft []float64) (base []float64, dropped int) {
	base = make([]float64, 0, len(ttft))
	for i, y := range ttft {
		if b := y - input[i]*p.Slope; b > 0 {
			base = append(base, b)
		} else {
			dropped++
		}
	}
	return base, dropped
}

// fmtP formats a p-value with its relation: "= 0.0312", or "< 1e-300"
// when it underflows.
func fmtP(p float64) string {
	if p < 1e-300 {
		return "< 1e-300"
	}
	return fmt.Sprintf("= %.3g", p)
}
