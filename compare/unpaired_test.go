package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/textfit"
)

// TestEmptyClassCompared: a run whose requests are too few to reach
// every class reports the classes without requests with latencies,
// shares and costs of 0 (sim's empty class). compare reads such a report
// and compares it, with itself or with one whose class has requests: the
// empty side's figures print "-" (JSON null), with no change and no test,
// and no advice to decide its p95.
func TestEmptyClassCompared(t *testing.T) {
	few := func(n int) *Report {
		c := mm1(n, 1, 0.9, 1, "a", "b", "c")
		c.Providers[0].Concurrency = 0
		return runJSONOf(t, c)
	}
	one, many := few(1), few(3000)
	empty := ""
	for _, c := range one.Classes {
		if c.Requests == 0 {
			empty = c.Name
		}
	}
	if empty == "" {
		t.Fatal("1 request over 3 classes: no class without requests")
	}
	for _, tc := range []struct {
		name string
		b    *Report
	}{{"itself", one}, {"3000 requests", many}} {
		c := Compare(one, tc.b)
		var row *Row
		for i := range c.Rows {
			if c.Rows[i].Class == empty {
				row = &c.Rows[i]
			}
		}
		if row == nil {
			t.Fatalf("against %s: no row of class %s", tc.name, empty)
		}
		for _, d := range row.Deltas {
			if !math.IsNaN(d.A) || d.Mark != NoTest || d.Test != "" || d.Paired || !math.IsNaN(d.Change) {
				t.Errorf("against %s: class %s without requests in A: %s reads A %v, change %v, mark %v, test %q; want none of them", tc.name, empty, d.Metric, d.A, d.Change, d.Mark, d.Test)
			}
			if tc.b == one && !math.IsNaN(d.B) {
				t.Errorf("against itself: B's %s reads %v; want none", d.Metric, d.B)
			}
		}
		txt, js := texts(t, c)
		for _, line := range strings.Split(txt, "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[0] == empty && f[1] != "policy" && f[1] != "requests" && (f[2] != "-" || f[len(f)-1] != "-") {
				t.Errorf("against %s: line %q; want A and the change printed -", tc.name, line)
			}
			if strings.HasPrefix(line, empty+":") {
				t.Errorf("against %s: a note for the class without requests: %q", tc.name, line)
			}
		}
		var out struct {
			Classes []struct {
				Class   string `json:"class"`
				Metrics []struct {
					Metric string   `json:"metric"`
					A      *float64 `json:"a"`
					Change *float64 `json:"change"`
					Sig    string   `json:"significance"`
					Test   string   `json:"test"`
				} `json:"metrics"`
			} `json:"classes"`
		}
		if err := json.Unmarshal([]byte(js), &out); err != nil {
			t.Fatal(err)
		}
		for _, r := range out.Classes {
			for _, m := range r.Metrics {
				if r.Class == empty && (m.A != nil || m.Change != nil || m.Sig != "no_test" || m.Test != "") {
					t.Errorf("against %s: JSON %s of class %s: a %v, change %v, %s, test %q; want null, null, no_test", tc.name, m.Metric, empty, m.A, m.Change, m.Sig, m.Test)
				}
			}
		}
	}
}

// TestInteractingAgainstIndependent: a run whose requests interact (an
// M/M/1 queue, with per_batch) against the same traffic with the limit
// lifted (independent requests: no batches) has no batches to pair: the
// answered share is judged by the overlap of the reports' own intervals,
// the hedged share gets no test, and text and JSON say why the runs are
// not paired — whichever side interacts.
func TestInteractingAgainstIndependent(t *testing.T) {
	queue := mm1(20_000, 3, 0.9, 1, "c")
	queue.Classes[0].Deadline = 20 * time.Second
	free := mm1(20_000, 3, 0.9, 1, "c")
	free.Providers[0].Concurrency = 0
	free.Classes[0].Deadline = 20 * time.Second
	q, f := runJSONOf(t, queue), runJSONOf(t, free)
	for _, tc := range []struct {
		a, b *Report
		want string
	}{
		{q, f, "B's requests do not interact, so its report has no batches to pair"},
		{f, q, "A's requests do not interact, so its report has no batches to pair"},
	} {
		c := Compare(tc.a, tc.b)
		if c.Unpaired != tc.want {
			t.Errorf("Unpaired %q, want %q", c.Unpaired, tc.want)
		}
		if d := delta(t, c, "answered"); d.Test != TestOverlap || d.Paired {
			t.Errorf("%s: answered share tested by %q; want interval_overlap", tc.want, d.Test)
		}
		if d := delta(t, c, "hedged"); d.Mark != NoTest {
			t.Errorf("%s: hedged share marked %v; want no test", tc.want, d.Mark)
		}
		txt, js := texts(t, c)
		if !strings.Contains(txt, "Not paired by batches although requests interact: "+tc.want) {
			t.Errorf("text lacks the reason:\n%s", txt)
		}
		if !strings.Contains(js, `"unpaired": "`+tc.want+`"`) {
			t.Errorf("JSON lacks the reason:\n%s", js)
		}
	}
	// Two runs of independent requests have nothing to pair, and no note.
	if c := Compare(f, f); c.Unpaired != "" {
		t.Errorf("independent requests on both sides: unpaired %q", c.Unpaired)
	}
}

// optimizeReport is an optimize report of one class whose pick's
// intervals were made as method says, with answered and met shares and
// their intervals.
func optimizeReport(t *testing.T, method string, answered, met float64, ci [2]float64) *Report {
	t.Helper()
	pick := map[string]any{
		"hedging": true, "delay_s": 0.8, "copies": 1, "target": "b", "requests": 4000,
		"latency_s":   map[string]any{"p50": 1, "p95": 2, "p99": 3, "p95_ci95": []float64{1.9, 2.1}, "p99_ci95": []float64{2.8, 3.2}},
		"p95_ci95_ok": true, "p99_ci95_ok": true,
		"answered_share": answered, "answered_share_ci95": ci, "met_share": met, "met_share_ci95": ci,
		"rescued_share": 0.01, "harmed_share": 0, "hedged_share": 0.2, "attempts_per_request": 1.2,
		"cost_per_1k_usd": 1.1, "ci95_method": method,
	}
	data, err := json.Marshal(map[string]any{"scenario": "s", "seed": 1, "requests_per_candidate": 4000,
		"classes": []any{map[string]any{"class": "c", "requests": 4000, "pick": 0, "candidates": []any{pick}}}})
	if err != nil {
		t.Fatal(err)
	}
	return mustParse(t, data)
}

// TestOptimizeInteractingShares: optimize reports whose pick's intervals
// are batch means (its requests interact: ci95_method "batch means …")
// judge the answered and met shares by the overlap of their intervals,
// never the z test, and the hedged share gets none; the note says there
// are no batches to pair. A difference the z test calls significant at
// 4000 requests a side (0.97 against 0.99) is not when the batched
// intervals overlap. With Wilson's intervals (independent requests) the
// z test stays, and there is no note.
func TestOptimizeInteractingShares(t *testing.T) {
	batched := "batch means over 30 arrival-ordered batches of the whole run (t interval); the added cost paired with no hedging batch by batch"
	for _, tc := range []struct {
		method   string
		test     string
		mark     Mark
		unpaired string
	}{
		{batched, TestOverlap, Same, "both are optimize reports, which give no per_batch"},
		{"Wilson score (independent requests)", TestZ, Significant, ""},
	} {
		a := optimizeReport(t, tc.method, 0.97, 0.97, [2]float64{0.95, 0.99})
		b := optimizeReport(t, tc.method, 0.99, 0.99, [2]float64{0.975, 1})
		c := Compare(a, b)
		for _, m := range []string{"answered", "met"} {
			if d := delta(t, c, m); d.Test != tc.test || d.Mark != tc.mark {
				t.Errorf("%s: %s tested by %q, marked %v; want %q, %v", tc.method, m, d.Test, d.Mark, tc.test, tc.mark)
			}
		}
		if d := delta(t, c, "hedged"); (d.Mark == NoTest) != (tc.test == TestOverlap) {
			t.Errorf("%s: hedged share marked %v, test %q", tc.method, d.Mark, d.Test)
		}
		if c.Unpaired != tc.unpaired {
			t.Errorf("%s: unpaired %q; want %q", tc.method, c.Unpaired, tc.unpaired)
		}
		if _, js := texts(t, c); tc.test == TestOverlap && strings.Contains(js, TestZ) {
			t.Errorf("%s: JSON names the z test:\n%s", tc.method, js)
		}
	}
}

// TestFooterWrapsAsParagraphs: each note under the table is one line,
// which the terminal's fitting wraps with an indent, so that a wrapped
// note reads on without a stray fragment (at 120 columns, "shares)" was
// left on a line of its own, and the next line started unindented).
func TestFooterWrapsAsParagraphs(t *testing.T) {
	a := mustParse(t, runReport(2.0, [2]float64{1.9, 2.1}, 0.9, 2000, 1))
	b := mustParse(t, runReport(1.5, [2]float64{1.4, 1.6}, 0.9, 2000, 1))
	b.Overrides = []string{"providers.p.concurrency=0"}
	var buf bytes.Buffer
	if err := Compare(a, b).WriteText(&buf, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	raw := buf.String()
	for _, want := range []string{
		"~: not significant (p95/p99: 95% intervals overlap; answered: two-proportion z test at 5%); ?: too few requests for an interval.\n",
		"overrides of the traffic (rate, requests, shares) change which request meets which conditions, and the runs are then less alike.\n",
	} {
		if !strings.Contains(raw, want) {
			t.Errorf("unfitted text lacks %q:\n%s", want, raw)
		}
	}
	fitted := textfit.Wrap(raw, 120)
	notes := fitted[strings.Index(fitted, "\nlatency:")+1:]
	for i, line := range strings.Split(strings.TrimSuffix(notes, "\n"), "\n") {
		if len([]rune(line)) > 120 {
			t.Errorf("line %d is %d columns wide: %q", i, len([]rune(line)), line)
		}
		if head := strings.HasPrefix(line, "latency:") || strings.HasPrefix(line, "Both runs"); !head && !strings.HasPrefix(line, "  ") {
			t.Errorf("line %q continues a note unindented:\n%s", line, notes)
		}
		if strings.TrimSpace(line) == "shares)" {
			t.Errorf("a stray fragment:\n%s", notes)
		}
	}
}
