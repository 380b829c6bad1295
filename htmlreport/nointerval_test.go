package htmlreport

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestChangeWithoutInterval: where the pick has too few requests for an
// interval on its p99 (P99CIOK false: 200 independent requests give the
// p95 an order-statistic interval, 190 ± 6 of 200, but not the p99, 198 ±
// 3), the text report prints "(no interval)" in place of the p99 change,
// and so does the page's summary row (it printed a fall such as "-62.1%"
// with no caveat); the p95 change stays a measured percentage.
func TestChangeWithoutInterval(t *testing.T) {
	sc, err := scenario.Parse("few.toml", []byte(`requests = 200
[arrivals]
rate = 1
[models.a]
latency = { kind = "mixture", weights = [0.8, 0.2], components = [ { kind = "uniform", min = 0.1, max = 0.3 }, { kind = "uniform", min = 2.0, max = 6.0 } ] }
price_per_request = 0.001
[[classes]]
name = "c"
deadline = "60s"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 200, 0
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	cr := &rep.Classes[0]
	if c := cr.Picked(); !cr.Verdict.Hedge || !c.P95CIOK || c.P99CIOK {
		t.Fatalf("verdict %+v, pick's p95 and p99 intervals %v, %v; the test needs a hedged pick with a p95 interval and none on its p99", cr.Verdict, c.P95CIOK, c.P99CIOK)
	}
	var page, text bytes.Buffer
	if err := Write(&page, rep, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`<tr class="class-row">.*?</tr>`).FindString(page.String())
	var cells []string
	for _, m := range regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(row, -1) {
		cells = append(cells, m[1])
	}
	if len(cells) < 7 {
		t.Fatalf("summary row %q: want at least 7 cells", row)
	}
	if !regexp.MustCompile(`^-\d+\.\d%$`).MatchString(cells[4]) || cells[6] != "(no interval)" {
		t.Errorf("p95 change %q, p99 change %q; want a measured fall, and (no interval)", cells[4], cells[6])
	}
	if n := strings.Count(text.String(), "(no interval)"); n != 1 {
		t.Errorf("the text report has (no interval) %d times; want once, the p99's:\n%s", n, text.String())
	}
}
