package sim

import (
	"fmt"
	"math"
	"time"
)

// tokenLimitWarnings returns a warning for each rate limit (a model's own,
// or its provider's) on a model class cl calls whose token bucket holds
// fewer tokens than the least a call needs (its input + output tokens at
// the lower ends of their distributions; in a pipeline, a step's call
// against the models it reaches): that limit admits none of those calls,
// each rejected with a 429, which a run warns of only after simulating
// them (all429). One warning per limit and class, at its
// tokens_per_minute.
func tokenLimitWarnings(cfg *Config, cl *Class) []ConfigWarning {
	calls := []*Class{cl}
	if pl := cl.Pipeline; pl != nil {
		calls = calls[:0]
		for s := range pl.Steps {
			calls = append(calls, &pl.Steps[s].Call)
		}
	}
	var out []ConfigWarning
	seen := map[string]bool{}
	for s, c := range calls {
		if c.InputTokens == nil || c.OutputTokens == nil {
			continue
		}
		lo, _ := c.InputTokens.Support()
		olo, _ := c.OutputTokens.Support()
		need := max(lo, 0) + max(olo, 0)
		step := -1
		if cl.Pipeline != nil {
			step = s
		}
		for _, m := range append([]int{c.Policy.Primary}, c.Policy.Targets...) {
			if m < 0 || m >= len(cfg.Models) {
				continue
			}
			md := &cfg.Models[m]
			if holds, burst := bucketTokens(md.RateLimit); holds < need && !seen["m"+md.Name] {
				seen["m"+md.Name] = true
				out = append(out, ConfigWarning{Step: step, Model: m, Field: "rate_limit.tokens_per_minute",
					Text: tokenLimitText("model "+md.Name+"'s", md.RateLimit, holds, burst, need)})
			}
			prov := md.Provider
			if prov == "" {
				prov = md.Name
			}
			for i := range cfg.Providers {
				p := &cfg.Providers[i]
				if p.Name != prov {
					continue
				}
				if holds, burst := bucketTokens(p.RateLimit); holds < need && !seen["p"+p.Name] {
					seen["p"+p.Name] = true
					out = append(out, ConfigWarning{Step: step, Model: -1, Provider: i + 1, Field: "rate_limit.tokens_per_minute",
						Text: tokenLimitText("provider "+p.Name+"'s", p.RateLimit, holds, burst, need)})
				}
			}
		}
	}
	return out
}

// bucketTokens is how many tokens a full token bucket of r holds
// (tokens_per_minute ÷ 60 × its burst), with that burst; +Inf, as more
// than any call needs, when r has no token limit.
func bucketTokens(r RateLimit) (float64, time.Duration) {
	if r.TokensPerMinute <= 0 {
		return math.Inf(1), burstOf(r.Burst)
	}
	return newBucket(r.TokensPerMinute, r.Burst).capacity, burstOf(r.Burst)
}

// tokenLimitText is tokenLimitWarnings' text for whose limit r (a model's
// or a provider's), whose bucket holds holds tokens at the burst given,
// against calls of need tokens at the least.
func tokenLimitText(whose string, r RateLimit, holds float64, burst time.Duration, need float64) string {
	return fmt.Sprintf("%s rate limit holds %.6g tokens (tokens_per_minute %.6g over a burst of %s) and every call needs at least %.6g (input + output tokens): it admits none of them, each a 429; raise tokens_per_minute or burst, or send fewer tokens",
		whose, holds, r.TokensPerMinute, FormatSeconds(burst.Seconds()), need)
}
