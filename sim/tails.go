package sim

import (
	"math"
	"math/bits"
	"slices"
)

// Batch tails. A batched summary selects each batch's p95 and p99 and
// counts each grid batch's latencies above the pooled p95 and p99 (the
// linearised quantiles): all of them in the top few per cent of the
// latencies. The pass that copies the keys of the buckets holding a
// summary's ranks (selectCounted) also copies, segment by segment of the
// latencies ordered by section, the keys in the top buckets — about an
// eighth of them, tailShare — in their order; a batch's ranks that lie
// among its keys there are selected in a copy of its tail alone, and the
// keys above a level at or above the tail's lower edge are counted in it
// alone. A batch whose ranks lie below its tail (a quiet one) is selected
// over all its keys as before.

// tailShare is the least share of the keys a tail holds.
const tailShare = 1.0 / 8

// batchTails are the keys from a bucket on, in segments of a sequence of
// keys (the latencies ordered by section).
type batchTails struct {
	first  uint32 // the first bucket copied
	edge   uint32 // the least key of that bucket: keys ≥ edge are copied
	bounds []int  // the segments' starts in the sequence, and its end
	off    []int  // segment s's keys at keys[off[s]:off[s+1]]
	keys   []uint32
	filled bool // by selectCounted's copying pass
}

// newBatchTails returns the empty tails of the keys counted in c, in
// segments from the positions bounds (ascending, from 0 to the sequence's
// length, repeats allowed), copying the top buckets that hold at least
// tailShare of the n keys.
func newBatchTails(c *keyCounts, n int, bounds []int) *batchTails {
	bs := slices.Compact(slices.Clone(bounds))
	b, held, need := c.nb, 0, int(math.Ceil(tailShare*float64(n)))
	for b > 0 && held < need {
		b--
		held += int(c.all[b])
	}
	return &batchTails{
		first: uint32(b), edge: c.lo + uint32(b)<<c.sh, bounds: bs,
		off: make([]int, len(bs)), keys: make([]uint32, held),
	}
}

// of returns the tail keys of the positions [from, to) of the sequence,
// both among the bounds.
func (t *batchTails) of(from, to int) []uint32 {
	i, _ := slices.BinarySearch(t.bounds, from)
	j, _ := slices.BinarySearch(t.bounds, to)
	return t.keys[t.off[i]:t.off[j]]
}

// gatherTail is gather that also copies the keys of p from edge on (those
// in buckets from the tails' first) to tail[t:], returning the next t
// (tail is long enough: the buckets' counts).
//
//go:noinline
func (c *keyCounts) gatherTail(p []uint32, at *rankHist, buf []uint32, edge uint32, tail []uint32, t int) int {
	lo, mul, where := c.lo, c.mul, at[:]
	for _, k := range p {
		w := &where[uint32(uint64(k-lo)*mul>>32)&rankMask]
		if j := *w; j != rankNone {
			buf[j] = k
			*w = j + 1
		}
		if k >= edge {
			tail[t] = k
			t++
		}
	}
	return t
}

// gatherTails is selectCounted's copying pass over seq with tails t.
func (c *keyCounts) gatherTails(seq []uint32, at *rankHist, buf []uint32, t *batchTails) {
	n := 0
	for s := 0; s+1 < len(t.bounds); s++ {
		t.off[s] = n
		n = c.gatherTail(seq[t.bounds[s]:t.bounds[s+1]], at, buf, t.edge, t.keys, n)
	}
	t.off[len(t.off)-1] = n
	t.filled = true
}

// tailEstimates is rankEstimates of batch j of g from its tail, when its
// ranks lie there (ok false otherwise).
func (g *batchGroups) tailEstimates(j int, ps []float64) (out []float64, ok bool) {
	n, na := int(g.n[j]), int(g.off[j+1]-g.off[j])
	if n == 0 {
		return nil, false
	}
	from := g.start + int(g.off[j])
	tail := g.tails.of(from, from+na)
	below := na - len(tail)
	ks := make([]int, 0, len(ps))
	for _, p := range ps {
		if k := NearestRank(n, p); k < na {
			if k < below {
				return nil, false
			}
			ks = append(ks, k-below)
		}
	}
	sp := getSelScratch(len(tail))
	defer selScratch.Put(sp)
	a := (*sp)[:len(tail)]
	copy(a, tail)
	v := make([]uint32, len(ks))
	if len(ks) > 0 {
		selectInPlace(a, ks, v, 2*bits.Len(uint(len(a))))
	}
	out = make([]float64, len(ps))
	for i := range out {
		out[i] = math.Inf(1)
		if i < len(v) {
			out[i] = seconds64(math.Float32frombits(v[i]))
		}
	}
	return out, true
}

// countBelowIn is countBelow of batch j of g's answered latencies, from
// its tail when every key above the levels is there.
func (g *batchGroups) countBelowIn(j int, qs []float32, below []int64) {
	xs := g.buf[g.off[j]:g.off[j+1]]
	if t := g.tails; t != nil && len(qs) == 2 && qs[0] <= qs[1] && uint64(math.Float32bits(qs[0]))+1 >= uint64(t.edge) {
		from := g.start + int(g.off[j])
		q0, q1 := math.Float32bits(qs[0]), math.Float32bits(qs[1])
		var a0, a1 int64
		for _, k := range t.of(from, from+len(xs)) {
			if k > q0 {
				a0++
				if k > q1 {
					a1++
				}
			}
		}
		below[0], below[1] = int64(len(xs))-a0, int64(len(xs))-a1
		return
	}
	countBelow(xs, qs, below)
}
