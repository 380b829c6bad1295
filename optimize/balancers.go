package optimize

import (
	"context"
	"fmt"
	"runtime"
	"slices"
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
	// A balancer's sweep simulates only the classes it can change: routing
	// reads the configured options' sweep for the others.
	only := func(k int) ([]string, bool) {
		if sweepEveryClass {
			return nil, true
		}
		o := changedUnder(cfgs[k], cfg, &s)
		return o, len(o) > 0
	}
	return sweepsOf(cfgs, names, "balancer sweeps", s, opt, false, only)
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
// only, when set, says which classes sweep k simulates (all when nil) and
// whether it runs at all: a sweep that does not run leaves an empty
// Report.
func sweepsOf(cfgs []*sim.Config, names []string, stage string, s Settings, opt Options, check bool, only func(k int) ([]string, bool)) ([]*Report, error) {
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
		sk := sb
		r := &Report{}
		run := true
		if only != nil {
			var o []string
			if o, run = only(k); o != nil {
				sk.Only = o
			}
		}
		var err error
		if run {
			r, _, err = sweep(cfgs[k], sk, each, &memo{simulate: true}, check)
		}
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

// sweepEveryClass makes balancerSweeps sweep every class s optimizes under
// each balancer, as it did before changedUnder, for the test that checks
// the report does not change.
var sweepEveryClass bool

// changedUnder names the classes of cfg, among those s optimizes, whose
// sweep under bc — cfg with every pool's balancer replaced (withBalancer)
// — may differ from their sweep under cfg: every class searched with
// others it is coupled with (a group, or a pipeline class), and every
// class searched alone that can send a call (its primary, its copies'
// targets, the targets its search tries) to a pool whose balancer bc
// changes. A class searched alone is simulated on its own traffic, so a
// pool it never calls does not change its figures, and routing does not
// read the sweep of a class whose pools keep their balancer (the
// configured options again). A target that names no model keeps its
// class, whose sweep then reports it.
func changedUnder(bc, cfg *sim.Config, s *Settings) []string {
	changed := map[string]bool{} // providers whose pool bc re-balances
	for i := range cfg.Providers {
		if p, q := cfg.Providers[i].Pool, bc.Providers[i].Pool; p != nil && q != nil && p.Balancer != q.Balancer {
			changed[cfg.Providers[i].Name] = true
		}
	}
	grouped := map[int]bool{}
	if !s.Alone {
		groups, _ := coupledGroups(cfg, s)
		for _, g := range groups {
			for _, i := range g {
				grouped[i] = true
			}
		}
	}
	var only []string
	for i := range cfg.Classes {
		cl := &cfg.Classes[i]
		if !optimized(s, cl.Name) {
			continue
		}
		keep := grouped[i] || cl.Pipeline != nil
		if !keep {
			models := append([]int{cl.Policy.Primary}, cl.Policy.Targets...)
			for _, name := range s.For(cl.Name).Targets {
				m := slices.IndexFunc(cfg.Models, func(m sim.Model) bool { return m.Name == name })
				if m < 0 {
					keep = true
					break
				}
				models = append(models, m)
			}
			keep = keep || slices.ContainsFunc(models, func(m int) bool { return changed[cfg.Models[m].Provider] })
		}
		if keep {
			only = append(only, cl.Name)
		}
	}
	return only
}
