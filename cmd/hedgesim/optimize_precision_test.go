package main

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
)

// TestOptimizePrecisionExtends: optimize --precision on shipped scenarios
// whose classes' requests take the lane (two-model-gateway, the default;
// long-prompts; llmperf-70b; guard-check) extends every candidate's run,
// and every class's no-hedging run, by the requests added at each
// doubling (optimize.Growth) instead of simulating the whole
// optimization again: the report, JSON and text, with its rollout check,
// is byte for byte the one simulating again gives
// (precisionFlags.resimulate), but for the requests simulated per
// candidate, which fall — the most any candidate of the last sweep took,
// below the n + 2n + … of simulating again, and at least the last
// requests. On failure-domains, whose requests are independent but off
// the lane (slow periods), on shared-rate-limit, whose classes are
// optimized jointly, and on help-chat-turn, a pipeline, every doubling
// simulates again: the reports and the requests simulated are the same
// either way. Each doubles at
// least once from 2000 requests; guard-check's last step, to its
// --max-requests 12000, is no doubling of 8000: every run is simulated
// again from its first request then. Under -short one scenario of each
// path runs, to half its --max-requests (guard-check's last step, to
// 6000, is then no doubling of 4000): the reports' identity holds at any
// size.
func TestOptimizePrecisionExtends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		precision string
		max       string
		extends   bool
		short     bool // also checked under -short: one scenario of each path
	}{
		{"two-model-gateway", "0.02", "16000", true, true},
		{"long-prompts", "0.02", "16000", true, false},
		{"llmperf-70b", "0.005", "16000", true, false},
		{"guard-check", "0.01", "12000", true, true},
		{"failure-domains", "0.02", "16000", false, false},
		{"shared-rate-limit", "0.02", "8000", false, true},
		{"help-chat-turn", "0.02", "8000", false, false},
	} {
		if testing.Short() && !tc.short {
			continue
		}
		maxReq := tc.max
		if testing.Short() {
			n, err := strconv.Atoi(tc.max)
			if err != nil {
				t.Fatal(err)
			}
			maxReq = strconv.Itoa(n / 2)
		}
		var out [2]bytes.Buffer
		var ps [2]int64
		var requests int
		for i, resimulate := range []bool{false, true} {
			job, err := parseOptimize([]string{"--requests", "2000", "--check-requests", "3000", "--precision", tc.precision,
				"--max-requests", maxReq, "--workers", "2", tc.name}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			job.prec.resimulate = resimulate
			rep, err := job.optimize(ctx, optimize.Options{Workers: 2 - i})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			p := rep.Precision
			if rep.Rollout == nil || p == nil || p.Requests <= 2000 || p.Requests != rep.RequestsPerCandidate {
				t.Fatalf("%s: precision %+v, rollout check %v; want a doubling from 2000 requests and a check", tc.name, p, rep.Rollout != nil)
			}
			ps[i], requests = p.Simulated, p.Requests
			p.Simulated = 0
			if err := rep.WriteJSON(&out[i]); err != nil {
				t.Fatal(err)
			}
			if err := rep.WriteText(&out[i], true); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
			t.Errorf("%s: the extended optimization's report differs from the one simulated again:\n%s\nwant\n%s", tc.name, out[0].Bytes(), out[1].Bytes())
		}
		again := int64(2000) // 2000 + 4000 + … + requests
		for n := 2000; n < requests; {
			n = min(2*n, requests)
			again += int64(n)
		}
		if ps[1] != again {
			t.Errorf("%s: %d requests simulated per candidate simulating again; want %d", tc.name, ps[1], again)
		}
		if tc.extends && (ps[0] >= again || ps[0] < int64(requests)) {
			t.Errorf("%s: %d requests simulated per candidate extending; want fewer than %d, at least %d", tc.name, ps[0], again, requests)
		}
		if !tc.extends && ps[0] != again {
			t.Errorf("%s: %d requests simulated per candidate; want %d, each doubling simulated again", tc.name, ps[0], again)
		}
		t.Logf("%s: %d requests, %d simulated per candidate extending, %d simulating again", tc.name, requests, ps[0], ps[1])
	}
}
