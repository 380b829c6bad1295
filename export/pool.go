package export

import (
	"errors"
	"fmt"
	"slices"

	"github.com/hedgesim/hedgesim/sim"
)

// Replica pools. A provider may be a pool of replicas behind a balancer
// (sim.Pool): the balancer is the serving side's router, which no client
// policy configures, and so is not written by any format but json; where
// a request's copy lands is the client's only in so far as the router
// tracks the request's attempts. With copies_to = "other_replica" (the
// default) a copy, and an attempt's retry, goes to a replica that holds no
// other attempt of its request; Envoy says so with the previous_hosts
// retry host predicate, which its router consults for hedges too (a hedge
// on the per-try timeout is a retry: source/common/router/router.cc,
// onSoftPerTryTimeout → doRetry, whose host selection asks the retry
// state's host predicates). No other format can: each notes it.

// ReplicaPool is the pool of replicas a provider of a class's targets
// runs on (sim.Pool), serving Models: Replicas replicas (the most, for an autoscaled
// pool), behind Balancer (a sim.Balancer name: "random", "round_robin",
// "least_outstanding", "p2c" or "latency_ewma"); CopiesTo is
// "other_replica" (a copy goes to a replica that holds no other attempt
// of its request) or "any_replica".
type ReplicaPool struct {
	// Provider names the provider whose pool it is (JSON "pool").
	Provider string   `json:"pool"`
	Models   []string `json:"models"`
	Replicas int      `json:"replicas"`
	Balancer string   `json:"balancer"`
	CopiesTo string   `json:"copies_to"`
}

// Values of ReplicaPool.CopiesTo.
const (
	OtherReplica = "other_replica"
	AnyReplica   = "any_replica"
)

// poolsOf returns the replica pools of the providers of c's primary and
// copy targets, in the order the targets are first named, each once.
func poolsOf(cfg *sim.Config, c *Class) []ReplicaPool {
	var ps []ReplicaPool
	for _, m := range classModels(cfg, c) {
		for i := range cfg.Providers {
			p := &cfg.Providers[i]
			if p.Name != m.Provider || p.Pool == nil || slices.ContainsFunc(ps, func(x ReplicaPool) bool { return x.Provider == p.Name }) {
				continue
			}
			var models []string
			for _, o := range cfg.Models {
				if o.Provider == p.Name {
					models = append(models, o.Name)
				}
			}
			to := OtherReplica
			if p.Pool.AnyReplica {
				to = AnyReplica
			}
			ps = append(ps, ReplicaPool{Provider: p.Name, Models: models, Replicas: p.Pool.Replicas, Balancer: p.Pool.Balancer.String(), CopiesTo: to})
		}
	}
	return ps
}

// addPools sets each class's replica pools from its exported targets.
func addPools(cfg *sim.Config, d *Document) {
	for i := range d.Classes {
		d.Classes[i].Pools = poolsOf(cfg, &d.Classes[i])
	}
}

func (p *ReplicaPool) validate() error {
	if p.Provider == "" || len(p.Models) == 0 {
		return errors.New("pool, models: want the provider whose pool it is and the models it serves")
	}
	if p.Replicas < 1 || p.Replicas > sim.MaxReplicas {
		return fmt.Errorf("replicas: got %d; want 1 to %d", p.Replicas, sim.MaxReplicas)
	}
	var names []string
	for _, b := range sim.Balancers {
		names = append(names, b.String())
	}
	if err := oneOf("balancer", p.Balancer, names); err != nil {
		return err
	}
	return oneOf("copies_to", p.CopiesTo, []string{OtherReplica, AnyReplica})
}

// otherReplica returns the pools of c that send a copy to another replica
// than its request's other attempts: those of more than one replica with
// copies_to "other_replica" that a copy of c can land on (a copy's target
// is one of the pool's models) or, when c retries inside an attempt, that
// any attempt of c goes to (c.Pools are those of its primary and copy
// targets). A pool only c's primary reaches, without attempt retries,
// never holds two attempts of a request: none then.
func (c *Class) otherReplica() []ReplicaPool {
	var out []ReplicaPool
	for _, p := range c.Pools {
		if p.CopiesTo != OtherReplica || p.Replicas < 2 {
			continue
		}
		copied := c.Hedge && slices.ContainsFunc(c.Copies, func(cp Copy) bool { return slices.Contains(p.Models, cp.Target) })
		if copied || c.AttemptRetry != nil {
			out = append(out, p)
		}
	}
	return out
}

// poolNotes adds, for a runtime without a host predicate (runtime, with
// how, what it can do instead), a note per pool of c, the class as
// written: that its balancer is the router's, and, for a pool whose copies
// go to another replica, that the runtime cannot say so — unless the
// class as simulated sends copies there too, which faithful refuses or
// notes as approximated (replicaDifferences).
func poolNotes(n *notes, c, simulated *Class, runtime, instead string) {
	for _, p := range c.Pools {
		n.add("provider %s is a pool of %d replicas behind a %s balancer: the balancer is the serving side's router, not written", p.Provider, p.Replicas, p.Balancer)
	}
	covered := simulated.otherReplica()
	for _, p := range c.otherReplica() {
		if slices.ContainsFunc(covered, func(q ReplicaPool) bool { return q.Provider == p.Provider }) {
			continue
		}
		n.add("copies_to = \"other_replica\" on %s not written: %s cannot keep a copy off the replicas its request's other attempts went to, and a router that does not track a request's attempts may send it to one of them (what copies_to = \"any_replica\" simulates): %s", p.Provider, runtime, instead)
	}
}

// classModels returns the models of c's primary and copy targets in cfg,
// in the order they are first named (a name cfg lacks is skipped; the
// last model of a name wins, as the lookups it replaces did).
func classModels(cfg *sim.Config, c *Class) []*sim.Model {
	var ms []*sim.Model
	for _, name := range append([]string{c.Primary}, c.otherTargets()...) {
		var m *sim.Model
		for i := range cfg.Models {
			if cfg.Models[i].Name == name {
				m = &cfg.Models[i]
			}
		}
		if m != nil {
			ms = append(ms, m)
		}
	}
	return ms
}
