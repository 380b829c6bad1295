package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// The search flags of optimize and retune (--max-cost, --max-hedged,
// --copies, --objective with --target or --sla, --delays) are checked
// here, before they are applied to every class: a bad value is a usage
// error naming the flag, not a class whose [optimize] table never held it.

// checkSearchFlagValues checks the values of --max-cost (≥ 0, inf for no
// cap), --max-hedged (in [0, 100]) and --copies (each in [1,
// sim.MaxCopies]) when set; a nil flag is one the command lacks.
func checkSearchFlagValues(maxCost, maxHedged *floatFlag, copies []int) error {
	if maxCost != nil && maxCost.set && !(maxCost.v >= 0) {
		return usageError{err: fmt.Errorf("--max-cost %s: must be ≥ 0, in percent of no hedging (inf for no cap)", maxCost)}
	}
	if maxHedged != nil && maxHedged.set && !(maxHedged.v >= 0 && maxHedged.v <= 100) {
		return usageError{err: fmt.Errorf("--max-hedged %s: must be in [0, 100] (percent of requests)", maxHedged)}
	}
	for _, k := range copies {
		if k < 1 || k > sim.MaxCopies {
			return usageError{err: fmt.Errorf("--copies %d: must be in [1, %d] (copies beyond the primary)", k, sim.MaxCopies)}
		}
	}
	return nil
}

// positiveLatencies checks that --target and --sla, when given, are > 0: a
// request answered within 0s, or a p95 of at most 0s, is never met. A bad
// one is a usage error naming its flag (before, --target 0s read as a
// target missing from the scenario's [optimize] table).
func positiveLatencies(target, sla *durationFlag) error {
	for _, f := range []struct {
		name string
		v    *durationFlag
	}{{"target", target}, {"sla", sla}} {
		if f.v.set && f.v.v <= 0 {
			return usageError{err: fmt.Errorf("--%s %s: must be > 0, such as 2s", f.name, f.v.v)}
		}
	}
	return nil
}

// checkObjectiveNeeds checks, once --objective (objective, "" when not
// given) is applied to s, that every class it applies to has what the
// objective needs: a target for answered or checked, an SLA for cost.
// Such a missing value is a usage error naming the flag that gives it.
func checkObjectiveNeeds(s *optimize.Settings, cfg *sim.Config, objective string) error {
	if objective == "" {
		return nil
	}
	for i := range cfg.Classes {
		name := cfg.Classes[i].Name
		if len(s.Only) > 0 && !slices.Contains(s.Only, name) {
			continue
		}
		o := s.For(name).Objective
		switch {
		case o.Goal == optimize.MostAnswered && o.Target <= 0:
			what := "a request counts as answered"
			if o.Checked {
				what = "a pipeline turn counts as checked (every fail-open step answered in time)"
			}
			return usageError{err: fmt.Errorf("--objective %s needs --target LATENCY, the latency within which %s, such as 2s (class %q has no target in the scenario's [optimize] table)", objective, what, name)}
		case o.Goal == optimize.LowestCost && o.SLA <= 0:
			return usageError{err: fmt.Errorf("--objective %s needs --sla LATENCY, the latency p95 must not exceed, such as 2s (class %q has no sla in the scenario's [optimize] table)", objective, name)}
		}
	}
	return nil
}

// checkDelayFlags checks that the delays grid of --delays (or --from, --to
// and --step, as given: flags) leave every one-call class optimized under s a delay
// before its deadline: a copy due at or after the deadline is never sent,
// so such a delay is no candidate, and a class with none left could not
// be optimized. A class left some delays gets a warning on stderr naming
// those it loses. A pipeline's step loses the delays at or past its own
// deadline, with the same warning, and so do its steps at or past the
// pipeline's end-to-end deadline, where a copy is never sent either. A
// step left no delay is not hedged (its advice row says why).
func checkDelayFlags(flags string, grid []time.Duration, s *optimize.Settings, cfg *sim.Config, stderr io.Writer) error {
	if grid == nil {
		return nil
	}
	for i := range cfg.Classes {
		cl := &cfg.Classes[i]
		if len(s.Only) > 0 && !slices.Contains(s.Only, cl.Name) {
			continue
		}
		if p := cl.Pipeline; p != nil {
			for _, st := range p.Steps {
				if dl := st.Call.Deadline; dl > 0 {
					warnPastDeadline(stderr, flags, grid, dl, fmt.Sprintf("step %q's", st.Name), "left out of its candidates")
				}
			}
			if dl := cl.Deadline; dl > 0 {
				warnPastDeadline(stderr, flags, grid, dl, fmt.Sprintf("pipeline %q's end-to-end", cl.Name), "left out of its steps' candidates")
			}
			continue
		}
		if cl.Deadline <= 0 {
			continue
		}
		dl := cl.Deadline
		if slices.ContainsFunc(grid, func(d time.Duration) bool { return d < dl }) {
			warnPastDeadline(stderr, flags, grid, dl, fmt.Sprintf("class %q's", cl.Name), "left out of its candidates")
			continue
		}
		return usageError{err: fmt.Errorf("%s: every delay is at or past class %q's %s deadline, where a copy is never sent; give delays below it", flags, cl.Name, dl)}
	}
	return nil
}

// warnPastDeadline writes a warning on stderr naming the delays of grid
// (from flags) at or past the deadline dl of whose ("class "c"'s"), where a
// copy is never sent, and what becomes of them (then); nothing when none is.
func warnPastDeadline(stderr io.Writer, flags string, grid []time.Duration, dl time.Duration, whose, then string) {
	var past []string
	for _, d := range grid {
		if d >= dl {
			past = append(past, d.String())
		}
	}
	switch n := len(past); {
	case n == 1:
		printMessage(stderr, "hedgesim optimize: warning: %s: %s is at or past %s %s deadline, where a copy is never sent: %s\n", flags, past[0], whose, dl, then)
	case n > 1 && n <= 5:
		printMessage(stderr, "hedgesim optimize: warning: %s: %s are at or past %s %s deadline, where a copy is never sent: %s\n", flags, strings.Join(past, ", "), whose, dl, then)
	case n > 5:
		printMessage(stderr, "hedgesim optimize: warning: %s: the %d delays from %s to %s are at or past %s %s deadline, where a copy is never sent: %s\n", flags, n, past[0], past[n-1], whose, dl, then)
	}
}
