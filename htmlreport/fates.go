package htmlreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// fatePoint is one candidate in the page's candidate map: its place in
// the SVG (pixels), its status (the circle's class) and the hover text.
type fatePoint struct {
	X, Y, R float64
	Status  string
	Title   string
}

// fateMap is the candidate map of a class: every candidate at its added
// cost and percentile, coloured by its status, its reasons on hover, the
// frontier drawn; sized W × H pixels.
type fateMap struct {
	W, H             float64
	Points           []fatePoint
	Frontier         string // the polyline's points
	XLabel, YLabel   string
	XMin, XMax       string // the axis ends, as text
	YMin, YMax       string
	Left, Right      float64 // the plot area
	Top, Bottom      float64
	Rejected, Elig   int
	HasMiss, MissTop bool
}

// fateRow is a rejected candidate in the table under the map.
type fateRow struct {
	Label, Percentile, AddedCost, Hedged, Reasons, Codes string
}

// reasonsText joins a candidate's reasons in words.
func reasonsText(c *optimize.Candidate) string {
	var s []string
	for _, r := range c.Reasons {
		s = append(s, r.Text)
	}
	return strings.Join(s, "; ")
}

// fatesOf builds the candidate map and the table of rejected candidates
// of cr.
func fatesOf(cr *optimize.ClassReport) (*fateMap, []fateRow) {
	p := cr.Objective.Percentile
	m := &fateMap{W: 600, H: 320, Left: 64, Right: 584, Top: 16, Bottom: 280,
		XLabel: "added cost (% of no hedging)", YLabel: fmt.Sprintf("%s (s)", pname(p))}
	if cr.CostBasis == optimize.CostCalls {
		m.XLabel = "added calls (% of no hedging)"
	}
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		x0, x1 = min(x0, c.AddedCostPct), max(x1, c.AddedCostPct)
		if q := c.Q(p); !math.IsInf(q, 1) {
			y0, y1 = min(y0, q), max(y1, q)
		} else {
			m.HasMiss = true
		}
	}
	if math.IsInf(y0, 1) { // every percentile a miss
		y0, y1 = 0, 1
	}
	if x1 <= x0 {
		x1 = x0 + 1
	}
	if y1 <= y0 {
		y1 = y0 + 1
	}
	yTop := y1
	if m.HasMiss {
		yTop = y1 + 0.12*(y1-y0) // misses on a row above the rest
	}
	px := func(x float64) float64 { return m.Left + (x-x0)/(x1-x0)*(m.Right-m.Left) }
	py := func(y float64) float64 {
		if math.IsInf(y, 1) {
			y = yTop
		}
		return m.Bottom - (y-y0)/(yTop-y0)*(m.Bottom-m.Top)
	}
	m.XMin, m.XMax = fmt.Sprintf("%+.1f%%", x0), fmt.Sprintf("%+.1f%%", x1)
	m.YMin, m.YMax = sim.FormatSeconds(y0), sim.FormatSeconds(y1)
	var rows []fateRow
	var last *fatePoint
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		label := c.Label
		if !c.Hedging {
			label = "no hedging"
		}
		title := fmt.Sprintf("%s: %s %s, %s, %s hedged — %s", label, pname(p), sim.FormatSeconds(c.Q(p)), signedPct(c.AddedCostPct), candShare(c, c.HedgedShare), c.Status)
		if why := reasonsText(c); why != "" {
			title += ": " + why
		}
		pt := fatePoint{X: px(c.AddedCostPct), Y: py(c.Q(p)), R: 4, Status: c.Status, Title: title}
		switch c.Status {
		case optimize.StatusPicked:
			pt.R = 7
		case optimize.StatusRejected:
			m.Rejected++
			added := signedPct(c.AddedCostPct)
			if c.Requests == 0 {
				added = "-" // no requests: no cost measured
			}
			rows = append(rows, fateRow{Label: label, Percentile: sim.FormatSeconds(c.Q(p)), AddedCost: added,
				Hedged: candShare(c, c.HedgedShare), Reasons: reasonsText(c), Codes: codes(c)})
		default:
			m.Elig++
		}
		m.Points = append(m.Points, pt)
		if c.Status == optimize.StatusPicked {
			last = &m.Points[len(m.Points)-1]
		}
	}
	if last != nil { // the pick on top of the others
		pick := *last
		m.Points = append(m.Points, pick)
	}
	var fr []string
	for _, i := range cr.Frontier {
		c := &cr.Candidates[i]
		fr = append(fr, fmt.Sprintf("%.1f,%.1f", px(c.AddedCostPct), py(c.Q(p))))
	}
	m.Frontier = strings.Join(fr, " ")
	return m, rows
}

// codes joins a candidate's reason codes.
func codes(c *optimize.Candidate) string {
	var s []string
	for _, r := range c.Reasons {
		s = append(s, r.Code)
	}
	return strings.Join(s, ", ")
}

func pname(p float64) string {
	if p == 0.99 {
		return "p99"
	}
	return "p95"
}
