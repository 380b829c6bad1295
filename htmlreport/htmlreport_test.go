package htmlreport

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
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
			})
		} // else the full default optimisation, for the README's screenshot
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
	if n := strings.Count(page, "<svg"); n != 3*len(rep.Classes) {
		t.Errorf("%d inline SVGs; want %d", n, 3*len(rep.Classes))
	}
	if strings.Contains(page, "<?xml") {
		t.Error("an XML declaration is left inside the HTML")
	}
	for _, cr := range rep.Classes {
		if !strings.Contains(page, templateEscape(cr.Verdict.Reason)) {
			t.Errorf("class %s: the verdict reason is missing", cr.Class)
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

// templateEscape escapes s as html/template does in element content.
func templateEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")
	return r.Replace(s)
}
