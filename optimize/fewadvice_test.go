package optimize_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// pool3 is a pool of four replicas, one three times slower, at 8 req/s:
// its requests interact, and a run of 6000 cuts a warm-up of 144.
const pool3 = `seed = 2
[arrivals]
rate = 8.0
[providers.tgi.pool]
replicas = 4
concurrency = 2
balancer = "p2c"
[[providers.tgi.pool.replica]]
index = 0
slowdown = 3.0
[models.mistral]
provider = "tgi"
latency = { kind = "lognormal", median = 0.3, p95 = 0.9 }
price_per_request = 0.001
[[classes]]
name = "api"
deadline = "30s"
[classes.hedge]
delay = "2s"
`

// TestTooFewAdviceCountsTheCut: at 6000 requests the warm-up cut leaves
// 5856 of pool3's, short of the 6000 (30 batches of 200) a batched p95
// interval needs. The warning said "6000 requests are too few … at least
// 6000 are needed" and each candidate's reason "(6000 simulated, 6000
// needed)": the warning now says what the cut left and names a
// --requests above 6000, and rerun at that count the warning is gone; the
// reasons' value (kept) is below their limit (needed).
func TestTooFewAdviceCountsTheCut(t *testing.T) {
	t.Parallel()
	run := func(n int) *optimize.ClassReport {
		sc, err := scenario.Parse("s.toml", []byte(pool3))
		if err != nil {
			t.Fatal(err)
		}
		s := optimize.DefaultSettings()
		s.Requests = n
		s.CheckRequests = 0
		rep, err := optimize.Run(&sc.Config, s, optimize.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return &rep.Classes[0]
	}
	few := regexp.MustCompile(`^6000 requests are too few for a 95% interval on p95 \(6000 simulated, the warm-up cut left (\d+), 6000 needed after it: rerun with --requests ≥ (\d+)\)`)
	cr := run(6000)
	var advised int
	for _, w := range cr.Warnings {
		if m := few.FindStringSubmatch(w); m != nil {
			left, _ := strconv.Atoi(m[1])
			advised, _ = strconv.Atoi(m[2])
			if left >= 6000 || advised <= 6000 {
				t.Errorf("warning %q: want fewer than 6000 left and more than 6000 advised", w)
			}
		}
	}
	if advised == 0 {
		t.Fatalf("no too-few warning naming the cut among %q", cr.Warnings)
	}
	for _, c := range cr.Candidates {
		for _, r := range c.Reasons {
			if r.Code == optimize.ReasonTooFew && (r.Value >= r.Limit || !strings.Contains(r.Text, "the warm-up cut left")) {
				t.Errorf("%s: reason %+v: want the requests kept below those needed, and the cut named", c.Label, r)
			}
		}
	}
	for _, w := range run(advised).Warnings {
		if strings.Contains(w, "too few for a 95% interval on p95") {
			t.Errorf("at the advised %d requests: %q", advised, w)
		}
	}
}
