package sim

import (
	"slices"
	"sync"
	"time"
	"unsafe"
)

// durationBufs recycles the large per-run latency buffers (the slice
// requests append to, and the radix sort's scratch) across runs, which
// matters when an optimizer runs hundreds of them.
var durationBufs sync.Pool

// getDurations returns an empty slice with capacity ≥ n.
func getDurations(n int) []time.Duration {
	if b, ok := durationBufs.Get().(*[]time.Duration); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]time.Duration, 0, n)
}

// putDurations hands b back for reuse.
func putDurations(b []time.Duration) {
	if cap(b) >= 4096 {
		durationBufs.Put(&b)
	}
}

// sortedSeconds sorts the non-negative durations d in place and returns
// them ascending, in seconds, with room for extra more values. The result
// reuses d's memory (time.Duration and float64 are both 8 bytes and hold no
// pointers) unless d's capacity is short of len(d)+extra or more than twice
// what is needed, so a run's latencies take 8 bytes per request, not 16.
// Durations are integers, so an LSD radix sort on them (11-bit digits;
// passes whose digit is the same for every value are skipped, which drops
// the high digits of realistic latencies) sorts in O(n); small inputs use
// slices.Sort.
func sortedSeconds(d []time.Duration, extra int) []float64 {
	const small = 4096
	if len(d) < small {
		slices.Sort(d)
	} else {
		tmp := getDurations(len(d))[:len(d)]
		radixSort(d, tmp)
		putDurations(tmp)
	}
	need := len(d) + extra
	if cap(d) < need || cap(d) > 2*need+small {
		out := make([]float64, len(d), need)
		for i, x := range d {
			out[i] = x.Seconds()
		}
		putDurations(d)
		return out
	}
	out := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(d))), cap(d))[:len(d)]
	for i, x := range d {
		out[i] = x.Seconds() // x is read before its 8 bytes are overwritten
	}
	return out
}

// radixSort sorts the non-negative values of d ascending, using tmp (as long
// as d) as scratch space.
func radixSort(d, tmp []time.Duration) {
	const bits = 11
	const buckets = 1 << bits
	var count [buckets]int
	src, dst := d, tmp
	for shift := uint(0); shift < 63; shift += bits {
		clear(count[:])
		for _, k := range src {
			count[(uint64(k)>>shift)&(buckets-1)]++
		}
		if count[(uint64(src[0])>>shift)&(buckets-1)] == len(src) {
			continue // every value has the same digit here
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, k := range src {
			b := (uint64(k) >> shift) & (buckets - 1)
			dst[count[b]] = k
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &d[0] {
		copy(d, src)
	}
}
