package optimize_test

import (
	"fmt"
	"math"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
)

// Sweep three delays for a lognormal call (median 1 s, sigma 1: p95 5.18 s)
// hedged with one copy to the same model. The pick is the trade-off: 2 s
// buys 1.5 % of p95 per 1 % of cost; going on to 1 s would buy 11 % more
// of it for 26 pt more cost, 0.44 % per 1 %, less than the rule's 1.
func ExampleRun() {
	s := optimize.DefaultSettings()
	s.Requests = 100_000
	s.Search.Delays = []time.Duration{time.Second, 2 * time.Second, 6 * time.Second}
	s.Search.Objective.MaxAddedCostPct = math.Inf(1)
	rep, err := optimize.Run(lognormalConfig(), s, optimize.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	cr := rep.Classes[0]
	for _, c := range cr.Candidates {
		fmt.Printf("%-5s p95 %.1fs  hedged %2.0f%%  added cost %+3.0f%%\n", c.Label, c.Latency.P95, 100*c.HedgedShare, c.AddedCostPct)
	}
	fmt.Println("pick:", cr.Picked().Label, "hedge:", cr.Verdict.Hedge)
	fmt.Println(cr.Verdict.Reason)
	// Output:
	// none  p95 5.2s  hedged  0%  added cost  +0%
	// 1s    p95 2.7s  hedged 50%  added cost +50%
	// 2s    p95 3.2s  hedged 24%  added cost +24%
	// 6s    p95 5.2s  hedged  4%  added cost  +4%
	// pick: 2s hedge: true
	// p95 (5.18s → 3.24s) falls 37.4% for +24.4% cost (1.5% per 1% of cost)
}
