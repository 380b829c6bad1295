package sim

// EstimateMemory returns about how many bytes one Run of cfg holds at its
// peak: 24 bytes per request with one class, 36 with several, plus 16 MiB.
// The per-request part is each request's latency — recorded as it ends,
// sorted in place and returned in seconds (8 bytes) — the radix sort's
// scratch space for it (8 bytes, freed after the sort), and the garbage
// collector's headroom; several classes add the overall result's merged
// latencies. Requests in flight take far less in every shipped scenario
// and are not counted. The figures are peak resident set sizes of
// `hedgesim run` (the hedged run and its baseline at once) measured at 4·10⁶
// and 10⁷ requests, rounded up.
func EstimateMemory(cfg *Config) int64 {
	per := int64(24)
	if len(cfg.Classes) > 1 {
		per = 36
	}
	return per*int64(cfg.Requests) + 16<<20
}
