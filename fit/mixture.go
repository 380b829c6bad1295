package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/dist"
)

// LogNormalMixture is a finite mixture of K ≥ 1 lognormals: with
// probability Weights[j], ln X is normal with mean Mu[j] and standard
// deviation Sigma[j]. Its density is
//
//	f(x) = Σⱼ wⱼ · φ((ln x − μⱼ)/σⱼ) / (x·σⱼ),
//
// where φ is the standard normal density. K = 1 is the lognormal.
// Components are ordered by Mu (fastest mode first).
type LogNormalMixture struct {
	Weights, Mu, Sigma []float64
}

// K returns the number of components.
func (m LogNormalMixture) K() int { return len(m.Weights) }

// Params returns the number of free parameters, 3K − 1 (K means, K
// standard deviations and K − 1 free weights), the p of the BIC.
func (m LogNormalMixture) Params() int { return 3*m.K() - 1 }

// Dist returns the mixture as a dist.Continuous in the data's units: a
// dist.LogNormal for K = 1, else a *dist.Mixture of them.
func (m LogNormalMixture) Dist() dist.Continuous {
	if m.K() == 1 {
		return dist.LogNormal{Mu: m.Mu[0], Sigma: m.Sigma[0]}
	}
	comps := make([]dist.Continuous, m.K())
	for j := range comps {
		comps[j] = dist.LogNormal{Mu: m.Mu[j], Sigma: m.Sigma[j]}
	}
	d, err := dist.NewMixture(m.Weights, comps)
	if err != nil {
		panic("fit: fitted mixture rejected: " + err.Error())
	}
	return d
}

// logLikY returns the log-likelihood of the log-data y under the normal
// mixture in log space, Σᵢ ln Σⱼ wⱼ·N(yᵢ; μⱼ, σⱼ), using floats.LogSumExp.
// The log-likelihood of x = eʸ under the lognormal mixture is this minus
// Σᵢ yᵢ (the Jacobian of x = eʸ).
func (m LogNormalMixture) logLikY(y []float64) float64 {
	terms := make([]float64, m.K())
	var ll float64
	for _, yi := range y {
		for j := range terms {
			terms[j] = math.Log(m.Weights[j]) + distuv.Normal{Mu: m.Mu[j], Sigma: m.Sigma[j]}.LogProb(yi)
		}
		ll += floats.LogSumExp(terms)
	}
	return ll
}

// LogLik returns the log-likelihood Σᵢ ln f(xᵢ) of observations x > 0,
// Σᵢ (ln Σⱼ wⱼ·N(ln xᵢ; μⱼ, σⱼ) − ln xᵢ), without allocating per
// observation (it runs on every observation of a large log).
func (m LogNormalMixture) LogLik(x []float64) float64 {
	ll, _ := m.logLik(context.Background(), x)
	return ll
}

// logLik is LogLik that stops with ctx's error when ctx is done, looking
// at it every checkEvery observations; it sums in LogLik's order, so its
// result is LogLik's.
func (m LogNormalMixture) logLik(ctx context.Context, x []float64) (float64, error) {
	k := m.K()
	var buf [3]float64
	terms := buf[:0]
	if k > len(buf) {
		terms = make([]float64, 0, k)
	}
	terms = terms[:k]
	lw := make([]float64, k)
	for j := range k {
		lw[j] = math.Log(m.Weights[j])
	}
	var ll float64
	for i, xi := range x {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		yi := math.Log(xi)
		for j := range terms {
			terms[j] = lw[j] + distuv.Normal{Mu: m.Mu[j], Sigma: m.Sigma[j]}.LogProb(yi)
		}
		ll += floats.LogSumExp(terms) - yi
	}
	return ll, nil
}

func logs(x []float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Log(v)
	}
	return y
}

// FitLogNormal returns the maximum-likelihood lognormal for observations
// x > 0: Mu and Sigma are the mean and the population (1/n) standard
// deviation of ln x (gonum stat.PopMeanStdDev). It needs at least two
// distinct values.
func FitLogNormal(x []float64) (LogNormalMixture, error) {
	if err := checkSample(x, 2); err != nil {
		return LogNormalMixture{}, err
	}
	mu, sigma := stat.PopMeanStdDev(logs(x), nil)
	if !(sigma > 0) {
		return LogNormalMixture{}, errors.New("fit: all observations are equal; a lognormal needs some spread")
	}
	return LogNormalMixture{Weights: []float64{1}, Mu: []float64{mu}, Sigma: []float64{sigma}}, nil
}

func checkSample(x []float64, min int) error {
	if len(x) < min {
		return fmt.Errorf("fit: %d observations; need at least %d", len(x), min)
	}
	for i, v := range x {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("fit: observation %d is %v; must be finite and > 0", i, v)
		}
	}
	return nil
}

// EMOptions tune FitMixture. The zero value uses the defaults.
type EMOptions struct {
	// Starts is the number of EM runs from different starting points; the
	// one with the highest likelihood is kept. Default 8: one from the
	// sample's quantiles, the others from randomly chosen centres.
	Starts int
	// MaxIter bounds the EM iterations of one run; default 2000.
	MaxIter int
	// Tol stops a run when one iteration raises the log-likelihood by
	// less than Tol·n; default 1e-8 (BIC differences that matter are
	// whole units).
	Tol float64
	// Seed seeds the random starting points (PCG stream 1).
	Seed uint64
}

func (o EMOptions) withDefaults() EMOptions {
	if o.Starts <= 0 {
		o.Starts = 8
	}
	if o.MaxIter <= 0 {
		o.MaxIter = 2000
	}
	if o.Tol <= 0 {
		o.Tol = 1e-8
	}
	return o
}

// shortRun is the number of EM iterations run from each starting point
// before the best is run to convergence.
const shortRun = 50

// sigmaFloorFraction bounds every component's Sigma below by this fraction
// of the standard deviation of ln x. Without a floor the likelihood of a
// mixture is unbounded (a component shrinking onto one observation), and
// EM can end there; with it, the M-step is the maximiser of the likelihood
// restricted to σⱼ ≥ floor, and EM still never decreases it.
const sigmaFloorFraction = 0.02

// FitMixture fits a K-component lognormal mixture to observations x > 0 by
// expectation–maximisation on y = ln x (a Gaussian mixture in log space;
// Dempster, Laird & Rubin 1977; Bishop, Pattern Recognition and Machine
// Learning, §9.2):
//
//	E-step: rᵢⱼ = wⱼ N(yᵢ; μⱼ, σⱼ) / Σₗ wₗ N(yᵢ; μₗ, σₗ)   (via floats.LogSumExp)
//	M-step: nⱼ = Σᵢ rᵢⱼ,  wⱼ = nⱼ/n,  μⱼ = Σᵢ rᵢⱼ yᵢ / nⱼ,
//	        σⱼ² = max(floor², Σᵢ rᵢⱼ (yᵢ − μⱼ)² / nⱼ),
//
// with floor = 0.02 × the standard deviation of y. EM is local: it runs
// from opt.Starts starting points (the first splits the sorted sample into
// K equal-count groups; the others pick K random observations as centres)
// for 50 iterations each, then runs the one with the highest
// log-likelihood to convergence and returns it with its log-likelihood
// (in x's units, see LogLik). The result is deterministic for a given
// opt.Seed. Its work is bounded by the sample's size whatever the data: at
// most opt.Starts·min(opt.MaxIter, 50) + opt.MaxIter EM iterations, each
// O(n·K). It returns an error for K < 1, fewer than 3K observations, or
// observations that are not finite and > 0.
func FitMixture(x []float64, k int, opt EMOptions) (LogNormalMixture, float64, error) {
	return fitMixture(context.Background(), x, k, opt)
}

// fitMixture is FitMixture that stops with ctx's error when ctx is done
// (checked in every EM iteration).
func fitMixture(ctx context.Context, x []float64, k int, opt EMOptions) (LogNormalMixture, float64, error) {
	m, ll, _, err := fitMixtureWork(ctx, x, k, opt)
	return m, ll, err
}

// fitMixtureWork is fitMixture that also returns the number of EM
// iterations it ran over all its runs: at most emIterationBound, each
// costing O(n·k), so that EM's work is bounded by the sample's size
// whatever the data.
func fitMixtureWork(ctx context.Context, x []float64, k int, opt EMOptions) (LogNormalMixture, float64, int, error) {
	if k < 1 {
		return LogNormalMixture{}, 0, 0, fmt.Errorf("fit: %d components; need at least 1", k)
	}
	if err := checkSample(x, max(3*k, 2)); err != nil {
		return LogNormalMixture{}, 0, 0, err
	}
	opt = opt.withDefaults()
	y := logs(x)
	sort.Float64s(y)
	_, sd := stat.PopMeanStdDev(y, nil)
	if !(sd > 0) {
		return LogNormalMixture{}, 0, 0, errors.New("fit: all observations are equal; a lognormal mixture needs some spread")
	}
	floor := sigmaFloorFraction * sd
	src := rand.New(rand.NewPCG(opt.Seed, 1))
	var best LogNormalMixture
	bestLL := math.Inf(-1)
	iters := 0
	// Short runs from every start, then the best one to convergence.
	short := opt
	short.MaxIter = min(opt.MaxIter, shortRun)
	for s := range opt.Starts {
		if k == 1 && s > 0 {
			break // one component: EM converges to the MLE from anywhere
		}
		m := initMixture(y, k, s, floor, sd, src)
		ll, n, err := em(ctx, y, &m, floor, short)
		iters += n
		if err != nil {
			return LogNormalMixture{}, 0, iters, err
		}
		if ll > bestLL {
			best, bestLL = m, ll
		}
	}
	bestLL, n, err := em(ctx, y, &best, floor, opt)
	iters += n
	if err != nil {
		return LogNormalMixture{}, 0, iters, err
	}
	best.sortByMu()
	return best, bestLL - floats.Sum(y), iters, nil
}

// initMixture returns starting point s: s = 0 splits the sorted y into k
// equal-count groups and takes each group's mean and spread; s > 0 picks k
// distinct random observations as means, each with the spread sd/k.
func initMixture(y []float64, k, s int, floor, sd float64, src *rand.Rand) LogNormalMixture {
	m := LogNormalMixture{Weights: make([]float64, k), Mu: make([]float64, k), Sigma: make([]float64, k)}
	n := len(y)
	for j := range k {
		m.Weights[j] = 1 / float64(k)
		if s == 0 {
			g := y[j*n/k : (j+1)*n/k]
			mu, sg := stat.PopMeanStdDev(g, nil)
			m.Mu[j], m.Sigma[j] = mu, math.Max(sg, floor)
			continue
		}
		m.Mu[j] = y[src.IntN(n)]
		m.Sigma[j] = math.Max(sd/float64(k), floor)
	}
	return m
}

// emIterationBound is the most EM iterations FitMixture runs for k
// components with options opt (defaults applied): a short run of
// min(MaxIter, 50) iterations from each start (one start for k = 1), then
// MaxIter from the best. A run stops earlier when it converges.
func emIterationBound(k int, opt EMOptions) int {
	opt = opt.withDefaults()
	starts := opt.Starts
	if k == 1 {
		starts = 1
	}
	return starts*min(opt.MaxIter, shortRun) + opt.MaxIter
}

// em runs EM on m from its current parameters until the log-likelihood
// (in log space) gains less than opt.Tol·n per iteration, or for
// opt.MaxIter iterations, and returns it with the number of iterations
// run; it stops with ctx's error when ctx is done.
func em(ctx context.Context, y []float64, m *LogNormalMixture, floor float64, opt EMOptions) (float64, int, error) {
	n, k := len(y), m.K()
	r := make([]float64, n*k) // responsibilities, row i = observation i
	terms := make([]float64, k)
	// c[j] = ln wⱼ + ln N(μⱼ; μⱼ, σⱼ), h[j] = 1/(2σⱼ²): ln wⱼN(y; μⱼ, σⱼ) = c[j] − h[j](y − μⱼ)².
	c, h := make([]float64, k), make([]float64, k)
	prev := math.Inf(-1)
	var ll float64
	iters := 0
	for range opt.MaxIter {
		if err := ctx.Err(); err != nil {
			return 0, iters, err
		}
		iters++
		// E-step.
		for j := range k {
			c[j] = math.Log(m.Weights[j]) + distuv.Normal{Mu: m.Mu[j], Sigma: m.Sigma[j]}.LogProb(m.Mu[j])
			h[j] = 1 / (2 * m.Sigma[j] * m.Sigma[j])
		}
		ll = 0
		for i, yi := range y {
			for j := range k {
				d := yi - m.Mu[j]
				terms[j] = c[j] - h[j]*d*d
			}
			lse := floats.LogSumExp(terms)
			ll += lse
			for j := range k {
				r[i*k+j] = math.Exp(terms[j] - lse)
			}
		}
		if ll-prev < opt.Tol*float64(n) {
			break
		}
		prev = ll
		// M-step.
		for j := range k {
			var nj, sy float64
			for i, yi := range y {
				nj += r[i*k+j]
				sy += r[i*k+j] * yi
			}
			if nj < 1e-300 {
				// The component lost every observation: the likelihood no
				// longer depends on it; park it with a tiny weight.
				m.Weights[j] = 1e-300
				continue
			}
			mu := sy / nj
			var ss float64
			for i, yi := range y {
				d := yi - mu
				ss += r[i*k+j] * d * d
			}
			m.Weights[j] = nj / float64(n)
			m.Mu[j] = mu
			m.Sigma[j] = math.Max(math.Sqrt(ss/nj), floor)
		}
	}
	return ll, iters, nil
}

// sortByMu orders the components by increasing Mu.
func (m *LogNormalMixture) sortByMu() {
	idx := make([]int, m.K())
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return m.Mu[idx[a]] < m.Mu[idx[b]] })
	w, mu, sg := make([]float64, len(idx)), make([]float64, len(idx)), make([]float64, len(idx))
	for i, j := range idx {
		w[i], mu[i], sg[i] = m.Weights[j], m.Mu[j], m.Sigma[j]
	}
	m.Weights, m.Mu, m.Sigma = w, mu, sg
}

// BIC returns the Bayesian information criterion −2·lnL + p·ln n of a model
// with log-likelihood ll and p free parameters fitted to n observations
// (Schwarz 1978); lower is better.
func BIC(ll float64, p, n int) float64 {
	return -2*ll + float64(p)*math.Log(float64(n))
}
