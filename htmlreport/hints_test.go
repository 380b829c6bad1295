package htmlreport

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
)

// TestEachHintOnce: a class's warnings are shown in its own section, once
// each, and not repeated in the page's Warnings list; the rollout check's
// warnings are listed there, once each.
func TestEachHintOnce(t *testing.T) {
	base := optimizeDefault(t)
	r := *base
	r.Classes = append([]optimize.ClassReport(nil), base.Classes...)
	r.Classes[0].Warnings = []string{"few requests for p99.9", "few requests for p99.9", "a sweep warning"}
	r.Classes[1].Warnings = []string{"a sweep warning"}
	if r.Rollout == nil || r.Rollout.Report == nil {
		t.Fatal("no rollout check")
	}
	rc := *r.Rollout
	simRep := *rc.Report
	simRep.Warnings = []string{"model b is offered too much", "model b is offered too much"}
	rc.Report = &simRep
	r.Rollout = &rc
	var b bytes.Buffer
	if err := Write(&b, &r, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	count := func(s string) int { return strings.Count(page, "<li>"+s+"</li>") }
	if n := count("few requests for p99.9"); n != 1 {
		t.Errorf("a class warning given twice is shown %d times; want once", n)
	}
	if n := count("a sweep warning"); n != 2 {
		t.Errorf("a warning of two classes is shown %d times; want once in each class's section", n)
	}
	if n := count("model b is offered too much"); n != 1 {
		t.Errorf("the rollout check's warning is shown %d times; want once", n)
	}
	_, list, _ := strings.Cut(page, `<h2 id="warnings">Warnings</h2>`)
	list, _, _ = strings.Cut(list, "</ul>")
	if strings.Contains(list, "sweep warning") || strings.Contains(list, "p99.9") {
		t.Errorf("the Warnings list repeats class warnings: %s", list)
	}
	// No list item of the page, whatever it says, appears twice in one list.
	for _, ul := range regexp.MustCompile(`(?s)<ul[^>]*>.*?</ul>`).FindAllString(page, -1) {
		seen := map[string]bool{}
		for _, li := range regexp.MustCompile(`<li>(.*?)</li>`).FindAllStringSubmatch(ul, -1) {
			if seen[li[1]] {
				t.Errorf("%q is listed twice in one list", li[1])
			}
			seen[li[1]] = true
		}
	}
}
