package sim

import (
	"context"
	"fmt"
	"time"
)

// PolicyRun is one run of GrowPolicies, the run of a configuration with
// one class's policy replaced, that ExtendPolicies extends by more
// requests without simulating again those already run, as Growth extends
// a run and its baseline: an optimization to a precision (hedgesim
// optimize --precision) doubles the requests of every candidate. It holds
// what its requests so far recorded: the memory of a run of that many
// requests.
type PolicyRun struct {
	// cfg is the run's configuration at the requests run so far; kept
	// holds what every range run so far recorded, never made into a
	// result (result moves its latencies).
	cfg  *Config
	kept *engine
	// lastArr is the arrival time of the last request run.
	lastArr time.Duration
}

// Requests returns the requests of the run so far.
func (p *PolicyRun) Requests() int { return p.cfg.Requests }

// Extends reports whether ExtendPolicies can extend p to requests: a run
// of Requests·2ʲ requests, j ≥ 1, whose added cost's arrival sections
// merge those of p (as Growth.Extend's).
func (p *PolicyRun) Extends(requests int) bool {
	_, ok := doublings(p.cfg.Requests, requests)
	return ok
}

// GrowPolicies is RunPolicies for runs that all take the lane (Lane): it
// returns RunPolicies' results for cfg with class's policy replaced by
// each of pols, field for field, and a PolicyRun for each that
// ExtendPolicies extends. Every policy's configuration must pass Validate
// and take the lane; otherwise it returns the first one's error (wrapping
// ErrInvalidConfig for one Validate refuses) and no result. When ctx is
// done it returns ctx's error.
func GrowPolicies(ctx context.Context, cfg *Config, class int, pols []Policy) ([]*Result, []*PolicyRun, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	cfgs, err := policyConfigs(cfg, class, pols)
	if err != nil {
		return nil, nil, err
	}
	es, last, err := laneRanges(ctx, cfgs, 0, int64(cfg.Requests), 0, 1)
	if err != nil {
		return nil, nil, err
	}
	res := make([]*Result, len(es))
	runs := make([]*PolicyRun, len(es))
	for j, e := range es {
		runs[j] = &PolicyRun{cfg: cfgs[j], kept: e, lastArr: last}
		res[j] = e.keptResult()
	}
	return res, runs, nil
}

// ExtendPolicies simulates requests [n, cfg.Requests) of each of runs,
// made by GrowPolicies of a configuration that differs from cfg in its
// requests, n, its Pair's baseline bits and class's policy, and returns
// the results of the runs of requests [0, cfg.Requests), each under its
// own policy: RunPolicies' results for cfg under those policies, field
// for field. Every run must be of n requests and extend to cfg.Requests
// (PolicyRun.Extends); cfg.Pair's Base, when set, are the baseline's
// bits of cfg.Requests requests, and a run that records its bits records
// them for every request. The requests are simulated together, sharing
// their draws, as GrowPolicies simulates them. It returns Validate's
// error for a policy's configuration that is not usable, and ctx's when
// it is done first; after an error the runs are unusable.
func ExtendPolicies(ctx context.Context, cfg *Config, class int, runs []*PolicyRun) ([]*Result, error) {
	if len(runs) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := runs[0].Requests()
	j, ok := doublings(n, cfg.Requests)
	pols := make([]Policy, len(runs))
	for i, r := range runs {
		if !ok || r.Requests() != n || r.lastArr != runs[0].lastArr {
			return nil, fmt.Errorf("sim: extending runs of %d requests to %d: not all of %d requests, or not a doubling", r.Requests(), cfg.Requests, n)
		}
		pols[i] = r.cfg.Classes[class].Policy
	}
	cfgs, err := policyConfigs(cfg, class, pols)
	if err != nil {
		return nil, err
	}
	for i, r := range runs {
		e := r.kept
		e.costs.coarsen(j)
		if p := e.pair; p != nil {
			if p.rec != nil {
				bits := newMetBits(int64(cfg.Requests))
				copy(bits.words, p.rec.words)
				p.rec = bits
			}
			if cfg.Pair != nil {
				p.base = cfg.Pair.Base
			}
		}
		e.cfg = cfgs[i]
		r.cfg = cfgs[i]
	}
	es, last, err := laneRanges(ctx, cfgs, int64(n), int64(cfg.Requests), runs[0].lastArr, 1)
	if err != nil {
		return nil, err
	}
	res := make([]*Result, len(runs))
	for i, r := range runs {
		r.kept.absorb(es[i])
		r.lastArr = last
		res[i] = r.kept.keptResult()
	}
	return res, nil
}

// policyConfigs returns cfg with class's policy replaced by each of pols,
// each validated and taking the lane.
func policyConfigs(cfg *Config, class int, pols []Policy) ([]*Config, error) {
	cfgs := make([]*Config, len(pols))
	for i := range pols {
		c := *cfg
		c.Classes = append([]Class(nil), cfg.Classes...)
		c.Classes[class].Policy = pols[i]
		if err := c.Validate(); err != nil {
			return nil, err
		}
		if !c.laneable() {
			return nil, fmt.Errorf("sim: class %q: a run that does not take the lane cannot be grown", c.Classes[class].Name)
		}
		cfgs[i] = &c
	}
	return cfgs, nil
}
