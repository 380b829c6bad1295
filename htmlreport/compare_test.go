package htmlreport

import (
	"bytes"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
)

// cellsOf returns the cells of every row of the table whose opening tag
// matches open, in the page's order; nil when there is no such table.
func cellsOf(page, open string) [][]string {
	tbl := regexp.MustCompile(`(?s)` + open + `.*?</table>`).FindString(page)
	if tbl == "" {
		return nil
	}
	var rows [][]string
	for _, tr := range regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`).FindAllStringSubmatch(tbl, -1) {
		var cells []string
		for _, td := range regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(tr[1], -1) {
			cells = append(cells, td[1])
		}
		if cells != nil {
			rows = append(rows, cells)
		}
	}
	return rows
}

// TestRoutingAndFleetSections: index.html has the routing (--balancers)
// and fleet (--min-replicas) comparisons that report.txt and report.json
// have, with their figures, as report.txt's tables give them (an
// undecided class's configured policy named "configured", with no figures
// where the sweep did not simulate it): per class
// each balancer's no hedging and pick (the objective's percentile, its
// interval, answered, attempts per request, added cost), and per floor
// its picks, whether it meets the objective, replica-hours and dollars a
// month, with the cheapest setting and the verdicts. A report without
// them has neither section.
func TestRoutingAndFleetSections(t *testing.T) {
	rep := &optimize.Report{Scenario: "pool1", Level: 0.95,
		Routing: &optimize.Routing{Balancers: []string{"random", "p2c"}, Classes: []optimize.RoutingClass{{
			Class: "bulk", Configured: "least_outstanding", Percentile: 0.95,
			Options: []optimize.RoutingOption{
				{Balancer: "least_outstanding", Configured: true, Policy: "none", Latency: 19.86, CI: [2]float64{18.7, 20.9}, CIOK: true, AnsweredShare: 1, AttemptsPerRequest: 1},
				{Balancer: "random", Policy: "none", Latency: math.Inf(1), AnsweredShare: 0.879, AttemptsPerRequest: 1},
				{Balancer: "random", Policy: "12.2s", Hedged: true, Latency: 21.6, AnsweredShare: 1, AttemptsPerRequest: 1.284, AddedCostPct: 28.4},
				{Balancer: "p2c", Policy: "4s", Hedged: true, RollsOut: optimize.RollsOutConfigured, Latency: 14, AnsweredShare: 1, AttemptsPerRequest: 1.7, AddedCostPct: 70},
				{Balancer: "p2c", Policy: "configured", Hedged: true, RollsOut: optimize.RollsOutConfigured, Unswept: true},
			},
			Verdict: "p2c without hedging beats least_outstanding with its pick",
		}}},
		Fleet: &optimize.Fleet{MinReplicas: []int{0, 1}, Cheapest: 1, Verdict: "keeping replicas warm beats hedging: …",
			CheaperUndecided: []string{"min_replicas = 0 is cheaper ($3,273 a month) and might meet the objective, but its verdict is undecided (interactive: rerun with --requests ≥ 6316)"},
			Settings: []optimize.FleetSetting{
				{MinReplicas: 0, Picks: []optimize.FleetPick{{Class: "interactive", RollsOut: optimize.RollsOutConfigured, Policy: "3s", Hedged: true, Percentile: 0.95, Latency: 3.87},
					{Class: "bulk", RollsOut: optimize.RollsOutConfigured, Policy: "configured", Unswept: true, Percentile: 0.95, Latency: 19.86}},
					Undecided: []string{"interactive"}, ReplicaHours: 3.5125, ReplicaUSDPerMonth: 3055.16, TokenUSDPerMonth: 217.55, USDPerMonth: 3272.71},
				{MinReplicas: 1, Picks: []optimize.FleetPick{{Class: "interactive", Policy: "none", Percentile: 0.95, Latency: 4.5}, {Class: "bulk", Policy: "none", Percentile: 0.95, Latency: 19.86}},
					Meets: true, ReplicaHours: 7.25, ReplicaUSDPerMonth: 6000, TokenUSDPerMonth: 200, USDPerMonth: 6200},
			}},
	}
	var b bytes.Buffer
	if err := Write(&b, rep, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, s := range []string{`<h2 id="routing">Routing</h2>`, "each of random, p2c", "<h3>bulk (configured: least_outstanding)</h3>", "<th>p95</th>",
		`<p class="verdict">p2c without hedging beats least_outstanding with its pick</p>`,
		`<h2 id="fleet">Fleet</h2>`, "min_replicas set to each of 0, 1", "dollars a month (30 d)",
		"Cheapest meeting the objective: min_replicas = 1, $6,200 a month.", `<p class="verdict">keeping replicas warm beats hedging: …</p>`,
		`<p class="undecided">min_replicas = 0 is cheaper ($3,273 a month) and might meet the objective, but its verdict is undecided (interactive: rerun with --requests ≥ 6316)</p>`} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	wantRouting := [][]string{
		{"least_outstanding (configured)", "no hedging", "19.9s", "[18.7s, 20.9s]", "100.0%", "1.000", "&#43;0.0%"},
		{"random", "no hedging", "miss", "n/a", "87.9%", "1.000", "&#43;0.0%"},
		{"random", "pick 12.2s", "21.6s", "n/a", "100.0%", "1.284", "&#43;28.4%"},
		{"p2c", "configured 4s", "14.0s", "n/a", "100.0%", "1.700", "&#43;70.0%"},
		{"p2c", "configured, not simulated", "-", "-", "-", "-", "-"},
	}
	if got := cellsOf(page, `<table class="routing" data-class="bulk">`); !slices.EqualFunc(got, wantRouting, slices.Equal) {
		t.Errorf("routing table rows %q, want %q", got, wantRouting)
	}
	wantFleet := [][]string{
		{"0", "interactive configured 3s (p95 3.87s), bulk configured (p95 19.9s in the rollout check)", "undecided: interactive", "3.513", "$3,055", "$218", "$3,273"},
		{"1", "interactive none (p95 4.50s), bulk none (p95 19.9s)", "yes", "7.250", "$6,000", "$200", "$6,200"},
	}
	if got := cellsOf(page, `<table id="fleet-settings">`); !slices.EqualFunc(got, wantFleet, slices.Equal) {
		t.Errorf("fleet table rows %q, want %q", got, wantFleet)
	}

	rep.Fleet.Cheapest = -1
	rep.Routing = nil
	b.Reset()
	if err := Write(&b, rep, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); strings.Contains(page, `id="routing"`) || !strings.Contains(page, "No setting meets the objective") {
		t.Errorf("without routing and with no setting meeting the objective: want no routing section and the fleet saying none meets it")
	}
	rep.Fleet = nil
	b.Reset()
	if err := Write(&b, rep, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); strings.Contains(page, `id="fleet"`) || strings.Contains(page, `id="routing"`) {
		t.Errorf("a report without routing or fleet has a section for one")
	}
}
