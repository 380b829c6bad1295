package sim

import (
	"math/rand/v2"
	"sync"
)

// Streams of random numbers. Common random numbers: every draw of request i
// comes from a stream keyed by (seed, i, stream), where stream is the attempt
// index k for attempt k, arrivalStream for the gap before request i and
// requestStream for the request's own draws (class, token counts). Two
// policies run on one seed therefore see the same arrivals, token counts
// and, for the same target model, the same attempt draws.
const (
	arrivalStream = 0xfe
	requestStream = 0xff
)

// splitmix64 is the SplitMix64 finaliser (Steele, Lea, Flood 2014), used to
// turn structured keys into well-mixed PCG seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// streams hands out the random stream for a (request, stream) key. It owns
// one generator and reseeds it, so starting a new stream allocates nothing.
type streams struct {
	seed uint64
	gen  splitMix
	// last and hash cache splitmix64(last): a request's streams are
	// started one after another.
	last, hash uint64
}

// at reseeds the generator for request i, stream s and returns it.
func (st *streams) at(i int64, s uint8) *splitMix {
	if uint64(i) != st.last || st.hash == 0 {
		st.rehash(i)
	}
	st.gen.s = st.key(st.hash, s)
	return &st.gen
}

// rehash makes request i's the cached hash.
func (st *streams) rehash(i int64) { st.last, st.hash = uint64(i), splitmix64(uint64(i)) }

// key returns the first state of stream s of the request whose index
// hashes to h: at's seeding.
func (st *streams) key(h uint64, s uint8) uint64 { return splitmix64(st.seed ^ h ^ uint64(s)<<56) }

// keyOf returns request i's stream key, seed ^ splitmix64(i): what at
// and atTry xor a stream's and a try's bits into before the last hash
// (request.key, set once as the request arrives; from the cache when i's
// hash is the one held, as after the gap before request i was drawn).
func (st *streams) keyOf(i int64) uint64 {
	if uint64(i) != st.last || st.hash == 0 {
		st.rehash(i)
	}
	return st.seed ^ st.hash
}

// of reseeds the generator for try key t of request r, stream s and
// returns it: atTry(r.id, s, t)'s stream, from r.key, without hashing
// r.id again nor asking the cache (small enough to be inlined).
func (st *streams) of(r *request, s uint8, t uint16) *splitMix {
	st.gen.s = r.stream(s, t)
	return &st.gen
}

// stream returns the first state of stream s, try key t of r: what
// atTry(r.id, s, t) seeds its generator with (the xors commute).
func (r *request) stream(s uint8, t uint16) uint64 {
	return splitmix64(r.key ^ uint64(t)<<40 ^ uint64(s)<<56)
}

// atTry reseeds the generator for try key t of request i, stream s and
// returns it; t = 0 is the stream of at(i, s). (Seeded in one step, not
// by at and again: at's key for t = 0 is this one.) A request's own
// draws take of, from its key.
func (st *streams) atTry(i int64, s uint8, t uint16) *splitMix {
	if uint64(i) != st.last || st.hash == 0 {
		st.rehash(i)
	}
	st.gen.s = st.key(st.hash^uint64(t)<<40, s)
	return &st.gen
}

// splitMix is the SplitMix64 generator (Steele, Lea, Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014): a Weyl sequence
// through the splitmix64 finaliser. It passes BigCrush, costs about a
// nanosecond per number and is seeded by a single assignment, which suits
// one short stream per (request, attempt). Streams start at hashed,
// effectively random points of the 2⁶⁴-long sequence.
type splitMix struct{ s uint64 }

// Uint64 implements rand.Source.
func (x *splitMix) Uint64() uint64 {
	x.s += 0x9e3779b97f4a7c15
	z := x.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// skip steps x past one number without computing it: the stream then
// goes on exactly as after a call of Uint64.
func (x *splitMix) skip() { x.s += 0x9e3779b97f4a7c15 }

// skip3 steps x past three numbers, as three calls of skip.
func (x *splitMix) skip3() { x.s += 3 * 0x9e3779b97f4a7c15 % (1 << 64) }

// uniform returns a float64 in [0, 1) from src (53 random bits).
func uniform(src rand.Source) float64 {
	return float64(src.Uint64()>>11) / (1 << 53)
}

// float64 returns a float64 in [0, 1) (53 random bits), as uniform does.
func (x *splitMix) float64() float64 {
	return float64(x.Uint64()>>11) / (1 << 53)
}

// expFloat64 returns what rand.New(x).ExpFloat64() returns, leaving x where
// it does. math/rand/v2 draws by Marsaglia and Tsang's ziggurat: one
// number u, split into a layer i = bits 32–39 and j = its low 32 bits,
// and j·w[i] when j < k[i] — about 99 % of draws. That first step is done
// here, without an interface call; any other draw steps x back and calls
// math/rand/v2 itself. z is zigguratExp().
func (x *splitMix) expFloat64(z *ziggurat) float64 {
	u := x.Uint64()
	if j, i := uint32(u), uint8(u>>32); j < z.k[i] {
		return float64(j) * z.w[i]
	}
	x.s -= 0x9e3779b97f4a7c15
	return rand.New(x).ExpFloat64()
}

// ziggurat is the first step of math/rand/v2's exponential ziggurat: draw
// j·w[i] when j < k[i].
type ziggurat struct {
	k [256]uint32
	w [256]float64
}

// zigguratExp reads the first step's tables off math/rand/v2's own
// ExpFloat64, once: w[i] is its draw at i, j = 1, and k[i] the least j
// whose draw takes more than one number (the predicate j < k[i] is
// monotone in j, so a binary search finds it). Reading them rather than
// copying them keeps expFloat64 exact for whatever tables the Go release
// has.
var zigguratExp = sync.OnceValue(func() *ziggurat {
	z := new(ziggurat)
	readZiggurat(z.k[:], z.w[:], 1<<32, (*rand.Rand).ExpFloat64)
	return z
})

// readZiggurat reads the first step of one of math/rand/v2's ziggurats
// off draw (ExpFloat64 or NormFloat64), layer by layer: w[i] is its draw
// at layer i and j = 1, and k[i] the least j whose draw takes more than
// one number, found by binary search below limit (the predicate is
// monotone in j). A layer where j = 1 already takes more, or where no j
// below limit does, is left to math/rand/v2 (k[i] = 0).
func readZiggurat(k []uint32, w []float64, limit uint64, draw func(*rand.Rand) float64) {
	var src scripted
	first := func(i uint8, j uint32) (float64, bool) {
		src = scripted{u: uint64(i)<<32 | uint64(j)}
		v := draw(rand.New(&src))
		return v, src.n == 1
	}
	for i := range k {
		wi, ok := first(uint8(i), 1)
		if !ok {
			continue
		}
		lo, hi := uint64(2), limit // first(i, lo−1) takes one number; find the least j that does not
		for lo < hi {
			mid := (lo + hi) / 2
			if _, ok := first(uint8(i), uint32(mid)); ok {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo == limit {
			continue
		}
		k[i], w[i] = uint32(lo), wi
	}
}

// scripted is a rand.Source that returns u first, then 0, counting calls.
type scripted struct {
	u uint64
	n int
}

func (s *scripted) Uint64() uint64 {
	s.n++
	if s.n == 1 {
		return s.u
	}
	return 0
}
