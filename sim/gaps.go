package sim

import "time"

// gapSum returns the sum of the Poisson gaps before requests from to
// to−1 (poissonGap's, seeded as streams.at seeds the arrival stream,
// without a call per gap): where a range of a split run starts.
func (e *engine) gapSum(from, to int64) time.Duration {
	g, z, rate := &e.rng.gen, e.exp, e.cfg.Arrivals.Rate
	var sum time.Duration
	for i := from; i < to; i++ {
		g.s = e.rng.key(splitmix64(uint64(i)), arrivalStream)
		x, ok := z.first(g.Uint64()) // expFloat64, its first step inline
		if !ok {
			x = g.expSlow()
		}
		sum += seconds(x / rate)
	}
	return sum
}
