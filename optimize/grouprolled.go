package optimize

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hedgesim/hedgesim/sim"
)

// The group objective's figure and what rolls out. A group objective's
// value (GroupChoice.Value) is of one run of the group search, with every
// class at the search's pick (GroupChoice.Picks). What rolls out can
// differ: an undecided class rolls out its configured policy, and the
// rollout check rolls out no hedging for a pick, or a configured policy,
// that answers significantly fewer requests than no hedging there. The
// search's value is then not the figure of what rolls out, and
// GroupChoice.RolledOut gives that figure from the rollout check's run,
// which has every class at what rolls out (groupRolledOut). It costs no
// simulation: one selection per class and run for its percentile.

// setGroupPicks names, for each class report of a joint group that a
// group objective chose, the policies its value is of (GroupChoice.Picks):
// class j of the group (gc's class j, reports[group[j]]) by the label of
// its candidate with that policy on its configured policy, "none" for no
// hedging, or "configured" for a class not optimized or a policy that is
// none of its candidates.
func setGroupPicks(reports map[int]*ClassReport, group []int, gc *sim.Config) {
	for _, cr := range reports {
		g := cr.Group
		if g == nil || len(g.at) != len(group) {
			continue
		}
		g.at[g.own] = cr.Candidates[g.ownPick].Policy(gc.Classes[g.own].Policy)
		g.Picks = make([]string, len(group))
		for j, i := range group {
			g.Picks[j] = "configured"
			other := reports[i]
			if other == nil {
				continue
			}
			k := g.ownPick
			if j != g.own {
				at, conf := g.at[j], gc.Classes[j].Policy
				k = slices.IndexFunc(other.Candidates, func(c Candidate) bool {
					return c.Hedging == (at.Copies > 0) && samePolicy(c.Policy(conf), at)
				})
			}
			switch {
			case k < 0:
			case !other.Candidates[k].Hedging:
				g.Picks[j] = "none"
			default:
				g.Picks[j] = other.Candidates[k].Label
			}
		}
	}
}

// groupRolledOut sets GroupChoice.RolledOut on every class report of rep
// that a group objective chose whose group does not roll out the group
// search's picks: what rolls out for each class of the group under cfg
// (RolloutConfig's policy: the pick, or the configured policy of an
// undecided class or one not optimized), and the group objective of the
// rollout check's run (run; nil when there was none: the value is then
// unknown).
func groupRolledOut(cfg *sim.Config, s *Settings, rep *Report, run *checkRun) {
	var hf, bf []GroupFigure
	if run != nil {
		hf, bf = groupFigures(run.hedged, run.cfg, s), groupFigures(run.base, run.cfg, s)
	}
	for k := range rep.Classes {
		g := rep.Classes[k].Group
		if g == nil || len(g.at) != len(g.Classes) {
			continue
		}
		g.RolledOut = nil
		picks := make([]string, len(g.Classes))
		same := true
		for j, name := range g.Classes {
			i := slices.IndexFunc(cfg.Classes, func(c sim.Class) bool { return c.Name == name })
			if i < 0 {
				same = false
				picks[j] = "configured"
				continue
			}
			pol, label := cfg.Classes[i].Policy, "configured"
			if r := slices.IndexFunc(rep.Classes, func(c ClassReport) bool { return c.Class == name }); r >= 0 && !rep.Classes[r].Verdict.Undecided {
				p := rep.Classes[r].Picked()
				pol, label = p.Policy(cfg.Classes[i].Policy), p.Label
				if !p.Hedging {
					label = "none"
				}
			}
			picks[j] = label
			same = same && samePolicy(pol, g.at[j])
		}
		if same {
			continue
		}
		ro := &GroupRolledOut{Picks: picks, Value: math.NaN()}
		if run != nil {
			ro.Value, ro.Requests = checkGroupValue(g, hf, bf, s), run.cfg.Requests
		}
		g.RolledOut = ro
	}
}

// checkGroupValue is the group objective of g's classes from the figures
// hf of the rollout check's run and bf of its run without hedging (every
// class of the scenario); NaN when a class of g is not among them.
func checkGroupValue(g *GroupChoice, hf, bf []GroupFigure, s *Settings) float64 {
	var figs, base []GroupFigure
	for _, name := range g.Classes {
		j := slices.IndexFunc(hf, func(f GroupFigure) bool { return f.Class == name })
		if j < 0 {
			return math.NaN()
		}
		figs, base = append(figs, hf[j]), append(base, bf[j])
	}
	v, _ := groupValue(g.Objective, figs, base, groupWeights(figs, s))
	return v
}

// groupPicksText names each class's policy: "interactive none, batch
// 3.36s".
func groupPicksText(classes, picks []string) string {
	parts := make([]string, len(classes))
	for j, c := range classes {
		p := "?"
		if j < len(picks) {
			p = picks[j]
		}
		parts[j] = c + " " + p
	}
	return strings.Join(parts, ", ")
}

// groupAtText says what a class's group value is of, for its group:
// line: "at this pick", or, when what rolls out is not the group search's
// picks, those picks, what rolls out and the group objective there in
// the rollout check.
func groupAtText(g *GroupChoice) string {
	ro := g.RolledOut
	if ro == nil {
		return "at this pick"
	}
	at := fmt.Sprintf("at the group search's picks (%s), not what rolls out (%s)", groupPicksText(g.Classes, g.Picks), groupPicksText(g.Classes, ro.Picks))
	if ro.Requests == 0 {
		return at + ", which no rollout check measured"
	}
	return at + fmt.Sprintf(", which the rollout check of %d requests puts at %s", ro.Requests, groupValueText(g.Objective, ro.Value))
}
