package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// runReport is a run report with one class, in the field names of
// `hedgesim run --json`.
func runReport(p95 float64, ci [2]float64, answered float64, n int64, cost float64) []byte {
	b, _ := json.Marshal(map[string]any{
		"scenario": "s", "seed": 1, "requests": n,
		"classes": []any{map[string]any{
			"class": "chat", "requests": n, "answered_share": answered,
			"latency_s": map[string]any{
				"p50": 0.5, "p95": p95, "p99": 2 * p95, "p95_ci95": ci, "p99_ci95": [2]float64{2 * ci[0], 2 * ci[1]},
				"p95_ci95_ok": true, "p99_ci95_ok": n >= 1000,
			},
			"cost_per_1k_usd": map[string]any{"total": cost},
		}},
		"overall": map[string]any{},
	})
	return b
}

func mustParse(t *testing.T, data []byte) *Report {
	t.Helper()
	r, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestIntervalMarks(t *testing.T) {
	a := mustParse(t, runReport(2.0, [2]float64{1.9, 2.1}, 0.9, 2000, 1))
	tests := []struct {
		name string
		p95  float64
		ci   [2]float64
		n    int64
		want Mark
		p99  Mark
	}{
		{"disjoint intervals", 1.5, [2]float64{1.4, 1.6}, 2000, Significant, Significant},
		{"overlapping intervals", 1.95, [2]float64{1.85, 2.05}, 2000, Same, Same},
		{"touching intervals overlap", 1.8, [2]float64{1.7, 1.9}, 2000, Same, Same},
		{"too few requests for p99", 1.5, [2]float64{1.4, 1.6}, 500, Significant, Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustParse(t, runReport(tt.p95, tt.ci, 0.9, tt.n, 1))
			c := Compare(a, b)
			d := c.Rows[0].Deltas
			if d[1].Metric != "p95" || d[1].Mark != tt.want {
				t.Errorf("p95 mark %v; want %v", d[1].Mark, tt.want)
			}
			if d[2].Metric != "p99" || d[2].Mark != tt.p99 {
				t.Errorf("p99 mark %v; want %v", d[2].Mark, tt.p99)
			}
			if want := 100 * (tt.p95 - 2) / 2; math.Abs(d[1].Change-want) > 1e-9 {
				t.Errorf("p95 change %g%%; want %g%%", d[1].Change, want)
			}
		})
	}
}

// TestAnsweredZTest checks the two-proportion z test against values
// computed by hand: 0.50 vs 0.55 of 1000 each gives z = 0.05/√(0.525·0.475·0.002)
// = 2.239 > 1.96 (significant); 0.50 vs 0.53 gives z = 1.344 (not).
func TestAnsweredZTest(t *testing.T) {
	for _, tt := range []struct {
		b    float64
		want Mark
	}{{0.55, Significant}, {0.53, Same}, {0.45, Significant}, {0.5, Same}} {
		d := proportion("answered", 0.5, tt.b, 1000, 1000)
		if d.Mark != tt.want {
			t.Errorf("0.50 vs %.2f: mark %v; want %v", tt.b, d.Mark, tt.want)
		}
		if want := 100 * (tt.b - 0.5); math.Abs(d.Change-want) > 1e-9 {
			t.Errorf("0.50 vs %.2f: change %g pt; want %g", tt.b, d.Change, want)
		}
	}
}

func TestOptimizePick(t *testing.T) {
	data := []byte(`{"scenario": "g", "seed": 3, "requests_per_candidate": 100, "classes": [
	  {"class": "chat", "requests": 100, "pick": 1, "candidates": [
	    {"hedging": false, "latency_s": {"p50": 1, "p95": 3, "p99": 4, "p95_ci95": [2.9, 3.1], "p99_ci95": [3.8, 4.2]}, "p95_ci95_ok": true, "p99_ci95_ok": true, "answered_share": 0.9, "cost_per_1k_usd": 1},
	    {"hedging": true, "delay_s": 0.8, "copies": 1, "target": "b", "requests": 100, "hedged_share": 0.241, "latency_s": {"p50": 1, "p95": 2, "p99": 2.5, "p95_ci95": [1.9, 2.1], "p99_ci95": [2.4, 2.6]}, "p95_ci95_ok": true, "p99_ci95_ok": true, "answered_share": 0.95, "cost_per_1k_usd": 1.1}
	  ]}]}`)
	r := mustParse(t, data)
	if r.Kind != Optimize || len(r.Classes) != 1 {
		t.Fatalf("got %+v", r)
	}
	c := r.Classes[0]
	if c.P95 != 2 || c.CostPer1k != 1.1 || c.Policy != "800ms ×1 → b" || !c.P95CIOK {
		t.Errorf("pick read as %+v; want the second candidate", c)
	}
	// A pick the verdict labels is named so.
	rarely := bytes.Replace(data, []byte(`"pick": 1,`), []byte(`"pick": 1, "verdict": {"label": "effectively no hedging"},`), 1)
	if c := mustParse(t, rarely).Classes[0]; c.Policy != "effectively no hedging (800ms ×1 → b)" {
		t.Errorf("labelled pick: policy %q", c.Policy)
	}
	// A report of an earlier build names the flags p95_ci_ok and
	// p99_ci_ok; compare reads them as ever.
	old := bytes.ReplaceAll(data, []byte(`_ci95_ok"`), []byte(`_ci_ok"`))
	if c := mustParse(t, old).Classes[0]; !c.P95CIOK || !c.P99CIOK {
		t.Errorf("the old flags' names: p95 ok %v, p99 ok %v; want both true", c.P95CIOK, c.P99CIOK)
	}
	if c := mustParse(t, bytes.ReplaceAll(data, []byte(`"p95_ci95_ok": true`), []byte(`"p95_ci95_ok": false`))).Classes[0]; c.P95CIOK {
		t.Error("p95_ci95_ok false read as true")
	}
	bad := bytes.Replace(data, []byte(`"pick": 1`), []byte(`"pick": 7`), 1)
	if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), "pick 7") {
		t.Errorf("pick out of range: got %v", err)
	}
}

func TestParseNotAReport(t *testing.T) {
	for _, in := range []string{`[1, 2]`, `{"scenario": "x"}`, `not json`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%s) = nil error", in)
		}
	}
}

func TestClassesOnOneSide(t *testing.T) {
	a := &Report{Classes: []Class{{Name: "x"}, {Name: "y"}}}
	b := &Report{Classes: []Class{{Name: "y"}, {Name: "z"}}}
	c := Compare(a, b)
	if len(c.Rows) != 1 || c.Rows[0].Class != "y" || len(c.OnlyA) != 1 || c.OnlyA[0] != "x" || len(c.OnlyB) != 1 || c.OnlyB[0] != "z" {
		t.Errorf("got rows %v, only A %v, only B %v", c.Rows, c.OnlyA, c.OnlyB)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"class x is only in A", "class z is only in B"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestWriteJSON(t *testing.T) {
	a := mustParse(t, runReport(2.0, [2]float64{1.9, 2.1}, 0.9, 2000, 0))
	b := mustParse(t, runReport(1.5, [2]float64{1.4, 1.6}, 0.9, 2000, 1))
	var buf bytes.Buffer
	if err := Compare(a, b).WriteJSON(&buf, "a", "b"); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Classes []struct {
			Metrics []struct {
				Metric string   `json:"metric"`
				Change *float64 `json:"change"`
				Sig    string   `json:"significance"`
			} `json:"metrics"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	m := out.Classes[0].Metrics
	if m[1].Metric != "p95" || m[1].Sig != "significant" || m[1].Change == nil || *m[1].Change != -25 {
		t.Errorf("p95: %+v", m[1])
	}
	if m[4].Metric != "cost/1k" || m[4].Change != nil {
		t.Errorf("cost from 0: change %v; want null", m[4].Change)
	}
}

// TestMisses: a percentile that lands on a miss is null in the report
// (+Inf); it prints "miss", has no ratio, and stays null in the JSON.
func TestMisses(t *testing.T) {
	a := mustParse(t, []byte(`{"classes": [{"class": "chat", "requests": 1000, "answered_share": 0.97,
		"latency_s": {"p50": 1, "p95": 2, "p99": null, "p95_ci95": [1.9, 2.1], "p99_ci95": [3, null], "p95_ci95_ok": true, "p99_ci95_ok": true},
		"cost_per_1k_usd": {"total": 1}}]}`))
	b := mustParse(t, runReport(1.5, [2]float64{1.4, 1.6}, 0.995, 1000, 1))
	if !math.IsInf(a.Classes[0].P99, 1) {
		t.Fatalf("null p99 read as %g; want +Inf", a.Classes[0].P99)
	}
	c := Compare(a, b)
	p99 := c.Rows[0].Deltas[2]
	// [3s, miss] and [2.8s, 3.2s] overlap.
	if !math.IsNaN(p99.Change) || p99.Mark != Same {
		t.Errorf("p99 miss → 3s: change %g, mark %v; want NaN and not significant", p99.Change, p99.Mark)
	}
	var txt, js bytes.Buffer
	if err := c.WriteText(&txt, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "miss") {
		t.Errorf("text lacks miss:\n%s", txt.String())
	}
	if err := c.WriteJSON(&js, "a", "b"); err != nil {
		t.Fatalf("JSON with a miss: %v", err)
	}
	if !strings.Contains(js.String(), `"a": null`) {
		t.Errorf("JSON lacks a null for the miss:\n%s", js.String())
	}
}

// TestChangeText: the change column's words and digits. A change that
// one decimal (a share's two) would round to zero gets more digits, so
// that a fall never prints with a plus sign: x's cost per 1k from $11.8918
// to $11.8882 is -0.03%, not +0.0%. A percentile that was a miss and is
// not is said as optimize says it, and so is the reverse.
func TestChangeText(t *testing.T) {
	inf := math.Inf(1)
	for _, tt := range []struct {
		d    Delta
		want string
	}{
		{Delta{Metric: "p50", Change: -0.04}, "-0.04%"},
		{Delta{Metric: "cost/1k", A: 11.8918, B: 11.8882, Change: relChange(11.8918, 11.8882)}, "-0.03%"},
		{Delta{Metric: "cost/1k", Change: 0.0004}, "+0.0004%"},
		{Delta{Metric: "cost/1k", Change: -0.00004}, "-0.0%"},
		{Delta{Metric: "p50", Change: 0}, "+0.0%"},
		{Delta{Metric: "p50", Change: math.Copysign(0, -1)}, "+0.0%"},
		{Delta{Metric: "p50", Change: -12.34}, "-12.3%"},
		{Delta{Metric: "answered", Change: -0.09}, "-0.09 pt"},
		{Delta{Metric: "answered", Change: -0.001}, "-0.001 pt"},
		{Delta{Metric: "answered", Change: 0}, "+0.00 pt"},
		{Delta{Metric: "p95", A: inf, B: 1.42, Change: relChange(inf, 1.42), Mark: Significant}, "becomes an answer"},
		{Delta{Metric: "p99", A: 1.59, B: inf, Change: relChange(1.59, inf), Mark: Significant}, "rises to a miss"},
		{Delta{Metric: "p99", A: inf, B: 1.59, Change: relChange(inf, 1.59), Mark: Same}, "~"},
		{Delta{Metric: "p99", A: inf, B: inf, Change: relChange(inf, inf), Mark: Same}, "~"},
		{Delta{Metric: "p99", A: inf, B: inf, Change: relChange(inf, inf), Mark: Unknown}, "n/a ?"},
		{Delta{Metric: "p50", A: inf, B: inf, Change: relChange(inf, inf)}, "n/a"},
		{Delta{Metric: "p95", Change: -30, Mark: Same}, "~"},
		{Delta{Metric: "p99", Change: 5, Mark: Unknown}, "+5.0% ?"},
		{Delta{Metric: "cost/1k", Change: math.NaN()}, "n/a"},
	} {
		if got := change(tt.d); got != tt.want {
			t.Errorf("change(%+v) = %q; want %q", tt.d, got, tt.want)
		}
	}
}

// TestParseRejectsImpossibleFigures: figures no hedgesim report holds are
// errors naming the class and the field, all of them at once.
func TestParseRejectsImpossibleFigures(t *testing.T) {
	data := []byte(`{"scenario": "g", "seed": 3, "requests_per_candidate": 100, "classes": [
	  {"class": "chat", "requests": 100, "pick": 0, "candidates": [
	    {"hedging": false, "latency_s": {"p50": 1, "p95": 3, "p99": 4, "p95_ci95": [3.2, 3.4], "p99_ci95": [3.8, 4.2]}, "p95_ci95_ok": true, "p99_ci95_ok": true, "answered_share": 1.5, "cost_per_1k_usd": -1}]},
	  {"class": "", "requests": -5, "pick": 0, "candidates": [
	    {"hedging": false, "latency_s": {"p50": -1, "p95": 3, "p99": 4, "p95_ci95": [2.9, 3.1], "p99_ci95": [3.8, 4.2]}, "answered_share": 0.5, "cost_per_1k_usd": 1}]}]}`)
	_, err := Parse(data)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`classes[0] (class "chat"): candidates[pick].answered_share: 1.5; want a share in [0, 1]`,
		`classes[0] (class "chat"): candidates[pick].cost_per_1k_usd: -1; want a cost ≥ 0`,
		`classes[0] (class "chat"): candidates[pick].latency_s.p95_ci95: [3.2 s, 3.4 s] does not hold its percentile 3 s`,
		`classes[1]: class: missing or empty`,
		`classes[1]: requests: -5; want a count ≥ 0`,
		`classes[1]: candidates[pick].latency_s.p50: -1; want a latency ≥ 0`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, err := Parse([]byte(`{"scenario": "s", "classes": []}`)); err == nil || !strings.Contains(err.Error(), "no classes") {
		t.Errorf("no classes: %v", err)
	}
}

// TestParseRejectsInconsistentFigures: figures each possible alone but not
// together, and required fields absent or null, are refused.
func TestParseRejectsInconsistentFigures(t *testing.T) {
	class := func(extra string) []byte {
		return []byte(`{"scenario": "s", "seed": 1, "classes": [{"class": "chat", ` + extra + `,
		  "latency_s": {"p50": 0.5, "p95": 1, "p99": 2, "p95_ci95": [0.9, 1.1], "p99_ci95": [1.8, 2.2], "p95_ci95_ok": true, "p99_ci95_ok": true}}]}`)
	}
	for _, tt := range []struct{ fields, want string }{
		{`"requests": 9947, "answered": 1000000000, "answered_share": 1, "cost_per_1k_usd": {"total": 1}`, "answered: 1000000000 exceeds requests 9947"},
		{`"requests": 10000, "answered": 9986, "answered_share": 0.1, "cost_per_1k_usd": {"total": 1}`, "answered_share: 0.1, but answered/requests = 9986/10000"},
		{`"requests": 100, "answered": 100, "answered_share": 1, "cost_per_1k_usd": {"total": null}`, "cost_per_1k_usd.total: missing or null"},
		{`"requests": 100, "answered": 100, "answered_share": 1`, "cost_per_1k_usd.total: missing or null"},
		{`"requests": 100, "answered": 100, "cost_per_1k_usd": {"total": 1}`, "answered_share: missing or null"},
		{`"answered_share": 1, "cost_per_1k_usd": {"total": 1}`, "requests: missing or null"},
		{`"requests": 0, "answered": 0, "answered_share": 0, "cost_per_1k_usd": {"total": 0}`, "requests: 0, yet the class has figures"},
		{`"requests": 100, "answered": -1, "answered_share": 0, "cost_per_1k_usd": {"total": 0}`, "answered: -1; want a count ≥ 0"},
		{`"requests": 100, "answered": 100, "answered_share": 1, "answered_share_ci95": [1.2, 0.5], "cost_per_1k_usd": {"total": 1}`, "answered_share_ci95: [1.2, 0.5]; want low ≤ high, both shares in [0, 1]"},
		{`"requests": 100, "answered": 100, "answered_share": 1, "answered_share_ci95": [-0.1, 0.3], "cost_per_1k_usd": {"total": 1}`, "answered_share_ci95: [-0.1, 0.3]; want low ≤ high"},
	} {
		_, err := Parse(class(tt.fields))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v; want …%s…", tt.fields, err, tt.want)
		}
	}
	if _, err := Parse(class(`"requests": 10000, "answered": 9986, "answered_share": 0.9986, "cost_per_1k_usd": {"total": 1}`)); err != nil {
		t.Errorf("a consistent class: %v", err)
	} // A run whose requests interact reports its answered share after the
	// warm-up cut (sim's warm_up), over fewer requests than the counts.
	if _, err := Parse(class(`"requests": 10000, "answered": 9986, "answered_share": 0.9990, "warm_up": {"requests": 400, "seconds": 12, "rule": "MSER-5"}, "cost_per_1k_usd": {"total": 1}`)); err != nil {
		t.Errorf("a share after a warm-up cut: %v", err)
	}
	if _, err := Parse(class(`"requests": 10000, "answered": 9986, "answered_share": 1.2, "warm_up": {"requests": 400, "seconds": 12, "rule": "MSER-5"}, "cost_per_1k_usd": {"total": 1}`)); err == nil {
		t.Error("a share over 1 after a warm-up cut was accepted")
	}
}

// TestDifferentScenarios: reports of two scenarios that share a class name
// are compared with a warning and no claim of common random numbers; the
// same scenario file with the same seed and different overrides is.
func TestDifferentScenarios(t *testing.T) {
	withID := func(name, sha string, overrides ...string) *Report {
		var m map[string]any
		json.Unmarshal(runReport(1, [2]float64{0.9, 1.1}, 0.99, 1000, 1), &m)
		m["scenario"], m["scenario_sha256"] = name, sha
		if overrides != nil {
			m["overrides"] = overrides
		}
		b, _ := json.Marshal(m)
		return mustParse(t, b)
	}
	for _, tt := range []struct {
		name      string
		a, b      *Report
		same, crn bool
		text      string
	}{
		{"other name", withID("adaptive", "aa"), withID("optimized", "bb"), false, false, "warning: A and B are different scenarios (A: adaptive, B: optimized)"},
		{"same name, other file", withID("s", "aa11"), withID("s", "bb22"), false, false, "warning: A and B are different scenarios (both named s"},
		{"same file", withID("s", "aa"), withID("s", "aa"), true, true, "same scenario with the same seed (common random numbers)"},
		{"same file, what-if", withID("s", "aa"), withID("s", "aa", "arrivals.rate=40"), true, true, "different what-if overrides"},
	} {
		c := Compare(tt.a, tt.b)
		var text, js bytes.Buffer
		if err := c.WriteText(&text, "A.json", "B.json"); err != nil {
			t.Fatal(err)
		}
		c.WriteJSON(&js, "A.json", "B.json")
		var out struct {
			Same bool `json:"same_scenario"`
			CRN  bool `json:"common_random_numbers"`
		}
		json.Unmarshal(js.Bytes(), &out)
		if out.Same != tt.same || out.CRN != tt.crn || !strings.Contains(text.String(), tt.text) {
			t.Errorf("%s: JSON same %v crn %v; want %v %v; text lacks %q:\n%s", tt.name, out.Same, out.CRN, tt.same, tt.crn, tt.text, text.String())
		}
		if !tt.crn && strings.Contains(text.String(), "common random numbers") {
			t.Errorf("%s: claims common random numbers:\n%s", tt.name, text.String())
		}
	}
}

// TestPickFates: two optimize reports that pick different delays for a
// class, each saying of every candidate why it was not picked: the
// comparison says what B made of A's pick (rejected, with its reasons and
// codes) and A of B's, in text and JSON. Reports without statuses, or with
// the same pick, get none.
func TestPickFates(t *testing.T) {
	report := func(pick int, f0, f1 string) []byte {
		return []byte(fmt.Sprintf(`{"scenario": "g", "seed": 3, "requests_per_candidate": 100, "classes": [
	  {"class": "chat", "requests": 100, "pick": %d, "candidates": [
	    {"hedging": false, "latency_s": {"p50": 1, "p95": 3, "p99": 4, "p95_ci95": [2.9, 3.1], "p99_ci95": [3.8, 4.2]}, "p95_ci95_ok": true, "p99_ci95_ok": true, "answered_share": 0.9, "cost_per_1k_usd": 1 %s},
	    {"hedging": true, "delay_s": 0.8, "copies": 1, "target": "b", "requests": 100, "latency_s": {"p50": 1, "p95": 2, "p99": 2.5, "p95_ci95": [1.9, 2.1], "p99_ci95": [2.4, 2.6]}, "p95_ci95_ok": true, "p99_ci95_ok": true, "answered_share": 0.95, "cost_per_1k_usd": 1.1 %s}
	  ]}]}`, pick, f0, f1))
	}
	picked := `, "status": "picked", "reasons": []`
	a := mustParse(t, report(1, `, "status": "eligible", "reasons": [{"code": "slower_than_pick", "text": "p95 3s is slower than the pick's 2s"}]`, picked))
	b := mustParse(t, report(0, picked, `, "status": "rejected", "reasons": [{"code": "overloads_rate_limit", "text": "overloads the rate limit of model b at 120% of its rate"}]`))
	c := Compare(a, b)
	r := c.Rows[0]
	if r.APickInB == nil || r.APickInB.Policy != "800ms ×1 → b" || r.APickInB.Status != "rejected" ||
		len(r.APickInB.Reasons) != 1 || r.APickInB.Reasons[0] != "overloads the rate limit of model b at 120% of its rate [overloads_rate_limit]" {
		t.Errorf("A's pick in B: %+v", r.APickInB)
	}
	if r.BPickInA == nil || r.BPickInA.Policy != "no hedging" || r.BPickInA.Status != "eligible" {
		t.Errorf("B's pick in A: %+v", r.BPickInA)
	}
	var text, js bytes.Buffer
	if err := c.WriteText(&text, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "chat: A's pick in B: 800ms ×1 → b: rejected: overloads the rate limit of model b at 120% of its rate [overloads_rate_limit]") {
		t.Errorf("text:\n%s", text.String())
	}
	if err := c.WriteJSON(&js, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"a_pick_in_b": {`) || !strings.Contains(js.String(), `"status": "rejected"`) {
		t.Errorf("JSON:\n%s", js.String())
	}
	if len(r.Deltas) != 5 {
		t.Errorf("%d metrics; without met_share, no met, rescued or harmed rows: want 5", len(r.Deltas))
	}
	if r := Compare(a, a).Rows[0]; r.APickInB != nil {
		t.Errorf("the same pick: %+v; want no fates", r.APickInB)
	}
	if r := Compare(mustParse(t, report(1, "", "")), b).Rows[0]; r.APickInB != nil {
		t.Errorf("a report without statuses: %+v; want no fates", r.APickInB)
	}
}

// TestBought: optimize picks that carry what hedging bought add rows for
// the share that met the target (tested like the answered share) and the
// shares rescued and harmed against no hedging, in percentage points.
func TestBought(t *testing.T) {
	report := func(met, rescued, harmed float64) *Report {
		return mustParse(t, []byte(fmt.Sprintf(`{"scenario": "g", "seed": 3, "requests_per_candidate": 1000, "classes": [
	  {"class": "chat", "requests": 1000, "pick": 0, "candidates": [
	    {"hedging": true, "delay_s": 1, "copies": 1, "target": "b", "latency_s": {"p50": 1, "p95": 3, "p99": 4, "p95_ci95": [2.9, 3.1], "p99_ci95": [3.8, 4.2]}, "p95_ci95_ok": true, "p99_ci95_ok": true, "answered_share": 0.9, "cost_per_1k_usd": 1,
	     "met_share": %v, "rescued_share": %v, "harmed_share": %v}]}]}`, met, rescued, harmed)))
	}
	c := Compare(report(0.80, 0.05, 0.01), report(0.88, 0.12, 0.002))
	d := c.Rows[0].Deltas
	if len(d) != 8 || d[5].Metric != "met" || d[5].Mark != Significant || d[6].Metric != "rescued" || math.Abs(d[6].Change-7) > 1e-9 || d[7].Metric != "harmed" || d[7].Mark != NoTest {
		t.Fatalf("deltas %+v", d)
	}
	var text bytes.Buffer
	if err := c.WriteText(&text, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "chat   rescued   5.00%") || !strings.Contains(text.String(), "+7.00 pt") {
		t.Errorf("text:\n%s", text.String())
	}
}

// TestDifferentScenariosSameSeedPaired: two run reports of different
// scenario files with one seed (the field report's pool2 at hedge delays
// 5 s and 1.18 s) pair their batches, since sim keys every draw by seed,
// request and attempt; the warning then must not say the runs share no
// random numbers. With other seeds they share none and are not paired.
func TestDifferentScenariosSameSeedPaired(t *testing.T) {
	m := queueReportData(t)
	side := func(sha string, seed float64) *Report {
		m["scenario_sha256"], m["seed"] = sha, seed
		return mustParse(t, marshal(t, m))
	}
	for _, tt := range []struct {
		name       string
		seedB      float64
		paired     bool
		want, lack string
	}{
		{"same seed", 3, true, "request i draws the same random numbers in both only as far as the two files agree", "share no random numbers"},
		{"other seed", 4, false, "the runs share no random numbers", "paired B − A"},
	} {
		c := Compare(side("aa11", 3), side("bb22", tt.seedB))
		var text bytes.Buffer
		if err := c.WriteText(&text, "A.json", "B.json"); err != nil {
			t.Fatal(err)
		}
		s := text.String()
		if !strings.Contains(s, tt.want) || strings.Contains(s, tt.lack) || strings.Contains(s, "paired B − A") != tt.paired {
			t.Errorf("%s: want %q, not %q, paired %v:\n%s", tt.name, tt.want, tt.lack, tt.paired, s)
		}
	}
}
