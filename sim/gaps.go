package sim

import "time"

// gapBatchLen is how many Poisson gaps the lane draws at a time.
const gapBatchLen = 64

// gapBatch holds the Poisson gaps before requests from, from+1, … drawn
// ahead of their requests, with the hash of each request index (the key
// its streams share, see streams.at). Each gap is poissonGap's, from its
// own stream, so drawing them ahead changes no value; drawing them in a
// loop of their own lets the processor overlap the draws, which the
// request's branches otherwise keep apart.
type gapBatch struct {
	from int64
	n    int
	gen  splitMix // the generator the gaps are drawn with
	gap  [gapBatchLen]time.Duration
	hash [gapBatchLen]uint64
}

// laneArrival is arrivalTime on the lane: the arrival time of request
// e.next, with Poisson gaps taken from e.gaps.
func (e *engine) laneArrival() time.Duration {
	if e.cfg.Arrivals.Process != Poisson {
		return e.arrivalTime()
	}
	b := &e.gaps
	j := e.next - b.from
	if uint64(j) >= uint64(b.n) {
		b.fill(e, e.next)
		j = 0
	}
	// The request's streams start from the hash its gap's stream used.
	e.rng.last, e.rng.hash = uint64(e.next), b.hash[j]
	at := e.lastArr + b.gap[j]
	e.lastArr = at
	return at
}

// fill draws the gaps of requests from to from+gapBatchLen−1, or to the
// engine's last request: poissonGap's, seeded as streams.at seeds the
// arrival stream, without a call per gap (as gapSum).
func (b *gapBatch) fill(e *engine, from int64) {
	b.from, b.n = from, int(min(gapBatchLen, e.end-from))
	z, rate := e.exp, e.cfg.Arrivals.Rate
	for j := range b.n {
		h := splitmix64(uint64(from + int64(j)))
		b.gen.s = e.rng.key(h, arrivalStream)
		b.gap[j] = seconds(b.gen.expFloat64(z) / rate)
		b.hash[j] = h
	}
}

// gapSum returns the sum of the Poisson gaps before requests from to
// to−1, drawn as fill draws them: where a range of a split run starts.
func (e *engine) gapSum(from, to int64) time.Duration {
	g, z, rate := &e.gaps.gen, e.exp, e.cfg.Arrivals.Rate
	var sum time.Duration
	for i := from; i < to; i++ {
		g.s = e.rng.key(splitmix64(uint64(i)), arrivalStream)
		sum += seconds(g.expFloat64(z) / rate)
	}
	return sum
}
