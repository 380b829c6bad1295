package optimize

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/hedgesim/hedgesim/sim"
)

// balancerSweeps runs the sweep of cfg under each of s.Balancers, without
// rollout check, and returns their reports in s.Balancers' order
// (sweepsOf). The error is that of the first balancer in order whose sweep
// failed, naming it.
func balancerSweeps(cfg *sim.Config, s Settings, opt Options) ([]*Report, error) {
	cfgs := make([]*sim.Config, len(s.Balancers))
	names := make([]string, len(s.Balancers))
	for k, b := range s.Balancers {
		cfgs[k], names[k] = withBalancer(cfg, b), "balancer "+b.String()
	}
	return sweepsOf(cfgs, names, "balancer sweeps", s, opt, false)
}

// sweepsOf runs the sweep of each of cfgs under s (without its Balancers
// and MinReplicas), with its rollout check only when check, and returns
// their reports in cfgs' order. The sweeps are independent, so they run
// side by side: min(len(cfgs), workers) at once, each on workers ÷ that
// many goroutines (at least one), so that no more than opt.Workers
// simulations (GOMAXPROCS when 0) run at a time and each sweep's serial
// stages (its baseline) overlap with the others' work. A sweep's report
// does not depend on its workers, so neither do these. opt.Progress, when
// set, is called with stage as each sweep ends. The error is that of the
// first sweep in order that failed, prefixed with its name in names.
func sweepsOf(cfgs []*sim.Config, names []string, stage string, s Settings, opt Options, check bool) ([]*Report, error) {
	n := len(cfgs)
	if n == 0 {
		return nil, nil
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	slots := min(n, workers)
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	each := opt
	each.Workers = max(1, workers/slots)
	each.Progress = nil
	sb := s
	sb.Balancers, sb.MinReplicas = nil, nil
	if !check {
		sb.CheckRequests = 0
	}
	var mu sync.Mutex
	done := 0
	out := make([]*Report, n)
	err := parallelContext(ctx, n, slots, func(k int) error {
		r, _, err := sweep(cfgs[k], sb, each, &memo{simulate: true}, check)
		if err != nil {
			return fmt.Errorf("%s: %w", names[k], err)
		}
		out[k] = r
		if opt.Progress != nil {
			mu.Lock()
			done++
			opt.Progress(stage, done, n)
			mu.Unlock()
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return out, nil
}
