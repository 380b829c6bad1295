package optimize_test

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestCheckTooFewSaysSo: a rollout check with too few of a class's
// requests for an interval on p95 — 1 request of the two-model gateway;
// 3000 of the pool with a slow replica, whose batched interval needs 6000
// after the warm-up cut — is not a pass: the row is marked TooFew (not
// flagged, "TOO FEW" in the text), its note and a warning of the class
// say so with the --check-requests that would do, and a check with those
// has an interval and no such warning. Before, the 1-request check showed
// p95 4.06 s against 2.86 s predicted and +120 % cost against +22 %, not
// flagged, with an empty note.
func TestCheckTooFewSaysSo(t *testing.T) {
	for _, c := range []struct {
		name, toml string
		delay      time.Duration
		check      int
	}{{"gateway", gatewayScenario, 1870 * time.Millisecond, 1}, {"pool", slowReplicaPoolScenario, 1500 * time.Millisecond, 3000}} {
		sc, err := scenario.Parse(c.name+".toml", []byte(c.toml))
		if err != nil {
			t.Fatal(err)
		}
		s := sc.Optimize
		s.Requests, s.CheckRequests = 3000, c.check
		s.Search.Delays = []time.Duration{c.delay}
		rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
		row := rep.Rollout.Classes[0]
		if !row.TooFew || row.Flagged || !strings.Contains(row.Note, "too few for a 95% interval on p95") {
			t.Fatalf("%s, check of %d: row %+v; want too few, said in the note, not flagged", c.name, c.check, row)
		}
		warned := false
		for _, w := range rep.Classes[0].Warnings {
			warned = warned || strings.HasPrefix(w, "rollout check: ") && strings.Contains(w, "too few")
		}
		if !warned {
			t.Errorf("%s: warnings %q; want the check's too few", c.name, rep.Classes[0].Warnings)
		}
		var text bytes.Buffer
		if err := rep.WriteText(&text, false); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "TOO FEW") {
			t.Errorf("%s: the text report does not mark the check's row TOO FEW:\n%s", c.name, text.String())
		}
		m := regexp.MustCompile(`rerun with --check-requests ≥ (\d+)`).FindStringSubmatch(row.Note)
		if m == nil {
			t.Fatalf("%s: note %q; want the --check-requests to rerun with", c.name, row.Note)
		}
		n, _ := strconv.Atoi(m[1])
		s.CheckRequests = n
		rep = mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
		if row := rep.Rollout.Classes[0]; row.TooFew || !row.Checked.P95CIOK {
			t.Errorf("%s, check of the advised %d: row %+v; want an interval", c.name, n, row)
		}
		for _, w := range rep.Classes[0].Warnings {
			if strings.HasPrefix(w, "rollout check: ") {
				t.Errorf("%s, check of %d: warning %q", c.name, n, w)
			}
		}
	}
}

// TestCheckTooFewLargeCut: the --check-requests a too-few row advises
// plans for at most half the check's requests cut — the most MSER cuts
// (sim's warmup.go) — not twice a large cut: stale-router's ewma class
// keeps 4494 of its 7938 requests of a 40000-request check (a 43 % cut),
// and twice that would ask for 228572; at most 6000 ÷ (7938/40000 × ½) =
// 60469 is asked, and a check of that many has its interval.
func TestCheckTooFewLargeCut(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps of stale-router at 20000 requests")
	}
	sc, err := scenario.LoadFS(scenarios.FS, "stale-router.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 20000, 40000
	s.Only = []string{"ewma"}
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	row := rep.Rollout.Classes[0]
	var got *sim.ClassReport
	for i := range rep.Rollout.Report.Classes {
		if c := &rep.Rollout.Report.Classes[i]; c.Class == "ewma" {
			got = c
		}
	}
	if got == nil || got.WarmUp == nil || !row.TooFew {
		t.Fatalf("ewma: row %+v; want too few after a warm-up cut", row)
	}
	m := regexp.MustCompile(`rerun with --check-requests ≥ (\d+)`).FindStringSubmatch(row.Note)
	if m == nil {
		t.Fatalf("note %q; want the --check-requests to rerun with", row.Note)
	}
	n, _ := strconv.Atoi(m[1])
	most := int(math.Ceil(6000 / (float64(got.Requests) / 40000 * 0.5)))
	if n > most {
		t.Errorf("advice %d (cut %d of %d); want at most %d, half the check cut", n, got.WarmUp.Requests, got.Requests, most)
	}
	s.CheckRequests = n
	if row := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2}).Rollout.Classes[0]; row.TooFew || !row.Checked.P95CIOK {
		t.Errorf("check of the advised %d: row %+v; want an interval", n, row)
	}
}
