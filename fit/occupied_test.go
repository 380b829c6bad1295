package fit

import (
	"testing"
)

// TestHistogramFitOccupied: latencies in 2 of the typical buckets leave the
// spread unresolved (Occupied 2, SpreadUnresolved); in 3 of them, not
// (MinOccupied).
func TestHistogramFitOccupied(t *testing.T) {
	for _, c := range []struct {
		values []float64
		want   int
	}{
		{[]float64{0.3, 0.4, 0.7}, 2},
		{[]float64{0.3, 0.7, 1.5}, 3},
	} {
		var x []float64
		for i := range 300 {
			x = append(x, c.values[i%len(c.values)])
		}
		hf, err := FitHistogram(binValues("occ", x, typicalBuckets), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if hf.Occupied != c.want || hf.SpreadUnresolved != (c.want < MinOccupied) {
			t.Errorf("values %v: occupied %d, spread unresolved %v; want %d, %v", c.values, hf.Occupied, hf.SpreadUnresolved, c.want, c.want < MinOccupied)
		}
	}
}
