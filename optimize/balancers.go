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
// failed, naming it. kept holds the measurements of the sweep of cfg as
// configured, by key.
//
// A balancer's sweep simulates only the classes it can change
// (changedUnder): routing reads the configured options' sweep for the
// others. Of the classes searched alone, one that is another under other
// names (classForm: the same pool, traffic and search, say, once both
// pools use the same balancer) is not simulated again: its sweep takes
// the other's measurements (translate). The sweeps first simulate each
// class found nowhere before (in the sweep as configured, an earlier
// balancer's or an earlier class of its own); a sweep with a class found
// before is then made again from its own measurements and the other's,
// simulating only what translate leaves out. Its report is byte for byte
// that of simulating every class (TestBalancerSweepsShareSameClasses).
func balancerSweeps(cfg *sim.Config, s Settings, opt Options, kept map[string]*Measurement) ([]*Report, error) {
	n := len(s.Balancers)
	cfgs := make([]*sim.Config, n)
	names := make([]string, n)
	for k, b := range s.Balancers {
		cfgs[k], names[k] = withBalancer(cfg, b), "balancer "+b.String()
	}
	if sweepEveryClass {
		return sweepsOf(cfgs, names, "balancer sweeps", s, opt, false, nil, nil)
	}
	only := make([][]string, n)
	for k := range cfgs {
		only[k] = changedUnder(cfgs[k], cfg, &s)
	}
	first, from := sameClasses(cfg, cfgs, only, &s)
	memos := make([]*memo, n)
	for k := range memos {
		memos[k] = &memo{simulate: true, keep: true}
	}
	reps, err := sweepsOf(cfgs, names, "balancer sweeps", s, opt, false, func(k int) ([]string, bool) {
		return first[k], len(first[k]) > 0
	}, func(k int) *memo { return memos[k] })
	if err != nil {
		return nil, err
	}
	var again []int
	for k := range cfgs {
		if from[k] != nil {
			again = append(again, k)
		}
	}
	if len(again) == 0 {
		return reps, nil
	}
	// Made again, from the measurements of the first sweeps.
	knownOf := func(x int) *memo {
		k := again[x]
		known := map[string]*Measurement{}
		for key, me := range memos[k].kept {
			known[key] = me
		}
		for name, src := range from[k] {
			sk := kept
			if src.k >= 0 {
				sk = memos[src.k].kept
			}
			i := slices.IndexFunc(cfg.Classes, func(c sim.Class) bool { return c.Name == name })
			f, _ := formOf(cfgs[k], i, &s)
			for key, me := range translate(sk, src.class, src.cfg, src.form, name, cfgs[k], f) {
				known[key] = me
			}
		}
		return &memo{simulate: true, known: known}
	}
	acfgs := make([]*sim.Config, len(again))
	anames := make([]string, len(again))
	for x, k := range again {
		acfgs[x], anames[x] = cfgs[k], names[k]
	}
	aopt := opt
	aopt.Progress = nil
	made, err := sweepsOf(acfgs, anames, "balancer sweeps", s, aopt, false, func(x int) ([]string, bool) {
		return only[again[x]], true
	}, knownOf)
	if err != nil {
		return nil, err
	}
	for x, k := range again {
		reps[k] = made[x]
	}
	return reps, nil
}

// source is a class found in an earlier sweep: the sweep (−1: the
// sweep as configured, cfg), the class's name and its form.
type source struct {
	k     int
	class string
	cfg   *sim.Config
	form  *classForm
}

// sameClasses splits the classes only[k] that sweep k of cfgs (cfg under
// s with other balancers) makes into first[k], those it simulates, and
// from[k], each class that is one found before (formOf) with where: in
// the sweep as configured, an earlier sweep's first classes, or an
// earlier first class of its own. With shareNoClasses, or class names
// that do not tell their keys apart, every class is first.
func sameClasses(cfg *sim.Config, cfgs []*sim.Config, only [][]string, s *Settings) (first [][]string, from []map[string]source) {
	n := len(cfgs)
	var seen []source
	from = make([]map[string]source, n)
	first = make([][]string, n)
	alone := aloneClasses(cfg, s)
	share := !shareNoClasses && distinctKeys(cfg)
	if share {
		for i := range cfg.Classes {
			if name := cfg.Classes[i].Name; alone[i] && optimized(s, name) {
				if f, ok := formOf(cfg, i, s); ok {
					seen = append(seen, source{-1, name, cfg, f})
				}
			}
		}
	}
	for k := range cfgs {
		for _, name := range only[k] {
			i := slices.IndexFunc(cfg.Classes, func(c sim.Class) bool { return c.Name == name })
			f, ok := formOf(cfgs[k], i, s)
			if !share || !alone[i] || !ok {
				first[k] = append(first[k], name)
				continue
			}
			j := slices.IndexFunc(seen, func(x source) bool { return x.form.same(f) })
			if j < 0 {
				seen = append(seen, source{k, name, cfgs[k], f})
				first[k] = append(first[k], name)
				continue
			}
			if from[k] == nil {
				from[k] = map[string]source{}
			}
			from[k][name] = seen[j]
		}
	}
	return first, from
}

// shareNoClasses makes balancerSweeps simulate every class it sweeps,
// sharing none with another under other names, for the test that checks
// the report does not change.
var shareNoClasses bool

// aloneClasses reports, per class of cfg, whether s searches it alone:
// not a pipeline class and in no group of coupled classes.
func aloneClasses(cfg *sim.Config, s *Settings) []bool {
	alone := make([]bool, len(cfg.Classes))
	for i := range cfg.Classes {
		alone[i] = cfg.Classes[i].Pipeline == nil
	}
	if !s.Alone {
		groups, _ := coupledGroups(cfg, s)
		for _, g := range groups {
			for _, i := range g {
				alone[i] = false
			}
		}
	}
	return alone
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
// Report. memoOf, when set, gives sweep k's measurements (a new memo that
// simulates when nil).
func sweepsOf(cfgs []*sim.Config, names []string, stage string, s Settings, opt Options, check bool, only func(k int) ([]string, bool), memoOf func(k int) *memo) ([]*Report, error) {
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
			m := &memo{simulate: true}
			if memoOf != nil {
				m = memoOf(k)
			}
			r, _, err = sweep(cfgs[k], sk, each, m, check)
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
