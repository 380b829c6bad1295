// Package plots draws the figures of an optimisation report with gonum/plot,
// per traffic class:
//
//   - cost: added cost versus the objective's percentile, candidates
//     labelled by their delay where the labels fit, the frontier drawn, no
//     hedging and the pick highlighted;
//   - survival: the latency survival curve P(T > t) on a logarithmic axis,
//     no hedging against the pick (when the verdict is "don't hedge",
//     against the fastest candidate, labelled as such; no hedging alone
//     when no candidate is faster; for an undecided class, against its
//     configured policy, which rolls out, when the sweep simulated it as
//     a hedge, else as for "don't hedge" with the title saying what rolls
//     out);
//   - delay: p95 and p99 with their confidence bands, and the hedged and
//     answered shares, versus the hedge delay.
//
// Each figure is built in two steps that can be tested apart: a function
// that computes the data behind it (CostData, SurvivalData, DelayData) and a
// Figure that draws it to PNG or SVG bytes. Legends are drawn inside the
// data area where they cover no curve, marker or label (the y range grows
// when no such spot exists), and point labels are thinned so that none
// covers another, a marker or the frontier.
package plots

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// XY is a point in data units.
type XY struct{ X, Y float64 }

// Label is a candidate's point and label in the cost figure: its delay, or
// "no hedging". Shown is false when the label would cover another label, a
// marker or the frontier, or leave the data area (the pick's, no hedging's
// and the frontier's labels are placed first).
// DX and DY are the offset from the point to the lower-left corner of the
// label's text, in points (1/72 in), X to the right and Y up.
type Label struct {
	XY
	Text   string
	Shown  bool
	DX, DY float64
	// Rejected marks a candidate the report rejected (optimize's
	// StatusRejected), drawn in its own colour.
	Rejected bool
	// TooFew marks a rejected candidate among whose reasons is too few
	// requests for an interval (optimize.ReasonTooFew): not judged, drawn
	// with its own symbol.
	TooFew bool
}

// Cost is the data of the cost figure. X is the added cost in percent (of
// no hedging, on the class's cost basis), Y the percentile in seconds.
type Cost struct {
	Title, XLabel, YLabel string
	// Candidates holds every candidate, in report order (no hedging first).
	Candidates []Label
	// Frontier is the frontier by increasing cost; it is drawn when it has
	// two points or more. FrontierName is its legend entry, the rule that
	// puts a candidate on it (optimize.Frontier: at an equal percentile,
	// fewer unanswered requests count, so the frontier may run along the
	// miss row).
	Frontier     []XY
	FrontierName string
	// Baseline is no hedging and Pick the objective's pick.
	Baseline, Pick Label
	// BaselineName and PickName are their legend entries; PickName is empty
	// when the pick is no hedging (no separate marker is drawn).
	BaselineName, PickName string
	// XMin, XMax, YMin and YMax are the axis ranges: room for the labels
	// and for the legend where it covers no data.
	XMin, XMax, YMin, YMax float64
	// MissY is the height at which candidates whose percentile is a miss
	// (no usable answer at that rank) are drawn, above every finite one;
	// NaN when there is none.
	MissY float64

	order []int // candidates by labelling priority
}

// missRow returns the height at which a miss (+Inf) among the latencies
// ys is drawn: 15 % above the largest finite one (or the deadline, when
// that is higher; 1 s when nothing is finite), and whether there is a miss.
func missRow(ys []float64, deadline float64) (float64, bool) {
	hi, missed := math.Inf(-1), false
	for _, y := range ys {
		if math.IsInf(y, 1) {
			missed = true
		} else if !math.IsNaN(y) {
			hi = max(hi, y)
		}
	}
	if !missed {
		return math.NaN(), false
	}
	hi = max(hi, deadline)
	if !(hi > 0) || math.IsInf(hi, 0) {
		hi = 1
	}
	return 1.15 * hi, true
}

// orMiss returns y, or top when y is a miss (+Inf).
func orMiss(y, top float64) float64 {
	if math.IsInf(y, 1) {
		return top
	}
	return y
}

// plotWidth and plotHeight are the figure sizes in inches.
const (
	plotWidth   = 8.0
	plotHeight  = 5.0
	delayHeight = 7.0
)

// verdictText summarises the class's verdict for titles: "hedge at 3s",
// "don't hedge", or for an undecided class "undecided: configured policy
// rolls out" (optimize.ClassReport.RollsOut).
func verdictText(cr *optimize.ClassReport) string {
	if cr.Verdict.Hedge {
		return "hedge " + policyText(cr.Picked(), false)
	}
	if cr.Verdict.Undecided {
		if cr.RollsOut == optimize.RollsOutConfigured {
			return optimize.LabelUndecided + ": configured policy rolls out"
		}
		return optimize.LabelUndecided
	}
	return "don't hedge"
}

// rollsOutWhy says, for an undecided class with no candidate picked
// (optimize.ClassReport.Unpicked), why none stands for its configured
// policy: "not simulated by the sweep", or "its candidate, 4s, is one no
// pick may be".
func rollsOutWhy(cr *optimize.ClassReport) string {
	if c := cr.RolledOut(); c != nil {
		return fmt.Sprintf("its candidate, %s, is one no pick may be", c.Label)
	}
	return "not simulated by the sweep"
}

func pname(p float64) string {
	if p == 0.99 {
		return "p99"
	}
	return "p95"
}

// costWord formats an added cost on the class's basis: "+9.8% cost",
// "+75.0% calls", "-0.03% cost" (the digits that keep its sign,
// sim.SignedChange).
func costWord(cr *optimize.ClassReport, pct float64) string {
	s := sim.SignedChange(pct, 1) + "%"
	if cr.CostBasis == optimize.CostCalls {
		return s + " calls"
	}
	return s + " cost"
}

// CostData returns the data of the cost figure of cr, with its labels
// placed.
func CostData(cr *optimize.ClassReport) Cost {
	p := cr.Objective.Percentile
	d := Cost{
		Title:        fmt.Sprintf("%s: added cost vs %s — %s", cr.Class, pname(p), verdictText(cr)),
		XLabel:       "added cost (% of no hedging)",
		YLabel:       pname(p) + " latency (s)",
		BaselineName: "no hedging",
		FrontierName: "frontier (no cheaper candidate is faster, or as fast with more answered)",
		MissY:        math.NaN(),
	}
	if cr.CostBasis == optimize.CostCalls {
		d.XLabel = "added attempts per request (% of no hedging)"
	}
	y := func(c *optimize.Candidate) float64 { return c.Q(p) }
	if o := cr.Objective; o.Goal == optimize.MostAnswered {
		// The objective's axis: the share not answered (objective
		// "answered") or not checked ("checked", a pipeline's turns)
		// within the target.
		t, word, of := sim.FormatSeconds(o.Target.Seconds()), o.WithinWord(), "requests"
		if o.Checked {
			of = "turns"
		}
		d.Title = fmt.Sprintf("%s: added cost vs %s not %s within %s — %s", cr.Class, of, word, t, verdictText(cr))
		d.YLabel = fmt.Sprintf("not %s within %s (%% of %s)", word, t, of)
		y = func(c *optimize.Candidate) float64 { return 100 * (1 - c.AnsweredWithinShare) }
		d.FrontierName = fmt.Sprintf("frontier (no cheaper candidate %s more in time, or as many and faster)", o.WithinVerb())
	}
	var ys []float64
	for i := range cr.Candidates {
		ys = append(ys, y(&cr.Candidates[i]))
	}
	top, missed := missRow(ys, cr.DeadlineSeconds)
	if missed {
		d.YLabel += "; top row: miss"
		d.MissY = top
	}
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		rejected := c.Status == optimize.StatusRejected
		few := rejected && slices.ContainsFunc(c.Reasons, func(r optimize.Reason) bool { return r.Code == optimize.ReasonTooFew })
		d.Candidates = append(d.Candidates, Label{XY: XY{c.AddedCostPct, orMiss(y(c), top)}, Text: c.Label, Rejected: rejected && !few, TooFew: few})
	}
	d.Candidates[0].Text = "no hedging"
	for _, i := range cr.Frontier {
		d.Frontier = append(d.Frontier, d.Candidates[i].XY)
	}
	const rollsOut = "the configured policy, which rolls out: undecided"
	switch pick := cr.Picked(); {
	case cr.Unpicked():
		d.BaselineName = fmt.Sprintf("no hedging; no candidate is the pick (the configured policy rolls out: %s)", rollsOutWhy(cr))
	case !pick.Hedging && cr.RollsOut == optimize.RollsOutConfigured:
		d.BaselineName = "no hedging (the pick: " + rollsOut + ")"
	case !pick.Hedging:
		d.BaselineName = "no hedging (the pick)"
	case cr.RollsOut == optimize.RollsOutConfigured:
		d.PickName = fmt.Sprintf("pick: %s, %s (%s)", pick.Label, costWord(cr, pick.AddedCostPct), rollsOut)
	case cr.Verdict.Hedge:
		d.PickName = fmt.Sprintf("pick: %s, %s", pick.Label, costWord(cr, pick.AddedCostPct))
	default:
		d.PickName = fmt.Sprintf("pick: %s, %s (fails the verdict rule)", pick.Label, costWord(cr, pick.AddedCostPct))
	}
	// Label the pick first, then no hedging, the frontier, the rest.
	if cr.Pick != 0 {
		d.order = append(d.order, cr.Pick)
	}
	d.order = append(d.order, 0)
	for _, i := range cr.Frontier {
		if i != 0 && i != cr.Pick {
			d.order = append(d.order, i)
		}
	}
	for i := 1; i < len(cr.Candidates); i++ {
		if i != cr.Pick && !cr.Candidates[i].OnFrontier {
			d.order = append(d.order, i)
		}
	}
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, l := range d.Candidates {
		x0, x1 = min(x0, l.X), max(x1, l.X)
		y0, y1 = min(y0, l.Y), max(y1, l.Y)
	}
	d.XMin, d.XMax = x0-0.04*span(x0, x1), x1+0.10*span(x0, x1)
	d.YMin, d.YMax = y0-0.06*span(y0, y1), y1+0.08*span(y0, y1)
	layoutCost(&d)
	d.Baseline, d.Pick = d.Candidates[0], d.Candidates[cr.Pick]
	return d
}

func span(a, b float64) float64 {
	if b > a {
		return b - a
	}
	return math.Max(math.Abs(a), 1)
}

// Survival is the data of the survival figure: step curves of P(T > t)
// with t in seconds, clipped to S ≥ YMin (> 0, for the log axis) and
// t ≤ XMax.
type Survival struct {
	Title, XLabel, YLabel string
	// Baseline is no hedging; Other the candidate compared with it, nil
	// when no candidate is faster than no hedging.
	Baseline, Other []XY
	// OtherName names the other curve in the legend: "pick: 813ms, +9.8%
	// cost" or, when the verdict is "don't hedge", "fastest candidate: 0s,
	// +73.2% cost (not picked)".
	OtherName string
	// Delay is when the other curve's first copy goes out, in seconds
	// (NaN when it does not hedge).
	Delay float64
	// Sends are when each of the other curve's timed copies goes out, in
	// seconds after the primary (Delay first), when the candidate's
	// copies are evenly spaced (a sweep's); nil otherwise.
	Sends []float64
	// Deadline is the class's deadline in seconds when a curve ends above
	// YMin (it has misses, which stay at their share past it): the x axis
	// then reaches it, so the misses read as such; NaN otherwise.
	Deadline   float64
	XMax, YMin float64
}

// SurvivalData returns the data of the survival figure of cr: no hedging
// against the pick or, when the verdict is "don't hedge", against the
// fastest candidate (lowest percentile, then most answers), for reference;
// no hedging alone when no candidate is faster.
func SurvivalData(cr *optimize.ClassReport) Survival {
	p := cr.Objective.Percentile
	base := cr.Baseline()
	d := Survival{
		XLabel:   "latency t (s)",
		YLabel:   "P(latency > t)",
		Delay:    math.NaN(),
		Deadline: math.NaN(),
	}
	var other *optimize.Candidate
	// verdict is the title's verdict when it is not "hedge": "don't hedge",
	// or for an undecided class what rolls out instead.
	verdict := "don't hedge"
	if cr.RollsOut == optimize.RollsOutConfigured {
		switch {
		case cr.Unpicked():
			verdict = fmt.Sprintf("undecided: configured policy rolls out (%s)", rollsOutWhy(cr))
		default:
			verdict = "undecided: configured policy, no hedging, rolls out"
		}
	}
	if pick := cr.Picked(); cr.Verdict.Hedge || (cr.RollsOut == optimize.RollsOutConfigured && !cr.Unpicked() && pick.Hedging) {
		other = pick
		d.Title = fmt.Sprintf("%s: latency survival — hedge %s vs no hedging", cr.Class, policyText(pick, true))
		d.OtherName = fmt.Sprintf("pick: %s, %s", pick.Label, costWord(cr, pick.AddedCostPct))
		if !cr.Verdict.Hedge {
			d.Title = fmt.Sprintf("%s: latency survival — undecided: configured policy rolls out, %s, vs no hedging", cr.Class, policyLabel(pick))
			d.OtherName += " (the configured policy, which rolls out: undecided)"
		}
	} else {
		best := 0
		for i := range cr.Candidates {
			c, b := &cr.Candidates[i], &cr.Candidates[best]
			if c.Q(p) < b.Q(p) || (c.Q(p) == b.Q(p) && c.AnsweredShare > b.AnsweredShare) {
				best = i
			}
		}
		if best == 0 {
			d.Title = fmt.Sprintf("%s: latency survival without hedging — %s: no candidate is faster", cr.Class, verdict)
		} else {
			other = &cr.Candidates[best]
			d.Title = fmt.Sprintf("%s: latency survival — %s; for reference, the fastest candidate, %s", cr.Class, verdict, policyLabel(other))
			d.OtherName = fmt.Sprintf("fastest candidate: %s, %s (not picked)", other.Label, costWord(cr, other.AddedCostPct))
			if best == cr.Pick && !cr.Verdict.Undecided {
				d.OtherName = fmt.Sprintf("fastest candidate: %s, %s (the pick; fails the verdict rule)", other.Label, costWord(cr, other.AddedCostPct))
			}
		}
	}
	n := float64(max(base.Requests, 1))
	d.YMin = min(max(10/n, 1e-6), 0.1)
	d.XMax = tailAt(base.Survival, d.YMin)
	if other != nil {
		d.XMax = max(d.XMax, tailAt(other.Survival, d.YMin))
	}
	if dl := cr.DeadlineSeconds; dl > 0 && (missesAbove(base.Survival, d.YMin) || (other != nil && missesAbove(other.Survival, d.YMin))) {
		// Misses: the curves stay at their share past the deadline, which
		// the axis reaches (and passes by 5 %, so that its marker shows)
		// so that they read as never answered.
		d.XMax, d.Deadline = max(d.XMax, 1.05*dl), dl
	}
	if !(d.XMax > 0) {
		d.XMax = 1
	}
	d.Baseline = curve(base.Survival, d.XMax, d.YMin)
	if other != nil {
		d.Other = curve(other.Survival, d.XMax, d.YMin)
		d.Delay = other.DelaySeconds
		if other.Hedging && other.Steps == nil && !other.Configured && other.Adaptive == nil && other.Copies > 1 {
			for k := 1; k <= other.Copies; k++ {
				d.Sends = append(d.Sends, float64(k)*other.DelaySeconds)
			}
		}
	}
	return d
}

// missesAbove reports whether survival curve s ends at or above y: its
// requests without an answer (misses) are at least that share.
func missesAbove(s []optimize.SurvivalPoint, y float64) bool {
	return len(s) > 0 && s[len(s)-1].S >= y
}

// copies says where a candidate's copies go: "1 copy to large-b".
func copies(c *optimize.Candidate) string {
	return fmt.Sprintf("%d %s to %s", c.Copies, plural(c.Copies), c.Target)
}

// policyText is how a title names candidate c's policy after "hedge":
// "at 813ms" or, with withCopies, "at 813ms (1 copy to m)"; for a
// pipeline candidate, which has a policy per step and no one delay,
// copies or target, "per step: ga 100ms, gb 0s", as the text report's
// verdict reads.
func policyText(c *optimize.Candidate, withCopies bool) string {
	switch {
	case c.Steps != nil:
		return "per step: " + c.Label
	case withCopies:
		return fmt.Sprintf("at %s (%s)", c.Label, copies(c))
	}
	return "at " + c.Label
}

// policyLabel names candidate c in a title: "813ms (1 copy to m)", or a
// pipeline candidate's "per step: ga 100ms, gb 0s".
func policyLabel(c *optimize.Candidate) string {
	if c.Steps != nil {
		return "per step: " + c.Label
	}
	return fmt.Sprintf("%s (%s)", c.Label, copies(c))
}

func plural(n int) string {
	if n == 1 {
		return "copy"
	}
	return "copies"
}

// tailAt returns the smallest latency at which the survival curve s is
// below y (its last latency if never).
func tailAt(s []optimize.SurvivalPoint, y float64) float64 {
	for _, pt := range s {
		if pt.S < y {
			return pt.T
		}
	}
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1].T
}

// curve turns survival points into a step curve starting at S = 1 and
// clipped to the figure's range; a point below yMin ends the curve at yMin
// so the step down is drawn. A curve that ends above yMin has misses: it
// runs on at their share to xMax.
func curve(s []optimize.SurvivalPoint, xMax, yMin float64) []XY {
	if len(s) == 0 {
		return nil
	}
	out := []XY{{s[0].T, 1}}
	for _, pt := range s {
		if pt.T > xMax {
			out = append(out, XY{xMax, out[len(out)-1].Y})
			return out
		}
		if pt.S < yMin {
			out = append(out, XY{pt.T, yMin})
			return out
		}
		out = append(out, XY{pt.T, pt.S})
	}
	// The curve ends above yMin: the rest are misses, which never get an
	// answer, so P(T > t) stays at their share for every later t.
	if last := out[len(out)-1]; last.X < xMax {
		out = append(out, XY{xMax, last.Y})
	}
	return out
}

// DelaySeries is one (copies, target) series of the delay figure, by
// increasing delay (seconds); latencies in seconds, hedged share in
// percent.
type DelaySeries struct {
	Name              string
	Delay             []float64
	P95, P95Lo, P95Hi []float64
	P99, P99Lo, P99Hi []float64
	HedgedPct         []float64
	// AnsweredPct is the percentage of requests with a usable answer in
	// time.
	AnsweredPct []float64
	// PickAt is the index in Delay of the pick, or −1.
	PickAt int
}

// Delay is the data of the delay figure.
type Delay struct {
	Title, HedgedTitle, XLabel string
	Level                      float64 // confidence level of the bands
	// Bands is false when the requests are too few for the intervals
	// (optimize.MinRequestsForCI): no bands are drawn then.
	Bands bool
	// Percentile is the objective's, at which the pick is marked, and
	// PickName the pick's legend entry ("pick: 813ms", with "fails the
	// verdict rule" when the verdict is "don't hedge").
	Percentile float64
	PickName   string
	Series     []DelaySeries
	// BaseP95 and BaseP99 are the no-hedging percentiles.
	BaseP95, BaseP99 float64
	// MissY is the height at which a percentile or interval bound that is a
	// miss is drawn, above every finite one; NaN when there is none.
	MissY float64
}

// DelayData returns the data of the delay figure of cr.
func DelayData(cr *optimize.ClassReport, level float64) Delay {
	b := cr.Baseline()
	bands := true
	for i := range cr.Candidates {
		bands = bands && cr.Candidates[i].P95CIOK && cr.Candidates[i].P99CIOK
	}
	what := fmt.Sprintf("bands: %s%% CI", trim(100*level))
	if !bands {
		what = "too few requests for confidence bands"
	}
	d := Delay{
		Title:       fmt.Sprintf("%s: p95 and p99 vs hedge delay (%s) — %s", cr.Class, what, verdictText(cr)),
		Bands:       bands,
		HedgedTitle: "requests that send a copy, and requests answered in time",
		XLabel:      "hedge delay (s)",
		Level:       level,
		Percentile:  cr.Objective.Percentile,
		PickName:    "pick: " + cr.Picked().Label,
		BaseP95:     b.Latency.P95, BaseP99: b.Latency.P99,
	}
	switch {
	case cr.RollsOut == optimize.RollsOutConfigured:
		d.PickName += " (the configured policy, which rolls out: undecided)"
	case !cr.Verdict.Hedge:
		d.PickName += " (fails the verdict rule)"
	}
	var ys []float64
	for i := range cr.Candidates {
		l := &cr.Candidates[i].Latency
		ys = append(ys, l.P95, l.P99)
		if cr.Candidates[i].P95CIOK {
			ys = append(ys, l.P95CI95[0], l.P95CI95[1])
		}
		if cr.Candidates[i].P99CIOK {
			ys = append(ys, l.P99CI95[0], l.P99CI95[1])
		}
	}
	top, missed := missRow(ys, cr.DeadlineSeconds)
	d.MissY = math.NaN()
	if missed {
		d.MissY = top
		d.Title += "; top row: miss"
		d.BaseP95, d.BaseP99 = orMiss(d.BaseP95, top), orMiss(d.BaseP99, top)
	}
	for _, sr := range cr.Series {
		s := DelaySeries{Name: sr.Name, PickAt: -1}
		// x of each member: its delay, or a pipeline step's (sr.X).
		x := map[int]float64{}
		for k, i := range sr.Members {
			x[i] = cr.Candidates[i].DelaySeconds
			if sr.X != nil {
				x[i] = sr.X[k]
			}
		}
		members := slices.Clone(sr.Members)
		slices.SortStableFunc(members, func(i, j int) int { return cmpFloat(x[i], x[j]) })
		for _, i := range members {
			c := &cr.Candidates[i]
			l := c.Latency
			if i == cr.Pick && !cr.Unpicked() {
				s.PickAt = len(s.Delay)
			}
			s.Delay = append(s.Delay, x[i])
			s.P95 = append(s.P95, orMiss(l.P95, top))
			// A percentile without an interval (too few requests) is
			// banded at its estimate: no band.
			p95ci, p99ci := l.P95CI95, l.P99CI95
			if !c.P95CIOK {
				p95ci = [2]float64{l.P95, l.P95}
			}
			if !c.P99CIOK {
				p99ci = [2]float64{l.P99, l.P99}
			}
			s.P95Lo = append(s.P95Lo, orMiss(p95ci[0], top))
			s.P95Hi = append(s.P95Hi, orMiss(p95ci[1], top))
			s.P99 = append(s.P99, orMiss(l.P99, top))
			s.P99Lo = append(s.P99Lo, orMiss(p99ci[0], top))
			s.P99Hi = append(s.P99Hi, orMiss(p99ci[1], top))
			s.HedgedPct = append(s.HedgedPct, 100*c.HedgedShare)
			s.AnsweredPct = append(s.AnsweredPct, 100*c.AnsweredShare)
		}
		d.Series = append(d.Series, s)
	}
	return d
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func trim(x float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
}
