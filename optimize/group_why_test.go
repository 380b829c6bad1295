package optimize_test

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// coupledTOML is two classes on one primary that hedge to a model whose
// rate limit (120 requests a minute) their copies share.
const coupledTOML = `
seed = 9
requests = 3000
[arrivals]
rate = 6.0
[models.main]
provider = "pa"
latency = { kind = "lognormal", median = 0.8, p95 = 4.0 }
price_per_request = 0.002
[models.alt]
provider = "pb"
latency = { kind = "lognormal", median = 0.6, p95 = 2.0 }
price_per_request = 0.003
rate_limit = { requests_per_minute = 120, burst = "5s" }
[[classes]]
name = "a"
share = 0.6
deadline = "15s"
[classes.hedge]
primary = "main"
delay = "1s"
targets = ["alt"]
[[classes]]
name = "b"
share = 0.4
deadline = "15s"
[classes.hedge]
primary = "main"
delay = "2s"
targets = ["alt"]
`

// TestGroupSaysWhyNotOwnPick: when a class's own pick would give the
// group a better value than the group's pick, the report says why the
// group passed it over. Here class a's own pick (2.9s) gives a lower
// weighted p95 than the group's, but with b's copies at the group's pick
// the shared rate limit then costs b answers: the reason names class b
// and the limit, in JSON (group.alone_why_not) and in the text.
func TestGroupSaysWhyNotOwnPick(t *testing.T) {
	sc, err := scenario.Parse("coupled.toml", []byte(coupledTOML))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 7522, 0
	rep := mustRun(t, &sc.Config, s, optimize.Options{})
	seen := false
	for _, cr := range rep.Classes {
		g := cr.Group
		if g == nil {
			t.Fatalf("%s: no group choice", cr.Class)
		}
		if better := g.Alone != cr.Pick && g.AloneValue < g.Value; better != (g.AloneWhyNot != "") {
			t.Errorf("%s: own pick %d (group %v) against the pick %d (group %v): why not %q", cr.Class, g.Alone, g.AloneValue, cr.Pick, g.Value, g.AloneWhyNot)
		}
		if strings.HasPrefix(g.AloneWhyNot, "not admissible for the group: class ") {
			seen = true
		}
	}
	if !seen {
		t.Errorf("no class's own pick was passed over as not admissible: %+v, %+v", rep.Classes[0].Group, rep.Classes[1].Group)
	}
	var b strings.Builder
	if err := rep.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "; not admissible for the group: class ") {
		t.Errorf("the text does not say why the group passed over a class's own pick:\n%s", b.String())
	}
}
