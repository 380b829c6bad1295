package htmlreport

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestAnsweredSharesNearAll: the page's summary row gives a class's
// answered shares with the digits the text report uses near 100 %, and
// their change. On replica-pool (seed 1, 20000 requests) class p2c
// leaves 1 request of 20000 unanswered without hedging and none with its
// pick; the text report reads "99.995% → 100.000% (+0.005 pt)", and the
// page read "100.0% → 100.0%" with no change.
func TestAnsweredSharesNearAll(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "replica-pool.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 20000, 0 // the summary row is tested, not the rollout check
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var cr *optimize.ClassReport
	for i := range rep.Classes {
		if rep.Classes[i].Class == "p2c" {
			cr = &rep.Classes[i]
		}
	}
	if cr == nil {
		t.Fatal("replica-pool has no class p2c")
	}
	b, c := cr.Baseline(), cr.Picked()
	if !cr.Verdict.Hedge || b.AnsweredShare == c.AnsweredShare || b.AnsweredShare < 0.9995 || c.AnsweredShare < 0.9995 {
		t.Fatalf("p2c: hedge %v, answered %v → %v; the test needs a hedged pick whose answered share differs from no hedging's, both of which one decimal rounds to 100.0%%",
			cr.Verdict.Hedge, b.AnsweredShare, c.AnsweredShare)
	}
	var page, text bytes.Buffer
	if err := Write(&page, rep, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	// The text report's summary row of p2c: "99.995% → 100.000%  (+0.005 pt)".
	m := regexp.MustCompile(`(?m)^p2c .*?(\d+\.\d+% → \d+\.\d+%) +(\(\S+ pt\))`).FindStringSubmatch(text.String())
	if m == nil {
		t.Fatalf("the text report has no answered share of p2c with a change:\n%s", text.String())
	}
	if !regexp.MustCompile(`^\d+\.\d{3}% → \d+\.\d{3}%$`).MatchString(m[1]) {
		t.Errorf("the text report's answered shares of p2c %q; want three decimals", m[1])
	}
	row := regexp.MustCompile(`<tr class="class-row"><td><a href="#[^"]*">p2c</a></td>.*?</tr>`).FindString(html.UnescapeString(page.String()))
	if want := "<td>" + m[1] + "</td><td>" + m[2] + "</td>"; !strings.Contains(row, want) {
		t.Errorf("summary row of p2c %s; want the text report's answered shares and change, %s", row, want)
	}
}
