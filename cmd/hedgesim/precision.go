package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// precisionFlags are --precision and --max-requests of run and optimize:
// double the requests until every class's p95 95 % interval and the
// overall one (run), or
// every pick's differences from no hedging and from its nearest rival
// (optimize), is within ± precision (relative), or the requests reach the
// maximum.
type precisionFlags struct {
	p   floatFlag
	max intFlag
	// resimulate makes run, and optimize, simulate again from the start
	// at each doubling even when requests are independent, for the tests
	// that compare the two ways.
	resimulate bool
	// configFor, when set, gives the configuration of a run of n
	// requests, loaded again (a replayed trace whose classes are matched
	// on its first requests: the classes' shares depend on n); each
	// doubling then simulates again from the start.
	configFor func(n int) (*sim.Config, error)
	// arrivals is, for optimize on a replayed trace, the trace's arrivals:
	// the most requests a candidate runs however many are asked, which
	// the doubling stops at and the report gives; 0 otherwise.
	arrivals int64
}

// minPrecision is the smallest --precision taken: ±0.0001 % of the p95,
// far below what any run of the simulator's limit reaches.
const minPrecision = 1e-6

func addPrecisionFlags(fs *flag.FlagSet) *precisionFlags {
	pf := &precisionFlags{}
	fs.Var(&pf.p, "precision", "double the requests (simulating only those added: run, whether requests are independent or interact, but for pipelines whose calls are independent, simulated again from the start at each doubling; optimize, for the candidates on the simulator's lane) until the p95's 95% interval (run: every class's p95 and the overall one; optimize: each pick's differences from no hedging and from its nearest rival; under objective answered, of the share answered within the target) is within ± `P` of the p95 (relative, in [1e-6, 1): 0.02 is ±2%)")
	fs.Var(&pf.max, "max-requests", "with --precision, simulate at most `N` requests (default: 32 × the requests, at most the simulator's limit and a replayed trace's arrivals)")
	return pf
}

// check returns a usage error for bad values given requests, the run's
// first requests, and sets the default maximum.
func (pf *precisionFlags) check(requests int) error {
	return pf.checkAtMost(requests, sim.MaxRequests, "the simulator's limit")
}

// checkAtMost is check with most requests allowed (the simulator's limit,
// or a replayed trace's arrivals), which limit names.
func (pf *precisionFlags) checkAtMost(requests int, most int64, limit string) error {
	if pf.max.set && !pf.p.set {
		return usageError{err: fmt.Errorf("--max-requests %d: needs --precision", pf.max.v)}
	}
	if !pf.p.set {
		return nil
	}
	if !(pf.p.v >= minPrecision && pf.p.v < 1) {
		return usageError{err: fmt.Errorf("--precision %v: must be in [%v, 1), a relative half-width such as 0.02 (%v is ±0.0001%% of the p95)", pf.p.v, minPrecision, minPrecision)}
	}
	if !pf.max.set {
		pf.max.v = min(32*int64(requests), most)
		pf.max.v = max(pf.max.v, int64(requests))
		return nil
	}
	if int64(requests) > most && pf.max.v != int64(requests) {
		return usageError{err: fmt.Errorf("--max-requests %d: the run's %d requests already exceed %s, so --precision cannot double them: leave --max-requests out", pf.max.v, requests, limit)}
	}
	if pf.max.v < int64(requests) || pf.max.v > max(most, int64(requests)) {
		return usageError{err: fmt.Errorf("--max-requests %d: must be in [%d, %d]: at least the run's requests, at most %s", pf.max.v, requests, most, limit)}
	}
	return nil
}

// runLimit returns the most requests a run of cfg can simulate, and what
// sets it: a replayed trace's arrivals, or the simulator's limit. A
// replayed trace whose classes are matched holds in cfg only the run's
// first requests; load then loads the scenario again with the requests
// given (0: the scenario's own, the whole trace when it names none) and
// runLimit takes the trace's arrivals from the load of 0, and, when they
// are more than cfg's, sets pf.configFor to load.
func (pf *precisionFlags) runLimit(cfg *sim.Config, load func(n int) (*sim.Config, error)) (int64, string, error) {
	tr := cfg.Arrivals.Trace
	if cfg.Arrivals.Process != sim.Replay || tr == nil {
		return sim.MaxRequests, "the simulator's limit", nil
	}
	n := len(tr.Arrivals)
	if pf.p.set && n <= cfg.Requests {
		all, err := load(0)
		if err != nil {
			return 0, "", err
		}
		if t := all.Arrivals.Trace; t != nil && len(t.Arrivals) > n {
			n = len(t.Arrivals)
			pf.configFor = load
		}
	}
	return int64(n), fmt.Sprintf("the %d arrivals of the replayed trace", n), nil
}

// replayLoader returns the load of runLimit for the scenario named by pos
// under the what-if overrides o and the --seed given: the scenario loaded
// with requests n (0: its own), without a --set of requests, which
// --requests has already agreed with.
func replayLoader(pos []string, o *scenario.Options, seed intFlag) func(n int) (*sim.Config, error) {
	return func(n int) (*sim.Config, error) {
		var opts scenario.Options
		if o != nil {
			opts = *o
			opts.Set = nil
			for _, kv := range o.Set {
				if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) != "requests" {
					opts.Set = append(opts.Set, kv)
				}
			}
		}
		opts.Requests = int64(n)
		arg := ""
		if len(pos) == 1 {
			arg = pos[0]
		}
		sc, err := loadScenarioWith(arg, &opts)
		if err != nil {
			return nil, err
		}
		if seed.set {
			sc.Config.Seed = uint64(seed.v)
		}
		return &sc.Config, nil
	}
}

// runToPrecision simulates cfg beside its no-hedging baseline, as
// simulate does without a trace, and then, until the overall p95's
// interval is within the precision or the requests reach the maximum,
// doubles the requests (toPrecision). Each doubling simulates only the
// requests added (sim.Growth), and the report is the one simulating again
// would give. A run whose requests are independent is extended by them:
// requests [0, n) of a run of 2n are those of the run of n. A run whose
// requests interact is a run of the most requests a doubling reaches,
// forked after each doubling's last request started (sim.GrowWithBaselineTo):
// the fork drains as a run of that many requests does. What cannot grow
// so — met bits recorded or compared, pipelines whose calls are
// independent, a replayed trace whose classes are matched on its first
// requests, a last count that is no doubling — is simulated again from
// the start. fits checks, before each doubling, that a run of the
// configuration given fits in memory; a fork holds the state of a run
// twice, as a run of twice the requests would.
func (pf *precisionFlags) runToPrecision(ctx context.Context, cfg *sim.Config, workers int, bar *progress, perBatch bool, fits func(*sim.Config) error) (*sim.Report, error) {
	newReport := sim.NewReport
	if perBatch {
		newReport = sim.NewReportPerBatch
	}
	const stage = "hedged run and no hedging, at once"
	bar.set(stage, 0, 2)
	most := cfg.Requests
	if pf.p.set && !pf.resimulate && pf.configFor == nil {
		most = int(pf.max.v)
	}
	hedged, base, g, err := sim.GrowWithBaselineTo(ctx, cfg, workers, most)
	if err != nil {
		return nil, err
	}
	bar.set(stage, 2, 2)
	rep := newReport(cfg, hedged, base)
	if g == nil || pf.resimulate || pf.configFor != nil {
		return pf.toPrecision(ctx, cfg, rep, func(c *sim.Config) (*sim.Report, int64, error) {
			if pf.configFor != nil {
				var err error
				if c, err = pf.configFor(c.Requests); err != nil {
					return nil, 0, err
				}
			}
			if err := fits(c); err != nil {
				return nil, 0, err
			}
			rep, err := simulate(ctx, c, nil, workers, bar, perBatch)
			return rep, int64(c.Requests), err
		})
	}
	return pf.toPrecision(ctx, cfg, rep, func(c *sim.Config) (*sim.Report, int64, error) {
		if err := fits(c); err != nil {
			return nil, 0, err
		}
		if g.Forks() {
			d := *c
			d.Requests *= 2
			if err := fits(&d); err != nil {
				return nil, 0, err
			}
		}
		bar.set(stage, 0, 2)
		before := g.Simulated()
		hedged, base, err := g.Extend(ctx, c.Requests, workers)
		if err != nil {
			return nil, 0, err
		}
		bar.set(stage, 2, 2)
		return newReport(c, hedged, base), g.Simulated() - before, nil
	})
}

// toPrecision returns rep, the report of a run of cfg, when it meets the
// precision — every class's p95 interval and the overall one within ±
// precision of their p95 (sim.Report.P95Widest) — else runs cfg with twice the requests, up to the maximum,
// and returns the last report with how it ended. run returns the report
// of cfg with the requests given and how many requests it simulated to
// make it. The draws depend only on (seed, request), so each run repeats
// the requests of the one before and adds as many.
func (pf *precisionFlags) toPrecision(ctx context.Context, cfg *sim.Config, rep *sim.Report, run func(*sim.Config) (*sim.Report, int64, error)) (*sim.Report, error) {
	if !pf.p.set {
		return rep, nil
	}
	simulated := int64(cfg.Requests)
	for {
		reached, widest, undef := rep.P95Widest()
		met := reached <= pf.p.v && undef == ""
		if len(rep.Classes) < 2 {
			widest = ""
		}
		// A p95 that is a miss with a share answered clearly below 95 %
		// has no interval at any number of requests: doubling cannot
		// help. One that is a miss only by noise keeps doubling.
		if met || undef != "" || int64(cfg.Requests) >= pf.max.v {
			rep.Precision = &sim.Precision{Asked: pf.p.v, Reached: reached, WidestClass: widest, Requests: cfg.Requests, MaxRequests: int(pf.max.v), Simulated: simulated, Met: met, Unreachable: undef}
			return rep, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cfg.Requests = int(min(2*int64(cfg.Requests), pf.max.v))
		var err error
		var n int64
		if rep, n, err = run(cfg); err != nil {
			return nil, err
		}
		simulated += n
	}
}

// toPrecisionOptimize is toPrecision for optimize: it doubles the
// requests per candidate (s.Requests) until every class's pick is measured
// against no hedging within ± precision (optimize's
// ClassReport.RelativeHalfWidth), or the requests reach the maximum, and
// records how it ended in the report. A class whose figure cannot exist
// (ClassReport.PrecisionUndefined: a percentile that is a miss with a
// share answered clearly below its level, or 0) is left
// out of the target and named in the report; when every class is such,
// the doubling stops at once.
//
// run returns the report of the optimization with the settings given:
// optimizeJob.optimize's extends the runs of the sweep before
// (optimize.Growth) or, with pf.resimulate, sweeps again from the first
// request.
func (pf *precisionFlags) toPrecisionOptimize(ctx context.Context, s *optimize.Settings, rep *optimize.Report, run func(optimize.Settings) (*optimize.Report, error)) (*optimize.Report, error) {
	if !pf.p.set {
		return rep, nil
	}
	simulated := int64(s.Requests) // per candidate
	for {
		reached, measured := 0.0, 0
		var undef []string
		for i := range rep.Classes {
			if why := rep.Classes[i].PrecisionUndefined(); why != "" {
				undef = append(undef, why)
				continue
			}
			measured++
			reached = max(reached, rep.Classes[i].RelativeHalfWidth(rep.Level))
		}
		if measured == 0 {
			reached = math.Inf(1)
		}
		met := measured > 0 && reached <= pf.p.v
		if met || measured == 0 || int64(s.Requests) >= pf.max.v {
			n := s.Requests
			if pf.arrivals > 0 {
				n = int(min(int64(n), pf.arrivals))
			}
			rep.Precision = &sim.Precision{Asked: pf.p.v, Reached: reached, Requests: n, MaxRequests: int(pf.max.v), Simulated: simulated, Met: met && len(undef) == 0, Unreachable: strings.Join(undef, "; ")}
			return rep, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.Requests = int(min(2*int64(s.Requests), pf.max.v))
		var err error
		if rep, err = run(*s); err != nil {
			return nil, err
		}
		simulated += int64(s.Requests)
	}
}
