package htmlreport

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestWithinObjectiveSummary pins index.html's summary under objective
// answered stating the p95 verdict rule and only p95 and the answered
// share, while the verdict is on the share answered within the target:
// the page now states the rule applied and has a column of that share
// before → after, as the text report does.
func TestWithinObjectiveSummary(t *testing.T) {
	sc, err := scenario.Parse("base.toml", []byte(`requests = 2000
[arrivals]
rate = 10
[models.a]
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
price_per_request = 0.001
[[classes]]
name = "c"
deadline = "10s"
[optimize]
objective = "answered"
target = "1s"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 2000, 0 // the page's shape, not its figures, is tested
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if o := rep.Classes[0].Objective; o.Goal != optimize.MostAnswered {
		t.Fatalf("objective %v; the test needs objective answered", o)
	}
	var b bytes.Buffer
	if err := Write(&b, rep, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String())
	if want := `<p class="meta">verdict rule: hedge when the share of requests not answered within 1.00s falls by`; !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
	if strings.Contains(page, "verdict rule: hedge when p95") {
		t.Errorf("page states the p95 rule, which no class is judged on")
	}
	if !strings.Contains(page, "<th>answered within 1.00s</th>") {
		t.Errorf("summary has no column of the share answered within 1.00s")
	}
	row := regexp.MustCompile(`<tr class="class-row">.*?</tr>`).FindString(page)
	want, _ := rep.WithinShares(&rep.Classes[0], rep.Classes[0].Picked())
	if !rep.Classes[0].Verdict.Hedge {
		want, _ = rep.WithinShares(&rep.Classes[0], rep.Classes[0].Baseline())
	}
	if want == "" || !strings.Contains(row, "<td>"+want+"</td>") {
		t.Errorf("summary row %q lacks %q", row, want)
	}
}
