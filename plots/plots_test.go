package plots_test

import (
	"bytes"
	"image/png"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/plots"
	"github.com/hedgesim/hedgesim/sim"
)

// report optimises one lognormal class (median 1 s, sigma 1) over the
// given delays and copy counts.
func report(t *testing.T, delays []time.Duration, copies []int, maxCost float64) (*optimize.Report, *optimize.ClassReport) {
	t.Helper()
	return reportOf(t, lognormal(), 20_000, delays, copies, maxCost)
}

// lognormal is one class sending every request to one model whose latency
// is lognormal with median 1 s and sigma 1, with a 20 s deadline.
func lognormal() *sim.Config {
	return &sim.Config{
		Name: "lognormal", Seed: 5, Requests: 1000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models:   []sim.Model{{Name: "m", Provider: "p", Latency: dist.LogNormal{Mu: 0, Sigma: 1}, PriceInputPerMTok: 1}},
		Classes: []sim.Class{{
			Name: "chat", Share: 1, Deadline: 20 * time.Second,
			InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 0},
			Policy: sim.Policy{CancelBilling: sim.BillInput},
		}},
	}
}

func reportOf(t *testing.T, cfg *sim.Config, requests int, delays []time.Duration, copies []int, maxCost float64) (*optimize.Report, *optimize.ClassReport) {
	t.Helper()
	s := optimize.DefaultSettings()
	s.Requests = requests
	s.Search.Delays = delays
	s.Search.Copies = copies
	s.Search.Objective.MaxAddedCostPct = maxCost
	rep, err := optimize.Run(cfg, s, optimize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep, &rep.Classes[0]
}

func TestCostData(t *testing.T) {
	_, cr := report(t, nil, nil, 30)
	d := plots.CostData(cr)
	if len(d.Candidates) != len(cr.Candidates) {
		t.Fatalf("%d points for %d candidates", len(d.Candidates), len(cr.Candidates))
	}
	for i, l := range d.Candidates {
		c := &cr.Candidates[i]
		want := c.Label
		if i == 0 {
			want = "no hedging"
		}
		if l.X != c.AddedCostPct || l.Y != c.Latency.P95 || l.Text != want {
			t.Errorf("point %d = %+v; candidate %s at (%v, %v)", i, l, c.Label, c.AddedCostPct, c.Latency.P95)
		}
		few := slices.ContainsFunc(c.Reasons, func(r optimize.Reason) bool { return r.Code == optimize.ReasonTooFew })
		if l.Rejected != (c.Status == optimize.StatusRejected && !few) || l.TooFew != (c.Status == optimize.StatusRejected && few) {
			t.Errorf("point %d: rejected %v, too few %v; candidate %s is %s", i, l.Rejected, l.TooFew, c.Label, c.Status)
		}
		if !(l.X >= d.XMin && l.X <= d.XMax && l.Y >= d.YMin && l.Y <= d.YMax) {
			t.Errorf("point %d %v outside the axes [%v, %v] × [%v, %v]", i, l.XY, d.XMin, d.XMax, d.YMin, d.YMax)
		}
	}
	if len(d.Frontier) != len(cr.Frontier) {
		t.Fatalf("frontier: %d points; want %d", len(d.Frontier), len(cr.Frontier))
	}
	for k := 1; k < len(d.Frontier); k++ {
		// At equal p95 the answered share breaks the tie (the deadline).
		if !(d.Frontier[k].X >= d.Frontier[k-1].X && d.Frontier[k].Y <= d.Frontier[k-1].Y) {
			t.Errorf("frontier not by rising cost and falling p95: %v", d.Frontier)
		}
	}
	if d.Pick.XY != d.Candidates[cr.Pick].XY || !d.Candidates[cr.Pick].Shown || !d.Candidates[0].Shown {
		t.Errorf("pick %+v; the pick's and no hedging's labels must be shown", d.Pick)
	}
	if d.Baseline.X != 0 || d.Baseline.Text != "no hedging" || d.BaselineName != "no hedging" {
		t.Errorf("baseline %+v, %q", d.Baseline, d.BaselineName)
	}
	if !strings.HasPrefix(d.PickName, "pick: "+cr.Picked().Label+", +") {
		t.Errorf("pick legend %q", d.PickName)
	}
	shown := 0
	for _, l := range d.Candidates {
		if l.Shown {
			shown++
		}
	}
	if shown < 10 || shown == len(d.Candidates) {
		t.Errorf("%d of %d labels shown; want most but not the overlapping ones", shown, len(d.Candidates))
	}
	if !strings.Contains(d.Title, "chat") || !strings.Contains(d.XLabel, "%") || !strings.Contains(d.YLabel, "(s)") {
		t.Errorf("labels: %q, %q, %q", d.Title, d.XLabel, d.YLabel)
	}
}

func TestSurvivalData(t *testing.T) {
	_, cr := report(t, []time.Duration{time.Second, 2 * time.Second}, nil, math.Inf(1))
	d := plots.SurvivalData(cr)
	if d.Delay != cr.Picked().DelaySeconds || !strings.HasPrefix(d.OtherName, "pick: ") {
		t.Errorf("other curve %q at delay %v; want the pick %s", d.OtherName, d.Delay, cr.Picked().Label)
	}
	if !(d.YMin > 0 && d.YMin < 0.01) || !(d.XMax > 5) {
		t.Errorf("range x ≤ %v, y ≥ %v", d.XMax, d.YMin)
	}
	for name, c := range map[string][]plots.XY{"no hedging": d.Baseline, "pick": d.Other} {
		if len(c) < 50 || c[0].Y != 1 {
			t.Errorf("%s: %d points, starting %v", name, len(c), c[0])
		}
		for k, p := range c {
			// Log axis: every value must be > 0 (gonum's LogScale panics).
			if !(p.Y >= d.YMin && p.Y <= 1 && p.X <= d.XMax && p.X > 0) {
				t.Errorf("%s: point %d %v outside the figure", name, k, p)
			}
			if k > 0 && (p.X < c[k-1].X || p.Y > c[k-1].Y) {
				t.Errorf("%s: not a survival curve at %d: %v after %v", name, k, p, c[k-1])
			}
		}
	}
	// Hedging at 1 s lowers the tail: at the baseline's 1 % point the pick
	// is well below 1 %.
	at := func(c []plots.XY, x float64) float64 {
		y := 1.0
		for _, p := range c {
			if p.X <= x {
				y = p.Y
			}
		}
		return y
	}
	x := cr.Baseline().Latency.P99
	if b, o := at(d.Baseline, x), at(d.Other, x); !(b > 0.005 && o < b/2) {
		t.Errorf("at t = %.2f: no hedging %v, pick %v", x, b, o)
	}

	// When the verdict is "don't hedge", the curve compared is the
	// fastest candidate, labelled as such.
	_, cr = report(t, []time.Duration{500 * time.Millisecond, time.Second}, nil, 0)
	if cr.Picked().Hedging || cr.Verdict.Hedge {
		t.Fatalf("with a 0%% cost cap the pick hedges: %s", cr.Picked().Label)
	}
	d = plots.SurvivalData(cr)
	if !strings.HasPrefix(d.OtherName, "fastest candidate: 500ms, +") || !strings.HasSuffix(d.OtherName, "cost (not picked)") ||
		!strings.Contains(d.Title, "don't hedge; for reference, the fastest candidate, 500ms") || d.Delay != 0.5 {
		t.Errorf("pick is no hedging: title %q, other curve %q at %v", d.Title, d.OtherName, d.Delay)
	}
}

// TestSurvivalDataNoFasterCandidate: when every copy is as slow as the
// original (correlation 1), no candidate is faster, and the figure has
// one curve and says so — not "no hedging vs none" with two identical
// curves.
func TestSurvivalDataNoFasterCandidate(t *testing.T) {
	cfg := lognormal()
	cfg.Correlation = sim.Correlation{SameModel: 1, SameProvider: 1, CrossProvider: 1}
	_, cr := reportOf(t, cfg, 5000, []time.Duration{0, time.Second}, nil, math.Inf(1))
	if cr.Verdict.Hedge {
		t.Fatalf("verdict hedge: %s", cr.Verdict.Reason)
	}
	d := plots.SurvivalData(cr)
	if d.Other != nil || d.OtherName != "" || !strings.Contains(d.Title, "no candidate is faster") || strings.Contains(d.Title, " vs ") {
		t.Errorf("title %q, other curve %q (%d points)", d.Title, d.OtherName, len(d.Other))
	}
	for _, f := range plots.ClassFigures(cr, 0.95) {
		if _, err := f.Render("png"); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
}

func TestDelayData(t *testing.T) {
	rep, cr := report(t, []time.Duration{0, 500 * time.Millisecond, time.Second, 2 * time.Second}, []int{1, 2}, math.Inf(1))
	d := plots.DelayData(cr, rep.Level)
	if len(d.Series) != 2 || d.Series[0].Name != "1 copy to m" || d.Series[1].Name != "2 copies to m" {
		t.Fatalf("series %+v", d.Series)
	}
	picks := 0
	for _, s := range d.Series {
		if len(s.Delay) != 4 || s.Delay[0] != 0 || s.Delay[3] != 2 {
			t.Errorf("%s: delays %v", s.Name, s.Delay)
		}
		for k := range s.Delay {
			if !(s.P95Lo[k] <= s.P95[k] && s.P95[k] <= s.P95Hi[k] && s.P99Lo[k] <= s.P99[k] && s.P99[k] <= s.P99Hi[k]) {
				t.Errorf("%s at %v: value outside its band", s.Name, s.Delay[k])
			}
			if s.AnsweredPct[k] < 99 {
				t.Errorf("%s at %v: %v%% answered; want ≥ 99%% (20 s deadline)", s.Name, s.Delay[k], s.AnsweredPct[k])
			}
			if k > 0 && !(s.HedgedPct[k] <= s.HedgedPct[k-1]) {
				t.Errorf("%s: hedged share rises with the delay: %v", s.Name, s.HedgedPct)
			}
		}
		if s.HedgedPct[0] != 100 {
			t.Errorf("%s: delay 0 hedges %v%%", s.Name, s.HedgedPct[0])
		}
		if s.PickAt >= 0 {
			picks++
		}
	}
	if picks != 1 || d.BaseP95 != cr.Baseline().Latency.P95 || !strings.Contains(d.Title, "95% CI") || !d.Bands {
		t.Errorf("%d picks, base p95 %v, title %q, bands %v", picks, d.BaseP95, d.Title, d.Bands)
	}

	// Too few requests for intervals: no bands, and the title says why.
	rep, cr = reportOf(t, lognormal(), 50, []time.Duration{0, time.Second}, nil, math.Inf(1))
	if d := plots.DelayData(cr, rep.Level); d.Bands || !strings.Contains(d.Title, "too few requests for confidence bands") {
		t.Errorf("50 requests: bands %v, title %q", d.Bands, d.Title)
	}
}

// TestRender draws every figure to PNG and SVG: the PNG decodes and has
// the expected size, the SVG is an SVG document.
func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name   string
		delays []time.Duration
		copies []int
		cost   float64
	}{
		{"default grid", nil, nil, 10},
		{"one delay", []time.Duration{time.Second}, nil, math.Inf(1)},
		{"no hedging picked", []time.Duration{0}, []int{1, 2}, 0},
		{"no frontier beyond no hedging", []time.Duration{19900 * time.Millisecond}, nil, 0},
	} {
		rep, cr := report(t, tc.delays, tc.copies, tc.cost)
		figs := plots.ClassFigures(cr, rep.Level)
		if len(figs) != 3 {
			t.Fatalf("%s: %d figures", tc.name, len(figs))
		}
		for _, f := range figs {
			b, err := f.Render("png")
			if err != nil {
				t.Errorf("%s: %s: %v", tc.name, f.Name, err)
				continue
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Errorf("%s: %s: %v", tc.name, f.Name, err)
				continue
			}
			w, h := int(math.Round(f.Width.Points()*plots.DPI/72)), int(math.Round(f.Height.Points()*plots.DPI/72))
			if got := img.Bounds(); got.Dx() != w || got.Dy() != h {
				t.Errorf("%s: %s: %dx%d; want %dx%d", tc.name, f.Name, got.Dx(), got.Dy(), w, h)
			}
			svg, err := f.Render("svg")
			if err != nil || !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("</svg>")) {
				t.Errorf("%s: %s: SVG %v", tc.name, f.Name, err)
			}
		}
		if _, err := figs[0].Render("gif"); err == nil {
			t.Error("Render(gif): no error")
		}
	}
}

// TestClassFiguresWithoutAnswers: a class none of whose requests is
// answered (a 1 ms deadline on latencies of median 1 s: P(T ≤ 1 ms) ≈
// 3·10⁻¹², so none of 1 000) has no survival curve; its figures are the
// cost and delay figures, and both render.
func TestClassFiguresWithoutAnswers(t *testing.T) {
	cfg := lognormal()
	cfg.Classes[0].Deadline = time.Millisecond
	rep, cr := reportOf(t, cfg, 1000, []time.Duration{0}, nil, math.Inf(1))
	if n := len(plots.SurvivalData(cr).Baseline); n != 0 {
		t.Fatalf("the survival data has %d points without hedging, want none", n)
	}
	var names []string
	for _, f := range plots.ClassFigures(cr, rep.Level) {
		names = append(names, f.Name)
		if _, err := f.Render("svg"); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
	if got := strings.Join(names, ","); got != "cost,delay" {
		t.Errorf("figures %s, want cost,delay", got)
	}
}

// TestPNGTitleKeepsCJKClassName: the PNG's fonts have no CJK glyphs, so a
// title naming class 聊天 lost the name (": added cost vs p95 — …") and
// two CJK classes drew the same title. The PNG now writes each rune it
// cannot draw as its \uXXXX escape: 聊天's figure is the one of a class
// named `\u804a\u5929` pixel for pixel, and differs from 天聊's. The SVG,
// whose text the viewer draws, keeps the name.
func TestPNGTitleKeepsCJKClassName(t *testing.T) {
	rep, cr := report(t, []time.Duration{time.Second, 2 * time.Second}, nil, 100)
	draw := func(name, format string) []byte {
		t.Helper()
		c := *cr
		c.Class = name
		b, err := plots.ClassFigures(&c, rep.Level)[0].Render(format)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cjk, escaped, other := draw("聊天", "png"), draw(`\u804a\u5929`, "png"), draw("天聊", "png")
	if !bytes.Equal(cjk, escaped) {
		t.Error("the PNG of class 聊天 differs from that of a class named \\u804a\\u5929; want its title escaped")
	}
	if bytes.Equal(cjk, other) {
		t.Error("the PNGs of classes 聊天 and 天聊 are the same; want their titles told apart")
	}
	if svg := draw("聊天", "svg"); !bytes.Contains(svg, []byte("聊天: added cost vs p95")) {
		t.Error("the SVG's title lost the class name 聊天")
	}
}

// TestFrontierLegendSaysTies: the frontier keeps, at an equal percentile,
// the candidate with fewer unanswered requests (optimize.Frontier), so it
// can run along the miss row through candidates no faster than no
// hedging; its legend says so rather than "no cheaper candidate is
// faster" alone.
func TestFrontierLegendSaysTies(t *testing.T) {
	rep, cr := report(t, []time.Duration{time.Second, 2 * time.Second}, nil, 100)
	b, err := plots.ClassFigures(cr, rep.Level)[0].Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("frontier (no cheaper candidate is faster, or as fast with more answered)")) {
		t.Error("the cost figure's frontier legend does not say how ties are broken")
	}
}

// TestCostDataTooFewNotOverALimit: a candidate rejected for too few
// requests for an interval was drawn with the symbol whose legend reads
// "rejected (over a limit, or refused by the verdict rule)", neither of
// which it was; it is now marked TooFew, drawn with its own symbol and
// legend, and not Rejected. 30 requests are too few for a p95 interval.
func TestCostDataTooFewNotOverALimit(t *testing.T) {
	_, cr := reportOf(t, lognormal(), 30, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}, []int{1}, 1e9)
	d := plots.CostData(cr)
	n := 0
	for i, l := range d.Candidates {
		c := &cr.Candidates[i]
		if c.Status != optimize.StatusRejected || !slices.ContainsFunc(c.Reasons, func(r optimize.Reason) bool { return r.Code == optimize.ReasonTooFew }) {
			continue
		}
		n++
		if l.Rejected || !l.TooFew {
			t.Errorf("%s, rejected for too few requests: drawn rejected %v, too few %v; want too few only", c.Label, l.Rejected, l.TooFew)
		}
	}
	if n == 0 {
		t.Fatalf("premise: no candidate rejected for too few requests at 30 requests")
	}
}
