package sim

// The warm-up cut. A run starts empty: in a loaded system (a queue, a rate
// limit, a breaker, a pool, closed-loop clients) its first requests see no
// queue and answer faster than the steady state, biasing every figure low.
// The cut is found on the arrival-ordered series of section means — the
// mean time until requests ended (answer or miss) of each of the run's
// numSections arrival sections (batchmeans.go) — by White's Marginal
// Standard Error Rule (White, "An effective truncation heuristic for bias
// reduction in simulation output", Simulation 69(6), 1997): of the k
// section means Y₁…Y_k, drop the first d, where d minimises
//
//	MSER(d) = Σ_{i>d} (Y_i − Ȳ_d)² / (k − d)²,  Ȳ_d = mean of Y_{d+1}…Y_k,
//
// over 0 ≤ d ≤ k/2 (a minimum in the second half signals a run too short to
// trust, and is not taken). MSER-5 applies the rule to means of 5
// observations; here a section holds Requests/numSections requests (5 at
// 5000 requests), the same rule on coarser means, which is what keeps its
// cost O(numSections) whatever the run's length. It runs once per report
// row, after the run, in O(n) to form the section means and O(k) for the
// rule; it costs the event loop nothing.

// mserCut returns d, the number of leading values of ys to drop by MSER
// (see above); 0 when ys has fewer than 4 values.
func mserCut(ys []float64) int {
	k := len(ys)
	if k < 4 {
		return 0
	}
	// Suffix sums of y and y² give every MSER(d) in O(1).
	var s, s2 float64
	best, bestD := 0.0, 0
	suf := make([]float64, 2*(k+1))
	for i := k - 1; i >= 0; i-- {
		s += ys[i]
		s2 += ys[i] * ys[i]
		suf[2*i], suf[2*i+1] = s, s2
	}
	for d := 0; d <= k/2; d++ {
		m := float64(k - d)
		sum, sq := suf[2*d], suf[2*d+1]
		ss := sq - sum*sum/m // Σ (Y_i − Ȳ_d)² over i > d
		if ss < 0 {
			ss = 0
		}
		v := ss / (m * m)
		if d == 0 || v < best {
			best, bestD = v, d
		}
	}
	return bestD
}
