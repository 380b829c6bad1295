package sim

import (
	"math"

	"github.com/hedgesim/hedgesim/dist"
)

// EstimateMemory returns about how many bytes one Run of cfg holds at its
// peak: 5 bytes per request, 176 bytes per closed-loop client and 6144 per
// request they can have in flight at once, plus 16 MiB. The per-request part is each
// request's latency, recorded as it ends as float32 seconds (4 bytes) in a
// buffer per class sized for the class's share of the requests and 5 %
// more; percentiles are selected from those buffers in place, so there is
// no sorted copy, scratch space or merged overall list, whatever the
// number of classes, and a run split into ranges (RunSplit) holds the same
// total. Requests in flight take far less in every shipped scenario and
// are not counted. The figures are rounded up from peak resident set sizes
// of `hedgesim run` (the hedged run and its baseline at once: about 8 bytes
// per request and 19 MB in all) at 10⁶ to 2·10⁷ requests, with one class
// and with several. Every closed-loop client is held, with its first
// think on the event heap, from the start of the run, however few
// requests it gets to send: about 135 bytes per client and run measured
// (540 MB peak for 2·10⁶ clients, both runs), rounded up to 176.
// Closed-loop clients can also have as many requests in flight at once as
// there are clients (or requests, if fewer): each holds a request slot and
// its events and state, 3–6 KiB a run with the slots' spare capacity
// (2·10⁶ clients thinking 2 s on average, 2·10⁵ requests, all in flight at
// once: 1.72 GB peak for both runs against 0.51 GB at 10³ requests; the
// shipped eval-black-hole with 10⁵ and 2·10⁵ clients and as many requests:
// 1.05 GB and 2.0–2.4 GB), counted as 6144 bytes. Open arrivals keep few
// requests in flight in every shipped scenario; they are not counted.
// A pipeline class's request holds, besides its own latency, 4 bytes per
// call its steps make (each call's latency, as a request of the step's)
// and 4 per step (the step's time, for the tail attribution), and 4 more
// for the time to first visible token, counted as 6 each — the shipped
// help-chat-turn measured 55 bytes per request and run (238 MB peak for
// 2·10⁶ requests, both runs) against 40 recorded — at the class's share
// of the requests, with the mean number of iterations of repeated steps
// (meanRepeats: of the draws rounded and capped at MaxRepeat, a skipped
// step's 0 counting as 0).
// A replica pool keeps the queue wait of every attempt its replicas serve
// (4 bytes, for the p95 per replica), counted as 6 bytes per attempt a
// request of a class reaching the pool can send, its primary and every
// copy (retries are not counted): replica-pool measured 8.5 bytes per
// request for both runs together (85 MB peak for 4·10⁶ requests against
// 36 MB for 10⁶) where this counts 24.
func EstimateMemory(cfg *Config) int64 {
	clients := cfg.ClosedClients()
	return 5*int64(cfg.Requests) + 176*clients + 6144*min(clients, int64(cfg.Requests)) + pipelineBytes(cfg) + poolBytes(cfg) + 16<<20
}

// poolBytes is EstimateMemory's part for replica pools.
func poolBytes(cfg *Config) int64 {
	if !cfg.pooled() {
		return 0
	}
	pooled := map[string]bool{}
	for _, p := range cfg.Providers {
		pooled[p.Name] = p.Pool != nil
	}
	reaches := func(p *Policy) bool {
		for _, m := range append([]int{p.Primary}, p.Targets...) {
			if pooled[cfg.Models[m].Provider] {
				return true
			}
		}
		return false
	}
	var b float64
	for i := range cfg.Classes {
		c := &cfg.Classes[i]
		calls := 0.0
		if c.Pipeline == nil {
			if reaches(&c.Policy) {
				calls = float64(c.Policy.Copies + 1)
			}
		} else {
			for s := range c.Pipeline.Steps {
				st := &c.Pipeline.Steps[s]
				if !reaches(&st.Call.Policy) {
					continue
				}
				n := float64(st.FanOut)
				if st.Repeat != nil {
					n = meanRepeats(st)
				}
				calls += n * float64(st.Call.Policy.Copies+1)
			}
		}
		b += 6 * calls * c.Share * float64(cfg.Requests)
	}
	return int64(b)
}

// pipelineBytes is EstimateMemory's part for pipeline classes.
func pipelineBytes(cfg *Config) int64 {
	var b float64
	for i := range cfg.Classes {
		p := cfg.Classes[i].Pipeline
		if p == nil {
			continue
		}
		per := 6.0*float64(len(p.Steps)) + 6 // the steps' times, the checked times
		if p.visibleStep() >= 0 {
			per += 6
		}
		for s := range p.Steps {
			calls := float64(p.Steps[s].FanOut)
			if p.Steps[s].Repeat != nil {
				calls = meanRepeats(&p.Steps[s])
			}
			per += 6 * calls
		}
		b += per * cfg.Classes[i].Share * float64(cfg.Requests)
	}
	return int64(b)
}

// meanRepeats returns the mean number of iterations of repeated step st
// per request: the draw X of st.Repeat rounded to a whole number and
// capped to [0, MaxRepeat] (engine.repeats), whose mean is
// Σₖ₌₁ᴹ P(round(X) ≥ k) = Σₖ₌₁ᴹ P(X ≥ k − ½) with M = MaxRepeat (a draw of
// 0, a skipped step, counting 0). P(X ≥ t) is the survival function at
// the float64 below t, exact for draws that are float64s. A repeat
// distribution without a distribution function (not dist.Continuous)
// counts MaxRepeat, the most a request makes. O(MaxRepeat).
func meanRepeats(st *Step) float64 {
	c, ok := st.Repeat.(dist.Continuous)
	if !ok {
		return float64(st.MaxRepeat)
	}
	n := 0.0
	for k := 1; k <= st.MaxRepeat; k++ {
		p := c.Survival(math.Nextafter(float64(k)-0.5, math.Inf(-1)))
		if !(p > 0) {
			break // P(X ≥ t) only falls as t grows
		}
		n += p
	}
	return n
}

// Lane reports whether runs of cfg take the lane, the event-free path of
// independent requests on which RunPolicies, RunWithBaseline and RunSplit
// share draws and split ranges over cores (see the package doc).
func Lane(cfg *Config) bool { return cfg.laneable() }

// ClosedClients returns the number of closed-loop clients of cfg's
// classes, summed (0 when every class takes open arrivals).
func (cfg *Config) ClosedClients() int64 {
	var n int64
	for i := range cfg.Classes {
		n += int64(cfg.Classes[i].Clients)
	}
	return n
}
