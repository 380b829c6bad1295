package plots

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// This file places legends and point labels where they cover no data.
// Everything is measured in points (1/72 in) on the figure's canvas, after
// gonum has laid out the axes: a plot's data area is p.DataCanvas(c).

// box is a rectangle on the canvas, in points.
type box struct{ x0, y0, x1, y1 vg.Length }

func (b box) overlaps(o box) bool {
	return b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1
}

func (b box) grow(d vg.Length) box { return box{b.x0 - d, b.y0 - d, b.x1 + d, b.y1 + d} }

func (b box) within(o box) bool {
	return b.x0 >= o.x0 && b.x1 <= o.x1 && b.y0 >= o.y0 && b.y1 <= o.y1
}

func canvasBox(c draw.Canvas) box { return box{c.Min.X, c.Min.Y, c.Max.X, c.Max.Y} }

// anchored is a box fixed to a data point: a marker or a label, r relative
// to the point's position on the canvas.
type anchored struct {
	x, y float64
	r    box
}

// marks are what a legend or a label must not cover, in data units: the
// polylines drawn, the filled areas (closed polygons, such as confidence
// bands) and the boxes anchored to data points.
type marks struct {
	lines [][]XY
	areas [][]XY
	boxes []anchored
}

// area adds the filled polygon pts (closed implicitly).
func (m *marks) area(pts []XY) {
	m.areas = append(m.areas, pts)
	m.line(append(slices.Clone(pts), pts[0]))
}

func (m *marks) line(pts []XY) { m.lines = append(m.lines, pts) }

func (m *marks) xys(pts plotter.XYs) {
	l := make([]XY, len(pts))
	for i, p := range pts {
		l[i] = XY{p.X, p.Y}
	}
	m.line(l)
}

// point adds a marker of the given radius (points) at (x, y).
func (m *marks) point(x, y float64, r vg.Length) {
	m.boxes = append(m.boxes, anchored{x, y, box{-r, -r, r, r}})
}

// obstacles are marks resolved to the canvas of one layout.
type obstacles struct {
	segs  [][2]vg.Point
	boxes []box
	areas [][]vg.Point
}

// resolve places the marks on the data area da of p.
func (m *marks) resolve(p *plot.Plot, da draw.Canvas) *obstacles {
	trX, trY := p.Transforms(&da)
	o := &obstacles{}
	for _, l := range m.lines {
		for i := 1; i < len(l); i++ {
			a := vg.Point{X: trX(l[i-1].X), Y: trY(l[i-1].Y)}
			b := vg.Point{X: trX(l[i].X), Y: trY(l[i].Y)}
			if finite(a) && finite(b) {
				o.segs = append(o.segs, [2]vg.Point{a, b})
			}
		}
	}
	for _, a := range m.areas {
		var poly []vg.Point
		for _, q := range a {
			if pt := (vg.Point{X: trX(q.X), Y: trY(q.Y)}); finite(pt) {
				poly = append(poly, pt)
			}
		}
		o.areas = append(o.areas, poly)
	}
	for _, a := range m.boxes {
		pt := vg.Point{X: trX(a.x), Y: trY(a.y)}
		if finite(pt) {
			o.boxes = append(o.boxes, box{pt.X + a.r.x0, pt.Y + a.r.y0, pt.X + a.r.x1, pt.Y + a.r.y1})
		}
	}
	return o
}

func finite(p vg.Point) bool {
	return !math.IsNaN(float64(p.X)) && !math.IsNaN(float64(p.Y)) && !math.IsInf(float64(p.X), 0) && !math.IsInf(float64(p.Y), 0)
}

// hits counts the obstacles that b touches.
func (o *obstacles) hits(b box) int {
	n := 0
	for _, s := range o.segs {
		if segmentHits(s[0], s[1], b) {
			n++
		}
	}
	for _, q := range o.boxes {
		if b.overlaps(q) {
			n++
		}
	}
	// An area whose edges miss b covers it when it holds b's centre.
	for _, a := range o.areas {
		if inside(vg.Point{X: (b.x0 + b.x1) / 2, Y: (b.y0 + b.y1) / 2}, a) {
			n++
		}
	}
	return n
}

// inside reports whether pt lies inside the polygon poly (even-odd rule).
func inside(pt vg.Point, poly []vg.Point) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a.Y > pt.Y) != (b.Y > pt.Y) && pt.X < (b.X-a.X)*(pt.Y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
	}
	return in
}

// segmentHits reports whether the segment ab crosses or touches b
// (Liang–Barsky clipping).
func segmentHits(a, bp vg.Point, b box) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(bp.X-a.X), float64(bp.Y-a.Y)
	for _, pq := range [4][2]float64{
		{-dx, float64(a.X - b.x0)}, {dx, float64(b.x1 - a.X)},
		{-dy, float64(a.Y - b.y0)}, {dy, float64(b.y1 - a.Y)},
	} {
		p, q := pq[0], pq[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			if t > t1 {
				return false
			}
			t0 = max(t0, t)
		} else {
			if t < t0 {
				return false
			}
			t1 = min(t1, t)
		}
	}
	return true
}

// legendFont is the size of legend and label text.
const legendFont = 9

// legendMargin is the white space between a legend's frame and its
// entries, and legendInset the gap between the frame and the data area's
// edge.
const (
	legendMargin = 4
	legendInset  = 4
)

// legend is a plot legend that is drawn inside the data area, on a white
// frame, where it covers no data (see place).
type legend struct {
	l     plot.Legend
	texts []string
}

func newLegend() *legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(legendFont)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(24)
	l.Padding = vg.Points(1)
	return &legend{l: l}
}

func (l *legend) add(text string, thumbs ...plot.Thumbnailer) {
	l.l.Add(text, thumbs...)
	l.texts = append(l.texts, text)
}

// size returns the legend's frame size in points.
func (l *legend) size() (w, h vg.Length) {
	r := l.l.Rectangle(draw.Canvas{})
	d := l.l.TextStyle.FontExtents().Descent
	return r.Size().X + 2*vg.Points(legendMargin), r.Size().Y + d + 2*vg.Points(legendMargin)
}

// legendSpots are where a legend may go, as fractions of the free range
// across and up the data area, best first: the corners, the middles of the
// edges, then inside.
var legendSpots = func() [][2]float64 {
	spots := [][2]float64{{0, 1}, {1, 1}, {1, 0}, {0, 0}, {1, 0.5}, {0, 0.5}, {0.5, 1}, {0.5, 0}}
	for _, fy := range []float64{0.75, 0.25, 0.875, 0.625, 0.375, 0.125} {
		for _, fx := range []float64{1, 0, 0.75, 0.25, 0.5} {
			spots = append(spots, [2]float64{fx, fy})
		}
	}
	return spots
}()

// place returns the best frame for the legend inside the data area da,
// and how many obstacles it covers (0 if a free spot exists).
func (l *legend) place(da draw.Canvas, o *obstacles) (box, int) {
	w, h := l.size()
	in := vg.Points(legendInset)
	free := box{da.Min.X + in, da.Min.Y + in, da.Max.X - in - w, da.Max.Y - in - h}
	best, bestHits := box{}, math.MaxInt
	for _, s := range legendSpots {
		x := free.x0 + vg.Length(s[0])*(free.x1-free.x0)
		y := free.y0 + vg.Length(s[1])*(free.y1-free.y0)
		b := box{x, y, x + w, y + h}
		if n := o.hits(b.grow(vg.Points(2))); n < bestHits {
			best, bestHits = b, n
			if n == 0 {
				break
			}
		}
	}
	return best, bestHits
}

// draw draws the legend in the frame b.
func (l *legend) draw(c draw.Canvas, b box) {
	if len(l.texts) == 0 {
		return
	}
	frame := []vg.Point{{X: b.x0, Y: b.y0}, {X: b.x1, Y: b.y0}, {X: b.x1, Y: b.y1}, {X: b.x0, Y: b.y1}}
	c.FillPolygon(color.NRGBA{R: 255, G: 255, B: 255, A: 235}, frame)
	c.StrokeLines(draw.LineStyle{Color: lightGrey, Width: vg.Points(0.5)}, append(frame, frame[0]))
	m := vg.Points(legendMargin)
	inner := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: b.x0 + m, Y: b.y0 + m},
		Max: vg.Point{X: b.x1 - m, Y: b.y1 - m},
	}}
	l.l.Draw(inner)
}

// fitLegend places l on p, whose marks are m, drawn on the canvas that
// canvas returns (called again after each change of p's range). When no
// spot is free and pad is set, it raises the top of the y range, a step at
// a time, until one is. It returns the frame and the obstacles covered.
func fitLegend(p *plot.Plot, canvas func() draw.Canvas, m *marks, l *legend, pad bool) (box, int) {
	for try := 0; ; try++ {
		da := p.DataCanvas(canvas())
		b, n := l.place(da, m.resolve(p, da))
		if n == 0 || !pad || try == 8 {
			return b, n
		}
		raiseTop(p, 0.1)
	}
}

// raiseTop widens p's y range upwards by the fraction f of its span (of
// its decades, on a log axis).
func raiseTop(p *plot.Plot, f float64) {
	if _, ok := p.Y.Scale.(plot.LogScale); ok {
		p.Y.Max *= math.Pow(p.Y.Max/p.Y.Min, f)
		return
	}
	p.Y.Max += f * (p.Y.Max - p.Y.Min)
}

// labelTexts draws text labels at fixed offsets from data points, and has
// no glyph boxes: the layout has already kept them inside the data area, so
// they do not change the plot's padding.
type labelTexts struct {
	pts   []XY
	texts []string
	offs  []vg.Point // lower-left corner of the text box from the point
	style draw.TextStyle
}

func (l *labelTexts) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	d := l.style.Rectangle("0").Min.Y // ≤ 0: the descent below the baseline
	for i, t := range l.texts {
		pt := vg.Point{X: trX(l.pts[i].X) + l.offs[i].X, Y: trY(l.pts[i].Y) + l.offs[i].Y - d}
		c.FillText(l.style, pt, t)
	}
}

// textBox returns the size of t in style s.
func textBox(s draw.TextStyle, t string) (w, h vg.Length) {
	r := s.Rectangle(t)
	return r.Size().X, r.Size().Y
}
