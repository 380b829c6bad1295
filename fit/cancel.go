package fit

import (
	"context"
	"slices"
)

// checkEvery is how many observations the passes over a whole log (its
// sort, its log-likelihoods) handle between two looks at the context: a
// few milliseconds of work, so that a fit of 10⁷ observations stops within
// a fraction of a second of its context being done.
const checkEvery = 1 << 16

// sortedContext returns a sorted copy of x, as sorted does, stopping with
// ctx's error when ctx is done. It sorts runs of checkEvery observations,
// then merges them pairwise, looking at ctx between runs and every
// checkEvery merged observations. For x without NaNs (a fit's input) the
// result is the one sort.Float64s gives.
func sortedContext(ctx context.Context, x []float64) ([]float64, error) {
	a := append([]float64(nil), x...)
	for lo := 0; lo < len(a); lo += checkEvery {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		slices.Sort(a[lo:min(lo+checkEvery, len(a))])
	}
	if len(a) <= checkEvery {
		return a, nil
	}
	b := make([]float64, len(a))
	for width := checkEvery; width < len(a); width *= 2 {
		done := 0
		for lo := 0; lo < len(a); lo += 2 * width {
			mid, hi := min(lo+width, len(a)), min(lo+2*width, len(a))
			i, j := lo, mid
			for k := lo; k < hi; k++ {
				if done++; done%checkEvery == 0 {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
				}
				if j >= hi || (i < mid && a[i] <= a[j]) {
					b[k] = a[i]
					i++
				} else {
					b[k] = a[j]
					j++
				}
			}
		}
		a, b = b, a
	}
	return a, nil
}
