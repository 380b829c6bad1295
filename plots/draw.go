package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

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
	draw          func(draw.Canvas) error
}

// ClassFigures returns the three figures of a class of an optimisation
// report; level is the report's confidence level.
func ClassFigures(cr *optimize.ClassReport, level float64) []Figure {
	cost := CostData(cr)
	surv := SurvivalData(cr)
	del := DelayData(cr, level)
	return []Figure{
		{Name: "cost", Width: plotWidth * vg.Inch, Height: plotHeight * vg.Inch, draw: single(func() (*plot.Plot, error) { return costPlot(cost) })},
		{Name: "survival", Width: plotWidth * vg.Inch, Height: plotHeight * vg.Inch, draw: single(func() (*plot.Plot, error) { return survivalPlot(surv) })},
		{Name: "delay", Width: plotWidth * vg.Inch, Height: delayHeight * vg.Inch, draw: func(dc draw.Canvas) error { return delayPlots(del, dc) }},
	}
}

func single(build func() (*plot.Plot, error)) func(draw.Canvas) error {
	return func(dc draw.Canvas) error {
		p, err := build()
		if err != nil {
			return err
		}
		p.Draw(padded(dc)) // gonum draws the title's top a descent above the canvas
		return nil
	}
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
	if err := f.draw(draw.New(c)); err != nil {
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
	p.Legend.Top = true
	p.X.Tick.Marker = plot.TickerFunc(linearTicks)
	p.Y.Tick.Marker = plot.TickerFunc(linearTicks)
	p.Add(plotter.NewGrid())
	return p
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

func costPlot(d Cost) (*plot.Plot, error) {
	p := newPlot(d.Title, d.XLabel, d.YLabel)
	var pts []XY
	var shown plotter.XYLabels
	for _, l := range d.Candidates {
		pts = append(pts, l.XY)
		if l.Shown {
			shown.XYs = append(shown.XYs, plotter.XY{X: l.X, Y: l.Y})
			shown.Labels = append(shown.Labels, l.Text)
		}
	}
	all, err := plotter.NewScatter(xys(pts))
	if err != nil {
		return nil, err
	}
	all.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	front, err := plotter.NewLine(xys(d.Frontier))
	if err != nil {
		return nil, err
	}
	front.LineStyle = draw.LineStyle{Color: blue, Width: vg.Points(1.5)}
	base, err := plotter.NewScatter(xys([]XY{d.Baseline.XY}))
	if err != nil {
		return nil, err
	}
	base.GlyphStyle = draw.GlyphStyle{Color: black, Radius: vg.Points(4), Shape: draw.BoxGlyph{}}
	pick, err := plotter.NewScatter(xys([]XY{d.Pick.XY}))
	if err != nil {
		return nil, err
	}
	pick.GlyphStyle = draw.GlyphStyle{Color: red, Radius: vg.Points(6), Shape: draw.RingGlyph{}}
	p.Add(front, all, base, pick)
	if len(shown.XYs) > 0 {
		labels, err := plotter.NewLabels(shown)
		if err != nil {
			return nil, err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].Font.Size = vg.Points(labelFontSize)
			labels.TextStyle[i].Color = color.RGBA{R: 60, G: 60, B: 60, A: 255}
		}
		labels.Offset = vg.Point{X: vg.Points(3), Y: vg.Points(1)}
		p.Add(labels)
	}
	p.Legend.Add("candidate (labelled by delay)", all)
	p.Legend.Add("frontier", front)
	p.Legend.Add("no hedging", base)
	p.Legend.Add("pick: "+d.Pick.Text, pick)
	// Room for the labels right of the points and the legend on top.
	x0, x1 := p.X.Min, p.X.Max
	y0, y1 := p.Y.Min, p.Y.Max
	p.X.Min, p.X.Max = x0-0.03*span(x0, x1), x1+0.12*span(x0, x1)
	p.Y.Min, p.Y.Max = y0-0.05*span(y0, y1), y1+0.25*span(y0, y1)
	return p, nil
}

func span(a, b float64) float64 {
	if b > a {
		return b - a
	}
	return math.Max(math.Abs(a), 1)
}

func survivalPlot(d Survival) (*plot.Plot, error) {
	p := newPlot(d.Title, d.XLabel, d.YLabel)
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.TickerFunc(ticks125)
	p.X.Min, p.X.Max = 0, d.XMax
	p.Y.Min, p.Y.Max = d.YMin, 1
	if len(d.Baseline) == 0 || len(d.Other) == 0 {
		return nil, fmt.Errorf("no latencies to draw")
	}
	base, err := plotter.NewLine(xys(d.Baseline))
	if err != nil {
		return nil, err
	}
	base.LineStyle = draw.LineStyle{Color: black, Width: vg.Points(1.5)}
	other, err := plotter.NewLine(xys(d.Other))
	if err != nil {
		return nil, err
	}
	other.LineStyle = draw.LineStyle{Color: red, Width: vg.Points(1.5)}
	p.Add(base, other)
	p.Legend.Add("no hedging", base)
	p.Legend.Add(d.OtherName, other)
	if !math.IsNaN(d.Delay) && d.Delay > 0 && d.Delay <= d.XMax {
		v, err := plotter.NewLine(plotter.XYs{{X: d.Delay, Y: d.YMin}, {X: d.Delay, Y: 1}})
		if err != nil {
			return nil, err
		}
		v.LineStyle = draw.LineStyle{Color: grey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		p.Add(v)
		p.Legend.Add("first copy sent", v)
	}
	return p, nil
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
// hedged share below, on one delay axis.
func delayPlots(d Delay, dc draw.Canvas) error {
	top := newPlot(d.Title, "", "latency (s)")
	top.Title.TextStyle.Font.Size = vg.Points(11)
	bottom := newPlot(d.HedgedTitle, d.XLabel, "% of requests")
	bottom.Title.TextStyle.Font.Size = vg.Points(11)
	bottom.Legend.Top = true
	multi := len(d.Series) > 1
	xmin, xmax := math.Inf(1), math.Inf(-1)
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
			if len(s.Delay) >= 2 {
				ring := make(plotter.XYs, 0, 2*len(s.Delay))
				for j := range s.Delay {
					ring = append(ring, plotter.XY{X: s.Delay[j], Y: q.hi[j]})
				}
				for j := len(s.Delay) - 1; j >= 0; j-- {
					ring = append(ring, plotter.XY{X: s.Delay[j], Y: q.lo[j]})
				}
				band, err := plotter.NewPolygon(ring)
				if err != nil {
					return err
				}
				band.Color = withAlpha(col, q.fillAlpha8)
				band.LineStyle.Width = 0
				top.Add(band)
			}
			line, err := plotter.NewLine(series(s.Delay, q.v))
			if err != nil {
				return err
			}
			line.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: q.dashes}
			top.Add(line)
			top.Legend.Add(q.name+suffix, line)
		}
		hedged, err := plotter.NewLine(series(s.Delay, s.HedgedPct))
		if err != nil {
			return err
		}
		hedged.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5)}
		answered, err := plotter.NewLine(series(s.Delay, s.AnsweredPct))
		if err != nil {
			return err
		}
		answered.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
		bottom.Add(hedged, answered)
		bottom.Legend.Add("hedged"+suffix, hedged)
		bottom.Legend.Add("answered"+suffix, answered)
		if s.PickAt >= 0 {
			q := s.P95[s.PickAt]
			if d.Percentile == 0.99 {
				q = s.P99[s.PickAt]
			}
			pick, err := plotter.NewScatter(plotter.XYs{{X: s.Delay[s.PickAt], Y: q}})
			if err != nil {
				return err
			}
			pick.GlyphStyle = draw.GlyphStyle{Color: red, Radius: vg.Points(6), Shape: draw.RingGlyph{}}
			top.Add(pick)
			top.Legend.Add("pick", pick)
			hp, err := plotter.NewScatter(plotter.XYs{{X: s.Delay[s.PickAt], Y: s.HedgedPct[s.PickAt]}})
			if err != nil {
				return err
			}
			hp.GlyphStyle = pick.GlyphStyle
			bottom.Add(hp)
		}
	}
	if math.IsInf(xmin, 1) {
		return fmt.Errorf("no hedged candidates to draw")
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
			return err
		}
		l.LineStyle = draw.LineStyle{Color: black, Width: vg.Points(1), Dashes: b.dash}
		top.Add(l)
		top.Legend.Add(b.name, l)
	}
	top.Y.Min = 0
	top.Y.Max *= 1.3 // room for the legend
	bottom.Y.Min, bottom.Y.Max = 0, 100
	bottom.Legend.Top, bottom.Legend.Left = false, false
	bottom.Legend.YOffs = vg.Points(4)
	for _, p := range []*plot.Plot{top, bottom} {
		p.X.Min, p.X.Max = xmin, xmax
		p.Legend.TextStyle.Font.Size = vg.Points(9)
	}
	// The percentile panel gets about two thirds of the height; both data
	// areas share their left and right edges so the delay axes line up.
	h := dc.Max.Y - dc.Min.Y
	upper, lower := padded(dc), padded(dc)
	upper.Min.Y = dc.Min.Y + h*0.36
	lower.Max.Y = dc.Min.Y + h*0.36 - vg.Points(6)
	du, dl := top.DataCanvas(upper), bottom.DataCanvas(lower)
	left := max(du.Min.X-upper.Min.X, dl.Min.X-lower.Min.X)
	right := max(upper.Max.X-du.Max.X, lower.Max.X-dl.Max.X)
	upper = draw.Crop(upper, left-(du.Min.X-upper.Min.X), -(right - (upper.Max.X - du.Max.X)), 0, 0)
	lower = draw.Crop(lower, left-(dl.Min.X-lower.Min.X), -(right - (lower.Max.X - dl.Max.X)), 0, 0)
	top.Draw(upper)
	bottom.Draw(lower)
	return nil
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
