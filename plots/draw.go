package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hedgesim/hedgesim/optimize"
)

// Formats are the file formats Render writes.
var Formats = []string{"png", "svg"}

// DPI is the resolution of PNG figures: a figure of w × h inches is
// w·DPI × h·DPI pixels.
const DPI = 96

// Figure is one figure of a class, drawn on demand.
type Figure struct {
	// Name is "cost", "survival" or "delay".
	Name string
	// Width and Height are the figure's size.
	Width, Height vg.Length
	// draw draws the figure and returns its legends' frames and how many
	// obstacles each covers.
	draw func(draw.Canvas) ([]placed, error)
}

// placed is a legend's frame and the number of obstacles (curves, markers,
// labels) it covers: 0 unless no spot was free.
type placed struct {
	frame box
	hits  int
}

// ClassFigures returns the figures of a class of an optimisation report —
// cost, survival and delay — where level is the report's confidence
// level. A class without an answered request in its run without hedging
// (no latencies: a share too small for the requests, say) has no survival
// curve, and its survival figure is left out; a class without requests
// (its latencies unknown, NaN) has no figure at all.
func ClassFigures(cr *optimize.ClassReport, level float64) []Figure {
	if cr.Requests == 0 {
		return nil
	}
	cost := CostData(cr)
	surv := SurvivalData(cr)
	del := DelayData(cr, level)
	figs := []Figure{
		{Name: "cost", Width: plotWidth * vg.Inch, Height: plotHeight * vg.Inch, draw: single(func() (*plot.Plot, *marks, *legend, error) { return costPlot(cost) })},
		{Name: "survival", Width: plotWidth * vg.Inch, Height: plotHeight * vg.Inch, draw: single(func() (*plot.Plot, *marks, *legend, error) { return survivalPlot(surv) })},
		{Name: "delay", Width: plotWidth * vg.Inch, Height: delayHeight * vg.Inch, draw: func(dc draw.Canvas) ([]placed, error) { return delayPlots(del, dc) }},
	}
	if len(surv.Baseline) == 0 {
		figs = slices.Delete(figs, 1, 2)
	}
	return figs
}

// single draws a one-plot figure with its legend where it covers nothing
// (the plot's ranges already leave room: no padding here).
func single(build func() (*plot.Plot, *marks, *legend, error)) func(draw.Canvas) ([]placed, error) {
	return func(dc draw.Canvas) ([]placed, error) {
		p, m, l, err := build()
		if err != nil {
			return nil, err
		}
		fitTitles(dc, p)
		c := padded(dc) // gonum draws the title's top a descent above the canvas
		b, n := fitLegend(p, func() draw.Canvas { return c }, m, l, false)
		p.Draw(c)
		l.draw(c, b)
		return []placed{{b, n}}, nil
	}
}

// figureCanvas is the canvas single draws a w × h inch figure's plot on,
// for layout: it has a size but nothing to draw on.
func figureCanvas(w, h float64) draw.Canvas {
	return padded(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: vg.Length(w) * vg.Inch, Y: vg.Length(h) * vg.Inch}}})
}

// Render draws the figure in format ("png" or "svg") and returns the
// file's bytes. A PNG is Width·DPI/72 × Height·DPI/72 pixels (Width and
// Height are in points).
func (f Figure) Render(format string) (data []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			data, err = nil, fmt.Errorf("plots: drawing %s figure: %v", f.Name, r)
		}
	}()
	var c vg.CanvasWriterTo
	switch format {
	case "png", "svg":
		c, err = draw.NewFormattedCanvas(f.Width, f.Height, format)
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("plots: unknown format %q; want png or svg", format)
	}
	if _, err := f.draw(draw.New(c)); err != nil {
		return nil, fmt.Errorf("plots: %s figure: %w", f.Name, err)
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var (
	grey      = color.RGBA{R: 150, G: 150, B: 150, A: 255}
	rose      = color.RGBA{R: 214, G: 120, B: 120, A: 255} // rejected candidates
	lightGrey = color.RGBA{R: 190, G: 190, B: 190, A: 255}
	black     = color.RGBA{A: 255}
	red       = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	blue      = color.RGBA{R: 31, G: 119, B: 180, A: 255}
)

func xys(pts []XY) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i] = plotter.XY{X: p.X, Y: p.Y}
	}
	return out
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Tick.Marker = plot.TickerFunc(linearTicks)
	p.Y.Tick.Marker = plot.TickerFunc(linearTicks)
	p.Add(plotter.NewGrid())
	return p
}

// missTicks marks the latency axis of a figure with misses: linearTicks up
// to hi, the largest finite value drawn (none when hi is −Inf, when every
// value is a miss), and "miss" at missY, the row misses are drawn on.
func missTicks(missY, hi float64) plot.Ticker {
	return plot.TickerFunc(func(lo, top float64) []plot.Tick {
		var out []plot.Tick
		if !math.IsInf(hi, -1) {
			for _, t := range linearTicks(lo, top) {
				if t.Value <= hi*1.05 || (t.Label == "" && t.Value < missY) {
					out = append(out, t)
				}
			}
		}
		return append(out, plot.Tick{Value: missY, Label: "miss"})
	})
}

// linearTicks marks about six round values (1, 2, 2.5 or 5 times a power
// of ten apart) in [lo, hi], labelled, with unlabelled ticks halfway.
func linearTicks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	if math.Abs(step/math.Pow(10, math.Floor(math.Log10(step)+1e-9))-2.5) < 1e-9 {
		decimals++
	}
	var ticks []plot.Tick
	first := math.Ceil(lo/step-1e-9) * step
	for k := 0; ; k++ {
		v := first + float64(k)*step
		if v > hi+1e-9*step {
			break
		}
		if half := v - step/2; half >= lo {
			ticks = append(ticks, plot.Tick{Value: half})
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return ticks
}

// Marker sizes of the cost figure, in points.
const (
	dotRadius  = 2.5
	baseRadius = 4
	pickRadius = 6.5
)

// labelStyle is the style of the cost figure's point labels.
func labelStyle() draw.TextStyle {
	p := plot.New()
	sty := p.Legend.TextStyle
	sty.Font.Size = vg.Points(legendFont)
	sty.Color = color.RGBA{R: 50, G: 50, B: 50, A: 255}
	return sty
}

// costPlot builds the cost figure of d, with the labels d shows, and
// returns what its legend must not cover.
func costPlot(d Cost) (*plot.Plot, *marks, *legend, error) {
	p := newPlot(d.Title, d.XLabel, d.YLabel)
	if !math.IsNaN(d.MissY) {
		hi := math.Inf(-1)
		for _, c := range d.Candidates {
			if c.Y < d.MissY {
				hi = max(hi, c.Y)
			}
		}
		p.Y.Tick.Marker = missTicks(d.MissY, hi)
	}
	m := &marks{}
	l := newLegend()
	var pts, rej, few []XY
	for _, c := range d.Candidates {
		switch {
		case c.TooFew:
			few = append(few, c.XY)
		case c.Rejected:
			rej = append(rej, c.XY)
		default:
			pts = append(pts, c.XY)
		}
		m.point(c.X, c.Y, vg.Points(dotRadius))
	}
	var all, rejected *plotter.Scatter
	var err error
	if len(pts) > 0 {
		if all, err = plotter.NewScatter(xys(pts)); err != nil {
			return nil, nil, nil, err
		}
		all.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(dotRadius), Shape: draw.CircleGlyph{}}
		l.add("candidate (labelled by its hedge delay)", all)
	}
	if len(rej) > 0 {
		if rejected, err = plotter.NewScatter(xys(rej)); err != nil {
			return nil, nil, nil, err
		}
		rejected.GlyphStyle = draw.GlyphStyle{Color: rose, Radius: vg.Points(dotRadius), Shape: draw.CrossGlyph{}}
		l.add("rejected (over a limit, or refused by the verdict rule)", rejected)
	}
	if len(few) > 0 {
		tooFew, err := plotter.NewScatter(xys(few))
		if err != nil {
			return nil, nil, nil, err
		}
		tooFew.GlyphStyle = draw.GlyphStyle{Color: rose, Radius: vg.Points(dotRadius), Shape: draw.TriangleGlyph{}}
		l.add("not judged: too few requests for an interval", tooFew)
		p.Add(tooFew)
	}
	if len(d.Frontier) >= 2 {
		front, err := plotter.NewLine(xys(d.Frontier))
		if err != nil {
			return nil, nil, nil, err
		}
		front.LineStyle = draw.LineStyle{Color: blue, Width: vg.Points(1.5)}
		p.Add(front)
		m.line(d.Frontier)
		l.add(d.FrontierName, front)
	}
	if all != nil {
		p.Add(all)
	}
	if rejected != nil {
		p.Add(rejected)
	}
	base, err := plotter.NewScatter(xys([]XY{d.Baseline.XY}))
	if err != nil {
		return nil, nil, nil, err
	}
	base.GlyphStyle = draw.GlyphStyle{Color: black, Radius: vg.Points(baseRadius), Shape: draw.BoxGlyph{}}
	p.Add(base)
	m.point(d.Baseline.X, d.Baseline.Y, vg.Points(baseRadius))
	l.add(d.BaselineName, base)
	if d.PickName != "" {
		pick, err := plotter.NewScatter(xys([]XY{d.Pick.XY}))
		if err != nil {
			return nil, nil, nil, err
		}
		pick.GlyphStyle = draw.GlyphStyle{Color: red, Radius: vg.Points(pickRadius), Shape: draw.RingGlyph{}}
		p.Add(pick)
		m.point(d.Pick.X, d.Pick.Y, vg.Points(pickRadius))
		thumb := *pick
		thumb.GlyphStyle.Radius = vg.Points(4.5)
		l.add(d.PickName, &thumb)
	}
	labels := &labelTexts{style: labelStyle()}
	for _, c := range d.Candidates {
		if !c.Shown {
			continue
		}
		w, h := textBox(labels.style, c.Text)
		labels.pts = append(labels.pts, c.XY)
		labels.texts = append(labels.texts, c.Text)
		labels.offs = append(labels.offs, vg.Point{X: vg.Length(c.DX), Y: vg.Length(c.DY)})
		m.boxes = append(m.boxes, anchored{c.X, c.Y, box{vg.Length(c.DX), vg.Length(c.DY), vg.Length(c.DX) + w, vg.Length(c.DY) + h}})
	}
	p.Add(labels)
	p.X.Min, p.X.Max = d.XMin, d.XMax
	p.Y.Min, p.Y.Max = d.YMin, d.YMax
	return p, m, l, nil
}

// layoutCost places the labels of d and makes room for the legend: it
// shows, in d.order, each label that fits right or left of, above or
// below its point without covering another label, a marker or the
// frontier, and raises d.YMax until the legend has a free spot.
func layoutCost(d *Cost) {
	for try := 0; ; try++ {
		for i := range d.Candidates {
			d.Candidates[i].Shown = false
		}
		p, m, l, err := costPlot(*d)
		if err != nil {
			return // drawing reports it
		}
		da := p.DataCanvas(figureCanvas(plotWidth, plotHeight))
		placeCostLabels(d, p, da, m)
		if _, n := l.place(da, m.resolve(p, da)); n == 0 || try == 8 {
			return
		}
		d.YMax += 0.1 * (d.YMax - d.YMin)
	}
}

// placeCostLabels decides which labels of d to show and where, on the data
// area da of p, avoiding the marks m; shown labels are added to m.
func placeCostLabels(d *Cost, p *plot.Plot, da draw.Canvas, m *marks) {
	trX, trY := p.Transforms(&da)
	sty := labelStyle()
	o := m.resolve(p, da)
	area := canvasBox(da).grow(-1)
	var taken []box
	for _, i := range d.order {
		l := &d.Candidates[i]
		px, py := trX(l.X), trY(l.Y)
		w, h := textBox(sty, l.Text)
		g := vg.Points(dotRadius + 2)
		switch {
		case i == 0:
			g = vg.Points(baseRadius + 2)
		case i == d.order[0] && d.PickName != "":
			g = vg.Points(pickRadius + 2)
		}
		v := g/2 + vg.Points(1.5) // vertical gap for a label above or below
		for _, off := range []vg.Point{
			{X: g, Y: v}, {X: -g - w, Y: -v - h}, {X: g, Y: -v - h}, {X: -g - w, Y: v},
			{X: g + 1, Y: -h / 2}, {X: -g - 1 - w, Y: -h / 2}, {X: -w / 2, Y: g}, {X: -w / 2, Y: -g - h},
		} {
			b := box{px + off.X, py + off.Y, px + off.X + w, py + off.Y + h}
			if !b.within(area) || o.hits(b) > 0 {
				continue
			}
			free := true
			for _, t := range taken {
				if b.overlaps(t.grow(vg.Points(2))) {
					free = false
					break
				}
			}
			if !free {
				continue
			}
			taken = append(taken, b)
			l.Shown, l.DX, l.DY = true, float64(off.X), float64(off.Y)
			m.boxes = append(m.boxes, anchored{l.X, l.Y, box{off.X, off.Y, off.X + w, off.Y + h}})
			break
		}
	}
}

func survivalPlot(d Survival) (*plot.Plot, *marks, *legend, error) {
	p := newPlot(d.Title, d.XLabel, d.YLabel)
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.TickerFunc(ticks125)
	m := &marks{}
	l := newLegend()
	if len(d.Baseline) == 0 {
		return nil, nil, nil, fmt.Errorf("no latencies to draw")
	}
	base, err := plotter.NewLine(xys(d.Baseline))
	if err != nil {
		return nil, nil, nil, err
	}
	base.LineStyle = draw.LineStyle{Color: black, Width: vg.Points(1.5)}
	p.Add(base)
	m.line(d.Baseline)
	l.add("no hedging", base)
	if len(d.Other) > 0 {
		other, err := plotter.NewLine(xys(d.Other))
		if err != nil {
			return nil, nil, nil, err
		}
		other.LineStyle = draw.LineStyle{Color: red, Width: vg.Points(1.5)}
		if !strings.HasPrefix(d.OtherName, "pick") {
			other.LineStyle.Color = grey // shown for reference, not recommended
			other.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(other)
		m.line(d.Other)
		l.add(d.OtherName, other)
	}
	switch {
	case len(d.Sends) > 1:
		// Every timed copy's send, one legend entry for them all.
		var at []string
		var first *plotter.Line
		for _, x := range d.Sends {
			if !(x > 0) || x > d.XMax {
				continue
			}
			v, err := vline(x, d.YMin, grey, []vg.Length{vg.Points(2), vg.Points(2)})
			if err != nil {
				return nil, nil, nil, err
			}
			p.Add(v)
			m.xys(v.XYs)
			at = append(at, fsec(x))
			if first == nil {
				first = v
			}
		}
		if first != nil {
			l.add(fmt.Sprintf("copies sent (%s)", strings.Join(at, ", ")), first)
		}
	case !math.IsNaN(d.Delay) && d.Delay > 0 && d.Delay <= d.XMax:
		v, err := vline(d.Delay, d.YMin, grey, []vg.Length{vg.Points(2), vg.Points(2)})
		if err != nil {
			return nil, nil, nil, err
		}
		p.Add(v)
		m.xys(v.XYs)
		l.add(fmt.Sprintf("first copy sent (%s)", fsec(d.Delay)), v)
	}
	if !math.IsNaN(d.Deadline) && d.Deadline <= d.XMax {
		v, err := vline(d.Deadline, d.YMin, black, []vg.Length{vg.Points(6), vg.Points(2)})
		if err != nil {
			return nil, nil, nil, err
		}
		p.Add(v) // a reference line, as the grid: the legend may cross it
		l.add(fmt.Sprintf("deadline (%s): a curve's level past it is its share never answered", fsec(d.Deadline)), v)
	}
	p.X.Min, p.X.Max = 0, d.XMax
	p.Y.Min, p.Y.Max = d.YMin, 1
	return p, m, l, nil
}

// vline is a vertical line at x from y0 to 1 in colour c with dashes.
func vline(x, y0 float64, c color.Color, dashes []vg.Length) (*plotter.Line, error) {
	v, err := plotter.NewLine(plotter.XYs{{X: x, Y: y0}, {X: x, Y: 1}})
	if err != nil {
		return nil, err
	}
	v.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1), Dashes: dashes}
	return v, nil
}

// fsec formats seconds: 813ms, 1.31s.
func fsec(s float64) string {
	if s < 1 {
		return strconv.FormatFloat(math.Round(s*1e4)/10, 'f', -1, 64) + "ms"
	}
	return strconv.FormatFloat(math.Round(s*1e3)/1e3, 'f', -1, 64) + "s"
}

// ticks125 marks 1, 2 and 5 times each power of ten in [lo, hi], with
// labels on all of them when the range spans at most four decades and on
// the powers of ten only otherwise.
func ticks125(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) {
		return nil
	}
	few := math.Log10(hi/lo) <= 4
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || few {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// delayPlots draws the delay figure: percentiles with bands on top, the
// hedged and answered shares below, on one delay axis.
func delayPlots(d Delay, dc draw.Canvas) ([]placed, error) {
	top := newPlot(d.Title, "", "latency (s)")
	if !math.IsNaN(d.MissY) {
		hi := math.Inf(-1)
		for _, s := range d.Series {
			for _, v := range [][]float64{s.P95, s.P99, s.P95Lo, s.P95Hi, s.P99Lo, s.P99Hi} {
				for _, y := range v {
					if y < d.MissY {
						hi = max(hi, y)
					}
				}
			}
		}
		for _, y := range []float64{d.BaseP95, d.BaseP99} {
			if y < d.MissY {
				hi = max(hi, y)
			}
		}
		top.Y.Tick.Marker = missTicks(d.MissY, hi)
	}
	top.Title.TextStyle.Font.Size = vg.Points(11)
	bottom := newPlot(d.HedgedTitle, d.XLabel, "% of requests")
	bottom.Title.TextStyle.Font.Size = vg.Points(11)
	fitTitles(dc, top, bottom)
	// Shares run from 0 to 100 %: the axis is labelled (and gridded) only
	// there, even when the legend's room raises the panel's top above 100.
	bottom.Y.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		return linearTicks(math.Max(lo, 0), math.Min(hi, 100))
	})
	tm, bm := &marks{}, &marks{}
	tl, bl := newLegend(), newLegend()
	multi := len(d.Series) > 1
	pickListed := false
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymax := math.Max(d.BaseP95, d.BaseP99)
	for i, s := range d.Series {
		if len(s.Delay) == 0 {
			continue
		}
		xmin, xmax = math.Min(xmin, s.Delay[0]), math.Max(xmax, s.Delay[len(s.Delay)-1])
		col := plotutil.Color(i)
		suffix := ""
		if multi {
			suffix = " (" + s.Name + ")"
		}
		for _, q := range []struct {
			name       string
			v, lo, hi  []float64
			dashes     []vg.Length
			fillAlpha8 uint8
		}{
			{"p95", s.P95, s.P95Lo, s.P95Hi, nil, 70},
			{"p99", s.P99, s.P99Lo, s.P99Hi, []vg.Length{vg.Points(5), vg.Points(3)}, 45},
		} {
			if d.Bands && len(s.Delay) >= 2 {
				ring := make(plotter.XYs, 0, 2*len(s.Delay))
				for j := range s.Delay {
					ring = append(ring, plotter.XY{X: s.Delay[j], Y: q.hi[j]})
				}
				for j := len(s.Delay) - 1; j >= 0; j-- {
					ring = append(ring, plotter.XY{X: s.Delay[j], Y: q.lo[j]})
				}
				band, err := plotter.NewPolygon(ring)
				if err != nil {
					return nil, err
				}
				band.Color = withAlpha(col, q.fillAlpha8)
				band.LineStyle.Width = 0
				top.Add(band)
				area := make([]XY, len(ring))
				for k, pt := range ring {
					area[k] = XY{pt.X, pt.Y}
				}
				tm.area(area)
				for _, y := range q.hi {
					ymax = math.Max(ymax, y)
				}
			}
			line, err := plotter.NewLine(series(s.Delay, q.v))
			if err != nil {
				return nil, err
			}
			line.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: q.dashes}
			top.Add(line)
			tm.xys(line.XYs)
			tl.add(q.name+suffix, line)
			for _, y := range q.v {
				ymax = math.Max(ymax, y)
			}
		}
		hedged, err := plotter.NewLine(series(s.Delay, s.HedgedPct))
		if err != nil {
			return nil, err
		}
		hedged.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5)}
		answered, err := plotter.NewLine(series(s.Delay, s.AnsweredPct))
		if err != nil {
			return nil, err
		}
		answered.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
		bottom.Add(hedged, answered)
		bm.xys(hedged.XYs)
		bm.xys(answered.XYs)
		bl.add("send a copy"+suffix, hedged)
		bl.add("answered in time"+suffix, answered)
		if s.PickAt >= 0 {
			q := s.P95[s.PickAt]
			if d.Percentile == 0.99 {
				q = s.P99[s.PickAt]
			}
			x := s.Delay[s.PickAt]
			pick, err := plotter.NewScatter(plotter.XYs{{X: x, Y: q}})
			if err != nil {
				return nil, err
			}
			pick.GlyphStyle = draw.GlyphStyle{Color: red, Radius: vg.Points(pickRadius), Shape: draw.RingGlyph{}}
			top.Add(pick)
			tm.point(x, q, vg.Points(pickRadius))
			if !pickListed { // one pick, one entry, however many steps mark it
				thumb := *pick
				thumb.GlyphStyle.Radius = vg.Points(4.5)
				tl.add(d.PickName, &thumb)
				pickListed = true
			}
			hp, err := plotter.NewScatter(plotter.XYs{{X: x, Y: s.HedgedPct[s.PickAt]}})
			if err != nil {
				return nil, err
			}
			hp.GlyphStyle = pick.GlyphStyle
			bottom.Add(hp)
			bm.point(x, s.HedgedPct[s.PickAt], vg.Points(pickRadius))
		}
	}
	if math.IsInf(xmin, 1) {
		return nil, fmt.Errorf("no hedged candidates to draw")
	}
	if xmax <= xmin {
		xmax = xmin + 1
	}
	for _, b := range []struct {
		name string
		v    float64
		dash []vg.Length
	}{
		{"p95 without hedging", d.BaseP95, []vg.Length{vg.Points(1), vg.Points(3)}},
		{"p99 without hedging", d.BaseP99, []vg.Length{vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)}},
	} {
		l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: b.v}, {X: xmax, Y: b.v}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: black, Width: vg.Points(1), Dashes: b.dash}
		top.Add(l)
		tm.xys(l.XYs)
		tl.add(b.name, l)
	}
	top.Y.Min, top.Y.Max = 0, 1.05*ymax
	bottom.Y.Min, bottom.Y.Max = 0, 105 // the answered share often sits at 100 %
	for _, p := range []*plot.Plot{top, bottom} {
		// A little room on both sides for the pick's ring.
		p.X.Min, p.X.Max = xmin-0.015*(xmax-xmin), xmax+0.015*(xmax-xmin)
	}
	// The percentile panel gets about two thirds of the height; both data
	// areas share their left and right edges so the delay axes line up.
	canvases := func() (upper, lower draw.Canvas) {
		h := dc.Max.Y - dc.Min.Y
		upper, lower = padded(dc), padded(dc)
		upper.Min.Y = dc.Min.Y + h*0.36
		lower.Max.Y = dc.Min.Y + h*0.36 - vg.Points(6)
		du, dl := top.DataCanvas(upper), bottom.DataCanvas(lower)
		left := max(du.Min.X-upper.Min.X, dl.Min.X-lower.Min.X)
		right := max(upper.Max.X-du.Max.X, lower.Max.X-dl.Max.X)
		upper = draw.Crop(upper, left-(du.Min.X-upper.Min.X), -(right - (upper.Max.X - du.Max.X)), 0, 0)
		lower = draw.Crop(lower, left-(dl.Min.X-lower.Min.X), -(right - (lower.Max.X - dl.Max.X)), 0, 0)
		return upper, lower
	}
	upperC := func() draw.Canvas { u, _ := canvases(); return u }
	lowerC := func() draw.Canvas { _, l := canvases(); return l }
	// Raise each panel's top until its legend has a free spot, then place
	// both on the final layout.
	fitLegend(top, upperC, tm, tl, true)
	fitLegend(bottom, lowerC, bm, bl, true)
	tb, tn := fitLegend(top, upperC, tm, tl, false)
	bb, bn := fitLegend(bottom, lowerC, bm, bl, false)
	upper, lower := canvases()
	top.Draw(upper)
	bottom.Draw(lower)
	tl.draw(upper, tb)
	bl.draw(lower, bb)
	return []placed{{tb, tn}, {bb, bn}}, nil
}

// padded returns c shrunk by a small margin on every side.
func padded(c draw.Canvas) draw.Canvas {
	m := vg.Points(6)
	c.Min.X += m
	c.Min.Y += m
	c.Max.X -= m
	c.Max.Y -= m
	return c
}

func series(x, y []float64) plotter.XYs {
	out := make(plotter.XYs, len(x))
	for i := range x {
		out[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	return out
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	// premultiplied: scale each channel by a/255
	return color.RGBA{R: uint8(r >> 8 * uint32(a) / 255), G: uint8(g >> 8 * uint32(a) / 255), B: uint8(b >> 8 * uint32(a) / 255), A: a}
}
