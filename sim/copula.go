package sim

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// correlationMatrix returns the Gaussian-copula correlation matrix of the
// attempts 0 … p.Copies of policy p: entry (j, k) is c.SameModel when both
// attempts go to one model, c.SameProvider when they go to different models
// of one provider, and c.CrossProvider otherwise.
func correlationMatrix(c Correlation, p *Policy, models []Model) *mat.SymDense {
	n := p.Copies + 1
	a := mat.NewSymDense(n, nil)
	for j := range n {
		for k := j; k < n; k++ {
			mj, mk := p.target(j), p.target(k)
			var r float64
			switch {
			case j == k:
				r = 1
			case mj == mk:
				r = c.SameModel
			case models[mj].Provider == models[mk].Provider:
				r = c.SameProvider
			default:
				r = c.CrossProvider
			}
			a.SetSym(j, k, r)
		}
	}
	return a
}

// copulaFactor returns a lower-triangular L with L·Lᵀ = A for the
// correlation matrix A of policy p's attempts, so that attempt k's normal
// score is z_k = Σ_{j≤k} L[k][j]·e_j for independent standard normals e_j.
// Because L is triangular, z_0 = e_0: the primary's draw does not depend on
// how many copies the policy sends. A must be positive semidefinite
// (checked with gonum's symmetric eigendecomposition); correlation 1 is
// allowed, which is why a semidefinite Cholesky is used (a zero pivot gets
// a zero column), not gonum's, which requires a definite matrix.
func copulaFactor(c Correlation, p *Policy, models []Model) ([][]float64, error) {
	a := correlationMatrix(c, p, models)
	n := a.SymmetricDim()
	var eig mat.EigenSym
	if !eig.Factorize(a, false) {
		return nil, fmt.Errorf("correlation matrix: eigendecomposition failed")
	}
	if v := eig.Values(nil); v[0] < -1e-9 {
		return nil, fmt.Errorf("correlations same_model %v, same_provider %v, cross_provider %v give a matrix over this policy's %d attempts that is not positive semidefinite (smallest eigenvalue %.3g): two attempts that are both closely correlated with a third must be correlated with each other too; bring the three values closer together",
			c.SameModel, c.SameProvider, c.CrossProvider, n, v[0])
	}
	l := make([][]float64, n)
	for i := range l {
		l[i] = make([]float64, n)
	}
	const tol = 1e-12
	for j := range n {
		d := a.At(j, j)
		for m := range j {
			d -= l[j][m] * l[j][m]
		}
		if d <= tol {
			continue // column j stays 0: attempt j is a combination of earlier ones
		}
		l[j][j] = math.Sqrt(d)
		for i := j + 1; i < n; i++ {
			s := a.At(i, j)
			for m := range j {
				s -= l[i][m] * l[j][m]
			}
			l[i][j] = s / l[j][j]
		}
	}
	return l, nil
}

// Repeated calls. A retried call of attempt k (Class.AttemptRetry, try
// t > 0) and attempt k of a re-run (Class.Retry, round r > 0) go to
// attempt k's model again, so they are coupled to it with ρ =
// Correlation.SameModel:
//
//   - in round r > 0 the independent normals are e_j^r = ρ·e_j^0 +
//     √(1−ρ²)·f_j^r, f_j^r fresh; then z_k^r = Σ_{j≤k} L[k][j]·e_j^r keeps
//     the policy's correlations within the round and corr(z_k^r, z_k^0) =
//     ρ. e_j^0 is attempt j's first-round innovation, drawn from its stream
//     whether or not it was sent then;
//   - try t > 0 of attempt k scores ρ·z_k + √(1−ρ²)·f, f fresh, z_k the
//     score of the attempt's first call in its round: corr = ρ with it, and
//     ρ·A[k][j] with attempt j.
//
// With ρ = 1 a repeated call is exactly as slow, in quantile, as the
// first; with ρ = 0 it is independent of it (as without a copula).

// score returns the copula's normal score of attempt k of r, try try,
// given the call's fresh standard normal f and, in a re-run's first try,
// the attempt's first-round innovation first (firstInnovation); it
// records the attempt's innovation of the round in r.innov.
func (e *engine) score(r *request, k int, try uint8, first, f float64) float64 {
	if try == 0 && r.round == 0 { // a first call of the first round: f is its innovation
		r.innov[k] = f
		if k == 0 {
			// The sum below for the primary, whose factor row is (1):
			// A's (0, 0) is 1, and copulaFactor's L[0][0] is √1 (the
			// commonest call: TestScoreOfPrimary checks it against the sum).
			return 0 + f
		}
		z := 0.0
		for j, l := range e.copula[r.class][k][:k+1] {
			z += l * r.innov[j]
		}
		return z
	}
	rho := e.cfg.Correlation.SameModel
	mix := func(x float64) float64 { return rho*x + math.Sqrt(1-rho*rho)*f }
	if try == 0 {
		r.innov[k] = f
		if r.round > 0 {
			r.innov[k] = mix(first)
		}
	}
	z := 0.0
	for j, l := range e.copula[r.class][k][:k+1] {
		z += l * r.innov[j]
	}
	if try > 0 {
		z = mix(z)
	}
	return z
}

// firstInnovation returns the independent normal draw e_k^0 that attempt
// k of request id has in its first round, try 0 (draw: the fourth number
// of its stream on, after the error, invalid and degraded uniforms). It
// reseeds the engine's generator.
func (e *engine) firstInnovation(id int64, k int) float64 {
	g := e.rng.at(id, uint8(k))
	g.skip3()
	return g.normFloat64(e.norm)
}

// correlated reports whether any correlation between attempts is set.
func (cfg *Config) correlated() bool {
	c := cfg.Correlation
	return c.SameModel != 0 || c.SameProvider != 0 || c.CrossProvider != 0
}

// clampOpen moves u into the open interval (0, 1), where every quantile
// function is finite.
func clampOpen(u float64) float64 {
	const eps = 1e-16
	return math.Min(math.Max(u, eps), 1-eps)
}
