package scenario

import (
	"strings"
	"testing"
)

// TestSyntaxHints: two TOML slips a newcomer makes are reported at the
// line that has them, with what to write instead — an unquoted key with a
// dot (p99.9 = 2.0, a table p99 holding 9) and a [classes.hedge] table
// before any [[classes]] (which the TOML parser reports at the later
// [[classes]] as "already created").
func TestSyntaxHints(t *testing.T) {
	const head = "requests = 1000\n[arrivals]\nrate = 10\n" // lines 1-3
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unquoted dotted percentile, inline",
			head + "[models.m]\nlatency = { kind = \"quantiles\", quantiles = { p50 = 0.5, p99.9 = 2.0 } }\n[[classes]]\nname = \"c\"\n",
			`x.toml:5: models.m.latency.quantiles.p99: wrong type: got table; want a number; an unquoted key with a dot, p99.9, is a table p99 holding 9: quote it, "p99.9" = …`},
		{"unquoted dotted percentile, in a table",
			head + "[models.m.latency]\nkind = \"quantiles\"\n[models.m.latency.quantiles]\np50 = 0.5\np99.9 = 2.0\n[[classes]]\nname = \"c\"\n",
			`x.toml:8: models.m.latency.quantiles.p99: wrong type: got table; want a number; an unquoted key with a dot, p99.9`},
		{"hedge table before its class",
			head + "[models.m]\nlatency = { kind = \"constant\", value = 0.5 }\n\n[classes.hedge]\ndelay = \"1s\"\n\n[[classes]]\nname = \"c\"\n",
			"x.toml:7: classes.hedge: comes before any [[classes]]: a table of an entry, such as [classes.hedge], belongs to the [[classes]] above it; move it below its [[classes]] (the first is on line 10)"},
	} {
		_, err := Parse("x.toml", []byte(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got\n%v\nwant it to start with\n%s", tc.name, err, tc.want)
		}
	}
	// A table where a number goes, with keys that are not digits, gets no such hint.
	_, err := Parse("x.toml", []byte(head+"[models.m]\nlatency = { kind = \"constant\", value = { x = 1 } }\n[[classes]]\nname = \"c\"\n"))
	if err == nil || strings.Contains(err.Error(), "unquoted key") {
		t.Errorf("value = { x = 1 }: %v", err)
	}
}
