package sim

import (
	"math"
	"math/bits"
	"slices"
	"sync"
)

// Many ranks of a sequence and of its suffixes. A candidate's summary asks
// a few hundred ranks of its answered latencies (a survival curve's, its
// percentiles and their intervals' ends) and a handful of ranks of two of
// their suffixes in arrival order (the pooled percentiles after the warm-up
// cut, the levels around the linearised p95 and p99 of the grid's batches
// kept). They are all found without sorting (selectSuffixes): one pass
// counts the keys by their place in [lo, hi] cut into equal buckets (at
// most 2^rankHistBits, about one for every 16 keys), noting the counts where each suffix starts; the counts
// give each rank's bucket and its rank there; a second pass copies the
// keys of the few buckets wanted, in their order; and each rank is read
// off its bucket's copy, sorted (the bucket's keys from the suffix's start
// on), or, when the bucket holds more than rankBucketSort keys, found by
// the same selection within the bucket's narrower range. Buckets one value
// wide need no copy: their value is the key.

const (
	// rankHistBits is the log₂ of the most buckets of selectSuffixes's
	// counts (64 KiB of counts, within the second-level cache), and
	// rankMinBits that of the fewest.
	rankHistBits = 14
	rankMinBits  = 8
	rankBuckets  = 1 << rankHistBits
	rankMask     = rankBuckets - 1
	// rankBucketSort is the most keys of a bucket sorted to read ranks
	// off: more are selected within the bucket's range.
	rankBucketSort = 4096
	// rankNone marks a bucket whose keys are not copied.
	rankNone = math.MaxUint32
)

// rankAsk is a question to selectSuffixes: the keys of ranks ks (0-based,
// ascending, without repeats, each below the suffix's length) of the keys
// from position from on (the parts taken together, in order), set in out.
type rankAsk struct {
	from int
	ks   []int
	out  []uint32
}

// rankCounts holds selectSuffixes's counts for the next selection (as a
// *[]rankHist).
var rankCounts sync.Pool

type rankHist = [rankBuckets]uint32

// getRankCounts returns m cleared counts from rankCounts, or new ones.
func getRankCounts(m int) *[]rankHist {
	if h, ok := rankCounts.Get().(*[]rankHist); ok && cap(*h) >= m {
		*h = (*h)[:m]
		clear(*h)
		return h
	}
	h := make([]rankHist, m)
	return &h
}

// keyRange returns the least and the greatest of the n > 0 keys of parts.
func keyRange(parts [][]uint32) (lo, hi uint32) {
	lo = math.MaxUint32
	for _, p := range parts {
		for _, k := range p {
			lo, hi = min(lo, k), max(hi, k)
		}
	}
	return lo, hi
}

// keyCounts counts keys in [lo, hi] by their buckets: a key k's is (k −
// lo) >> sh, the least sh that leaves at most nb of them (nb a power of
// two, about one bucket for every 16 of the n keys, from 2^rankMinBits to
// 2^rankHistBits), found as the high half of (k − lo)·2^(32−sh) (a shift
// by a constant). Only the first nb of a rankHist's counts are used.
type keyCounts struct {
	lo, hi uint32
	sh     uint
	nb     int
	mul    uint64
	all    *rankHist
}

// newKeyCounts returns empty counts of n keys in [lo, hi] in h.
func newKeyCounts(lo, hi uint32, n int, h *rankHist) keyCounts {
	b := min(max(bits.Len(uint(n))-4, rankMinBits), rankHistBits)
	sh := uint(max(bits.Len32(hi-lo)-b, 0))
	return keyCounts{lo: lo, hi: hi, sh: sh, nb: 1 << b, mul: 1 << (32 - sh), all: h}
}

// bucket returns key k's bucket.
func (c *keyCounts) bucket(k uint32) uint32 {
	return uint32(uint64(k-c.lo)*c.mul>>32) & rankMask
}

// count counts the keys of p (each in [lo, hi]) in h.
func (c *keyCounts) count(p []uint32, h *rankHist) {
	lo, mul, hs := c.lo, c.mul, h[:]
	for _, k := range p {
		hs[uint32(uint64(k-lo)*mul>>32)&rankMask]++
	}
}

// selectSuffixes answers the asks (in ascending from, each from below n)
// about the n keys of parts, every one in [lo, hi], without changing parts.
func selectSuffixes(parts [][]uint32, n int, lo, hi uint32, asks []rankAsk) {
	if n <= selSmall {
		sortedSuffixes(parts, n, asks)
		return
	}
	var h rankHist
	c := newKeyCounts(lo, hi, n, &h)
	for _, p := range parts {
		c.count(p, &h)
	}
	selectCounted(parts, &c, asks, nil)
}

// selectCounted is selectSuffixes given the counts c of all the keys of
// parts; with tails (and one part), its copying pass fills them too.
func selectCounted(parts [][]uint32, c *keyCounts, asks []rankAsk, tails *batchTails) {
	lo, hi, sh, all := c.lo, c.hi, c.sh, c.all
	// h[s] counts the keys before asks[s].from, when that is past 0.
	m := len(asks)
	hp := getRankCounts(m)
	defer rankCounts.Put(hp)
	h := *hp
	next, pos := 0, 0
	for next < m && asks[next].from == 0 {
		next++
	}
	for _, p := range parts {
		for len(p) > 0 && next < m {
			k := min(len(p), asks[next].from-pos)
			c.count(p[:k], &h[next])
			p, pos = p[k:], pos+k
			for next < m && asks[next].from == pos {
				if next++; next < m {
					h[next] = h[next-1]
				}
			}
		}
	}
	// Each rank's bucket and its rank among the bucket's keys from the
	// suffix's start.
	type want struct {
		ask, i int
		b      uint32
		r      int
	}
	var ws []want
	for s := range asks {
		a := &asks[s]
		before := &h[s]
		if a.from == 0 {
			before = nil
		}
		b, below := 0, 0
		for i, k := range a.ks {
			if before == nil {
				for below+int(all[b]) <= k {
					below += int(all[b])
					b++
				}
			} else {
				for below+int(all[b]-before[b]) <= k {
					below += int(all[b] - before[b])
					b++
				}
			}
			if sh == 0 {
				a.out[i] = lo + uint32(b)
				continue
			}
			ws = append(ws, want{ask: s, i: i, b: uint32(b), r: k - below})
		}
	}
	if len(ws) == 0 && tails == nil {
		return
	}
	// The wanted buckets' places in one copy, by order of bucket.
	slices.SortFunc(ws, func(x, y want) int {
		if x.b != y.b {
			return int(x.b) - int(y.b)
		}
		if x.ask != y.ask {
			return x.ask - y.ask
		}
		return x.i - y.i
	})
	var at rankHist
	for i := range at[:c.nb] {
		at[i] = rankNone
	}
	size := 0
	for i, w := range ws {
		if i == 0 || w.b != ws[i-1].b {
			at[w.b] = uint32(size)
			size += int(all[w.b])
		}
	}
	sp := getSelScratch(size)
	defer selScratch.Put(sp)
	buf := (*sp)[:size]
	if tails != nil {
		c.gatherTails(parts[0], &at, buf, tails)
	} else {
		for _, p := range parts {
			c.gather(p, &at, buf)
		}
	}
	// Each bucket's ranks, the bucket's keys from its own start (at[b] is
	// now its end): the bucket's asks, one for each ask with ranks there,
	// start where that ask's suffix does among the bucket's keys.
	ks, vals := make([]int, len(ws)), make([]uint32, len(ws))
	for i, w := range ws {
		ks[i] = w.r
	}
	var sub []rankAsk
	for i := 0; i < len(ws); {
		b := ws[i].b
		j := i + 1
		for j < len(ws) && ws[j].b == b {
			j++
		}
		end := int(at[b])
		region := buf[end-int(all[b]) : end]
		sub = sub[:0]
		for x := i; x < j; {
			y := x + 1
			for y < j && ws[y].ask == ws[x].ask {
				y++
			}
			from := 0
			if asks[ws[x].ask].from > 0 {
				from = int(h[ws[x].ask][b])
			}
			sub = append(sub, rankAsk{from: from, ks: ks[x:y], out: vals[x:y]})
			x = y
		}
		if len(region) <= rankBucketSort {
			sortSuffixes(region, sub)
		} else {
			blo := lo + b<<sh
			selectSuffixes([][]uint32{region}, len(region), blo, blo+min(1<<sh-1, hi-blo), sub)
		}
		for x := i; x < j; x++ {
			asks[ws[x].ask].out[ws[x].i] = vals[x]
		}
		i = j
	}
}

// scatter is bySection's pass over one part's keys p and their sections
// sec, moving each key to out[pos[its section]] (and advancing that), and
// counting it.
func (c *keyCounts) scatter(p []uint32, sec []uint16, pos *[numSections]int, out []uint32) {
	lo, mul, h, at := c.lo, c.mul, c.all[:], pos[:]
	sec = sec[:len(p)]
	for j, k := range p {
		s := sec[j]
		out[at[s]] = k
		at[s]++
		h[uint32(uint64(k-lo)*mul>>32)&rankMask]++
	}
}

// gather copies each key k of p whose bucket b is wanted to buf[at[b]],
// advancing at[b]; at[b] is rankNone for the others.
func (c *keyCounts) gather(p []uint32, at *rankHist, buf []uint32) {
	lo, mul, where := c.lo, c.mul, at[:]
	for _, k := range p {
		b := uint32(uint64(k-lo)*mul>>32) & rankMask
		if j := where[b]; j != rankNone {
			buf[j] = k
			where[b] = j + 1
		}
	}
}

// sortedSuffixes is selectSuffixes by sorting a copy of the keys
// (sortSuffixes).
func sortedSuffixes(parts [][]uint32, n int, asks []rankAsk) {
	sp := getSelScratch(n)
	defer selScratch.Put(sp)
	a := (*sp)[:0:n]
	for _, p := range parts {
		a = append(a, p...)
	}
	sortSuffixes(a, asks)
}

// sortSuffixes answers the asks about the keys a by sorting each suffix
// asked in place, the later ones first (a suffix sorted keeps the keys of
// every longer one).
func sortSuffixes(a []uint32, asks []rankAsk) {
	for s := len(asks) - 1; s >= 0; s-- {
		x := asks[s]
		suf := a[x.from:]
		slices.Sort(suf)
		for i, k := range x.ks {
			x.out[i] = suf[k]
		}
	}
}

// suffixRanks holds ranks of a sequence of keys — the answered latencies
// ordered by section (bySection) — and of its suffixes, the requests kept
// after a warm-up cut or those of the fixed grid's batches from the first
// kept, all selected at once (selectSuffixes); a rank not asked for is
// selected apart (selectKeys).
type suffixRanks struct {
	seq  []uint32 // the keys in their order
	asks []rankAsk
}

// newSuffixRanks returns the suffixRanks of seq (which it reads but does
// not change) with the ranks asks asks for: any order of starts (each
// below len(seq)) and ranks, repeats allowed.
func newSuffixRanks(seq []uint32, asks []rankAsk) *suffixRanks {
	return newSuffixRanksCounted(seq, nil, asks, nil)
}

// newSuffixRanksCounted is newSuffixRanks given the counts c of seq's keys
// (nil: they are counted here), filling tails too when both are set (and
// seq holds more than selSmall keys).
func newSuffixRanksCounted(seq []uint32, c *keyCounts, asks []rankAsk, tails *batchTails) *suffixRanks {
	// One ask a start, its ranks ascending without repeats.
	slices.SortStableFunc(asks, func(x, y rankAsk) int { return x.from - y.from })
	var merged []rankAsk
	for _, a := range asks {
		if m := len(merged); m > 0 && merged[m-1].from == a.from {
			merged[m-1].ks = append(merged[m-1].ks, a.ks...)
			continue
		}
		merged = append(merged, rankAsk{from: a.from, ks: slices.Clone(a.ks)})
	}
	out := merged[:0]
	for _, a := range merged {
		slices.Sort(a.ks)
		a.ks = slices.Compact(a.ks)
		if len(a.ks) > 0 {
			a.out = make([]uint32, len(a.ks))
			out = append(out, a)
		}
	}
	s := &suffixRanks{seq: seq, asks: out}
	switch {
	case len(out) == 0:
	case c != nil && len(seq) > selSmall:
		selectCounted([][]uint32{seq}, c, out, tails)
	default:
		lo, hi := keyRange([][]uint32{seq})
		selectSuffixes([][]uint32{seq}, len(seq), lo, hi, out)
	}
	return s
}

// rank returns the key of rank k (0-based, in [0, len(seq)−from)) of
// seq[from:].
func (s *suffixRanks) rank(from, k int) uint32 {
	for _, a := range s.asks {
		if a.from == from {
			if i, ok := slices.BinarySearch(a.ks, k); ok {
				return a.out[i]
			}
			break
		}
	}
	var out [1]uint32
	selectKeys([][]uint32{s.seq[from:]}, len(s.seq)-from, []int{k}, out[:])
	return out[0]
}

// estimatesAsk returns the ask of estimates(from, n, ps) of a sequence of
// length: the ranks of the percentiles ps of n requests whose answered
// latencies are the sequence's from position from on.
func estimatesAsk(length, from, n int, ps []float64) rankAsk {
	a := rankAsk{from: from}
	if n == 0 {
		return a
	}
	for _, p := range ps {
		if k := NearestRank(n, p); k < length-from {
			a.ks = append(a.ks, k)
		}
	}
	return a
}

// estimates is rankEstimates(seq[from:] as float32, n, ps): the
// percentiles ps (ascending) of n requests whose answered latencies are
// seq[from:], nearest rank; +Inf on a miss, NaN for all when n is 0.
func (s *suffixRanks) estimates(from, n int, ps []float64) []float64 {
	out := make([]float64, len(ps))
	na := len(s.seq) - from
	for i, p := range ps {
		switch k := NearestRank(n, p); {
		case n == 0:
			out[i] = math.NaN()
		case k < na:
			out[i] = seconds64(math.Float32frombits(s.rank(from, k)))
		default:
			out[i] = math.Inf(1)
		}
	}
	return out
}
