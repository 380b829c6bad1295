package fit

import (
	"errors"
	"fmt"
	"math"
	"slices"

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
//
// One row of extreme leverage (a prompt far outside the others) can decide
// a least-squares line alone, so FitPrefill leaves out rows whose Cook's
// distance Dᵢ = eᵢ² hᵢ / (2 s² (1 − hᵢ)²) exceeds 1, the rule of Cook and
// Weisberg (Residuals and Influence in Regression, 1982): such a row alone
// moves the line beyond the 50 % confidence region of its coefficients.
// hᵢ = 1/n + (xᵢ − x̄)²/Σ(xⱼ − x̄)² is the row's leverage. The line is
// refitted without them and the check repeated, up to a tenth of the rows;
// Excluded names them, and the caller warns.
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
	// Excluded are the indices of the rows left out for a Cook's distance
	// > 1, in order; AllSlope and AllP are the slope and its p-value with
	// them in. Empty when no row decides the line alone.
	Excluded []int
	AllSlope float64
	AllP     float64
	// Note says in one sentence what was found and what the block does.
	Note string
}

// maxCook is the Cook's distance above which a row is left out of the
// prefill regression (Cook and Weisberg, 1982).
const maxCook = 1.0

// cookOutliers returns the indices (into x) of the rows whose Cook's
// distance under the least-squares line a + b·x exceeds maxCook.
func cookOutliers(x, y []float64, a, b float64) []int {
	n := float64(len(x))
	mx, sxx, sse := lineSums(x, y, a, b)
	s2 := sse / (n - 2)
	var out []int
	for i, v := range x {
		h := 1/n + (v-mx)*(v-mx)/sxx
		e := y[i] - a - b*v
		if h >= 1 { // the line passes through this row alone
			out = append(out, i)
			continue
		}
		if s2 == 0 {
			continue
		}
		if d := e * e * h / (2 * s2 * (1 - h) * (1 - h)); d > maxCook {
			out = append(out, i)
		}
	}
	return out
}

// lineSums returns the mean of x, the sum of squares of x about it and the
// sum of squared residuals of (x, y) about the line a + b·x.
func lineSums(x, y []float64, a, b float64) (mx, sxx, sse float64) {
	mx = stat.Mean(x, nil)
	for i, v := range x {
		sxx += (v - mx) * (v - mx)
		e := y[i] - a - b*v
		sse += e * e
	}
	return mx, sxx, sse
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
	// Leave out rows that decide the line alone, refitting until none
	// does (or a tenth of the rows are out, or too few would be left).
	keep := make([]int, n)
	for i := range keep {
		keep[i] = i
	}
	x, y := input, ttft
	for {
		a, b := stat.LinearRegression(x, y, nil, false)
		out := cookOutliers(x, y, a, b)
		if len(out) == 0 || 10*(len(p.Excluded)+len(out)) > n || len(x)-len(out) < 3 {
			break
		}
		drop := make(map[int]bool, len(out))
		for _, i := range out {
			drop[i] = true
		}
		var nk []int
		var nx, ny []float64
		lo, hi := math.Inf(1), math.Inf(-1)
		for j, i := range keep {
			if drop[j] {
				p.Excluded = append(p.Excluded, i)
				continue
			}
			nk, nx, ny = append(nk, i), append(nx, x[j]), append(ny, y[j])
			lo, hi = math.Min(lo, x[j]), math.Max(hi, x[j])
		}
		if lo == hi {
			p.Excluded = p.Excluded[:len(p.Excluded)-len(out)]
			break
		}
		keep, x, y = nk, nx, ny
	}
	if len(p.Excluded) > 0 {
		slices.Sort(p.Excluded)
		_, p.AllSlope, _, _, _, _, p.AllP = ols(input, ttft)
		p.N, p.InputMin, p.InputMax = len(x), math.Inf(1), math.Inf(-1)
		for _, v := range x {
			p.InputMin, p.InputMax = math.Min(p.InputMin, v), math.Max(p.InputMax, v)
		}
	}
	p.Intercept, p.Slope, p.SlopeSE, p.SlopeLo, p.SlopeHi, p.T, p.P = ols(x, y)
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

// ols returns the least-squares line a + b·x through (x, y), the slope's
// standard error, its Level interval, t statistic and two-sided p-value.
func ols(x, y []float64) (a, b, se, lo, hi, tv, pv float64) {
	a, b = stat.LinearRegression(x, y, nil, false)
	_, sxx, sse := lineSums(x, y, a, b)
	df := float64(len(x) - 2)
	se = math.Sqrt(sse / df / sxx)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	q := t.Quantile(1 - (1-Level)/2)
	lo, hi = b-q*se, b+q*se
	switch {
	case se > 0:
		tv = b / se
		pv = 2 * t.Survival(math.Abs(tv))
	case b != 0: // an exact line
		tv, pv = math.Copysign(math.Inf(1), b), 0
	default:
		tv, pv = 0, 1
	}
	return a, b, se, lo, hi, tv, pv
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
