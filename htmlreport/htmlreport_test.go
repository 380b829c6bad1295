package htmlreport

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

var (
	defaultOnce sync.Once
	defaultRep  *optimize.Report
	defaultErr  error
)

// optimizeDefault optimises the default scenario on few requests and a
// small delay grid (in full with -screenshot), once per test binary.
func optimizeDefault(t *testing.T) *optimize.Report {
	t.Helper()
	defaultOnce.Do(func() {
		sc, err := scenario.LoadFS(scenarios.FS, scenarios.Default)
		if err != nil {
			defaultErr = err
			return
		}
		s := sc.Optimize
		if *screenshotOut == "" {
			s.Requests = 4000
			s.Each(func(se *optimize.Search) {
				se.Delays = []time.Duration{0, 300 * time.Millisecond, 800 * time.Millisecond, 1500 * time.Millisecond}
				// A user's cost cap, so that candidates over it are
				// rejected (TestFates); the default has none.
				se.Objective.MaxAddedCostPct = 10
			})
		} // else the full default optimisation, for the screenshot in docs/optimize.md
		defaultRep, defaultErr = optimize.Run(&sc.Config, s, optimize.Options{})
	})
	if defaultErr != nil {
		t.Fatal(defaultErr)
	}
	return defaultRep
}

// TestWrite checks the page's content: one table row and one section per
// class with its verdict reason, three inline SVG figures per class, the
// rollout check, no external reference, and text from the scenario escaped.
func TestWrite(t *testing.T) {
	r := *optimizeDefault(t)
	r.Overrides = []string{`classes[0].name=<script>alert(1)</script>`}
	rep := &r
	var b bytes.Buffer
	if err := Write(&b, rep, Options{Commands: []Command{{Label: "Reproduce:", Line: "hedgesim optimize --requests 4000"}}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, `<tr class="class-row">`); n != len(rep.Classes) {
		t.Errorf("%d class rows; want %d", n, len(rep.Classes))
	}
	if n := strings.Count(page, "<svg"); n != 4*len(rep.Classes) {
		t.Errorf("%d inline SVGs; want %d (three figures and the candidate map per class)", n, 4*len(rep.Classes))
	}
	if strings.Contains(page, "<?xml") {
		t.Error("an XML declaration is left inside the HTML")
	}
	for _, cr := range rep.Classes {
		if !strings.Contains(page, templateEscape(cr.Verdict.Reason)) {
			t.Errorf("class %s: the verdict reason is missing", cr.Class)
		}
		if !strings.Contains(page, "<b>Who answered:</b> "+templateEscape(cr.Picked().WhoAnswered())) {
			t.Errorf("class %s: who answered is missing", cr.Class)
		}
		if b := cr.Picked().Bought(); b != "" && !strings.Contains(page, "<b>Request by request against no hedging:</b> "+b) {
			t.Errorf("class %s: rescued and harmed are missing", cr.Class)
		}
	}
	if rep.Rollout != nil && !strings.Contains(page, `id="rollout-check"`) {
		t.Error("the rollout check is missing")
	}
	for _, banned := range []string{"<script", "<link", "src=", "@import", "url("} {
		if strings.Contains(page, banned) {
			t.Errorf("the page contains %q; want no script and nothing loaded", banned)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("an override with markup is not escaped")
	}
	if !strings.Contains(page, "hedgesim optimize --requests 4000") {
		t.Error("the command is missing")
	}
	b.Reset()
	if err := Write(&b, rep, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<svg") {
		t.Error("NoFigures: the page has figures")
	}
}

// TestFates: each class's candidate map has a point per candidate (and
// the pick drawn again on top), coloured by status, the reasons of each
// in its hover title; the table lists every rejected candidate with its
// reasons and codes.
func TestFates(t *testing.T) {
	rep := optimizeDefault(t)
	var b bytes.Buffer
	if err := Write(&b, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	rejected := 0
	for ci := range rep.Classes {
		cr := &rep.Classes[ci]
		start := strings.Index(page, `<section class="class" id="class-`+strconv.Itoa(ci)+`">`)
		end := start + strings.Index(page[start:], "</section>")
		sec := page[start:end]
		if n := strings.Count(sec, "<circle "); n != len(cr.Candidates)+1 {
			t.Errorf("class %s: %d points; want %d candidates and the pick on top", cr.Class, n, len(cr.Candidates))
		}
		nRej := 0
		for _, c := range cr.Candidates {
			if c.Status == optimize.StatusRejected {
				nRej++
				if why := templateEscape(c.Reasons[0].Text); !strings.Contains(sec, why) {
					t.Errorf("class %s: candidate %s: its reason %q is not on the page", cr.Class, c.Label, c.Reasons[0].Text)
				}
			}
		}
		rejected += nRej
		if n := strings.Count(sec, `<circle class="rejected"`); n != nRej {
			t.Errorf("class %s: %d rejected points; want %d", cr.Class, n, nRej)
		}
		if nRej > 0 && strings.Count(sec[strings.Index(sec, `<table class="rejected">`):], "<tr><td>") != nRej {
			t.Errorf("class %s: the rejected table does not list its %d rejected candidates", cr.Class, nRej)
		}
	}
	if rejected == 0 {
		t.Fatal("the default scenario's report has no rejected candidate: the test checks nothing")
	}
}

// templateEscape escapes s as html/template does in element content.
func templateEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")
	return r.Replace(s)
}

// TestThroughputAndBreakers: when the rollout check has closed-loop
// classes, the page shows their throughput with and without hedging; when
// a model has a circuit breaker, how often it opened and how long it was
// open. Without either, neither appears.
func TestThroughputAndBreakers(t *testing.T) {
	base := optimizeDefault(t)
	if base.Rollout == nil || base.Rollout.Report == nil {
		t.Fatal("no rollout check")
	}
	var plain bytes.Buffer
	if err := Write(&plain, base, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "throughput (95% CI)") || strings.Contains(plain.String(), "circuit breaker") {
		t.Errorf("a page without closed-loop classes or breakers shows them")
	}
	r := *base
	rc := *base.Rollout
	simRep := *rc.Report
	simRep.Classes = append([]sim.ClassReport(nil), rc.Report.Classes...)
	simRep.Classes[0].Throughput = &sim.Throughput{PerSecond: 12.94, CI95: [2]float64{11.67, 14.47}, Clients: 16}
	simRep.Classes[0].NoHedging.Throughput = &sim.Throughput{PerSecond: 11.15, CI95: [2]float64{10, 12}, Clients: 16}
	simRep.Breakers = []sim.BreakerResult{{Model: "large-a", Opens: 7, OpenSeconds: 210, Rejected: 123}}
	rc.Report = &simRep
	r.Rollout = &rc
	var b bytes.Buffer
	if err := Write(&b, &r, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<th>throughput (95% CI)</th>",
		`<td class="throughput">12.94/s [11.67, 14.47]</td><td>11.15/s</td>`,
		`<td class="throughput">-</td><td>-</td>`,
		"model large-a: the circuit breaker opened 7 times, open 210.0s in all, and failed 123 calls at once",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestPipelineSearch: a pipeline class's page says how its pick was found
// (PipelineSearch.Found); a one-call class's says nothing of the kind.
func TestPipelineSearch(t *testing.T) {
	base := optimizeDefault(t)
	var plain bytes.Buffer
	if err := Write(&plain, base, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "<b>Search:</b>") {
		t.Error("a page without pipeline classes says how a pipeline search went")
	}
	r := *base
	r.Classes = append([]optimize.ClassReport(nil), base.Classes...)
	found := "allocation over 3 steps (1100 combinations), 65 simulated: no hedging, 28 with one step hedged alone"
	r.Classes[0].PipelineSearch = &optimize.PipelineSearch{Method: "allocation", Found: found}
	var b bytes.Buffer
	if err := Write(&b, &r, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	if want := `<p class="search"><b>Search:</b> ` + templateEscape(found) + `</p>`; !strings.Contains(b.String(), want) {
		t.Errorf("page lacks %q", want)
	}
}

// TestRolloutTooFew: a rollout check row with too few of its class's
// requests for a p95 interval (optimize.RolloutClass.TooFew) shows its
// note, not "ok", which presented such a check as a pass.
func TestRolloutTooFew(t *testing.T) {
	base := optimizeDefault(t)
	if base.Rollout == nil || len(base.Rollout.Classes) == 0 {
		t.Fatal("no rollout check")
	}
	r := *base
	rc := *base.Rollout
	rc.Classes = append([]optimize.RolloutClass(nil), base.Rollout.Classes...)
	for i := range rc.Classes {
		rc.Classes[i].Flagged, rc.Classes[i].Flag = false, ""
	}
	rc.Classes[0].TooFew = true
	rc.Classes[0].Note = "the check's 1 request of this class is too few for a 95% interval on p95"
	r.Rollout = &rc
	var b bytes.Buffer
	if err := Write(&b, &r, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, "<td>too few: the check&#39;s 1 request of this class is too few") {
		t.Errorf("the too-few row does not show its note")
	}
	if n := strings.Count(page, "<td>ok</td>"); n != len(rc.Classes)-1 {
		t.Errorf("%d rows say ok; want %d, all but the too-few one", n, len(rc.Classes)-1)
	}
}
