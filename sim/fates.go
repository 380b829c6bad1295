package sim

import "math"

// Batched fate shares. A run that records or compares met bits (pair.go)
// counts, per class, the requests that met their target and, against a
// no-hedging baseline, those hedging rescued and harmed. When its requests
// interact (batchmeans.go) it also counts them per arrival section — four
// int64 per section and class: the requests ended, met, rescued, harmed;
// nothing per request — so that the shares get intervals from the batches
// of the fixed grid (GridFates), as the answered share does (GridShares).

// fateSections are a class's per-section counts of requests ended, met,
// rescued and harmed, at [k][0], [k][1], [k][2], [k][3] for section k: an
// array, so that a section's four counts are found with one bounds check.
type fateSections *[numSections][4]int64

// sectionFates gives p per-section counts for each of cfg's classes when
// cfg's requests interact.
func (p *pairState) sectionFates(cfg *Config) {
	if !cfg.batched() {
		return
	}
	p.sec = make([]fateSections, len(cfg.Classes))
	for i := range p.sec {
		p.sec[i] = new([numSections][4]int64)
	}
}

// countFate counts in f a request, which met its target or not, and which
// hedging rescued or harmed (compared with the baseline's bit; both false
// without one), in its arrival section, sec (request.sec: a run that
// records or compares met bits is not grown, so its sections stay those of
// its planned requests).
func countFate(f fateSections, sec uint16, met, rescued, harmed bool) {
	s := &f[sec]
	s[0]++
	if met {
		s[1]++
	}
	if rescued {
		s[2]++
	}
	if harmed {
		s[3]++
	}
}

// GridFates returns, for a class whose run counted its fates per section
// (a run that interacts and records or compares met bits), the shares of
// each batch's requests of the fixed grid over the whole run (no warm-up
// cut: the requests over which Paired counts) that met the target, were
// rescued and were harmed (NaN for a batch without requests; rescued and
// harmed are 0 unless the run compared); ok is false otherwise.
func (c *ClassResult) GridFates() (met, rescued, harmed []float64, ok bool) {
	s := c.fateSec
	if s == nil {
		return nil, nil, nil, false
	}
	var n, m, r, h [numBatches]int64
	for k := range numSections {
		b := k * numBatches / numSections
		n[b] += s[k][0]
		m[b] += s[k][1]
		r[b] += s[k][2]
		h[b] += s[k][3]
	}
	share := func(k *[numBatches]int64) []float64 {
		out := make([]float64, numBatches)
		for b := range out {
			out[b] = math.NaN()
			if n[b] > 0 {
				out[b] = float64(k[b]) / float64(n[b])
			}
		}
		return out
	}
	return share(&m), share(&r), share(&h), true
}
