package htmlreport

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestUndecidedRowShowsConfigured pins index.html's summary row of an
// undecided class showing no hedging's figures ("-" for the delay, +0.0%
// added cost) although its configured policy rolls out: the row says
// "configured" and, as the sweep did not simulate that policy (a fixed
// 1 s delay its grid does not hold, 30 requests: no p95 interval), has no
// after-figures; "who answered" does not give no hedging's.
func TestUndecidedRowShowsConfigured(t *testing.T) {
	sc, err := scenario.Parse("base.toml", []byte(`requests = 2000
[arrivals]
rate = 10
[models.a]
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
price_per_request = 0.001
[[classes]]
name = "c"
deadline = "10s"
[classes.hedge]
delay = "1s"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 30, 0
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if cr := &rep.Classes[0]; !cr.Verdict.Undecided || !cr.Unpicked() {
		t.Fatalf("verdict %+v; the test needs an undecided class whose configured policy the sweep did not simulate", cr.Verdict)
	}
	var b bytes.Buffer
	if err := Write(&b, rep, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`<tr class="class-row">.*?</tr>`).FindString(b.String())
	cells := regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(row, -1)
	if len(cells) != 12 {
		t.Fatalf("summary row %q: want 12 cells", row)
	}
	got := make([]string, len(cells))
	for i, c := range cells {
		got[i] = c[1]
	}
	if got[1] != "undecided" || got[2] != "configured" || !strings.HasSuffix(got[3], "→ -") || got[8] != "" || got[11] != "-" || strings.Contains(row, "+0.0%") {
		t.Errorf("summary row cells %q; want undecided, configured, no after-figures", got)
	}
	if strings.Contains(b.String(), "Who answered:</b> primary") {
		t.Errorf("the page gives no hedging's who-answered figures for the class")
	}
}
