package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// PolicyText describes a class's hedge policy in one short phrase, as the
// reports and compare show it: "no hedging"; "1.2s ×1 → large-b" (the gap
// between sends, the copies beyond the primary, their targets); "0.5s,1s
// ×2 → a,b" when the gaps or targets differ; "fallback ×1 → b" for copies
// sent only after a failure; "adaptive p95 ×1 → b"; "→ a new provider"
// with NewProvider. An attempt timeout without copies is "no hedging,
// attempt timeout 2s".
func PolicyText(cfg *Config, cl *Class) string {
	if pl := cl.Pipeline; pl != nil {
		// A pipeline: each step's policy; one step reads as its call.
		if len(pl.Steps) == 1 {
			return PolicyText(cfg, &pl.Steps[0].Call)
		}
		parts := make([]string, len(pl.Steps))
		for s := range pl.Steps {
			parts[s] = pl.Steps[s].Name + ": " + PolicyText(cfg, &pl.Steps[s].Call)
		}
		return strings.Join(parts, "; ")
	}
	p := &cl.Policy
	if p.Copies == 0 {
		if p.AttemptTimeout > 0 {
			return "no hedging, attempt timeout " + FormatSeconds(p.AttemptTimeout.Seconds())
		}
		return "no hedging"
	}
	var gaps, targets []string
	for j := 1; j <= p.Copies; j++ {
		g := p.gap(j)
		var s string
		switch {
		case g < 0:
			s = "fallback"
		case p.Adaptive != nil && g > 0:
			s = "adaptive p" + strconv.FormatFloat(100*p.Adaptive.Percentile, 'g', 4, 64)
		default:
			s = FormatSeconds(float64(g) / 1e9)
		}
		gaps = append(gaps, s)
		if t := p.target(j); t >= 0 && t < len(cfg.Models) {
			targets = append(targets, cfg.Models[t].Name)
		}
	}
	to := strings.Join(distinctRun(targets), ",")
	if p.NewProvider {
		to = "a new provider (else " + to + ")"
	}
	return fmt.Sprintf("%s ×%d → %s", strings.Join(distinctRun(gaps), ","), p.Copies, to)
}

// distinctRun returns s with its trailing repeats dropped ("1s,1s,1s" →
// "1s"; "0.5s,1s,1s" → "0.5s,1s"): the last one repeats, as gaps and
// targets do.
func distinctRun(s []string) []string {
	for len(s) > 1 && s[len(s)-1] == s[len(s)-2] {
		s = s[:len(s)-1]
	}
	return s
}
