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

// streams hands out the PCG stream for a (request, stream) key. It owns one
// PCG and reseeds it, so drawing from a new stream allocates nothing.
type streams struct {
	seed uint64
	pcg  rand.PCG
}

// at reseeds the generator for request i, stream s and returns it.
func (st *streams) at(i int64, s uint8) *rand.PCG {
	st.pcg.Seed(splitmix64(st.seed^splitmix64(uint64(i))), splitmix64(uint64(s)<<56|uint64(i)))
	return &st.pcg
}

// uniform returns a float64 in [0, 1) from src (53 random bits).
func uniform(src rand.Source) float64 {
	return float64(src.Uint64()>>11) / (1 << 53)
}
