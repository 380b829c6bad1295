package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// poolTable is [providers.NAME.pool]: the provider's models served by a
// pool of replicas (sim.Pool).
type poolTable struct {
	Replicas    *int64          `toml:"replicas"`
	Concurrency *int64          `toml:"concurrency"`
	QueueLimit  *int64          `toml:"queue_limit"`
	Balancer    *string         `toml:"balancer"`
	Decay       *float64        `toml:"decay"`
	CopiesTo    *string         `toml:"copies_to"`
	Degraded    *degradedTable  `toml:"degraded"`
	Down        *downTable      `toml:"down"`
	ColdStart   *coldStartTable `toml:"cold_start"`
	Batching    *batchingTable  `toml:"batching"`
	Autoscale   *autoscaleTable `toml:"autoscale"`
	Replica     []replicaTable  `toml:"replica"`
	// The fleet keys (fleet.go).
	ViewRefresh    *Duration            `toml:"view_refresh"`
	View           *string              `toml:"view"`
	ScrapeJitter   *float64             `toml:"scrape_jitter"`
	Stuck          []stuckTable         `toml:"stuck"`
	Restart        []restartTable       `toml:"restart"`
	RandomRestarts *randomRestartsTable `toml:"random_restarts"`
	RestartWindow  *Duration            `toml:"restart_window"`
	Unmeasured     *string              `toml:"unmeasured"`
	Warmup         *int64               `toml:"warmup"`
}

// downTable is a pool's or a replica's down table: outages.
type downTable struct {
	MeanUp   *Duration `toml:"mean_up"`
	MeanDown *Duration `toml:"mean_down"`
}

// coldStartTable is [providers.NAME.pool.cold_start].
type coldStartTable struct {
	KeepWarm *Duration  `toml:"keep_warm"`
	Latency  *dist.Spec `toml:"latency"`
	GiveUp   *string    `toml:"give_up"`
}

// replicaTable is one [[providers.NAME.pool.replica]] entry: what one
// replica does differently.
type replicaTable struct {
	Index    *int64         `toml:"index"`
	Slowdown *float64       `toml:"slowdown"`
	Degraded *degradedTable `toml:"degraded"`
	Down     *downTable     `toml:"down"`
}

// copiesTo is where a pool sends copies and retried calls: the value of
// copies_to.
type copiesTo bool

const (
	copiesToOther copiesTo = false // the default
	copiesToAny   copiesTo = true
)

// String returns the scenario-file name of the rule.
func (c copiesTo) String() string {
	if c == copiesToAny {
		return "any_replica"
	}
	return "other_replica"
}

// Defaults of the pool tables.
const (
	defaultDecay       = 0.9 // the latency average keeps 90 % per response: about the last 10 count
	maxReplicaSlowdown = 1e6
)

// pool builds the pool table at key (providers.NAME.pool) of provider p,
// whose own concurrency settings t must be unset, recording problems.
func (c *checker) pool(key string, t *poolTable, prov *providerTable, p *sim.Provider) {
	provKey := strings.TrimSuffix(key, ".pool")
	for _, f := range []struct {
		name string
		set  bool
	}{{"concurrency", prov.Concurrency != nil}, {"queue_limit", prov.QueueLimit != nil}} {
		if f.set {
			c.keep(c.errorf(provKey+"."+f.name, "a provider with a pool has its %s per replica: set it in [%s] instead", f.name, key))
		}
	}
	pl := &sim.Pool{Replicas: 1, Decay: defaultDecay}
	if t.Concurrency != nil { // before autoscale, which checks it
		if n, r := *t.Concurrency, ranges["providers.*.pool.concurrency"]; !r.contains(float64(n)) {
			c.keep(c.errorf(key+".concurrency", "%d is not allowed; want %s per replica (0 = unlimited)", n, r.wantInt()))
		} else {
			pl.Concurrency = int(n)
		}
	}
	if t.Autoscale != nil {
		c.autoscale(key+".autoscale", t, pl) // autoscale.go
	} else if t.Replicas == nil {
		c.keep(c.errorf(key, "missing replicas; give the number of replicas, an integer in [1, %d]", sim.MaxReplicas))
	} else if n := *t.Replicas; n < 1 || n > sim.MaxReplicas {
		why := "" // the reason for the lower bound, said only below it
		if n < 1 {
			why = fmt.Sprintf(" (a pool of %d replicas serves nothing)", n)
		}
		c.keep(c.errorf(key+".replicas", "%d is not allowed; want an integer in [1, %d]%s", n, sim.MaxReplicas, why))
	} else {
		pl.Replicas = int(n)
	}
	if t.QueueLimit != nil {
		switch n, r := *t.QueueLimit, ranges["providers.*.pool.queue_limit"]; {
		case !r.contains(float64(n)):
			c.keep(c.errorf(key+".queue_limit", "%d is not allowed; want %s per replica (0 = no queue: reject when every slot is busy)", n, r.wantInt()))
		case pl.Concurrency == 0 && !c.hasErrorsWithin(key+".concurrency"):
			c.keep(c.errorf(key+".queue_limit", "needs concurrency ≥ 1: queue_limit bounds each replica's queue of a concurrency limit"))
		default:
			pl.RejectWhenFull, pl.QueueLimit = true, int(n)
		}
	}
	var err error
	pl.Balancer, err = enum(c, key+".balancer", t.Balancer, sim.RandomBalancer, sim.Balancers...)
	c.keep(err)
	if t.Decay != nil {
		switch d := *t.Decay; {
		case !(d >= 0 && d < 1):
			c.keep(c.errorf(key+".decay", "%g is not allowed; want a weight in [0, 1): the share of the latency average kept per response (0 = only the last response counts)", d))
		case pl.Balancer != sim.LatencyEWMA && !c.hasErrorsWithin(key+".balancer"):
			if c.overrideOf(key+".balancer") != "" && c.overrideOf(key+".decay") == "" {
				// The file's pool is latency_ewma's: switched on the
				// command line, as optimize --balancers switches it, its
				// average is not read. A decay given by --set too is
				// refused, as in a file.
				c.ignored = append(c.ignored, c.errorf(key+".decay", "ignored: only the latency_ewma balancer averages latencies, and the --set makes this pool's balancer %s", pl.Balancer))
				pl.Decay = d
				break
			}
			c.keep(c.errorf(key+".decay", "only the latency_ewma balancer averages latencies, and this pool's balancer is %s; set balancer = \"latency_ewma\" or remove decay", pl.Balancer))
		default:
			pl.Decay = d
		}
	}
	to, err := enum(c, key+".copies_to", t.CopiesTo, copiesToOther, copiesToOther, copiesToAny)
	c.keep(err)
	pl.AnyReplica = bool(to)
	if t.Degraded != nil {
		pl.Degraded, err = c.degraded(key+".degraded", t.Degraded)
		c.keep(err)
	}
	pl.Down = c.down(key+".down", t.Down)
	if cs := t.ColdStart; cs != nil {
		k := key + ".cold_start"
		pl.ColdStart = &sim.ColdStart{}
		if cs.KeepWarm == nil && t.Autoscale == nil {
			c.keep(c.errorf(k, "missing keep_warm; give how long an idle replica stays warm, a duration such as \"5m\" (\"0s\": scaled to zero when idle)"))
		} else if cs.KeepWarm != nil {
			pl.ColdStart.KeepWarm = time.Duration(*cs.KeepWarm)
		}
		if cs.Latency == nil {
			c.keep(c.errorf(k, "missing latency; give the cold start's length, a distribution in seconds, such as { kind = \"uniform\", min = 3, max = 19 }"))
		} else {
			pl.ColdStart.Latency, err = c.dist(k+".latency", cs.Latency, "s", false)
			c.keep(err)
		}
		pl.ColdStart.GiveUp, err = enum(c, k+".give_up", cs.GiveUp, sim.GiveUpAtScaleToZero, sim.GiveUps...)
		c.keep(err)
		if cs.GiveUp != nil && err == nil && p.IgnoresCancel && t.Autoscale == nil {
			c.keep(c.errorf(k+".give_up", "has no effect while %s.cancel = \"none\": the provider ignores cancels, so attempts wait for every cold start to end; remove give_up or that cancel", provKey))
		}
	}
	seen := map[int64]int{}
	for i := range t.Replica {
		k := indexKey(key+".replica", i)
		r := &t.Replica[i]
		o := sim.ReplicaOverride{}
		switch {
		case r.Index == nil:
			c.keep(c.errorf(k, "missing index; give the replica's index, an integer in [0, %d)", pl.Replicas))
			continue
		case *r.Index < 0 || *r.Index >= int64(pl.Replicas):
			if !c.hasErrorsWithin(key + ".replicas") {
				c.keep(c.errorf(k+".index", "%d is not a replica of this pool of %d; want an integer in [0, %d)", *r.Index, pl.Replicas, pl.Replicas))
			}
			continue
		}
		if j, dup := seen[*r.Index]; dup {
			c.keep(c.errorf(k+".index", "replica %d is already set at %s; give each replica one entry", *r.Index, indexKey(key+".replica", j)))
			continue
		}
		seen[*r.Index] = i
		o.Replica = int(*r.Index)
		if r.Slowdown != nil {
			if s := *r.Slowdown; !(s > 0 && s <= maxReplicaSlowdown) {
				c.keep(c.errorf(k+".slowdown", "%g is not allowed; want a factor in (0, %g]: the replica's work takes this many times as long (5 = a straggler five times slower)", s, float64(maxReplicaSlowdown)))
			} else {
				o.Slowdown = s
			}
		}
		if r.Degraded != nil {
			o.Degraded, err = c.degraded(k+".degraded", r.Degraded)
			c.keep(err)
		}
		o.Down = c.down(k+".down", r.Down)
		if r.Slowdown == nil && r.Degraded == nil && r.Down == nil {
			c.keep(c.errorf(k, "replica %d is set to nothing; give slowdown, degraded or down, or remove the entry", o.Replica))
		}
		pl.Overrides = append(pl.Overrides, o)
	}
	if t.Batching != nil {
		c.batching(key+".batching", t.Batching, t, pl)
	}
	c.fleet(key, t, pl)
	p.Pool = pl
}

// down builds a down table at key, or returns nil when t is.
func (c *checker) down(key string, t *downTable) *sim.Down {
	if t == nil {
		return nil
	}
	d := &sim.Down{}
	ok := true
	for _, f := range []struct {
		name string
		v    *Duration
		dst  *time.Duration
	}{{"mean_up", t.MeanUp, &d.MeanUp}, {"mean_down", t.MeanDown, &d.MeanDown}} {
		switch {
		case f.v == nil:
			c.keep(c.errorf(key, "missing %s; give the mean length of %s periods as a duration such as \"10m\"", f.name, strings.TrimPrefix(f.name, "mean_")))
			ok = false
		case time.Duration(*f.v) < sim.MinDegradedPeriod:
			c.keep(c.errorf(key+"."+f.name, "%v is too short; want a mean period ≥ %v", time.Duration(*f.v), sim.MinDegradedPeriod))
			ok = false
		default:
			*f.dst = time.Duration(*f.v)
		}
	}
	if !ok {
		return nil
	}
	return d
}
