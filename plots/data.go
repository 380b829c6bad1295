// Package plots draws the figures of an optimisation report with gonum/plot,
// per traffic class:
//
//   - cost: added cost versus the objective's percentile, every candidate
//     labelled by its delay, the frontier drawn, no hedging and the pick
//     highlighted;
//   - survival: the latency survival curve P(T > t) on a logarithmic axis,
//     no hedging against the pick (or, when the pick is no hedging, the
//     fastest candidate);
//   - delay: p95 and p99 with their confidence bands, and the hedged share,
//     versus the hedge delay.
//
// Each figure is built in two steps that can be tested apart: a function
// that computes the data behind it (CostData, SurvivalData, DelayData) and a
// Figure that draws it to PNG or SVG bytes.
package plots

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hedgesim/hedgesim/optimize"
)

// XY is a point in data units.
type XY struct{ X, Y float64 }

// Label is a candidate's point and label in the cost figure. Shown is
// false when the label would overlap one placed before it (the pick, no
// hedging and frontier points are placed first).
type Label struct {
	XY
	Text  string
	Shown bool
}

// Cost is the data of the cost figure. X is the added cost in percent (of
// no hedging, on the class's cost basis), Y the percentile in seconds.
type Cost struct {
	Title, XLabel, YLabel string
	// Candidates holds every candidate, in report order (no hedging first).
	Candidates []Label
	// Frontier is the frontier by increasing cost.
	Frontier []XY
	// Baseline is no hedging and Pick the objective's pick.
	Baseline, Pick Label
}

// plotWidth and plotHeight are the figure sizes in inches.
const (
	plotWidth     = 8.0
	plotHeight    = 5.0
	delayHeight   = 7.0
	labelFontSize = 7.0 // points
)

// verdictText summarises the class's verdict for titles.
func verdictText(cr *optimize.ClassReport) string {
	if cr.Verdict.Hedge {
		return "hedge at " + cr.Picked().Label
	}
	return "don't hedge"
}

func pname(p float64) string {
	if p == 0.99 {
		return "p99"
	}
	return "p95"
}

// CostData returns the data of the cost figure of cr.
func CostData(cr *optimize.ClassReport) Cost {
	p := cr.Objective.Percentile
	d := Cost{
		Title:  fmt.Sprintf("%s: added cost vs %s — %s", cr.Class, pname(p), verdictText(cr)),
		XLabel: "added cost (% of no hedging)",
		YLabel: pname(p) + " latency (s)",
	}
	if cr.CostBasis == optimize.CostCalls {
		d.XLabel = "added calls per request (% of no hedging)"
	}
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		d.Candidates = append(d.Candidates, Label{XY: XY{c.AddedCostPct, c.Q(p)}, Text: c.Label})
	}
	for _, i := range cr.Frontier {
		d.Frontier = append(d.Frontier, d.Candidates[i].XY)
	}
	// Place labels greedily, most important first, skipping overlaps.
	order := []int{cr.Pick, 0}
	order = append(order, cr.Frontier...)
	for i := range cr.Candidates {
		order = append(order, i)
	}
	placeLabels(d.Candidates, order)
	d.Baseline = d.Candidates[0]
	d.Baseline.Text = "no hedging"
	d.Pick = d.Candidates[cr.Pick]
	return d
}

// placeLabels marks as Shown the labels, taken in order (repeats ignored),
// whose text box does not overlap a box already placed. Boxes are
// estimated in inches on the figure's data area.
func placeLabels(ls []Label, order []int) {
	if len(ls) == 0 {
		return
	}
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, l := range ls {
		x0, x1 = min(x0, l.X), max(x1, l.X)
		y0, y1 = min(y0, l.Y), max(y1, l.Y)
	}
	const w, h = plotWidth - 1.5, plotHeight - 1.5 // data area, about
	sx, sy := w/nonzero(x1-x0), h/nonzero(y1-y0)
	type box struct{ x0, y0, x1, y1 float64 }
	var placed []box
	seen := make([]bool, len(ls))
	for _, i := range order {
		if seen[i] {
			continue
		}
		seen[i] = true
		l := &ls[i]
		// Labels are drawn right of and above their point.
		bx := (l.X - x0) * sx
		by := (l.Y - y0) * sy
		b := box{bx + 0.03, by, bx + 0.03 + 0.55*labelFontSize/72*float64(len([]rune(l.Text))), by + labelFontSize/72}
		ok := true
		for _, q := range placed {
			if b.x0 < q.x1 && q.x0 < b.x1 && b.y0 < q.y1 && q.y0 < b.y1 {
				ok = false
				break
			}
		}
		if ok {
			placed = append(placed, b)
			l.Shown = true
		}
	}
}

func nonzero(x float64) float64 {
	if x > 0 {
		return x
	}
	return 1
}

// Survival is the data of the survival figure: step curves of P(T > t)
// with t in seconds, clipped to S ≥ YMin (> 0, for the log axis) and
// t ≤ XMax.
type Survival struct {
	Title, XLabel, YLabel string
	Baseline, Other       []XY
	// OtherName names the other curve: "pick: 650ms" or "fastest: 0s".
	OtherName string
	// Delay is when the other curve's first copy goes out, in seconds
	// (NaN when it does not hedge).
	Delay      float64
	XMax, YMin float64
}

// SurvivalData returns the data of the survival figure of cr: no hedging
// against the pick, or, when the pick is no hedging, against the candidate
// with the lowest percentile.
func SurvivalData(cr *optimize.ClassReport) Survival {
	p := cr.Objective.Percentile
	base := cr.Baseline()
	other, name := cr.Picked(), "pick: "+cr.Picked().Label
	if !other.Hedging {
		best := 0
		for i := range cr.Candidates {
			if cr.Candidates[i].Q(p) < cr.Candidates[best].Q(p) {
				best = i
			}
		}
		other, name = &cr.Candidates[best], "fastest: "+cr.Candidates[best].Label
	}
	d := Survival{
		Title:     fmt.Sprintf("%s: latency survival, no hedging vs %s", cr.Class, strings.TrimPrefix(strings.TrimPrefix(name, "pick: "), "fastest: ")),
		XLabel:    "latency t (s)",
		YLabel:    "P(latency > t)",
		OtherName: name,
		Delay:     math.NaN(),
	}
	if other.Hedging {
		d.Delay = other.DelaySeconds
		d.Title += fmt.Sprintf(" (%d cop%s to %s)", other.Copies, plural(other.Copies), other.Target)
	}
	n := float64(max(base.Requests, 1))
	d.YMin = min(max(10/n, 1e-6), 0.1)
	d.XMax = max(tailAt(base.Survival, d.YMin), tailAt(other.Survival, d.YMin))
	if !(d.XMax > 0) {
		d.XMax = 1
	}
	d.Baseline = curve(base.Survival, d.XMax, d.YMin)
	d.Other = curve(other.Survival, d.XMax, d.YMin)
	return d
}

func plural(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
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
// so the step down is drawn.
func curve(s []optimize.SurvivalPoint, xMax, yMin float64) []XY {
	if len(s) == 0 {
		return nil
	}
	out := []XY{{s[0].T, 1}}
	for _, pt := range s {
		if pt.T > xMax {
			out = append(out, XY{xMax, out[len(out)-1].Y})
			break
		}
		if pt.S < yMin {
			out = append(out, XY{pt.T, yMin})
			break
		}
		out = append(out, XY{pt.T, pt.S})
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
	// Percentile is the objective's, at which the pick is marked.
	Percentile float64
	Series     []DelaySeries
	// BaseP95 and BaseP99 are the no-hedging percentiles.
	BaseP95, BaseP99 float64
}

// DelayData returns the data of the delay figure of cr.
func DelayData(cr *optimize.ClassReport, level float64) Delay {
	b := cr.Baseline()
	d := Delay{
		Title:       fmt.Sprintf("%s: p95 and p99 vs hedge delay (bands: %s%% CI) — %s", cr.Class, trim(100*level), verdictText(cr)),
		HedgedTitle: "share of requests that send a copy, and that get a usable answer in time",
		XLabel:      "hedge delay (s)",
		Level:       level,
		Percentile:  cr.Objective.Percentile,
		BaseP95:     b.Latency.P95, BaseP99: b.Latency.P99,
	}
	for _, sr := range cr.Series {
		s := DelaySeries{Name: sr.Name, PickAt: -1}
		members := slices.Clone(sr.Members)
		slices.SortStableFunc(members, func(i, j int) int {
			return cmpFloat(cr.Candidates[i].DelaySeconds, cr.Candidates[j].DelaySeconds)
		})
		for _, i := range members {
			c := &cr.Candidates[i]
			l := c.Latency
			if i == cr.Pick {
				s.PickAt = len(s.Delay)
			}
			s.Delay = append(s.Delay, c.DelaySeconds)
			s.P95 = append(s.P95, l.P95)
			s.P95Lo = append(s.P95Lo, l.P95CI95[0])
			s.P95Hi = append(s.P95Hi, l.P95CI95[1])
			s.P99 = append(s.P99, l.P99)
			s.P99Lo = append(s.P99Lo, l.P99CI95[0])
			s.P99Hi = append(s.P99Hi, l.P99CI95[1])
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
