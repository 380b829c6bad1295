package sim

import "math/rand/v2"

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
		st.last, st.hash = uint64(i), splitmix64(uint64(i))
	}
	st.gen.s = splitmix64(st.seed ^ st.hash ^ uint64(s)<<56)
	return &st.gen
}

// atTry reseeds the generator for try key t of request i, stream s and
// returns it; t = 0 is the stream of at(i, s).
func (st *streams) atTry(i int64, s uint8, t uint16) *splitMix {
	g := st.at(i, s)
	if t != 0 {
		g.s = splitmix64(st.seed ^ st.hash ^ uint64(s)<<56 ^ uint64(t)<<40)
	}
	return g
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

// uniform returns a float64 in [0, 1) from src (53 random bits).
func uniform(src rand.Source) float64 {
	return float64(src.Uint64()>>11) / (1 << 53)
}

// float64 returns a float64 in [0, 1) (53 random bits), as uniform does.
func (x *splitMix) float64() float64 {
	return float64(x.Uint64()>>11) / (1 << 53)
}
