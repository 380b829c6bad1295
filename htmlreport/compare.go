package htmlreport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// routingView is the routing comparison (optimize.Routing) as the page
// shows it: the columns of report.txt's routing table, per class.
type routingView struct {
	Balancers string
	Classes   []routingClassView
}

type routingClassView struct {
	Class, Configured, Percentile, Verdict string
	Options                                []routingRow
}

// routingRow is one option: Policy is "no hedging" or "pick " and the
// pick's label (optimize.RoutingOption.Policy), Latency the objective's
// percentile, Interval its 95 % interval ("n/a" without one).
type routingRow struct {
	Balancer, Policy, Latency, Interval, Answered, Attempts, AddedCost string
	Configured, Hedged                                                 bool
}

// fleetView is the fleet comparison (optimize.Fleet) as the page shows
// it: the columns of report.txt's fleet table, the cheapest setting
// meeting the objective (None when none does), the verdict and the
// cheaper floors left undecided.
type fleetView struct {
	Floors   string
	Days     int
	Settings []fleetRow
	Cheapest string
	None     bool
	Verdict  string
	// CheaperUndecided is optimize.Fleet's: each cheaper floor that
	// misses the objective only for an undecided verdict, and why.
	CheaperUndecided []string
}

// fleetRow is one floor: its picks ("class policy (p95 3.87s)", from
// optimize.FleetPick), whether it meets the objective ("yes", "no" or
// "undecided: " and the classes), and its replica-hours and dollars a
// month.
type fleetRow struct {
	MinReplicas                                  int
	Picks, Meets, ReplicaHours, Replicas, Tokens string
	Total                                        string
	Cheapest                                     bool
}

// routingOf returns the view of rt, nil when rt is.
func routingOf(rt *optimize.Routing) *routingView {
	if rt == nil {
		return nil
	}
	v := &routingView{Balancers: strings.Join(rt.Balancers, ", ")}
	for _, rc := range rt.Classes {
		cv := routingClassView{Class: rc.Class, Configured: rc.Configured, Verdict: rc.Verdict,
			Percentile: "p" + strconv.FormatFloat(100*rc.Percentile, 'g', -1, 64)}
		if cv.Configured == "" {
			cv.Configured = "none"
		}
		for _, o := range rc.Options {
			row := routingRow{Balancer: o.Balancer, Policy: o.PolicyText(), Latency: sim.FormatSeconds(o.Latency),
				Interval: "n/a", Answered: share(o.AnsweredShare), Attempts: strconv.FormatFloat(o.AttemptsPerRequest, 'f', 3, 64),
				AddedCost: signedPct(o.AddedCostPct), Configured: o.Configured, Hedged: o.Hedged}
			if o.CIOK {
				row.Interval = "[" + sim.FormatSeconds(o.CI[0]) + ", " + sim.FormatSeconds(o.CI[1]) + "]"
			}
			if o.Unswept {
				// The sweep has no figures for it.
				row.Latency, row.Interval, row.Answered, row.Attempts, row.AddedCost = "-", "-", "-", "-", "-"
			}
			cv.Options = append(cv.Options, row)
		}
		v.Classes = append(v.Classes, cv)
	}
	return v
}

// fleetOf returns the view of f, nil when f is.
func fleetOf(f *optimize.Fleet) *fleetView {
	if f == nil {
		return nil
	}
	floors := make([]string, len(f.MinReplicas))
	for i, m := range f.MinReplicas {
		floors[i] = strconv.Itoa(m)
	}
	v := &fleetView{Floors: strings.Join(floors, ", "), Days: sim.DaysPerMonth, Verdict: f.Verdict, None: f.Cheapest < 0,
		CheaperUndecided: f.CheaperUndecided}
	for i := range f.Settings {
		fs := &f.Settings[i]
		var picks []string
		for _, p := range fs.Picks {
			picks = append(picks, p.Text())
		}
		meets := "no"
		switch {
		case fs.Meets:
			meets = "yes"
		case len(fs.Undecided) > 0:
			meets = "undecided: " + strings.Join(fs.Undecided, ", ")
		}
		v.Settings = append(v.Settings, fleetRow{MinReplicas: fs.MinReplicas, Picks: strings.Join(picks, ", "), Meets: meets,
			ReplicaHours: strconv.FormatFloat(fs.ReplicaHours, 'f', 3, 64), Replicas: sim.Dollars(fs.ReplicaUSDPerMonth),
			Tokens: sim.Dollars(fs.TokenUSDPerMonth), Total: sim.Dollars(fs.USDPerMonth), Cheapest: i == f.Cheapest})
	}
	if !v.None {
		c := &f.Settings[f.Cheapest]
		v.Cheapest = fmt.Sprintf("min_replicas = %d, %s a month", c.MinReplicas, sim.Dollars(c.USDPerMonth))
	}
	return v
}
