package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twoSharesOneLimit: two classes, 90% and 10% of the traffic, hedging
// into one rate-limited model, so their requests interact; the live
// histogram doubles model a's latency.
const twoSharesOneLimit = `seed = 1
[arrivals]
rate = 20.0
[models.a]
latency = { kind = "lognormal", median = 0.3, p95 = 2.0 }
price_per_request = 0.001
[models.b]
latency = { kind = "lognormal", median = 0.4, p95 = 1.0 }
price_per_request = 0.001
[models.b.rate_limit]
requests_per_minute = 600
[[classes]]
name = "big"
share = 0.9
deadline = "10s"
[classes.hedge]
primary = "a"
targets = ["b"]
delay = "1s"
max_copies = 1
[[classes]]
name = "small"
share = 0.1
deadline = "10s"
[classes.hedge]
primary = "a"
targets = ["b"]
delay = "1s"
max_copies = 1
`

const twoSharesLive = `# TYPE call_seconds histogram
call_seconds_bucket{model="a",le="0.1"} 353
call_seconds_bucket{model="a",le="0.2"} 1041
call_seconds_bucket{model="a",le="0.4"} 2222
call_seconds_bucket{model="a",le="0.8"} 3628
call_seconds_bucket{model="a",le="1.6"} 4854
call_seconds_bucket{model="a",le="3.2"} 5543
call_seconds_bucket{model="a",le="6.4"} 5855
call_seconds_bucket{model="a",le="+Inf"} 6000
call_seconds_bucket{model="b",le="0.1"} 11
call_seconds_bucket{model="b",le="0.2"} 223
call_seconds_bucket{model="b",le="0.4"} 1015
call_seconds_bucket{model="b",le="0.8"} 1794
call_seconds_bucket{model="b",le="1.6"} 1996
call_seconds_bucket{model="b",le="3.2"} 2000
call_seconds_bucket{model="b",le="6.4"} 2000
call_seconds_bucket{model="b",le="+Inf"} 2000
`

// TestRetuneCurrentPolicyTooFewSaysSo: in retune's current-policy section
// the 10% class holds about 2000 of the check's 20000 requests, too few
// for a batched p95 interval (6000) in the check and in the prediction
// alike: its p95 (1.38s → 1.57s) is not compared, and the section says so
// (TOO FEW, why, and the --check-requests that would do) instead of
// nothing; the prediction, a batched run, is not taken to have an
// interval its batches do not give. Before, the row had no remark.
func TestRetuneCurrentPolicyTooFewSaysSo(t *testing.T) {
	dir := t.TempDir()
	sc, live := filepath.Join(dir, "share.toml"), filepath.Join(dir, "live.txt")
	if err := os.WriteFile(sc, []byte(twoSharesOneLimit), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(live, []byte(twoSharesLive), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stdout, stderr := hedgesim(t, "retune", "--quiet", "--requests", "4000", "--from", live, sc)
	text := strings.Join(strings.Fields(stdout), " ")
	if !strings.Contains(text, "current policy on the live models") {
		t.Fatalf("no current-policy section:\n%s\n%s", stdout, stderr)
	}
	for _, want := range []string{
		"small: TOO FEW: the check's ",
		"too few for a 95% interval on p95 (",
		"its p95 is not compared with the prediction's, so it neither confirms nor contradicts the prediction; rerun with --check-requests ≥ ",
		"the prediction's p95 of the pick has no 95% interval (",
		"at least 6000 needed): the check's p95 is not compared with it",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("retune output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(text, "big: TOO FEW") {
		t.Errorf("the 90%% class, with enough requests, is marked too few:\n%s", stdout)
	}
}
