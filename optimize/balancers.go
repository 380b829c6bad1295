package optimize

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/hedgesim/hedgesim/sim"
)

// balancerSweeps runs the sweep of cfg under each of s.Balancers, without
// rollout check, and returns their reports in s.Balancers' order. The
// sweeps are independent, so they run side by side: min(len(s.Balancers),
// workers) at once, each on workers ÷ that many goroutines (at least one),
// so that no more than opt.Workers simulations (GOMAXPROCS when 0) run at
// a time and each sweep's serial stages (its baseline) overlap with the
// others' work. A sweep's report does not depend on its workers, so
// neither do these. opt.Progress, when set, is called with the stage
// "balancer sweeps" as each sweep ends. The error is that of the first balancer
// in order whose sweep failed, naming it.
func balancerSweeps(cfg *sim.Config, s Settings, opt Options) ([]*Report, error) {
	n := len(s.Balancers)
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
	var mu sync.Mutex
	done := 0
	out := make([]*Report, n)
	err := parallelContext(ctx, n, slots, func(k int) error {
		b := s.Balancers[k]
		sb := s
		sb.Balancers, sb.CheckRequests = nil, 0
		r, _, err := sweep(withBalancer(cfg, b), sb, each, &memo{simulate: true}, false)
		if err != nil {
			return fmt.Errorf("balancer %s: %w", b, err)
		}
		out[k] = r
		if opt.Progress != nil {
			mu.Lock()
			done++
			opt.Progress("balancer sweeps", done, n)
			mu.Unlock()
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return out, nil
}
