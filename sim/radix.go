package sim

import (
	"math"
	"slices"
)

// sortLatencies sorts non-negative, non-NaN float64s ascending. For such
// values the IEEE-754 bit patterns order like the numbers, so an LSD radix
// sort on the bits (11-bit digits, passes whose digit is the same for every
// value skipped) does it in O(n); small inputs use slices.Sort.
func sortLatencies(x []float64) {
	const small = 4096
	if len(x) < small {
		slices.Sort(x)
		return
	}
	const bits = 11
	const buckets = 1 << bits
	keys := make([]uint64, len(x))
	tmp := make([]uint64, len(x))
	for i, v := range x {
		keys[i] = math.Float64bits(v)
	}
	var count [buckets]int
	for shift := uint(0); shift < 64; shift += bits {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&(buckets-1)]++
		}
		if count[(keys[0]>>shift)&(buckets-1)] == len(keys) {
			continue // every key has the same digit here
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, k := range keys {
			d := (k >> shift) & (buckets - 1)
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	for i, k := range keys {
		x[i] = math.Float64frombits(k)
	}
}
