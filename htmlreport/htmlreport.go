// Package htmlreport writes an optimisation report (optimize.Report) as one
// self-contained HTML page: the per-class table, each class's verdict with
// its reason, pick note and warnings, the three figures of the plots
// package inlined as SVG, the rollout check, the balancers' and keep-warm
// floors' comparisons when the report has them (Routing, Fleet), and the
// commands to reproduce and apply the result. The page loads nothing: no scripts, fonts, styles
// or images from anywhere, so it can be attached to a review or opened
// offline.
//
// The page is generated with html/template, so every name and message from
// the scenario is escaped; the SVG figures are produced by the plots
// package and inserted as they are.
package htmlreport

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/plots"
	"github.com/hedgesim/hedgesim/sim"
)

// Section is an extra part of the page, after the built-in ones; HTML is
// inserted as it is (the caller escapes what it did not write itself).
type Section struct {
	// ID is the section's anchor, Title its heading.
	ID, Title string
	HTML      template.HTML
}

// Options say what goes on the page besides the report.
type Options struct {
	// Title of the page; default "hedgesim optimize: SCENARIO".
	Title string
	// Commands are shell commands shown under "Commands" (reproduce the
	// report, write the picks back as a scenario, …), each with a label.
	Commands []Command
	// NoFigures leaves the plots out (faster; the tables stay).
	NoFigures bool
	// Lead sections come first, after the title; Extra sections follow
	// the built-in ones.
	Lead, Extra []Section
}

// Command is a labelled shell command shown on the page.
type Command struct {
	Label, Line string
}

// figure is one inlined SVG plot.
type figure struct {
	Name string
	SVG  template.HTML
}

// classView is one class as the page shows it.
type classView struct {
	ID                                    string
	Class, Verdict, Delay, Copies, Target string
	Hedge                                 bool
	// Configured: the verdict is undecided, so the class's configured
	// policy rolls out (the delay column says "configured", the figures
	// are its candidate's, "-" when the sweep did not simulate it).
	Configured                     bool
	P95Before, P95After, P95Change string
	P99Before, P99After, P99Change string
	// AnsweredBefore, AnsweredAfter and AnsweredChange are the shares
	// answered without hedging → with the pick and their change, as the
	// text report prints them (optimize.AnsweredShares).
	AnsweredBefore, AnsweredAfter, AnsweredChange string
	Hedged                                        string
	// Within and WithinChange are the share within the objective's
	// target before → after and its change (Report.WithinShares), "-"
	// and "" for a class judged on a percentile.
	Within, WithinChange                        string
	AttemptsPerRequest, AddedCost, Reason, Note string
	// Group says how a group objective chose the pick and which picks
	// its value is of (optimize.ClassReport.GroupText); empty otherwise.
	Group         string
	Objective     string
	Candidates    int
	Warnings      []string
	OptimizedWith string
	Figures       []figure
	// Map places every candidate by status, with its reasons on hover
	// (nil without figures); Rejected lists the rejected candidates.
	Map      *fateMap
	Rejected []fateRow
	// RejectedFigure names the figure the table of rejected candidates
	// gives beside each (fateMap.YName: "percentile", or under objectives
	// answered and checked "share not answered within 10.0s").
	RejectedFigure string
	// Won says who answered the pick's requests and the share that met
	// the class's target; Bought what hedging rescued and harmed.
	Won, Bought string
	// Pipeline: the class is a pipeline, whose calls are won in its steps
	// (optimize.Candidate.Steps). Its pick's delay column is "per step:"
	// and the pick's label, with no copies or target, and Won gives only
	// the share that met the target, under no "Who answered", as the text
	// report does.
	Pipeline bool
	// Steps, for a pipeline class, say where the pick's hedging goes, and
	// StepsOf whose pick it is.
	Steps   []stepView
	StepsOf string
	// Search, for a pipeline class, says how many combinations of its
	// steps' policies were simulated and how the pick was found.
	Search string
}

// stepView is one step of a pipeline class's pick.
type stepView struct {
	Step, Policy, Why string
}

type rolloutView struct {
	Class, Pick, Checked, Predicted, NoHedging, Answered, AddedCost, Flag string
	PerDay, PerMonth                                                      string
	// Throughput and NoHedgingThroughput are the requests per second of a
	// closed-loop class (with its 95 % interval), "-" for open arrivals.
	Throughput, NoHedgingThroughput string
	Flagged                         bool
	// TooFew is the check's, or the sweep's, too few requests of the
	// class for a p95 interval (optimize.RolloutClass.TooFew,
	// PredictedTooFew): the row shows its Note, not "ok".
	TooFew bool
	Note   string
}

type page struct {
	Title, Scenario, Requests, Quantiles string
	// RuleLines are the verdict rule as applied (optimize's
	// Report.RuleLines); WithinHead heads the summary's column of the
	// share within the target, "" when no class is judged on one
	// (Report.WithinHead).
	RuleLines  []string
	WithinHead string
	// AnyPipeline says some class is a pipeline: the legend under the
	// summary then says how its pick reads ("per step:").
	AnyPipeline     bool
	Seed            uint64
	Level           string
	Overrides       []string
	Joint           []string
	Classes         []classView
	Rollout         []rolloutView
	RolloutRequests int
	// HasThroughput is set when a class of the rollout check has
	// closed-loop clients; Breakers say what each circuit breaker did.
	HasThroughput bool
	Breakers      []string
	Warnings      []string
	Commands      []Command
	Lead, Extra   []Section
	// Routing and Fleet are the balancers' and keep-warm floors'
	// comparisons (optimize --balancers, --min-replicas), nil without.
	Routing *routingView
	Fleet   *fleetView
	// NoReport is set for a page of sections only (WriteSections).
	NoReport bool
}

// Write writes rep as an HTML page to w. It fails only when a figure
// cannot be drawn or w fails.
func Write(w io.Writer, rep *optimize.Report, o Options) error {
	p := page{
		Title: o.Title, Scenario: rep.Scenario, Seed: rep.Seed, RuleLines: rep.RuleLines(), WithinHead: rep.WithinHead(),
		Quantiles: rep.QuantileRule, Level: strconv.FormatFloat(100*rep.Level, 'g', 4, 64) + "%",
		Requests: strconv.Itoa(rep.RequestsPerCandidate), Overrides: rep.Overrides,
		Commands: o.Commands, Lead: o.Lead, Extra: o.Extra,
	}
	if p.Title == "" {
		p.Title = "hedgesim optimize: " + rep.Scenario
	}
	for _, g := range rep.Joint {
		p.Joint = append(p.Joint, fmt.Sprintf("%s (sharing %s)", strings.Join(g.Classes, ", "), strings.Join(g.Shared, ", ")))
	}
	for i := range rep.Classes {
		cv, err := classOf(rep, &rep.Classes[i], rep.Level, i, !o.NoFigures)
		if err != nil {
			return err
		}
		p.Classes = append(p.Classes, cv)
		p.AnyPipeline = p.AnyPipeline || cv.Pipeline
	}
	if rc := rep.Rollout; rc != nil {
		p.RolloutRequests = rc.Requests
		for _, c := range rc.Classes {
			added := "n/a"
			if c.AddedCostPct != nil {
				added = signedPct(*c.AddedCostPct)
			}
			predicted := interval(c.Predicted.P95, c.Predicted.P95CI95, c.Predicted.P95CIOK)
			if c.Unswept { // the sweep did not simulate what the check runs
				predicted = "-"
			}
			answered := share(c.AnsweredShare)
			if c.NoRequests() {
				answered = "-" // no request of the class in the check
			}
			p.Rollout = append(p.Rollout, rolloutView{
				Class: c.Class, Pick: c.Pick,
				Checked:   interval(c.Checked.P95, c.Checked.P95CI95, c.Checked.P95CIOK),
				Predicted: predicted,
				NoHedging: sim.FormatSeconds(c.NoHedging.P95),
				Answered:  answered, AddedCost: added,
				Flagged: c.Flagged, Flag: c.Flag, TooFew: c.TooFew || c.PredictedTooFew, Note: c.Note, PerDay: "-", PerMonth: "-",
				Throughput: "-", NoHedgingThroughput: "-",
			})
			if rc.Report != nil {
				for _, cl := range rc.Report.Classes {
					if cl.Class == c.Class {
						v := &p.Rollout[len(p.Rollout)-1]
						if !cl.Spend.NoRate && cl.Requests > 0 { // else no arrival rate, or no requests: "-"
							v.PerDay, v.PerMonth = sim.Dollars(cl.Spend.PerDay), sim.Dollars(cl.Spend.PerMonth)
						}
						if t := cl.Throughput; t != nil {
							p.HasThroughput = true
							v.Throughput = t.Text(true)
						}
						if t := cl.NoHedging.Throughput; t != nil {
							v.NoHedgingThroughput = t.Text(false)
						}
					}
				}
			}
		}
		if rc.Report != nil {
			// A class's warnings are in its section; the rollout check's
			// are here, each once.
			for _, w := range rc.Report.Warnings {
				if !slices.Contains(p.Warnings, w) {
					p.Warnings = append(p.Warnings, w)
				}
			}
			for _, b := range rc.Report.Breakers {
				p.Breakers = append(p.Breakers, fmt.Sprintf("model %s: the circuit breaker opened %d times, open %s in all, and failed %d calls at once",
					b.Model, b.Opens, sim.FormatSeconds(b.OpenSeconds), b.Rejected))
			}
		}
	}
	p.Routing, p.Fleet = routingOf(rep.Routing), fleetOf(rep.Fleet)
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteSections writes a page of sections only, with the look of Write's
// page and no optimisation report: title, o.Lead, o.Commands, o.Extra
// (o's other fields are not used). It fails only when w fails.
func WriteSections(w io.Writer, title string, o Options) error {
	p := page{Title: title, Lead: o.Lead, Extra: o.Extra, Commands: o.Commands, NoReport: true}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// classOf builds the view of one class; i numbers its anchor.
func classOf(rep *optimize.Report, cr *optimize.ClassReport, level float64, i int, withFigures bool) (classView, error) {
	b, c := cr.Baseline(), cr.Picked()
	v := classView{
		ID: "class-" + strconv.Itoa(i), Class: cr.Class, Hedge: cr.Verdict.Hedge,
		Verdict: "don't hedge", Delay: "-", Copies: "-", Target: "-",
		Reason: cr.Verdict.Reason, Note: cr.PickNote, Group: cr.GroupText(), Objective: cr.Objective.String(),
		Candidates: len(cr.Candidates), Warnings: distinct(cr.Warnings),
		OptimizedWith: strings.Join(cr.OptimizedWith, ", "),
	}
	switch {
	case cr.Verdict.Undecided:
		// The configured policy rolls out: the row shows its candidate
		// (the pick, unless Unpicked), or no after-figures (below) when
		// the sweep did not simulate it.
		v.Verdict, v.Configured = optimize.LabelUndecided, true
		if r := cr.RolledOut(); r != nil {
			c = r
		}
	case cr.Verdict.Hedge && c.Steps != nil:
		v.Verdict, v.Delay = "hedge", "per step: "+c.Label
	case cr.Verdict.Hedge:
		v.Verdict, v.Delay, v.Copies, v.Target = "hedge", sim.FormatSeconds(c.Delay.Seconds()), strconv.Itoa(c.Copies), c.Target
		if cr.Verdict.Label != "" {
			v.Verdict = cr.Verdict.Label // "effectively no hedging", "fallback"
		}
	default:
		c = b
	}
	v.P95Before, v.P95After, v.P95Change = sim.FormatSeconds(b.Latency.P95), sim.FormatSeconds(c.Latency.P95), measuredChange(b, c, 0.95)
	v.P99Before, v.P99After, v.P99Change = sim.FormatSeconds(b.Latency.P99), sim.FormatSeconds(c.Latency.P99), measuredChange(b, c, 0.99)
	v.StepsOf = "the pick's"
	if cr.StepsOf == "objective_pick" {
		v.StepsOf = "the objective's pick's (which the verdict rule rejects)"
	}
	for _, s := range cr.Steps {
		pol := "none"
		if s.Hedging {
			pol = fmt.Sprintf("%s, %d cop%s to %s", sim.FormatSeconds(s.DelaySeconds), s.Copies, map[bool]string{true: "y", false: "ies"}[s.Copies == 1], s.Target)
		}
		v.Steps = append(v.Steps, stepView{Step: s.Step, Policy: pol, Why: s.Why})
	}
	if ps := cr.PipelineSearch; ps != nil {
		v.Search = ps.Found
	}
	v.Hedged = candShare(c, c.HedgedShare)
	v.AttemptsPerRequest = strconv.FormatFloat(c.AttemptsPerRequest, 'f', 3, 64)
	if c.Requests == 0 {
		v.AttemptsPerRequest = "-"
	}
	v.AddedCost = signedPct(c.AddedCostPct)
	switch {
	case c.Requests == 0:
		v.AddedCost = "-" // no requests: no cost measured
	case cr.CostBasis == optimize.CostCalls:
		v.AddedCost += " calls"
	}
	v.Map, v.Rejected = fatesOf(cr)
	v.RejectedFigure = v.Map.YName
	target := "answered"
	if cr.SLOSeconds > 0 {
		target = "met the SLO of " + sim.FormatSeconds(cr.SLOSeconds)
	}
	won := cr.Picked()
	if cr.Verdict.Undecided {
		won = c // what rolls out
	}
	v.Pipeline = won.Steps != nil || b.Steps != nil
	v.Won = fmt.Sprintf("%s: %s without hedging → %s", target, share(b.MetShare), share(won.MetShare))
	switch {
	case won.Requests == 0:
		v.Won = fmt.Sprintf("no request fell in the class; %s: - without hedging → -", target)
	case !v.Pipeline:
		v.Won = won.WhoAnswered() + "; " + v.Won
	}
	v.Bought = won.Bought()
	after := c
	if cr.Verdict.Undecided && cr.RolledOut() == nil {
		after = nil
	}
	v.AnsweredBefore, v.AnsweredAfter, v.AnsweredChange = optimize.AnsweredShares(b, after)
	if v.Within, v.WithinChange = rep.WithinShares(cr, after); v.Within == "" {
		v.Within = "-"
	}
	if cr.Verdict.Undecided && cr.RolledOut() == nil {
		// The configured policy rolls out, which the sweep did not
		// simulate: no candidate's figures are its.
		v.P95After, v.P95Change, v.P99After, v.P99Change = "-", "", "-", ""
		v.Hedged, v.AttemptsPerRequest, v.AddedCost = "-", "-", "-"
		v.Won, v.Bought = "not known to the sweep: the configured policy rolls out, which it did not simulate (the rollout check runs it)", ""
	}
	if !withFigures {
		v.Map = nil
	}
	if withFigures {
		for _, f := range plots.ClassFigures(cr, level) {
			svg, err := f.Render("svg")
			if err != nil {
				return v, fmt.Errorf("htmlreport: class %q: %w", cr.Class, err)
			}
			v.Figures = append(v.Figures, figure{Name: f.Name, SVG: inlineSVG(svg)})
		}
	}
	return v, nil
}

// inlineSVG strips what precedes the <svg> element (an XML declaration, a
// doctype), which HTML does not allow inline.
func inlineSVG(b []byte) template.HTML {
	s := string(b)
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	return template.HTML(s) // generated by the plots package, not user input
}

func share(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// candShare is share(x) for a share of candidate c's requests, "-" when c
// has none (a class no request fell in).
func candShare(c *optimize.Candidate, x float64) string {
	if c.Requests == 0 {
		return "-"
	}
	return share(x)
}

// signedPct formats a change in percent with its sign and one decimal,
// or the digits that keep its sign (sim.SignedChange): -0.03%, not +0.0%.
func signedPct(x float64) string { return sim.SignedChange(x, 1) + "%" }

// change is the relative change from a to b, "−40.7%", or "" when there is
// none to show (equal, a miss, or a zero base).
func change(a, b float64) string {
	if !(a > 0) || a == b || math.IsInf(a, 1) || math.IsInf(b, 1) {
		return ""
	}
	return signedPct(100 * (b - a) / a)
}

// measuredChange is change from b's p-quantile (0.95 or 0.99) to c's, or
// "(no interval)" where the text report prints it: when c has too few
// requests for an interval on it (optimize.Candidate.NoIntervalFrom), the
// change is not a measured one.
func measuredChange(b, c *optimize.Candidate, p float64) string {
	ch := change(b.Q(p), c.Q(p))
	if ch != "" && c.NoIntervalFrom(b, p) {
		return "(no interval)"
	}
	return ch
}

func interval(x float64, ci [2]float64, ok bool) string {
	s := sim.FormatSeconds(x)
	if ok {
		s += " [" + sim.FormatSeconds(ci[0]) + ", " + sim.FormatSeconds(ci[1]) + "]"
	}
	return s
}

// distinct returns s without repeats, in order.
func distinct(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
