package htmlreport

import (
	"fmt"
	"math"
	"strconv"
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
	YName            string // the y axis's figure, for the table's column
	XMin, XMax       string // the axis ends, as text
	YMin, YMax       string
	Left, Right      float64 // the plot area
	Top, Bottom      float64
	Rejected, Elig   int
	HasMiss, MissTop bool
}

// fateRow is a rejected candidate in the table under the map; Figure is
// its value on the map's y axis (fateMap.YName).
type fateRow struct {
	Label, Figure, AddedCost, Hedged, Reasons, Codes string
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
// of cr. Its y axis is the objective's figure: the percentile (seconds)
// under objectives p95 and p99; under objectives answered and checked
// the share of requests (or turns) not answered (or checked) within the
// target, in percent, as the cost figure of package plots shows it.
// YName names that figure for the table's column.
func fatesOf(cr *optimize.ClassReport) (*fateMap, []fateRow) {
	p := cr.Objective.Percentile
	m := &fateMap{W: 600, H: 320, Left: 64, Right: 584, Top: 16, Bottom: 280,
		XLabel: "added cost (% of no hedging)", YLabel: fmt.Sprintf("%s (s)", pname(p)), YName: "percentile"}
	if cr.CostBasis == optimize.CostCalls {
		m.XLabel = "added calls (% of no hedging)"
	}
	fig := func(c *optimize.Candidate) float64 { return c.Q(p) }
	figText := sim.FormatSeconds
	figName := pname(p)
	if o := cr.Objective; o.Goal == optimize.MostAnswered && o.Target > 0 {
		of := "requests"
		if o.Checked {
			of = "turns"
		}
		figName = fmt.Sprintf("not %s within %s", o.WithinWord(), sim.FormatSeconds(o.Target.Seconds()))
		m.YLabel, m.YName = fmt.Sprintf("%s (%% of %s)", figName, of), "share "+figName
		fig = func(c *optimize.Candidate) float64 { return 100 * (1 - c.AnsweredWithinShare) }
		figText = func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) + "%" }
	}
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		x0, x1 = min(x0, c.AddedCostPct), max(x1, c.AddedCostPct)
		if q := fig(c); !math.IsInf(q, 1) {
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
	m.XMin, m.XMax = signedPct(x0), signedPct(x1)
	m.YMin, m.YMax = figText(y0), figText(y1)
	var rows []fateRow
	var last *fatePoint
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		label := c.Label
		if !c.Hedging {
			label = "no hedging"
		}
		title := fmt.Sprintf("%s: %s %s, %s, %s hedged — %s", label, figName, figText(fig(c)), signedPct(c.AddedCostPct), candShare(c, c.HedgedShare), c.Status)
		if why := reasonsText(c); why != "" {
			title += ": " + why
		}
		pt := fatePoint{X: px(c.AddedCostPct), Y: py(fig(c)), R: 4, Status: c.Status, Title: title}
		switch c.Status {
		case optimize.StatusPicked:
			pt.R = 7
		case optimize.StatusRejected:
			m.Rejected++
			added := signedPct(c.AddedCostPct)
			if c.Requests == 0 {
				added = "-" // no requests: no cost measured
			}
			rows = append(rows, fateRow{Label: label, Figure: figText(fig(c)), AddedCost: added,
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
		fr = append(fr, fmt.Sprintf("%.1f,%.1f", px(c.AddedCostPct), py(fig(c))))
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
