package optimize_test

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
)

// TestCheckTooFewReplayAsksLongerTrace: a rollout check on a replayed
// trace replays no more than the trace holds, so when the whole trace
// holds too few of a class for a p95 interval its advice is a longer
// trace, as the sweep's is (TestReplayRerunAdvice), not more
// --check-requests. The trace holds 400 requests, 100 of class "long"
// (110 needed for independent requests): the check of all 400 asks for a
// trace with at least 110 of the class, about 440 in all; "short", 300,
// has its interval. Once, the check said "rerun with --check-requests ≥
// 440", which replays the same 400 and says it again.
func TestCheckTooFewReplayAsksLongerTrace(t *testing.T) {
	sc := replayOf400(t)
	s := sc.Optimize
	s.Requests, s.CheckRequests = 400, 5000
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	if rep.Rollout == nil || rep.Rollout.Requests != 400 {
		t.Fatalf("rollout check %+v; want the whole trace, 400 requests", rep.Rollout)
	}
	want := "the check's 100 requests of this class are too few for a 95% interval on p95 (at least 110 needed): its p95 is not compared with the sweep's, so it neither confirms nor contradicts the prediction; the trace holds 100 requests of this class (of 400 in all), and --check-requests cannot replay past its end: a longer trace is needed, with at least 110 of the class (about 440 requests in all)"
	for _, rc := range rep.Rollout.Classes {
		switch rc.Class {
		case "long":
			if !rc.TooFew || !strings.Contains(rc.Note, want) {
				t.Errorf("long: too few %v, note %q; want %q", rc.TooFew, rc.Note, want)
			}
		case "short":
			if rc.TooFew {
				t.Errorf("short: too few, note %q; its 300 requests hold an interval", rc.Note)
			}
		}
	}
}
