package sim

import (
	"fmt"
	"math"

	"github.com/hedgesim/hedgesim/dist"
)

// paretoIndex returns the smallest Pareto tail index α in d, itself or
// among a mixture's components (recursively); +Inf when d has no Pareto
// tail. A mixture's tail is its heaviest component's.
func paretoIndex(d dist.Dist) float64 {
	switch d := d.(type) {
	case dist.Pareto:
		return d.Alpha
	case *dist.Mixture:
		a := math.Inf(1)
		for _, c := range d.Components {
			a = min(a, paretoIndex(c))
		}
		return a
	}
	return math.Inf(1)
}

// heavyTailWarnings returns a warning for each model class cl reaches
// whose latency (or TTFT) has a Pareto tail too heavy for a mean: with
// α ≤ 1 the mean is infinite, so the mean latency a run prints, and its
// interval, estimate nothing (they grow with the requests simulated);
// with 1 < α ≤ 2 the variance is infinite, so the mean's normal (or
// batched t) interval does not hold. The percentiles and their intervals
// are unaffected.
func heavyTailWarnings(cfg *Config, cl *Class) []ConfigWarning {
	var out []ConfigWarning
	for _, m := range distinctModels(cfg, cl) {
		md := &cfg.Models[m]
		key, d := "latency", dist.Dist(md.Latency)
		if md.Latency == nil {
			key, d = "ttft", md.TTFT
		}
		if d == nil {
			continue
		}
		switch a := paretoIndex(d); {
		case a <= 1:
			out = append(out, ConfigWarning{Step: -1, Model: m, Field: key,
				Text: fmt.Sprintf("model %s's %s has a Pareto tail of index %g ≤ 1: its mean is infinite, so the mean latency printed and its interval estimate nothing (they grow with the requests simulated); judge by the percentiles", md.Name, key, a)})
		case a <= 2:
			out = append(out, ConfigWarning{Step: -1, Model: m, Field: key,
				Text: fmt.Sprintf("model %s's %s has a Pareto tail of index %g ≤ 2: its variance is infinite, so the interval of the mean latency does not hold (too narrow); judge by the percentiles", md.Name, key, a)})
		}
	}
	return out
}
