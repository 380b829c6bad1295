package sim

import (
	"fmt"
	"strconv"
	"time"
)

// unitWarning returns a warning when the median latency (or time to first
// token) of the class's primary model lies at or past the class's deadline
// while the same number read as milliseconds lies within it: a value
// written in milliseconds where a scenario wants seconds (p50 = 600 for
// 600 ms), which makes nearly every request miss. Nil otherwise. The
// warning's Model and Field name the model's latency (or ttft); Step the
// pipeline step whose call it is about (-1 for a one-call class).
func unitWarning(cfg *Config, cl *Class) *ConfigWarning {
	if pl := cl.Pipeline; pl != nil {
		// A pipeline: each step's call against its own deadline.
		for s := range pl.Steps {
			if w := unitWarning(cfg, &pl.Steps[s].Call); w != nil {
				w.Step = s
				if len(pl.Steps) > 1 {
					w.Text = "step " + pl.Steps[s].Name + ": " + w.Text
				}
				return w
			}
		}
		return nil
	}
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
	if !(med >= deadline) || !(med/1000 < deadline) {
		return nil
	}
	return &ConfigWarning{Step: -1, Model: p, Field: key, Text: fmt.Sprintf("model %s's %s has a median of %s s, at or past the class's %s deadline, so nearly every request misses it: values are seconds; did you mean %s (%s ms)?",
		m.Name, key, sig4(med), time.Duration(cl.Deadline), sig4(med/1000), sig4(med))}
}

// sig4 formats x with at most four significant digits and no trailing zeros.
func sig4(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
