package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
)

// coldNever is pools.md's three-request example: one replica, one slot,
// a request every 12 s (at 0, 12 and 24 s), 0.1 s of work, a 10 s cold
// start after 8 s idle, a 5 s deadline.
const coldNever = `seed = 1
requests = 3
[arrivals]
process = "constant"
rate = 0.0833333333333333333
[providers.gpu.pool]
replicas = 1
concurrency = 1
[providers.gpu.pool.cold_start]
keep_warm = "8s"
latency = { kind = "constant", value = 10.0 }
give_up = "GIVEUP"
[models.llm]
provider = "gpu"
latency = { kind = "constant", value = 0.1 }
[[classes]]
name = "chat"
deadline = "5s"
`

// TestColdStartCountsAsBusy: the cold start counts as service time
// (scenarios/README.md) for as long as it goes on, also after every
// attempt waiting for it has left; an attempt let go during the start it
// waited for is not served. By hand: the request at 0 finds the replica
// warm (0.1 s of work); the one at 12 finds it cold (idle 11.9 s > 8 s)
// and waits the start, 12–22 s, until its deadline lets it go at 17 s.
//   - give_up "never": the start goes on to 22 s, and the request at 24
//     finds the replica warm (idle 2 s): busy 0.1 + 10 + 0.1 = 10.2 s over
//     24.1 s (42.3 %, not the 5.2 s counted while someone waited), 2
//     served of 3 sent.
//   - give_up "cancel": the start stops at 17 s; the request at 24 starts
//     another, 24–34 s, and is let go at 29: busy 0.1 + 5 + 5 = 10.1 s
//     over 29 s, 1 served of 3.
func TestColdStartCountsAsBusy(t *testing.T) {
	for _, tc := range []struct {
		giveUp       string
		busy, span   float64
		served, cold int64
	}{
		{"never", 10.2, 24.1, 2, 1},
		{"cancel", 10.1, 29, 1, 2},
	} {
		sc, err := scenario.Parse("s.toml", []byte(strings.Replace(coldNever, "GIVEUP", tc.giveUp, 1)))
		if err != nil {
			t.Fatal(err)
		}
		res := mustRun(t, &sc.Config)
		want := tc.busy / tc.span
		pv := res.Providers[0]
		rr := res.Pools[0].Replicas[0]
		// The times are whole µs: 1e-9 is rounding, not a tolerance.
		if pv.Utilisation == nil || math.Abs(*pv.Utilisation-want) > 1e-9 || rr.Utilisation == nil || math.Abs(*rr.Utilisation-want) > 1e-9 {
			t.Errorf("give_up %s: utilisation provider %v, replica %v: want %.1f/%.1f = %v", tc.giveUp, deref(pv.Utilisation), deref(rr.Utilisation), tc.busy, tc.span, want)
		}
		if rr.Sent != 3 || rr.Served != tc.served || rr.ColdStarts != tc.cold {
			t.Errorf("give_up %s: sent %d, served %d, cold starts %d: want 3, %d, %d", tc.giveUp, rr.Sent, rr.Served, rr.ColdStarts, tc.served, tc.cold)
		}
	}
}
