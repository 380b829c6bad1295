package scenario

import (
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// The fleet keys of a pool: the balancer's view of load (view_refresh,
// view, scrape_jitter, stuck), replica restarts (restart,
// random_restarts, restart_window) and latency_ewma's rule for a replica
// it has not measured (unmeasured, warmup). sim/view.go, sim/restart.go
// and sim/unmeasured.go say what each does.

// stuckTable is one [[providers.NAME.pool.stuck]] entry: a replica whose
// reported load stops updating.
type stuckTable struct {
	Replica *int64    `toml:"replica"`
	At      *Duration `toml:"at"`
	For     *Duration `toml:"for"`
}

// restartTable is one [[providers.NAME.pool.restart]] entry.
type restartTable struct {
	Replica *int64    `toml:"replica"`
	At      *Duration `toml:"at"`
	For     *Duration `toml:"for"`
}

// randomRestartsTable is [providers.NAME.pool.random_restarts].
type randomRestartsTable struct {
	MeanUp *Duration `toml:"mean_up"`
	Down   *Duration `toml:"down"`
}

// viewMode is how a pool's view is refreshed: the value of view.
type viewMode bool

const (
	viewSnapshot viewMode = false // the default: all replicas together
	viewScrape   viewMode = true  // each replica on its own schedule
)

// String returns the scenario-file name of the mode.
func (v viewMode) String() string {
	if v == viewScrape {
		return "scrape"
	}
	return "snapshot"
}

// The fleet tables' keys are described in the reference under "Stale
// views and restarts", in this order (schemaDocs).
func init() {
	schemaDocs["stuckTable"] = []refTable{{"Stale views and restarts", 0}}
	schemaDocs["restartTable"] = []refTable{{"Stale views and restarts", 1}}
	schemaDocs["randomRestartsTable"] = []refTable{{"Stale views and restarts", 2}}
}

// defaultRestartWindow is restart_window's default.
const defaultRestartWindow = 10 * time.Second

// fleet builds the fleet keys of the pool table t at key into pl.
func (c *checker) fleet(key string, t *poolTable, pl *sim.Pool) {
	c.view(key, t, pl)
	c.restarts(key, t, pl)
	var err error
	pl.Unmeasured, err = enum(c, key+".unmeasured", t.Unmeasured, sim.AssumeFastest, sim.Unmeasureds...)
	c.keep(err)
	if t.Unmeasured != nil && err == nil && pl.Balancer != sim.LatencyEWMA && !c.hasErrorsWithin(key+".balancer") {
		if c.overrideOf(key+".balancer") != "" && c.overrideOf(key+".unmeasured") == "" {
			// Switched on the command line, as optimize --balancers
			// switches it: the rule is not read. A rule given by --set
			// too is refused, as in a file.
			c.ignored = append(c.ignored, c.errorf(key+".unmeasured", "ignored: only the latency_ewma balancer ranks replicas by measured latency, and the --set makes this pool's balancer %s", pl.Balancer))
		} else {
			c.keep(c.errorf(key+".unmeasured", "only the latency_ewma balancer ranks replicas by measured latency, and this pool's balancer is %s; set balancer = \"latency_ewma\" or remove unmeasured", pl.Balancer))
		}
	}
	if t.Warmup != nil {
		switch n, r := *t.Warmup, ranges["providers.*.pool.warmup"]; {
		case !r.contains(float64(n)):
			c.keep(c.errorf(key+".warmup", "%d is not allowed; want %s: the latency observations a replica needs before it is ranked by its own average", n, r.wantInt()))
		case pl.Balancer != sim.LatencyEWMA && c.overrideOf(key+".balancer") != "" && !c.hasErrorsWithin(key+".balancer"):
			// Switched on the command line, as for unmeasured: ignored,
			// unless --set gives warmup too.
			if c.overrideOf(key+".warmup") == "" {
				c.ignored = append(c.ignored, c.errorf(key+".warmup", "ignored: only the latency_ewma balancer ranks replicas by their own average, and the --set makes this pool's balancer %s", pl.Balancer))
				pl.Warmup = int(n)
				break
			}
			c.keep(c.errorf(key+".warmup", "only the latency_ewma balancer ranks replicas by their own average, and this pool's balancer is %s; set balancer = \"latency_ewma\" or remove warmup", pl.Balancer))
		case pl.Unmeasured == sim.AssumeFastest && !c.hasErrorsWithin(key+".unmeasured"):
			c.keep(c.errorf(key+".warmup", "has no effect with unmeasured = \"fastest\" (a replica's first observation is its average); set unmeasured = \"probe\" or \"pool_mean\", or remove warmup"))
		default:
			pl.Warmup = int(n)
		}
	}
}

// view builds the pool's view of load.
func (c *checker) view(key string, t *poolTable, pl *sim.Pool) {
	mode, err := enum(c, key+".view", t.View, viewSnapshot, viewSnapshot, viewScrape)
	c.keep(err)
	if c.hasErrorsWithin(key + ".view_refresh") {
		return // refused (a negative duration): the settings needing it would only echo that
	}
	var refresh time.Duration
	if t.ViewRefresh != nil {
		refresh = time.Duration(*t.ViewRefresh) // ≥ 0: the decoder refuses a negative duration
	}
	live := refresh == 0
	// The settings of a refreshed view, which a live one cannot take.
	needs := func(k string, set bool, what string) {
		if !set || !live {
			return
		}
		why := "view_refresh is not set"
		if t.ViewRefresh != nil {
			why = "view_refresh = \"0s\" makes the view live"
		}
		c.keep(c.errorf(key+"."+k, "%s needs a view refreshed at intervals, and %s; set view_refresh to a duration > 0 such as \"5s\", or remove %s", what, why, k))
	}
	needs("view", t.View != nil, "a view mode")
	needs("scrape_jitter", t.ScrapeJitter != nil, "a scrape jitter")
	needs("stuck", len(t.Stuck) > 0, "a stuck load signal")
	if live {
		return
	}
	v := &sim.View{Refresh: refresh, Scrape: bool(mode)}
	if t.ScrapeJitter != nil {
		switch j := *t.ScrapeJitter; {
		case !(j >= 0 && j < 1):
			c.keep(c.errorf(key+".scrape_jitter", "%g is not allowed; want a fraction in [0, 1): each scrape interval is drawn in view_refresh × [1 − jitter, 1 + jitter]", j))
		case mode != viewScrape && err == nil:
			c.keep(c.errorf(key+".scrape_jitter", "needs view = \"scrape\" (each replica on its own scrape schedule); with view = \"snapshot\" every replica is refreshed together"))
		case j > 0 && refresh < sim.MinJitteredRefresh:
			c.keep(c.errorf(key+".view_refresh", "%v is too short for jittered scrapes (each is drawn in turn): want ≥ %v, or scrape_jitter = 0", refresh, sim.MinJitteredRefresh))
		default:
			v.Jitter = j
		}
	}
	var stuckIndex []int // the entry of each period in v.Stuck
	for i := range t.Stuck {
		k := indexKey(key+".stuck", i)
		s := &t.Stuck[i]
		idx, ok := c.replicaIndex(k, s.Replica, pl.Replicas, key)
		if s.At == nil {
			c.keep(c.errorf(k, "missing at; give when the replica's reported load stops updating, a duration such as \"60s\""))
			ok = false
		} else if time.Duration(*s.At) < 0 {
			c.keep(c.errorf(k+".at", "%v is negative; want a time ≥ 0 into the run", time.Duration(*s.At)))
			ok = false
		}
		if s.For != nil && time.Duration(*s.For) <= 0 {
			c.keep(c.errorf(k+".for", "%v is not allowed; want how long the signal stays stuck, a duration > 0 (leave for out: until the run ends)", time.Duration(*s.For)))
			ok = false
		} else if s.For != nil && time.Duration(*s.For) < refresh {
			c.keep(c.errorf(k+".for", "%v is shorter than view_refresh (%v): a signal stuck for less than one refresh interval misses at most one refresh, and none unless one falls in it; want a duration ≥ %v (leave for out: until the run ends)",
				time.Duration(*s.For), refresh, refresh))
			ok = false
		}
		if ok {
			st := sim.Stuck{Replica: idx, At: time.Duration(*s.At)}
			if s.For != nil {
				st.For = time.Duration(*s.For)
			}
			// Periods of one replica may not overlap, as its restarts
			// may not: one of the two says nothing.
			for j, o := range v.Stuck {
				if o.Replica == idx && overlaps(o, st) {
					c.keep(c.errorf(k+".at", "replica %d's signal sticks at %v while it is still stuck from %s (from %v%s); give stuck periods of one replica that do not overlap",
						idx, st.At, indexKey(key+".stuck", stuckIndex[j]), o.At, untilText(o)))
					ok = false
					break
				}
			}
		}
		if ok {
			v.Stuck = append(v.Stuck, sim.Stuck{Replica: idx, At: time.Duration(*s.At)})
			if s.For != nil {
				v.Stuck[len(v.Stuck)-1].For = time.Duration(*s.For)
			}
			stuckIndex = append(stuckIndex, i)
		}
	}
	pl.View = v
}

// overlaps reports whether two stuck periods of a replica overlap (For 0:
// until the run ends).
func overlaps(a, b sim.Stuck) bool {
	end := func(s sim.Stuck) time.Duration {
		if s.For == 0 {
			return 1<<63 - 1
		}
		return s.At + s.For
	}
	return a.At < end(b) && b.At < end(a)
}

// untilText says how long a stuck period lasts: " for 30s", or nothing
// when it lasts until the run ends.
func untilText(s sim.Stuck) string {
	if s.For == 0 {
		return " to the end of the run"
	}
	return " for " + s.For.String()
}

// replicaIndex checks the replica index at k.replica of a pool of n
// replicas (at poolKey).
func (c *checker) replicaIndex(k string, idx *int64, n int, poolKey string) (int, bool) {
	switch {
	case idx == nil:
		c.keep(c.errorf(k, "missing replica; give the replica's index, an integer in [0, %d)", n))
		return 0, false
	case *idx < 0 || *idx >= int64(n):
		if !c.hasErrorsWithin(poolKey + ".replicas") {
			c.keep(c.errorf(k+".replica", "%d is not a replica of this pool of %d; want an integer in [0, %d)", *idx, n, n))
		}
		return 0, false
	}
	return int(*idx), true
}

// restarts builds the pool's restarts.
func (c *checker) restarts(key string, t *poolTable, pl *sim.Pool) {
	if len(t.Restart) == 0 && t.RandomRestarts == nil {
		if t.RestartWindow != nil {
			c.keep(c.errorf(key+".restart_window", "has no effect without restarts; add [[%s.restart]] entries or [%s.random_restarts], or remove restart_window", key, key))
		}
		return
	}
	rs := &sim.Restarts{Window: defaultRestartWindow}
	if t.RestartWindow != nil {
		if w := time.Duration(*t.RestartWindow); w <= 0 {
			c.keep(c.errorf(key+".restart_window", "%v is not allowed; want how long after a replica rejoins its share of attempts is reported, a duration > 0 such as \"10s\"", w))
		} else {
			rs.Window = w
		}
	}
	type span struct{ at, end time.Duration }
	spans := map[int][]span{}
	for i := range t.Restart {
		k := indexKey(key+".restart", i)
		r := &t.Restart[i]
		idx, ok := c.replicaIndex(k, r.Replica, pl.Replicas, key)
		for _, f := range []struct {
			name string
			v    *Duration
			want string
			ok   func(time.Duration) bool
		}{
			{"at", r.At, "when the replica leaves the balancer's set, a time ≥ 0 into the run such as \"5m\"", func(d time.Duration) bool { return d >= 0 }},
			{"for", r.For, "how long it is out of service until it rejoins, a duration > 0 such as \"30s\"", func(d time.Duration) bool { return d > 0 }},
		} {
			switch {
			case f.v == nil:
				c.keep(c.errorf(k, "missing %s; give %s", f.name, f.want))
				ok = false
			case !f.ok(time.Duration(*f.v)):
				c.keep(c.errorf(k+"."+f.name, "%v is not allowed; want %s", time.Duration(*f.v), f.want))
				ok = false
			}
		}
		if !ok {
			continue
		}
		at, end := time.Duration(*r.At), time.Duration(*r.At)+time.Duration(*r.For)
		for j, s := range spans[idx] {
			if at < s.end && s.at < end {
				c.keep(c.errorf(k+".at", "replica %d restarts at %v for %v while it is still out from %s (%v to %v); give restarts of one replica that do not overlap",
					idx, at, time.Duration(*r.For), indexKey(key+".restart", j), s.at, s.end))
				ok = false
			}
		}
		if !ok {
			continue
		}
		spans[idx] = append(spans[idx], span{at, end})
		rs.Scheduled = append(rs.Scheduled, sim.Restart{Replica: idx, At: at, For: time.Duration(*r.For)})
	}
	if rr := t.RandomRestarts; rr != nil {
		k := key + ".random_restarts"
		switch {
		case rr.MeanUp == nil:
			c.keep(c.errorf(k, "missing mean_up; give the mean time between a replica's random restarts, a duration ≥ %v such as \"6h\"", sim.MinDegradedPeriod))
		case time.Duration(*rr.MeanUp) < sim.MinDegradedPeriod:
			c.keep(c.errorf(k+".mean_up", "%v is too short; want a mean up time ≥ %v", time.Duration(*rr.MeanUp), sim.MinDegradedPeriod))
		default:
			rs.MeanUp = time.Duration(*rr.MeanUp)
		}
		switch {
		case rr.Down == nil:
			c.keep(c.errorf(k, "missing down; give how long a replica is out of service at each random restart, a duration > 0 such as \"45s\""))
		case time.Duration(*rr.Down) <= 0:
			c.keep(c.errorf(k+".down", "%v is not allowed; want how long a replica is out of service at each restart, a duration > 0", time.Duration(*rr.Down)))
		default:
			rs.Down = time.Duration(*rr.Down)
		}
	}
	pl.Restarts = rs
}

// checkRestartsInRun refuses a scheduled restart that begins after the
// run's open arrivals end — requests ÷ rate, their expected span — since
// it would change nothing the report shows. Runs whose span is not known
// before they run (closed-loop classes, a replayed trace) are not checked.
func (c *checker) checkRestartsInRun(cfg *sim.Config, provs map[string]providerTable) {
	if cfg.Arrivals.Process == sim.Replay || !(cfg.Arrivals.Rate > 0) {
		return
	}
	for _, cl := range cfg.Classes {
		if cl.Clients > 0 {
			return
		}
	}
	span := float64(cfg.Requests) / cfg.Arrivals.Rate
	for _, p := range cfg.Providers {
		if p.Pool == nil || p.Pool.Restarts == nil {
			continue
		}
		t := provs[p.Name].Pool
		key := joinKey("providers", p.Name) + ".pool"
		for i := range t.Restart {
			if r := &t.Restart[i]; r.At != nil && time.Duration(*r.At).Seconds() >= span {
				c.keep(c.errorf(indexKey(key+".restart", i)+".at", "%v is after the run: its %d requests at %g per second arrive over about %s; want a time within the run, or simulate more requests",
					time.Duration(*r.At), cfg.Requests, cfg.Arrivals.Rate, time.Duration(span*float64(time.Second)).Round(time.Second)))
			}
		}
	}
}
