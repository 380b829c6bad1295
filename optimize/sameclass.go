package optimize

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hedgesim/hedgesim/sim"
)

// classForm is a class searched alone in the form by which two such
// classes are found to be one simulation under two names: its one-class
// scenario (classConfig) and its search, with every name of a class,
// model and provider dropped, and its models and providers reordered —
// those its class calls or its search tries first, in scenario order,
// then the others in scenario order, the balancers of the pools it never
// calls left out. Two classes whose forms are equal
// (reflect.DeepEqual) make the same draws in the same order: every draw
// is keyed by seed, request and attempt, never by a model's or a
// provider's index or name (the provider's index keys only the draws of
// the features formOf refuses). Their sweeps therefore measure the same
// figures, under their own keys and model names (translate).
type classForm struct {
	cfg    sim.Config
	search Search
	// models maps a model's index in the form to its index in the
	// scenario.
	models []int
}

// formOf returns the form of class i of cfg searched under s, or false
// when it has none: a pipeline class, a search target that names no
// model, or a scenario with a feature whose draws a provider's index
// keys (slow periods, a pool's degraded or down periods, cold starts,
// autoscaling, scraped views, restarts) or whose results are kept by
// model in an order formOf does not keep (circuit breakers).
func formOf(cfg *sim.Config, i int, s *Settings) (*classForm, bool) {
	cl := &cfg.Classes[i]
	if cl.Pipeline != nil {
		return nil, false
	}
	for j := range cfg.Providers {
		p := &cfg.Providers[j]
		if p.Degraded != nil || p.Breaker != nil {
			return nil, false
		}
		if pl := p.Pool; pl != nil {
			if pl.Degraded != nil || pl.Down != nil || pl.ColdStart != nil || pl.Autoscale != nil || pl.View != nil || pl.Restarts != nil {
				return nil, false
			}
			for _, o := range pl.Overrides {
				if o.Degraded != nil || o.Down != nil {
					return nil, false
				}
			}
		}
	}
	for m := range cfg.Models {
		if cfg.Models[m].Breaker != nil {
			return nil, false
		}
	}
	c, _, err := classConfig(cfg, i, s.Requests)
	if err != nil {
		return nil, false
	}
	search := s.For(cl.Name)
	called := map[int]bool{cl.Policy.Primary: true}
	for _, t := range cl.Policy.Targets {
		called[t] = true
	}
	for _, name := range search.Targets {
		m := slices.IndexFunc(cfg.Models, func(m sim.Model) bool { return m.Name == name })
		if m < 0 {
			return nil, false
		}
		called[m] = true
	}
	var order []int // form index → scenario index
	for pass := range 2 {
		for m := range cfg.Models {
			if called[m] == (pass == 0) {
				order = append(order, m)
			}
		}
	}
	at := make([]int, len(order)) // scenario index → form index
	for f, m := range order {
		at[m] = f
	}
	// Providers: the listed ones that a called model uses first, in
	// scenario order, then the other listed ones; a model names its
	// provider by its place there, or — a provider of its own, unlisted —
	// by the first model in form order that names it.
	listed := map[string]int{}
	for j := range cfg.Providers {
		listed[cfg.Providers[j].Name] = j
	}
	provName := func(m *sim.Model) string {
		if m.Provider == "" {
			return m.Name
		}
		return m.Provider
	}
	usedBy := map[int]bool{}
	for m := range cfg.Models {
		if j, ok := listed[provName(&cfg.Models[m])]; ok && called[m] {
			usedBy[j] = true
		}
	}
	var provs []int
	for pass := range 2 {
		for j := range cfg.Providers {
			if usedBy[j] == (pass == 0) {
				provs = append(provs, j)
			}
		}
	}
	provAt := make([]int, len(provs))
	for f, j := range provs {
		provAt[j] = f
	}
	unlisted := map[string]string{}
	f := &classForm{cfg: *c, search: search, models: order}
	f.cfg.Name = ""
	f.cfg.Models = make([]sim.Model, len(order))
	for k, m := range order {
		md := cfg.Models[m]
		name := provName(&md)
		if j, ok := listed[name]; ok {
			md.Provider = fmt.Sprintf("listed %d", provAt[j])
		} else {
			if _, ok := unlisted[name]; !ok {
				unlisted[name] = fmt.Sprintf("own %d", len(unlisted))
			}
			md.Provider = unlisted[name]
		}
		md.Name = ""
		f.cfg.Models[k] = md
	}
	f.cfg.Providers = make([]sim.Provider, len(provs))
	for k, j := range provs {
		p := cfg.Providers[j]
		p.Name = ""
		if p.Pool != nil && !usedBy[j] {
			// A pool the class never calls routes nothing: its
			// balancer is not read.
			q := *p.Pool
			q.Balancer, q.Decay = 0, 0
			p.Pool = &q
		}
		f.cfg.Providers[k] = p
	}
	fc := c.Classes[0]
	fc.Name = ""
	fc.Policy.Primary = at[fc.Policy.Primary]
	fc.Policy.Targets = slices.Clone(fc.Policy.Targets)
	for k, t := range fc.Policy.Targets {
		fc.Policy.Targets[k] = at[t]
	}
	f.cfg.Classes = []sim.Class{fc}
	f.search.Targets = slices.Clone(search.Targets)
	for k, name := range search.Targets {
		m := slices.IndexFunc(cfg.Models, func(m sim.Model) bool { return m.Name == name })
		f.search.Targets[k] = fmt.Sprintf("model %d", at[m])
	}
	return f, true
}

// same reports whether f and g are one simulation under two names.
func (f *classForm) same(g *classForm) bool {
	return reflect.DeepEqual(f.cfg, g.cfg) && reflect.DeepEqual(f.search, g.search)
}

// distinctKeys reports whether the keys of every class of cfg name their
// class unambiguously: no class's name is another's followed by ": ",
// so that "class <name>: " begins the keys of that class alone.
func distinctKeys(cfg *sim.Config) bool {
	for i := range cfg.Classes {
		for j := range cfg.Classes {
			if i != j && strings.HasPrefix(cfg.Classes[j].Name, cfg.Classes[i].Name+": ") {
				return false
			}
		}
	}
	return true
}

// translate returns the measurements of class from (its form ff, in
// scenario fcfg) among known, as those of class to (form tf, in scenario
// tcfg) under to's keys, for a sweep of to to take instead of simulating
// them. A measurement that names more than what translate renames — a
// failure, loads, a group's figures, or wins by copies of more than one
// model — is left out: the sweep of to simulates it.
func translate(known map[string]*Measurement, from string, fcfg *sim.Config, ff *classForm, to string, tcfg *sim.Config, tf *classForm) map[string]*Measurement {
	out := map[string]*Measurement{}
	prefix := "class " + from + ": "
	for key, me := range known {
		rest, ok := strings.CutPrefix(key, prefix)
		if !ok || me.Err != "" || len(me.Loads) > 0 || me.Group != nil || me.Spans != nil || len(me.WonCopies) > 1 {
			continue
		}
		t := *me
		t.Key = "class " + to + ": " + rest
		if len(me.WonCopies) == 1 {
			w := me.WonCopies[0]
			m := slices.IndexFunc(fcfg.Models, func(m sim.Model) bool { return m.Name == w.Model })
			f := slices.Index(ff.models, m)
			if m < 0 || f < 0 {
				continue
			}
			w.Model = tcfg.Models[tf.models[f]].Name
			t.WonCopies = []sim.ModelWins{w}
		}
		out[t.Key] = &t
	}
	return out
}
