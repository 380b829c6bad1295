package readers

import (
	"strconv"
	"strings"
	"testing"
)

// TestDuplicateBucketsNamed: a user's file holds the same series twice (two
// scrapes pasted together, the second from line 6 here); the read named no
// line and said the cumulative count falls. Now the chosen series' error
// gives the repeat's line and the line it repeats, with a TYPE line or
// without; a series repeated beside the one asked for does not stop it.
func TestDuplicateBucketsNamed(t *testing.T) {
	scrape := func(model string, n1, n2 int) string {
		return `req_latency_seconds_bucket{model="` + model + `",le="0.1"} ` + strconv.Itoa(n1) + "\n" +
			`req_latency_seconds_bucket{model="` + model + `",le="1"} ` + strconv.Itoa(n2) + "\n" +
			`req_latency_seconds_bucket{model="` + model + `",le="+Inf"} ` + strconv.Itoa(n2) + "\n" +
			`req_latency_seconds_count{model="` + model + `"} ` + strconv.Itoa(n2) + "\n"
	}
	dup := "# HELP req_latency_seconds latency\n" + scrape("a", 40, 100) + scrape("a", 10, 50) + scrape("b", 30, 60)
	for _, c := range []struct{ name, text, line string }{
		{"untyped", dup, "m.prom:6: "},
		{"typed", "# TYPE req_latency_seconds histogram\n" + dup, "m.prom:7: "},
	} {
		_, err := ReadPrometheusText(strings.NewReader(c.text), "m.prom", HistogramQuery{Labels: map[string]string{"model": "a"}})
		want := c.line + `req_latency_seconds{model="a"}: duplicate sample of bucket le=0.1 (first at line ` + map[string]string{"untyped": "2", "typed": "3"}[c.name] + ")"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, want)
		}
		h, err := ReadPrometheusText(strings.NewReader(c.text), "m.prom", HistogramQuery{Labels: map[string]string{"model": "b"}})
		if err != nil || h.Total() != 60 {
			t.Errorf("%s: model b beside the repeated a: %v, %v; want its 60 observations", c.name, h, err)
		}
	}
}
