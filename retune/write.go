package retune

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// Scenario returns the scenario src (the text of the file name, whose
// policies cfg holds) with every model to refit's (Model.Refit) live fit in place of its
// latency or ttft (scenario.WithLatencies) and every class rep says to
// change set to its new pick (scenario.WithPolicies; a relative trace path
// rewritten against traceDir when not empty), each under a comment saying
// where it came from and when. Everything else is kept.
func Scenario(name string, src []byte, traceDir string, cfg *sim.Config, rep *Report) ([]byte, error) {
	var lat []scenario.LatencyEdit
	for _, m := range rep.Models {
		if !m.Refit() {
			continue
		}
		lat = append(lat, scenario.LatencyEdit{
			Model: m.Model, Key: m.Key, Inline: m.FitSpec, Table: m.Fit.TableLines(),
			Comment: []string{
				fmt.Sprintf("hedgesim retune, %s: fitted to %s in %s (%g observations): %s", rep.At, m.Query, m.Source, m.Drift.N, m.Fit.Describe()),
				fmt.Sprintf("replaces the scenario's model: %s (%s)", m.Drift.Describe(), m.Drift.Why),
			},
		})
	}
	data, err := scenario.WithLatencies(name, src, lat)
	if err != nil {
		return nil, err
	}
	if rep.Recheck == nil {
		return data, nil
	}
	var edits []scenario.HedgeEdit
	var notes []string
	for i := range rep.Recheck.New.Classes {
		cr := &rep.Recheck.New.Classes[i]
		adv := rep.Recheck.Classes[slices.IndexFunc(rep.Recheck.Classes, func(a ClassAdvice) bool { return a.Class == cr.Class })]
		pick := adv.Rolled(cr)
		if adv.Decision != Change || pick == nil {
			continue
		}
		if pick.Steps != nil {
			for _, sp := range pick.Steps {
				edits = append(edits, scenario.HedgeEdit{Class: cr.Class, Step: sp.Step, NoHedging: !sp.Hedging, Delay: sp.Delay, Copies: sp.Copies})
			}
		} else {
			ed := scenario.HedgeEdit{Class: cr.Class, NoHedging: !pick.Hedging, Delay: pick.Delay, Copies: pick.Copies, Keep: pick.Configured}
			if pick.SetsTargets() {
				ed.Targets = strings.Split(pick.Target, ",")
			}
			edits = append(edits, ed)
		}
		notes = append(notes, fmt.Sprintf("# class %s: hedge policy %s picked by hedgesim retune, %s, on the live models: %s", cr.Class, pick.Label, rep.At, adv.Why))
	}
	if len(edits) > 0 {
		if data, err = scenario.WithPolicies(name, data, scenario.Top{Requests: max(cfg.Requests, 1)}, edits, traceDir); err != nil {
			return nil, err
		}
	}
	if len(notes) == 0 {
		return data, nil
	}
	// The notes go at the top, after a #:schema line.
	text := string(data)
	head := ""
	if strings.HasPrefix(text, "#:schema") {
		i := strings.IndexByte(text, '\n') + 1
		head, text = text[:i], text[i:]
	}
	return []byte(head + strings.Join(notes, "\n") + "\n" + text), nil
}

// CheckRewritable returns an error when Scenario could not rewrite the
// hedge tables of cfg's classes in src (see scenario.WithPolicies), so that
// a command can refuse before reading or simulating anything.
func CheckRewritable(name string, src []byte, traceDir string, cfg *sim.Config) error {
	var edits []scenario.HedgeEdit
	for _, cl := range cfg.Classes {
		if cl.Pipeline == nil {
			edits = append(edits, scenario.HedgeEdit{Class: cl.Name, NoHedging: true})
			continue
		}
		for _, st := range cl.Pipeline.Steps {
			edits = append(edits, scenario.HedgeEdit{Class: cl.Name, Step: st.Name, NoHedging: true})
		}
	}
	_, err := scenario.WithPolicies(name, src, scenario.Top{Requests: max(cfg.Requests, 1)}, edits, traceDir)
	return err
}
