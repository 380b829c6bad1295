package sim

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"
)

// Latencies are stored as float32 seconds, 4 bytes per request, rounded to
// the nearest float32: a relative error of at most 2⁻²⁴ (6·10⁻⁸; 0.18 µs on
// 3 s, 60 µs on 1000 s) over the whole range of durations, so no latency
// saturates. Non-negative float32 values order exactly as their bit
// patterns do as uint32, which the selection below relies on.

// toSeconds32 rounds a non-negative duration to float32 seconds (d.Seconds()
// rounded, found as posSeconds does: no sign to correct).
func toSeconds32(d time.Duration) float32 { return float32(posSeconds(d)) }

// seconds64 returns the stored latency x as the float64 the reports show:
// the shortest decimal that reads back as x in float32 (so 1.2345679, not
// 1.2345678806304932). It is within 2⁻²⁴·x of x, hence within 2⁻²³ of the
// simulated duration relative to it, and strictly increasing in x.
//
// The decimal's digits, at most 9, are read as an integer m and a power
// of ten 10ᵉ; for |e| ≤ 22 both are exact in float64, so m·10ᵉ (or
// m/10⁻ᵉ) rounded once is the float64 nearest the decimal, which is what
// strconv.ParseFloat returns (its own exact case, atof64exact); others go
// through ParseFloat (TestSeconds64SameAsParse).
func seconds64(x float32) float64 {
	if math.IsInf(float64(x), 0) {
		return float64(x)
	}
	var buf [24]byte
	b := strconv.AppendFloat(buf[:0], float64(x), 'e', -1, 32)
	if v, ok := exactDecimal(b); ok {
		return v
	}
	v, _ := strconv.ParseFloat(string(b), 64)
	return v
}

// pow10s are the powers of ten exact in float64, 10⁰ … 10²².
var pow10s = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactDecimal returns the float64 nearest the decimal b, written as
// strconv's 'e' format writes a non-negative number (d[.ddd]e±dd), when
// its digits (at most 15) make an integer m < 2⁵³ and its value is m·10ᵉ
// with |e| ≤ 22: one multiplication or division of exact operands, so
// rounded once. ok is false for any other b.
func exactDecimal(b []byte) (v float64, ok bool) {
	var m uint64
	digits, frac, i := 0, 0, 0
	point := false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if point {
				frac++
			}
			continue
		case c == '.' && !point:
			point = true
			continue
		}
		break
	}
	if digits == 0 || digits > 15 || i+2 >= len(b) || b[i] != 'e' || (b[i+1] != '+' && b[i+1] != '-') {
		return 0, false
	}
	exp := 0
	for _, c := range b[i+2:] {
		if c < '0' || c > '9' || exp > 1000 {
			return 0, false
		}
		exp = exp*10 + int(c-'0')
	}
	if b[i+1] == '-' {
		exp = -exp
	}
	exp -= frac
	switch f := float64(m); {
	case exp >= 0 && exp < len(pow10s):
		return f * pow10s[exp], true
	case exp < 0 && -exp < len(pow10s):
		return f / pow10s[-exp], true
	}
	return 0, false
}

// endTimes collects one class's request latencies in float32 seconds as
// requests end: times to a usable answer from the front of buf, misses'
// times until they ended from the back, so one buffer sized for the
// class's requests holds both, whatever the share of misses.
type endTimes struct {
	buf  []float32
	a, m int // answered at buf[:a], misses at buf[len(buf)−m:]
	// sumA and sumM are the exact sums of the durations recorded; maxA and
	// maxM the largest answered one and the largest missed one (the
	// largest of all is the larger: addTimes), so that an answer updates
	// one.
	sumA, sumM wideSum
	maxA, maxM time.Duration
	// sqA and sqM are the exact sums of the squares of the answered and
	// the missed durations in µs² (intervals.go; the misses' for a
	// pipeline's end-to-end mean, endView).
	sqA, sqM wideSum
	// sec, parallel to buf, is each request's arrival section, and
	// secLast each section's last arrival (batchmeans.go); nil unless the
	// run batches its intervals.
	sec     []uint16
	secLast []time.Duration
	// secBill is each section's cost in USD, of attempts that responded
	// at [2k] and of cancelled ones at [2k+1]; nil unless sec is set.
	secBill []float64
	// noCut says whether a warm-up is cut (cutByMSER) and, when none is
	// though the sections are batched, why (Config.warmUpCut).
	noCut noCut
}

// newEndTimes returns an endTimes with room for n requests.
func newEndTimes(n int) endTimes { return endTimes{buf: make([]float32, max(n, 16))} }

// sizeTimes gives each class of e room for the latencies of its share of n
// requests, 5 % more and 16 beyond (more grows the buffer).
func (e *engine) sizeTimes(n int) {
	for i, c := range e.cfg.Classes {
		e.stats[i].times = newEndTimes(int(float64(n)*c.Share*1.05) + 16)
		if e.batched && i < e.users {
			e.stats[i].times.sectioned()
			e.stats[i].times.noCut = e.cfg.warmUpCut()
		}
	}
}

// add records the duration d ≥ 0 of a request: the time to its usable
// answer when answered, otherwise the time until it ended.
func (t *endTimes) add(d time.Duration, answered bool) {
	if t.a+t.m == len(t.buf) {
		t.grow()
	}
	x := toSeconds32(d)
	if answered {
		t.buf[t.a] = x
		t.a++
		t.sumA.add(d)
		t.sqA.addSquare(d)
		t.maxA = max(t.maxA, d)
	} else {
		t.m++
		t.buf[len(t.buf)-t.m] = x
		t.sumM.add(d)
		t.sqM.addSquare(d)
		t.maxM = max(t.maxM, d)
	}
}

// addAt is add for a request of arrival section sec that arrived at
// arrival, in one call: a run that batches its intervals (t.sec != nil)
// also books the section, any other ignores sec and arrival. answer
// (exit.go) takes its steps for an answer inline: a change here goes
// there too.
func (t *endTimes) addAt(d time.Duration, answered bool, sec uint16, arrival time.Duration) {
	if t.a+t.m == len(t.buf) {
		t.grow()
	}
	x := toSeconds32(d)
	var i int
	if answered {
		i = t.a
		t.a++
		t.sumA.add(d)
		t.sqA.addSquare(d)
		t.maxA = max(t.maxA, d)
	} else {
		t.m++
		i = len(t.buf) - t.m
		t.sumM.add(d)
		t.sqM.addSquare(d)
		t.maxM = max(t.maxM, d)
	}
	t.buf[i] = x
	if t.sec != nil {
		t.sec[i] = sec
		t.secLast[sec] = max(t.secLast[sec], arrival)
	}
}

// grow doubles the buffer, keeping both ends.
func (t *endTimes) grow() {
	nb := make([]float32, 2*len(t.buf))
	copy(nb, t.buf[:t.a])
	copy(nb[len(nb)-t.m:], t.buf[len(t.buf)-t.m:])
	t.buf = nb
	if t.sec != nil {
		ns := make([]uint16, len(nb))
		copy(ns, t.sec[:t.a])
		copy(ns[len(ns)-t.m:], t.sec[len(t.sec)-t.m:])
		t.sec = ns
	}
}

// answered and misses return the two ends.
func (t *endTimes) answered() []float32 { return t.buf[:t.a] }
func (t *endTimes) misses() []float32   { return t.buf[len(t.buf)-t.m:] }

// answeredSec and missSec return the sections of the two ends (nil
// without sections).
func (t *endTimes) answeredSec() []uint16 {
	if t.sec == nil {
		return nil
	}
	return t.sec[:t.a]
}
func (t *endTimes) missSec() []uint16 {
	if t.sec == nil {
		return nil
	}
	return t.sec[len(t.sec)-t.m:]
}

// latencySet is the latencies of a class (or of all classes) after a run:
// the answered requests' times to a usable answer and the misses' times
// until they ended, each as float32 seconds in parts of any order (one per
// class, per range of a split run), with exact sums and maxima.
type latencySet struct {
	ans, miss    [][]float32
	na, nm       int
	sumA, sumM   wideSum
	maxA, maxAll time.Duration
	sqA, sqM     wideSum // endTimes.sqA, sqM
	// ansSec and missSec are the arrival sections of ans and miss, part
	// by part, and secLast each section's last arrival, when every part
	// has them (batchmeans.go); nil otherwise.
	ansSec, missSec [][]uint16
	secLast         []time.Duration
	unsectioned     bool // a part without sections was added
	// secBill sums the parts' endTimes.secBill; unbilled is set when a
	// sectioned part without it was added.
	secBill  []float64
	unbilled bool
	noCut    noCut // endTimes.noCut, of any part that cuts none
}

// addTimes adds one collection's latencies to s (sharing its memory).
func (s *latencySet) addTimes(t *endTimes) {
	o := latencySet{
		ans: [][]float32{t.answered()}, miss: [][]float32{t.misses()},
		na: t.a, nm: t.m, sumA: t.sumA, sumM: t.sumM, maxA: t.maxA, maxAll: max(t.maxA, t.maxM),
		sqA: t.sqA, sqM: t.sqM, unsectioned: t.sec == nil, noCut: t.noCut,
	}
	if t.sec != nil {
		o.ansSec, o.missSec, o.secLast = [][]uint16{t.answeredSec()}, [][]uint16{t.missSec()}, t.secLast
		o.secBill, o.unbilled = t.secBill, t.secBill == nil
	}
	s.addParts(o)
}

// addParts adds o's parts and totals to s (sharing their memory).
func (s *latencySet) addParts(o latencySet) {
	s.addSections(o)
	s.noCut = max(s.noCut, o.noCut)
	for _, p := range o.ans {
		if len(p) > 0 {
			s.ans = append(s.ans, p)
		}
	}
	for _, p := range o.miss {
		if len(p) > 0 {
			s.miss = append(s.miss, p)
		}
	}
	s.na += o.na
	s.nm += o.nm
	s.sumA.addSum(o.sumA)
	s.sumM.addSum(o.sumM)
	s.sqA.addSum(o.sqA)
	s.sqM.addSum(o.sqM)
	s.maxA = max(s.maxA, o.maxA)
	s.maxAll = max(s.maxAll, o.maxAll)
}

// n returns the number of requests.
func (s *latencySet) n() int { return s.na + s.nm }

// ranks returns the order statistics of ranks ks (0-based, ascending, each
// in [0, n)) of the time to a usable answer, in seconds as seconds64 gives
// them: a rank at or past the answered requests is a miss, +Inf.
func (s *latencySet) ranks(ks []int) []float64 {
	out := make([]float64, len(ks))
	j := 0
	for j < len(ks) && ks[j] < s.na {
		j++
	}
	for i, x := range selectRanks(s.ans, ks[:j]) {
		out[i] = seconds64(x)
	}
	for i := j; i < len(ks); i++ {
		out[i] = math.Inf(1)
	}
	return out
}

// endRanks returns the order statistics of ranks ks (0-based, ascending,
// in [0, n)) of the time until requests ended, answered or not, in seconds.
func (s *latencySet) endRanks(ks []int) []float64 {
	parts := append(slices.Clip(s.ans), s.miss...)
	out := make([]float64, len(ks))
	for i, x := range selectRanks(parts, ks) {
		out[i] = seconds64(x)
	}
	return out
}

// sorted returns every request's time to a usable answer, ascending, in
// seconds (+Inf for a miss), and the misses' end times, ascending.
func (s *latencySet) sorted() (lat, missEnds []float64) {
	lat = make([]float64, 0, s.n())
	for _, p := range s.ans {
		for _, x := range p {
			lat = append(lat, seconds64(x))
		}
	}
	slices.Sort(lat)
	for range s.nm {
		lat = append(lat, math.Inf(1))
	}
	missEnds = make([]float64, 0, s.nm)
	for _, p := range s.miss {
		for _, x := range p {
			missEnds = append(missEnds, seconds64(x))
		}
	}
	slices.Sort(missEnds)
	return lat, missEnds
}

// countAtLeast returns how many requests, answered or not, ended at least
// t seconds (as stored, in float32) after their arrival.
func (s *latencySet) countAtLeast(t float32) int {
	n := 0
	for _, parts := range [][][]float32{s.ans, s.miss} {
		for _, p := range parts {
			for _, x := range p {
				if x >= t {
					n++
				}
			}
		}
	}
	return n
}

// countAtMost returns how many answered requests took at most t seconds
// (as stored, in float32).
func (s *latencySet) countAtMost(t float64) int {
	n := 0
	for _, p := range s.ans {
		for _, x := range p {
			if float64(x) <= t {
				n++
			}
		}
	}
	return n
}

// Selection. The stored values are never sorted or moved; the ranks are
// selected in a copy of at most the few values that can hold them, or of
// all of them when they are few (up to selCopy). When the ranks asked lie
// close together (a report's p95 and p99, a batch's, the levels around a
// linearised percentile: selectSampled), a sample of the values taken at
// even strides and sorted gives a window of values that holds the ranks
// unless the sample misled (its ends three standard deviations of the
// sample's count beyond where the ranks are expected, as Floyd and Rivest
// choose theirs); one pass counts the values below the window and those
// at its lower end, and copies those inside it above that end (a few per
// cent of them), the counts tell exactly
// whether every rank lies inside and at which rank there, and a
// quickselect in the copy finds them (selectInPlace). Ranks spread apart,
// or a window that missed, are selected by a quickselect in a copy of all
// the values when they are few, else by a most-significant-digit radix
// select: three passes over the values that count their bits
// (selectRadix). Many ranks (a survival curve's) are selected together by
// counting the values in buckets of their range and sorting only the
// buckets that hold ranks (selectSorted, suffixranks.go; by the radix
// select when the values are very many); a batched summary also finds so
// the ranks of the latencies from a section on (suffixRanks). Every path
// orders the
// values by their bit patterns as uint32, which is their order as numbers
// for the values stored (≥ 0, not NaN), so the values returned are the
// exact order statistics whichever path found them.
const (
	// selSort is the size up to which a selection skips the windows.
	selSort = 256
	// selSmall is the size up to which many ranks are selected by sorting
	// a copy rather than by the radix select (whose counts cost about as
	// much as sorting 512 keys).
	selSmall = 512
	// selMaxWindows is the most ranks a selection puts in a window or
	// selects by quickselect.
	selMaxWindows = 16
	// selCopy is the most values a selection of few ranks copies whole
	// (256 KiB): more are left where they lie, for the radix select.
	selCopy = 1 << 16
	// selSortCopy is the most values a selection of many ranks counts in
	// buckets (selectSorted, which copies those of the buckets holding
	// ranks: at most all, 4 MiB): more are left where they lie, for the
	// radix select.
	selSortCopy = 1 << 20
)

// selectRanks returns the values of ranks ks (0-based, ascending, each in
// [0, n) for the n values in parts together, which must be ≥ 0 and not
// NaN) of the union of parts, without changing parts.
func selectRanks(parts [][]float32, ks []int) []float32 {
	if len(ks) == 0 {
		return nil
	}
	keys := make([][]uint32, len(parts))
	n := 0
	for i, p := range parts {
		keys[i] = float32Bits(p)
		n += len(p)
	}
	out := make([]uint32, len(ks))
	selectKeys(keys, n, ks, out)
	res := make([]float32, len(ks))
	for i, k := range out {
		res[i] = math.Float32frombits(k)
	}
	return res
}

// float32Bits returns p's values as their bit patterns, sharing p's memory
// (read only).
func float32Bits(p []float32) []uint32 {
	if len(p) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(p))), len(p))
}

// selectKeys sets out[i] to the key of rank ks[i] (ascending, in [0, n))
// of the n keys in parts, ordered as uint32.
func selectKeys(parts [][]uint32, n int, ks []int, out []uint32) {
	// Ranks more than a quarter of the keys apart cannot share a window.
	spread := 4*(ks[len(ks)-1]-ks[0]) > n
	if n <= selSort || len(ks) > selMaxWindows || spread || !selectSampled(parts, n, ks, out) {
		selectPlain(parts, n, ks, out)
	}
}

// selectPlain is selectKeys without windows: for a few ranks by selecting
// in place in a copy of the keys, for many by sorting a copy when the keys
// are few and by the radix select otherwise.
func selectPlain(parts [][]uint32, n int, ks []int, out []uint32) {
	if n > selSmall && len(ks) > selMaxWindows && n <= selSortCopy {
		selectSorted(parts, n, ks, out)
		return
	}
	if n > selSmall && len(ks) > selMaxWindows || n > selCopy {
		selectRadix(parts, ks, out)
		return
	}
	scratch := getSelScratch(n)
	defer selScratch.Put(scratch)
	all := (*scratch)[:0:n]
	for _, p := range parts {
		all = append(all, p...)
	}
	if len(ks) > selMaxWindows {
		slices.Sort(all)
		for i, k := range ks {
			out[i] = all[k]
		}
		return
	}
	selectInPlace(all, slices.Clone(ks), out, 2*bits.Len(uint(n)))
}

// selectInPlace sets out[i] to the key of rank ks[i] (ascending, in
// [0, len(a))) of a, reordering a and ks: a quickselect for every rank at
// once (Hoare's partition around the median of three), which sorts what
// is left after depth partitions.
func selectInPlace(a []uint32, ks []int, out []uint32, depth int) {
	for len(ks) > 0 {
		if len(a) <= 48 || depth == 0 {
			slices.Sort(a)
			for i, k := range ks {
				out[i] = a[k]
			}
			return
		}
		depth--
		m, l := len(a)/2, len(a)-1
		if a[m] < a[0] {
			a[m], a[0] = a[0], a[m]
		}
		if a[l] < a[0] {
			a[l], a[0] = a[0], a[l]
		}
		if a[l] < a[m] {
			a[l], a[m] = a[m], a[l]
		}
		a[0], a[m] = a[m], a[0]
		x := a[0]
		i, j := -1, len(a)
		// The scans read without bounds checks, as each stops inside a:
		// going down at a[0] (the pivot) at the latest, or at the key last
		// swapped below; going up at the pivot itself (the first scan) or
		// at the key last swapped above.
		at := func(i int) uint32 { return *(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(a)), 4*i)) }
		for {
			for j--; at(j) > x; j-- {
			}
			for i++; at(i) < x; i++ {
			}
			if i >= j {
				break
			}
			a[i], a[j] = a[j], a[i]
		}
		// a[:j+1] ≤ x ≤ a[j+1:], with 0 ≤ j < len(a)−1.
		split := j + 1
		c, _ := slices.BinarySearch(ks, split)
		selectInPlace(a[:split], ks[:c], out[:c], depth)
		a, ks, out = a[split:], ks[c:], out[c:]
		for i := range ks {
			ks[i] -= split
		}
	}
}

// selectSorted is selectKeys for many ranks: the ranks are selected
// together by counting the keys in buckets of their range and sorting
// only the few buckets that hold ranks (selectSuffixes, with one suffix,
// the whole).
func selectSorted(parts [][]uint32, n int, ks []int, out []uint32) {
	lo, hi := keyRange(parts)
	u := slices.Clone(ks)
	u = slices.Compact(u)
	a := []rankAsk{{ks: u, out: make([]uint32, len(u))}}
	selectSuffixes(parts, n, lo, hi, a)
	for i, j := 0, 0; i < len(ks); i++ {
		for u[j] != ks[i] {
			j++
		}
		out[i] = a[0].out[j]
	}
}

// selWindow is a window of a sampled selection: the keys in [lo, hi]
// (either end open when the window reaches past the sample's), which hold
// ranks ks[first:last] unless the sample misled.
type selWindow struct {
	jlo, jhi     int // the window's ends in the sorted sample
	lo, hi       uint32
	open0, open1 bool // no lower (open0) or upper (open1) end
	first, last  int
}

// selectSampled is selectKeys through windows of a sorted sample (see
// above); it reports false, with out unset, when a window misses its rank
// or when windows would hold more than half the keys.
func selectSampled(parts [][]uint32, n int, ks []int, out []uint32) bool {
	// The sample: s keys at even strides, about n^(2/3)/2 of them
	// (Floyd & Rivest's choice).
	s := min(max(int(0.5*math.Pow(float64(n), 2.0/3)), 32), 8192)
	sample := make([]uint32, s)
	i, base := 0, 0
	for _, p := range parts {
		for ; i < s; i++ {
			t := (2*i+1)*n/(2*s) - base
			if t >= len(p) {
				break
			}
			sample[i] = p[t]
		}
		base += len(p)
	}
	slices.Sort(sample)
	// Each rank's window: the sample positions within three standard
	// deviations (and two places) of where the rank's key is expected,
	// its count of sample keys below being binomial(s, (k+½)/n); windows
	// that meet are merged.
	ws := make([]selWindow, 0, len(ks))
	for i, k := range ks {
		p := (float64(k) + 0.5) / float64(n)
		c := p * float64(s)
		d := 3*math.Sqrt(float64(s)*p*(1-p)) + 2
		jlo, jhi := int(math.Floor(c-d)), int(math.Ceil(c+d))
		if m := len(ws); m > 0 && jlo <= ws[m-1].jhi+1 {
			ws[m-1].jhi = max(ws[m-1].jhi, jhi)
			ws[m-1].last = i + 1
			continue
		}
		ws = append(ws, selWindow{jlo: jlo, jhi: jhi, first: i, last: i + 1})
	}
	span := 0
	for i := range ws {
		w := &ws[i]
		w.open0, w.open1 = w.jlo <= 0, w.jhi >= s-1
		w.jlo, w.jhi = max(w.jlo, 0), min(w.jhi, s-1)
		w.lo, w.hi = sample[w.jlo], sample[w.jhi]
		if w.hi == math.MaxUint32 {
			w.open1 = true
		}
		span += w.jhi - w.jlo + 1
	}
	// Windows whose keys meet (ties in the sample) are merged too.
	m := 0
	for i := 1; i < len(ws); i++ {
		if ws[m].open1 || ws[i].open0 || ws[i].lo <= ws[m].hi+1 {
			ws[m].jhi, ws[m].hi, ws[m].open1, ws[m].last = ws[i].jhi, ws[i].hi, ws[i].open1, ws[i].last
			continue
		}
		m++
		ws[m] = ws[i]
	}
	ws = ws[:m+1]
	// One window pays (one cheap pass); several, or a wide one, would
	// cost more than the radix select's passes.
	if len(ws) > 1 || 2*span > s {
		return false
	}
	// One pass over the keys: those below the window and above it are
	// counted, and those at its lower end; those inside it above that end
	// copied. The keys at the lower end are counted, not copied, so that a
	// window that starts at a value many keys share (a queue wait of 0, a
	// floor) holds no more than the others above it. A window holds at
	// most 1.5 times the keys expected in it: beyond that, keys are only
	// counted, and the sampled selection gives up.
	w := ws[0]
	want := (w.jhi - w.jlo + 1) * n / s
	c := min(want+want/2+64, n)
	scratch := getSelScratch(c)
	defer selScratch.Put(scratch)
	buf := (*scratch)[:0:c]
	lo, hi := w.lo, w.hi
	if w.open0 {
		lo = 0
	}
	// Only the keys on the window's rarer side are counted (above it when
	// it lies in the sample's upper half, none when it is open there); the
	// keys below it are the rest.
	var below, at, above, more int
	switch {
	case w.open1:
		for _, p := range parts {
			for _, k := range p {
				switch {
				case k < lo:
				case k == lo:
					at++
				case len(buf) < cap(buf):
					buf = append(buf, k)
				default:
					more++
				}
			}
		}
	case 2*w.jlo >= s:
		for _, p := range parts {
			for _, k := range p {
				switch {
				case k < lo:
				case k > hi:
					above++
				case k == lo:
					at++
				case len(buf) < cap(buf):
					buf = append(buf, k)
				default:
					more++
				}
			}
		}
	default:
		for _, p := range parts {
			for _, k := range p {
				switch {
				case k < lo:
					below++
				case k > hi:
				case k == lo:
					at++
				case len(buf) < cap(buf):
					buf = append(buf, k)
				default:
					more++
				}
			}
		}
		above = n - below - at - len(buf) - more
	}
	below = n - above - at - len(buf) - more
	if more > 0 {
		return false
	}
	// Each rank's place in the window, checked exactly: at its lower end
	// (the first ranks), or among the keys copied.
	rel := make([]int, 0, len(ks))
	for i, k := range ks {
		r := k - below
		switch {
		case r < 0 || r >= at+len(buf):
			return false
		case r < at:
			out[i] = lo
		default:
			rel = append(rel, r-at)
		}
	}
	if len(rel) > 0 {
		m := len(ks) - len(rel)
		selectInPlace(buf, rel, out[m:], 2*bits.Len(uint(len(buf))))
	}
	return true
}

// selScratch holds the windows' buffers of finished selections, for the
// next (as a *[]uint32).
var selScratch sync.Pool

// getSelScratch returns a buffer of at least n keys from selScratch, or a
// new one.
func getSelScratch(n int) *[]uint32 {
	if b, ok := selScratch.Get().(*[]uint32); ok && cap(*b) >= n {
		*b = (*b)[:cap(*b)]
		return b
	}
	b := make([]uint32, n)
	return &b
}

// The radix select finds the k-th smallest of n keys by their bits, in
// three passes over the data: a histogram of the top 11 bits locates each
// wanted rank's bucket and its rank within it; a histogram of the next 11
// bits, kept only for those buckets, narrows it further; one of the last
// 10 bits, only for the sub-buckets then wanted, gives the key. The counts
// kept are 2048 per wanted bucket at most, so any number of ranks costs
// three O(n) passes and O(ranks) KiB.
const (
	selShift1, selShift2 = 21, 10
	selMask2, selMask3   = 1<<11 - 1, 1<<10 - 1
)

// selectRadix is selectKeys by the radix select.
func selectRadix(parts [][]uint32, ks []int, out []uint32) {
	// Pass 1: top 11 bits of every key.
	var h1 [1 << 11]uint32
	for _, p := range parts {
		for _, k := range p {
			h1[k>>selShift1]++
		}
	}
	// Each rank's bucket (b1) and rank within it (r); g1 numbers the
	// distinct buckets wanted.
	type want struct {
		b1, b2 uint32
		r      int
		g1, g2 int
	}
	ws := make([]want, len(ks))
	var mark1 [1 << 11]int16
	for i := range mark1 {
		mark1[i] = -1
	}
	var g1s []uint32
	{
		b, below := 0, 0
		for i, k := range ks {
			for below+int(h1[b]) <= k {
				below += int(h1[b])
				b++
			}
			if mark1[b] < 0 {
				mark1[b] = int16(len(g1s))
				g1s = append(g1s, uint32(b))
			}
			ws[i] = want{b1: uint32(b), r: k - below, g1: int(mark1[b])}
		}
	}

	// Pass 2: the next 11 bits of values in wanted buckets.
	h2 := make([][1 << 11]uint32, len(g1s))
	for _, p := range parts {
		for _, k := range p {
			if g := mark1[k>>selShift1]; g >= 0 {
				h2[g][(k>>selShift2)&selMask2]++
			}
		}
	}
	// idx2[g1][b2] numbers the distinct (b1, b2) sub-buckets wanted.
	idx2 := make([][1 << 11]int32, len(g1s))
	for g := range idx2 {
		for i := range idx2[g] {
			idx2[g][i] = -1
		}
	}
	ng2 := 0
	for i := range ws {
		w := &ws[i]
		h := &h2[w.g1]
		b, below := 0, 0
		for below+int(h[b]) <= w.r {
			below += int(h[b])
			b++
		}
		w.b2, w.r = uint32(b), w.r-below
		if idx2[w.g1][b] < 0 {
			idx2[w.g1][b] = int32(ng2)
			ng2++
		}
		w.g2 = int(idx2[w.g1][b])
	}

	// Pass 3: the last 10 bits of values in wanted sub-buckets.
	h3 := make([][1 << 10]uint32, ng2)
	for _, p := range parts {
		for _, k := range p {
			if g := mark1[k>>selShift1]; g >= 0 {
				if g2 := idx2[g][(k>>selShift2)&selMask2]; g2 >= 0 {
					h3[g2][k&selMask3]++
				}
			}
		}
	}
	for i := range ws {
		w := &ws[i]
		h := &h3[w.g2]
		b, below := 0, 0
		for below+int(h[b]) <= w.r {
			below += int(h[b])
			b++
		}
		out[i] = w.b1<<selShift1 | w.b2<<selShift2 | uint32(b)
	}
}
