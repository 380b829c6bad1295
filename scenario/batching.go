package scenario

import (
	"math"
	"strings"

	"github.com/hedgesim/hedgesim/sim"
)

// batchingTable is [providers.NAME.pool.batching]: continuous batching at
// each replica (sim.Batching), its per-sequence speed by batch size given
// as a table or by base / (1 + contention·(n − 1)).
type batchingTable struct {
	MaxBatch        *int64    `toml:"max_batch"`
	TokensPerSecond []float64 `toml:"tokens_per_second"`
	Base            *float64  `toml:"base_tokens_per_second"`
	Contention      *float64  `toml:"contention"`
}

// batching builds the batching table at key (providers.NAME.pool.batching)
// into pool pl, whose concurrency t.Concurrency must be unset: max_batch
// is the replicas' concurrency. It records problems.
func (c *checker) batching(key string, t *batchingTable, pt *poolTable, pl *sim.Pool) {
	poolKey := strings.TrimSuffix(key, ".batching")
	b := &sim.Batching{}
	ok := true
	bad := func(k, format string, args ...any) {
		c.keep(c.errorf(k, format, args...))
		ok = false
	}
	if pt.Concurrency != nil {
		bad(poolKey+".concurrency", "a batching pool's replicas serve max_batch sequences at once: set max_batch in [%s] and remove concurrency", key)
	}
	if t.MaxBatch != nil {
		if n := *t.MaxBatch; n < 1 {
			bad(key+".max_batch", "%d is not allowed; want an integer ≥ 1, the most sequences a replica serves at once (leave it out for no limit)", n)
		} else {
			pl.Concurrency = int(min(n, math.MaxInt32))
		}
	}
	switch {
	case len(t.TokensPerSecond) > 0:
		if t.Base != nil || t.Contention != nil {
			bad(key, "give either tokens_per_second (a table by batch size) or base_tokens_per_second and contention, not both")
		}
		for i, x := range t.TokensPerSecond {
			k := indexKey(key+".tokens_per_second", i)
			switch {
			case !(x > 0):
				bad(k, "%g is not allowed; want a speed > 0 in tokens/s per sequence at batch size %d", x, i+1)
			case i > 0 && x > t.TokensPerSecond[i-1]:
				bad(k, "%g tokens/s at batch size %d is above %g at batch size %d; the per-sequence speed must not grow with the batch (a non-increasing list)", x, i+1, t.TokensPerSecond[i-1], i)
			}
		}
		switch n := len(t.TokensPerSecond); {
		case t.MaxBatch == nil:
			bad(key, "missing max_batch; a table of %d speeds needs a batch limit in [1, %d]", n, n)
		case *t.MaxBatch > int64(n) && !c.hasErrorsWithin(key+".max_batch"):
			bad(key+".max_batch", "%d is larger than the table of tokens_per_second (%d batch sizes); give a speed for every batch size up to max_batch", *t.MaxBatch, n)
		}
		b.TokensPerSecond = t.TokensPerSecond
	case t.TokensPerSecond != nil:
		bad(key+".tokens_per_second", "empty list; give the per-sequence speed at batch size 1, 2, … such as [60, 55, 50, 42]")
	default:
		if t.Base == nil {
			bad(key, "missing base_tokens_per_second; give the per-sequence speed at batch size 1 (or a table: tokens_per_second)")
		} else if x := *t.Base; !(x > 0) {
			bad(key+".base_tokens_per_second", "%g is not allowed; want a speed > 0 in tokens/s", x)
		} else {
			b.Base = x
		}
		if t.Contention == nil {
			bad(key, "missing contention; give a in speed(n) = base / (1 + a·(n − 1)): 1 is ideal sharing (the replica's throughput stays base), 0 no slowdown")
		} else if x := *t.Contention; !(x >= 0) {
			bad(key+".contention", "%g is not allowed; want a value in [0, 1e6] (slowdown per added sequence)", x)
		} else {
			b.Contention = *t.Contention
		}
	}
	if pt.ColdStart != nil {
		bad(poolKey+".cold_start", "batching with cold starts is not modelled; remove one of [%s] and [%s.cold_start]", key, poolKey)
	}
	if d := pt.Degraded; d != nil && d.Slowdown != nil && *d.Slowdown != 1 {
		bad(poolKey+".degraded.slowdown", "batching with slow periods is not modelled: a batch's speed changes with its size only; remove the slowdown or [%s]", key)
	}
	for i := range pt.Replica {
		if d := pt.Replica[i].Degraded; d != nil && d.Slowdown != nil && *d.Slowdown != 1 {
			bad(indexKey(poolKey+".replica", i)+".degraded.slowdown", "batching with slow periods is not modelled: a batch's speed changes with its size only; remove the slowdown or [%s]", key)
		}
	}
	if ok {
		pl.Batching = b
	}
}

// checkBatching reports what a batching pool does not model at the keys
// that ask for it: its provider's slow periods, a model's stalls, and a
// class deciding at the first token or cutting streams.
func (c *checker) checkBatching(cfg *sim.Config) {
	batching := map[string]string{} // provider → its batching key
	for i := range cfg.Providers {
		p := &cfg.Providers[i]
		if p.Pool == nil || p.Pool.Batching == nil {
			continue
		}
		key := joinKey("providers", p.Name)
		batching[p.Name] = key + ".pool.batching"
		if p.Degraded != nil && p.Degraded.Slowdown != 1 {
			c.keep(c.errorf(key+".degraded.slowdown", "batching with slow periods is not modelled: a batch's speed changes with its size only; remove the slowdown or [%s.pool.batching]", key))
		}
	}
	if len(batching) == 0 {
		return
	}
	on := func(m int) (string, bool) {
		if m < 0 || m >= len(cfg.Models) {
			return "", false
		}
		name := cfg.Models[m].Provider
		if name == "" {
			name = cfg.Models[m].Name
		}
		k, ok := batching[name]
		return k, ok
	}
	for m := range cfg.Models {
		if k, ok := on(m); ok && cfg.Models[m].Stalls.Rate > 0 && m < len(c.modelNames) {
			c.keep(c.errorf(joinKey("models", c.modelNames[m])+".stalls", "stalls at a batching pool ([%s]) are not modelled; remove one of them", k))
		}
	}
	check := func(key string, p *sim.Policy) {
		if p.Winner != sim.FirstToken && !streamCuts(&p.StreamCuts) {
			return
		}
		for _, m := range append([]int{p.Primary}, p.Targets...) {
			if k, ok := on(m); ok {
				what := "winner = \"first_token\""
				if p.Winner != sim.FirstToken {
					what = "stream cuts"
				}
				c.keep(c.errorf(key+".hedge", "%s at a batching pool ([%s]) is not modelled; its batch sets a sequence's first token and end as it goes", what, k))
				return
			}
		}
	}
	for i := range cfg.Classes {
		key := indexKey("classes", i)
		check(key, &cfg.Classes[i].Policy)
		if pl := cfg.Classes[i].Pipeline; pl != nil {
			for j := range pl.Steps {
				check(indexKey(key+".steps", j), &pl.Steps[j].Call.Policy)
			}
		}
	}
}

// streamCuts reports whether a class cuts streams.
func streamCuts(s *sim.StreamCuts) bool { return s.InterTokenTimeout > 0 || s.MinTokensPerSecond > 0 }
