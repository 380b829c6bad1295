package export

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hedgesim/hedgesim/sim"
)

// Breaker is a circuit breaker on the calls to one of a class's targets:
// a model's (Model set) or a provider's (Provider set, shared by every
// model in Models). See sim.Breaker.
type Breaker struct {
	Model    string   `json:"model,omitempty"`
	Provider string   `json:"provider,omitempty"`
	Models   []string `json:"models"`
	// ConsecutiveFailures opens the breaker after that many failed calls
	// in a row (0 = off).
	ConsecutiveFailures int `json:"consecutive_failures"`
	// FailureRatio opens it when the failed share of the calls in the
	// window reaches it, once the window holds MinCalls calls (0 = off);
	// the window is the last Window calls or the last WindowTime.
	FailureRatio float64 `json:"failure_ratio"`
	Window       int     `json:"window"`
	WindowTime   Seconds `json:"window_time_s"`
	MinCalls     int     `json:"min_calls"`
	// Cooldown is how long it stays open; Probes how many calls pass
	// while half-open.
	Cooldown Seconds `json:"cooldown_s"`
	Probes   int     `json:"probes"`
}

// breakersOf returns the breakers on c's primary and copy targets, in the
// order the targets are first named: each target model's own breaker,
// then its provider's (each once).
func breakersOf(cfg *sim.Config, c *Class) []Breaker {
	var bs []Breaker
	seen := map[string]bool{}
	for _, m := range classModels(cfg, c) {
		if m.Breaker != nil && !seen["m:"+m.Name] {
			seen["m:"+m.Name] = true
			bs = append(bs, breakerOf(m.Breaker, m.Name, "", []string{m.Name}))
		}
		for i := range cfg.Providers {
			p := &cfg.Providers[i]
			if p.Name != m.Provider || p.Breaker == nil || seen["p:"+p.Name] {
				continue
			}
			seen["p:"+p.Name] = true
			var models []string
			for _, o := range cfg.Models {
				if o.Provider == p.Name {
					models = append(models, o.Name)
				}
			}
			bs = append(bs, breakerOf(p.Breaker, "", p.Name, models))
		}
	}
	return bs
}

func breakerOf(b *sim.Breaker, model, provider string, models []string) Breaker {
	return Breaker{Model: model, Provider: provider, Models: models, ConsecutiveFailures: b.Failures,
		FailureRatio: b.FailureRatio, Window: b.Window, WindowTime: Seconds(b.WindowTime), MinCalls: b.MinCalls,
		Cooldown: Seconds(b.Cooldown), Probes: b.Probes}
}

func (b *Breaker) validate() error {
	if (b.Model == "") == (b.Provider == "") {
		return errors.New("model, provider: want exactly one")
	}
	if len(b.Models) == 0 {
		return errors.New("models: empty; want the models it guards")
	}
	if b.ConsecutiveFailures < 0 || !(b.FailureRatio >= 0 && b.FailureRatio <= 1) || (b.ConsecutiveFailures == 0 && b.FailureRatio == 0) {
		return errors.New("consecutive_failures, failure_ratio: want consecutive_failures ≥ 0 and failure_ratio in [0, 1], not both 0")
	}
	if b.FailureRatio > 0 && ((b.Window > 0) == (b.WindowTime > 0) || b.MinCalls < 1) {
		return errors.New("window, window_time_s, min_calls: with failure_ratio want exactly one of window and window_time_s, and min_calls ≥ 1")
	}
	if b.Window < 0 || b.MinCalls < 0 || b.Cooldown <= 0 || b.Probes < 1 {
		return errors.New("window, min_calls ≥ 0, cooldown_s > 0, probes ≥ 1: out of range")
	}
	return nil
}

// String describes b as notes name it: `the model breaker on west (5
// consecutive failures, 20s cooldown, 1 probe)`.
func (b *Breaker) String() string {
	var trips []string
	if b.ConsecutiveFailures > 0 {
		trips = append(trips, fmt.Sprintf("%d consecutive failures", b.ConsecutiveFailures))
	}
	if b.FailureRatio > 0 {
		over := fmt.Sprintf("the last %d calls", b.Window)
		if b.WindowTime > 0 {
			over = "the last " + fdur(b.WindowTime.D())
		}
		trips = append(trips, fmt.Sprintf("failure ratio %g over %s, min %d calls", b.FailureRatio, over, b.MinCalls))
	}
	who := "the model breaker on " + b.Model
	if b.Provider != "" {
		who = fmt.Sprintf("the provider breaker on %s (models %s)", b.Provider, strings.Join(b.Models, ", "))
	}
	probes := "probes"
	if b.Probes == 1 {
		probes = "probe"
	}
	return fmt.Sprintf("%s: %s, %s cooldown, %d half-open %s", who, strings.Join(trips, " or "), fdur(b.Cooldown.D()), b.Probes, probes)
}

// breakerNotes adds, for a runtime that writes no breaker, a note per
// breaker of c saying so, with what the runtime offers instead.
func breakerNotes(n *notes, c *Class, instead string) {
	for i := range c.Breakers {
		n.add("%s not written: %s", c.Breakers[i].String(), instead)
	}
}
