package sim

// EstimateMemory returns about how many bytes one Run of cfg holds at its
// peak: 5 bytes per request, plus 16 MiB. The per-request part is each
// request's latency, recorded as it ends as float32 seconds (4 bytes) in a
// buffer per class sized for the class's share of the requests and 5 %
// more; percentiles are selected from those buffers in place, so there is
// no sorted copy, scratch space or merged overall list, whatever the
// number of classes, and a run split into ranges (RunSplit) holds the same
// total. Requests in flight take far less in every shipped scenario and
// are not counted. The figures are rounded up from peak resident set sizes
// of `hedgesim run` (the hedged run and its baseline at once: about 8 bytes
// per request and 19 MB in all) at 10⁶ to 2·10⁷ requests, with one class
// and with several.
func EstimateMemory(cfg *Config) int64 {
	return 5*int64(cfg.Requests) + 16<<20
}
