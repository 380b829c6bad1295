package scenario

import (
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// autoscaleTable is [providers.NAME.pool.autoscale]: the pool scales
// between min_replicas and max_replicas (sim.Autoscale).
type autoscaleTable struct {
	MinReplicas         *int64    `toml:"min_replicas"`
	MaxReplicas         *int64    `toml:"max_replicas"`
	InitialReplicas     *int64    `toml:"initial_replicas"`
	TargetConcurrency   *float64  `toml:"target_concurrency"`
	TargetUtilisation   *float64  `toml:"target_utilisation"`
	Tick                *Duration `toml:"tick"`
	StableWindow        *Duration `toml:"stable_window"`
	PanicWindow         *Duration `toml:"panic_window"`
	PanicThreshold      *float64  `toml:"panic_threshold"`
	ScaleDownDelay      *Duration `toml:"scale_down_delay"`
	ScaleToZeroGrace    *Duration `toml:"scale_to_zero_grace"`
	NoCapacity          *string   `toml:"no_capacity"`
	PricePerReplicaHour *float64  `toml:"price_per_replica_hour"`
}

// Knative's defaults (config-autoscaler): a 2 s tick, a 60 s stable window,
// a panic window of 10 % of it at a 200 % threshold, a 30 s scale-to-zero
// grace.
const (
	defaultScaleTick      = 2 * time.Second
	defaultStableWindow   = 60 * time.Second
	defaultPanicWindow    = 6 * time.Second
	defaultPanicThreshold = 2.0
	defaultZeroGrace      = 30 * time.Second
)

// autoscale builds the autoscale table at key (providers.NAME.pool.
// autoscale) of pool table t into pl: its size (pl.Replicas) is
// max_replicas, and the pool's replicas key, keep_warm and give_up, which
// the scaler replaces, are errors beside it.
func (c *checker) autoscale(key string, t *poolTable, pl *sim.Pool) {
	a := t.Autoscale
	pool := key[:len(key)-len(".autoscale")]
	as := &sim.Autoscale{Target: 1, Tick: defaultScaleTick, StableWindow: defaultStableWindow,
		PanicWindow: defaultPanicWindow, PanicThreshold: defaultPanicThreshold, ScaleToZeroGrace: defaultZeroGrace}
	if t.Replicas != nil {
		c.keep(c.errorf(pool+".replicas", "an autoscaled pool has between min_replicas and max_replicas: set max_replicas in [%s] instead", key))
	}
	if cs := t.ColdStart; cs != nil {
		if cs.KeepWarm != nil {
			c.keep(c.errorf(pool+".cold_start.keep_warm", "an autoscaled pool's replicas do not go cold on their own: its scaler removes them (scale_to_zero_grace, scale_down_delay in [%s]); remove keep_warm", key))
		}
		if cs.GiveUp != nil {
			c.keep(c.errorf(pool+".cold_start.give_up", "an autoscaled pool's scaler gives up the starts it no longer wants; remove give_up"))
		}
	}
	// Restarts and batching are not modelled with a scaler.
	if len(t.Restart) > 0 {
		c.keep(c.errorf(indexKey(pool+".restart", 0), "restarts in an autoscaled pool are not modelled: its scaler adds and removes replicas; remove the restarts or [%s]", key))
	}
	if t.RandomRestarts != nil {
		c.keep(c.errorf(pool+".random_restarts", "restarts in an autoscaled pool are not modelled: its scaler adds and removes replicas; remove random_restarts or [%s]", key))
	}
	if t.Batching != nil {
		c.keep(c.errorf(pool+".batching", "batching in an autoscaled pool is not modelled; remove [%s.batching] or [%s]", pool, key))
	}
	if a.MaxReplicas == nil {
		c.keep(c.errorf(key, "missing max_replicas; give the most replicas the pool may have up, an integer in [1, %d]", sim.MaxReplicas))
	} else {
		pl.Replicas = int(*a.MaxReplicas) // range-checked by bind
	}
	if a.MinReplicas != nil {
		as.Min = int(*a.MinReplicas)
		if a.MaxReplicas != nil && as.Min > pl.Replicas {
			c.keep(c.errorf(key+".min_replicas", "%d is more than max_replicas = %d; want min_replicas ≤ max_replicas", as.Min, pl.Replicas))
			as.Min = pl.Replicas
		}
	}
	as.Initial = min(max(as.Min, 1), pl.Replicas)
	if a.InitialReplicas != nil {
		if n := int(*a.InitialReplicas); n < as.Min || n > pl.Replicas {
			c.keep(c.errorf(key+".initial_replicas", "%d is not allowed; want an integer in [%d, %d] (min_replicas to max_replicas)", n, as.Min, pl.Replicas))
		} else {
			as.Initial = n
		}
	}
	switch {
	case a.TargetConcurrency != nil && a.TargetUtilisation != nil:
		c.keep(c.errorf(key+".target_utilisation", "give one target: target_concurrency (Knative's concurrency policy) or target_utilisation (a utilisation policy), not both"))
	case a.TargetConcurrency != nil:
		as.Policy = sim.ScaleConcurrency
		setIn(&as.Target, a.TargetConcurrency, "providers.*.pool.autoscale.target_concurrency")
	case a.TargetUtilisation != nil:
		as.Policy = sim.ScaleUtilisation
		setIn(&as.Target, a.TargetUtilisation, "providers.*.pool.autoscale.target_utilisation")
		if pl.Concurrency == 0 && !c.hasErrorsWithin(pool+".concurrency") {
			c.keep(c.errorf(key+".target_utilisation", "needs a concurrency limit per replica: utilisation is the attempts in service ÷ concurrency; set concurrency in [%s] or use target_concurrency", pool))
		}
	default:
		c.keep(c.errorf(key, "missing a target; give target_concurrency (attempts per replica, as Knative's) or target_utilisation (a share of each replica's slots in service)"))
	}
	for _, d := range []struct {
		name string
		v    *Duration
		dst  *time.Duration
	}{
		{"tick", a.Tick, &as.Tick}, {"stable_window", a.StableWindow, &as.StableWindow},
		{"panic_window", a.PanicWindow, &as.PanicWindow}, {"scale_down_delay", a.ScaleDownDelay, &as.ScaleDownDelay},
		{"scale_to_zero_grace", a.ScaleToZeroGrace, &as.ScaleToZeroGrace},
	} {
		if d.v != nil {
			*d.dst = time.Duration(*d.v)
		}
	}
	if as.Policy == sim.ScaleUtilisation && a.PanicWindow != nil {
		c.keep(c.errorf(key+".panic_window", "only target_concurrency has a panic mode; remove panic_window"))
	}
	if as.Policy == sim.ScaleUtilisation && a.PanicThreshold != nil {
		c.keep(c.errorf(key+".panic_threshold", "only target_concurrency has a panic mode; remove panic_threshold"))
	}
	switch {
	case as.Tick < sim.MinScaleTick:
		// bind has said so
	case (as.StableWindow < as.Tick || as.StableWindow/as.Tick > sim.MaxScaleWindowTicks) && a.StableWindow == nil && a.Tick != nil:
		c.keep(c.errorf(key+".tick", "%v does not fit the default stable window of %v; want a tick of 1/%d to 1 stable window, or set stable_window", as.Tick, as.StableWindow, sim.MaxScaleWindowTicks))
	case as.StableWindow < as.Tick || as.StableWindow/as.Tick > sim.MaxScaleWindowTicks:
		c.keep(c.errorf(key+".stable_window", "%v is not allowed; want a window of 1 to %d ticks (tick %v)", as.StableWindow, sim.MaxScaleWindowTicks, as.Tick))
	case as.Policy == sim.ScaleConcurrency && (as.PanicWindow < as.Tick || as.PanicWindow > as.StableWindow) && a.PanicWindow == nil:
		at := key + ".stable_window"
		if a.StableWindow == nil {
			at = key + ".tick"
		}
		c.keep(c.errorf(at, "leaves no room for the default panic window of %v; want a window from the tick (%v) to the stable window (%v): set panic_window", as.PanicWindow, as.Tick, as.StableWindow))
	case as.Policy == sim.ScaleConcurrency && (as.PanicWindow < as.Tick || as.PanicWindow > as.StableWindow):
		c.keep(c.errorf(key+".panic_window", "%v is not allowed; want a window from the tick (%v) to the stable window (%v)", as.PanicWindow, as.Tick, as.StableWindow))
	case as.ScaleDownDelay/as.Tick > sim.MaxScaleWindowTicks:
		c.keep(c.errorf(key+".scale_down_delay", "%v is too long; want at most %d ticks (tick %v)", as.ScaleDownDelay, sim.MaxScaleWindowTicks, as.Tick))
	}
	setIn(&as.PanicThreshold, a.PanicThreshold, "providers.*.pool.autoscale.panic_threshold")
	var err error
	as.NoCapacity, err = enum(c, key+".no_capacity", a.NoCapacity, sim.WaitForCapacity, sim.NoCapacities...)
	c.keep(err)
	setIn(&as.PricePerReplicaHour, a.PricePerReplicaHour, "providers.*.pool.autoscale.price_per_replica_hour")
	pl.Autoscale = as
}

// setIn sets *dst to *v when v is set and within the range of key pattern
// pat; bind reports a value out of it, so it is left out here.
func setIn(dst, v *float64, pat string) {
	if v != nil && ranges[pat].contains(*v) {
		*dst = *v
	}
}
