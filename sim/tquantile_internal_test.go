package sim

import (
	"math"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestTQuantileKeptIsGonums: the kept Student's t quantiles are gonum's,
// bit for bit, whether computed or found, and from goroutines asking at
// once.
func TestTQuantileKeptIsGonums(t *testing.T) {
	levels := []float64{0.95, 0.9, 0.99, 0.8}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for r := range 3 {
				for nu := 1.0; nu <= 40; nu++ {
					level := levels[(g+r+int(nu))%len(levels)]
					want := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile((1 + level) / 2)
					if got := tQuantile(nu, level); math.Float64bits(got) != math.Float64bits(want) {
						t.Errorf("tQuantile(%v, %v) = %v, gonum's %v", nu, level, got, want)
					}
				}
			}
		})
	}
	wg.Wait()
	if got := tQuantile(5, math.NaN()); !math.IsNaN(got) {
		t.Errorf("tQuantile(5, NaN) = %v, want NaN", got)
	}
}
