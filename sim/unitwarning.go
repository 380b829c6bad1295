package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// unitWarning returns a warning when the median latency (or time to first
// token) of the class's primary model lies at or past the class's deadline
// (for a pipeline, each step's call against the step's deadline, the text
// saying "the step's"), so that at least half of the attempts on it miss
// the deadline. When the median is msHintFloor seconds or more and the same
// number read as milliseconds lies within the deadline, the warning says
// the values are seconds and suggests the milliseconds reading: a value
// written in milliseconds where a scenario wants seconds (p50 = 600 for
// 600 ms). It says that nearly every request misses the deadline, unless
// the policy sends copies to other models (rescuers): then only that the
// attempts on the primary miss it and the requests rely on the copies to
// those models, which may answer in time. A shorter median (1.5 s against
// a 1.2 s deadline) is a plausible latency in seconds, and a median past
// the deadline even in milliseconds (40 000 against 20 s) is no unit slip:
// the warning then says only that the median is past the deadline. A
// mixture is judged by its fastest path (fastestMedian): when a
// component's median lies within the deadline, the latency is a plausible
// one of several paths (a bimodal guard mostly on its slow path), and
// there is no warning. Nil otherwise. The warning's Model and Field name
// the model's latency (or ttft); Step the pipeline step whose call it is
// about (-1 for a one-call class).
func unitWarning(cfg *Config, cl *Class) *ConfigWarning {
	if pl := cl.Pipeline; pl != nil {
		// A pipeline: each step's call against its own deadline.
		for s := range pl.Steps {
			if w := medianWarning(cfg, &pl.Steps[s].Call, "step's"); w != nil {
				w.Step = s
				if len(pl.Steps) > 1 {
					w.Text = "step " + pl.Steps[s].Name + ": " + w.Text
				}
				return w
			}
		}
		return nil
	}
	return medianWarning(cfg, cl, "class's")
}

// medianWarning is unitWarning for a one-call class (or a step's call) cl,
// whose deadline the text calls whose ("class's" or "step's").
func medianWarning(cfg *Config, cl *Class, whose string) *ConfigWarning {
	p := cl.Policy.Primary
	if cl.Deadline <= 0 || p < 0 || p >= len(cfg.Models) {
		return nil
	}
	m := &cfg.Models[p]
	key, d := "latency", m.Latency
	if d == nil {
		key, d = "ttft", m.TTFT
	}
	if d == nil {
		return nil
	}
	med, deadline := d.Quantile(0.5), cl.Deadline.Seconds()
	if !(med >= deadline) {
		return nil
	}
	if f := fastestMedian(d); !(f >= deadline) {
		// A mixture with a path within the deadline (a fast path and a
		// slow one, most calls on the slow one): a plausible latency,
		// not a unit slip, which would put every path past it.
		return nil
	}
	w := &ConfigWarning{Step: -1, Model: p, Field: key}
	if med >= msHintFloor && med/1000 < deadline {
		harm := "so nearly every request misses it"
		if r := rescuers(cfg, &cl.Policy); len(r) > 0 {
			harm = "so at least half of the attempts on it miss the deadline, and those requests rely on their copies to " + strings.Join(r, ", ")
		}
		w.Text = fmt.Sprintf("model %s's %s has a median of %s s, at or past the %s %s deadline, %s: values are seconds; did you mean %s (%s ms)?",
			m.Name, key, sig4(med), whose, time.Duration(cl.Deadline), harm, sig4(med/1000), sig4(med))
	} else {
		w.Text = fmt.Sprintf("model %s's %s has a median of %s s, at or past the %s %s deadline, so at least half of the attempts on it miss the deadline",
			m.Name, key, sig4(med), whose, time.Duration(cl.Deadline))
	}
	return w
}

// rescuers returns the names of the models other than the primary that p
// may send a copy to (copies 1 to p.Copies, or with NewProvider any of
// p.Targets), in order, each once; none when p does not hedge.
func rescuers(cfg *Config, p *Policy) []string {
	var out []string
	add := func(t int) {
		if t != p.Primary && t >= 0 && t < len(cfg.Models) && !slices.Contains(out, cfg.Models[t].Name) {
			out = append(out, cfg.Models[t].Name)
		}
	}
	for k := 1; k <= p.Copies; k++ {
		add(p.target(k))
	}
	if p.NewProvider && p.Copies > 0 {
		for _, t := range p.Targets {
			add(t)
		}
	}
	return out
}

// msHintFloor is the least median, in seconds, that unitWarning reads as
// possibly written in milliseconds: a model call whose median is half a
// minute or more is rarely meant, while 30 ms is a plausible one.
const msHintFloor = 30.0

// fastestMedian returns the median of d's fastest path: for a mixture
// (dist.Mixture, nested ones included) the least median of its
// components, else d's median, in d's units.
func fastestMedian(d dist.Continuous) float64 {
	m, ok := d.(*dist.Mixture)
	if !ok {
		return d.Quantile(0.5)
	}
	f := math.Inf(1)
	for _, c := range m.Components {
		f = min(f, fastestMedian(c))
	}
	return f
}

// sig4 formats x with at most four significant digits and no trailing
// zeros, a whole number below 10¹⁵ in full (40000, not 4e+04).
func sig4(x float64) string {
	s := strconv.FormatFloat(x, 'g', 4, 64)
	if strings.Contains(s, "e+") && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(math.Round(x), 'f', -1, 64)
	}
	return s
}
