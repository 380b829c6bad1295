package htmlreport

import (
	"bytes"
	"html/template"
	"strings"
	"testing"
)

// TestLeadSections: Options.Lead goes after the title and before the
// per-class table; a page without Lead is the page Write wrote before
// Lead existed (the same bytes as with an empty Lead).
func TestLeadSections(t *testing.T) {
	rep := optimizeDefault(t)
	var plain, empty, led bytes.Buffer
	if err := Write(&plain, rep, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&empty, rep, Options{NoFigures: true, Lead: []Section{}}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain.Bytes(), empty.Bytes()) {
		t.Error("an empty Lead changes the page")
	}
	if strings.Contains(plain.String(), "\n\n<p class=\"meta\">scenario") {
		t.Error("a blank line where Lead would go")
	}
	lead := Section{ID: "drift", Title: "Drift per model", HTML: template.HTML("<p>lead text</p>")}
	if err := Write(&led, rep, Options{NoFigures: true, Lead: []Section{lead}}); err != nil {
		t.Fatal(err)
	}
	page := led.String()
	h1, l, sum := strings.Index(page, "<h1>"), strings.Index(page, `<h2 id="drift">Drift per model</h2>`), strings.Index(page, `id="summary"`)
	if !(h1 >= 0 && h1 < l && l < sum) || !strings.Contains(page, "<p>lead text</p>") {
		t.Errorf("Lead not between the title (%d) and the per-class table (%d): at %d", h1, sum, l)
	}
}

// TestWriteSections: a page of sections only has the title, the sections
// in order and the commands, and nothing of an optimisation report.
func TestWriteSections(t *testing.T) {
	var b bytes.Buffer
	err := WriteSections(&b, "hedgesim retune: <x>", Options{
		Lead:     []Section{{ID: "a", Title: "First", HTML: "<p>one</p>"}},
		Extra:    []Section{{ID: "b", Title: "Last", HTML: "<p>two</p>"}},
		Commands: []Command{{Label: "Reproduce:", Line: "hedgesim retune x"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, "<h1>hedgesim retune: &lt;x&gt;</h1>") {
		t.Error("title not escaped")
	}
	a, c, z := strings.Index(page, `id="a"`), strings.Index(page, `id="commands"`), strings.Index(page, `id="b"`)
	if !(a >= 0 && a < c && c < z) {
		t.Errorf("sections out of order: lead %d, commands %d, extra %d", a, c, z)
	}
	for _, no := range []string{`id="summary"`, "requests per candidate", "quantiles:", "verdict rule"} {
		if strings.Contains(page, no) {
			t.Errorf("page of sections has %q", no)
		}
	}
}
