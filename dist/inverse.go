package dist

import "fmt"

// InverseMeanInfinite says why E[1/X] is infinite for a distribution whose
// support reaches down to 0 ("" when it is finite or not known to be
// infinite). A speed X turns into a time tokens ÷ X, so its 1/X must have
// a finite mean. Near 0 a density f(x) ≈ C·x^(α−1) gives a finite E[1/X]
// only when α > 1: infinite for uniform(0, b) and exponential (α = 1), for
// gamma and Weibull with shape ≤ 1; finite for lognormal and a quantile
// table (lognormal tails: the density vanishes faster than any power). A mixture inherits an infinite
// component.
func InverseMeanInfinite(d Continuous) string {
	switch d := d.(type) {
	case Uniform:
		if d.Min <= 0 {
			return fmt.Sprintf("uniform with min = %g has E[1/speed] = ∞", d.Min)
		}
	case Exponential:
		return "exponential has E[1/speed] = ∞ (its density is highest at 0)"
	case Gamma:
		if d.Alpha <= 1 {
			return fmt.Sprintf("gamma with shape %g ≤ 1 has E[1/speed] = ∞", d.Alpha)
		}
	case Weibull:
		if d.K <= 1 {
			return fmt.Sprintf("weibull with shape %g ≤ 1 has E[1/speed] = ∞", d.K)
		}
	case *Mixture:
		for i, c := range d.Components {
			if lo, _ := c.Support(); lo > 0 || d.Weights[i] == 0 {
				continue
			}
			if why := InverseMeanInfinite(c); why != "" {
				return fmt.Sprintf("component %d: %s", i+1, why)
			}
		}
	}
	return ""
}
