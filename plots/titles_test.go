package plots

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// TestLongTitleWrapsKeepingTheName: a pipeline class's delay title, with
// a Cyrillic and CJK name and a three-step pick, is wider than the PNG;
// gonum centred it on one line and clipped both ends, so it began
// "т-\u56de\u5408: …", the name cut. It is now wrapped at spaces onto
// lines that each fit the canvas, the escaped name whole at the start of
// the first, and no word lost.
func TestLongTitleWrapsKeepingTheName(t *testing.T) {
	const title = "ассистент-回合: p95 and p99 vs hedge delay (bands: 95% CI) — hedge at pre-guard 362ms, answer 3.56s, post-guard 363ms; top row: miss"
	for _, c := range []struct {
		format string
		dc     draw.Canvas
	}{
		{"png", draw.New(vgimg.PngCanvas{Canvas: vgimg.New(plotWidth*vg.Inch, delayHeight*vg.Inch)})},
		{"svg", draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: plotWidth * vg.Inch, Y: delayHeight * vg.Inch}}}},
	} {
		p := newPlot(title, "", "")
		p.Title.TextStyle.Font.Size = vg.Points(11)
		fitTitles(c.dc, p)
		name := "ассистент-回合:"
		want := title
		if c.format == "png" {
			name = `ассистент-\u56de\u5408:`
			want = glyphSafe(title, p.Title.TextStyle)
		}
		lines := strings.Split(p.Title.Text, "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[0], name+" ") {
			t.Errorf("%s: title lines %q; want two or more, the first starting %q", c.format, lines, name)
		}
		width := plotWidth*vg.Inch - 2*vg.Points(6)
		for _, l := range lines {
			if w := p.Title.TextStyle.Width(l); w > width {
				t.Errorf("%s: title line %q is %.0f pt wide; the canvas less padding is %.0f", c.format, l, w, width)
			}
		}
		if got := strings.Join(lines, " "); got != want {
			t.Errorf("%s: title lines joined %q; want %q", c.format, got, want)
		}
	}
	// A title that fits stays one line, as it was.
	p := newPlot("chat: p95 and p99 vs hedge delay", "", "")
	fitTitles(draw.New(vgimg.PngCanvas{Canvas: vgimg.New(plotWidth*vg.Inch, delayHeight*vg.Inch)}), p)
	if p.Title.Text != "chat: p95 and p99 vs hedge delay" {
		t.Errorf("a short title became %q", p.Title.Text)
	}
}

// TestDelayLegendListsThePickOnce: a pipeline class has a series per
// step, and each marks the one pick; the legend listed the pick's entry
// once per step (three times for three steps). It is now listed once.
func TestDelayLegendListsThePickOnce(t *testing.T) {
	d := Delay{
		Title: "pipe: p95 and p99 vs hedge delay", HedgedTitle: "requests that send a copy", XLabel: "hedge delay (s)",
		Percentile: 0.95, PickName: "pick: pre-guard 362ms, answer 3.56s, post-guard 363ms",
		BaseP95: 3, BaseP99: 5, MissY: math.NaN(),
	}
	for i, name := range []string{"pre-guard", "answer", "post-guard"} {
		d.Series = append(d.Series, DelaySeries{
			Name: name, Delay: []float64{0.1, 0.4 + float64(i)}, P95: []float64{2, 2.5}, P99: []float64{4, 4.5},
			HedgedPct: []float64{90, 40}, AnsweredPct: []float64{99, 99}, PickAt: 1,
		})
	}
	f := Figure{Name: "delay", Width: plotWidth * vg.Inch, Height: delayHeight * vg.Inch, draw: func(dc draw.Canvas) ([]placed, error) { return delayPlots(d, dc) }}
	svg, err := f.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(svg), d.PickName); n != 1 {
		t.Errorf("the legend lists %q %d times; want once", d.PickName, n)
	}
}
