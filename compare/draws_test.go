package compare

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// drawsConfig is a scenario of the given classes, each of an equal share,
// on one model without a queue (independent requests): a lognormal call
// (median 1 s, p95 5.2 s) hedged after 2 s with one copy.
func drawsConfig(classes ...string) *sim.Config {
	cfg := &sim.Config{
		Name: "draws", Seed: 5, Requests: 3000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models:   []sim.Model{{Name: "m", Provider: "p", Latency: dist.LogNormal{Mu: 0, Sigma: 1}, PriceInputPerMTok: 1}},
	}
	for _, c := range classes {
		cfg.Classes = append(cfg.Classes, sim.Class{Name: c, Share: 1 / float64(len(classes)),
			InputTokens: dist.Constant{Value: 1000}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Copies: 1, Delays: []time.Duration{2 * time.Second}, CancelBilling: sim.BillInput}})
	}
	return cfg
}

// optimizeJSONOf sweeps cfg's classes as `hedgesim optimize` does, on the
// one delay of 2 s (picked: p95 5.2 s → 3.2 s for +24 % cost), and parses
// its report as `hedgesim optimize --json` writes it.
func optimizeJSONOf(t *testing.T, cfg *sim.Config) *Report {
	t.Helper()
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = cfg.Requests, 0
	s.Search.Delays = []time.Duration{2 * time.Second}
	s.Search.Objective.MaxAddedCostPct = math.Inf(1)
	rep, err := optimize.Run(cfg, s, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return mustParse(t, data)
}

// TestCommonRandomNumbersOnlyWhenShared: optimize sweeps each class alone,
// on requests of that class only, while a run mixes the classes, so class
// a's request i is another request in each and their figures differ by
// sampling noise although the policy (2 s ×1 → m) is the same; compare
// claimed common random numbers for them and advised reruns with
// --precision to decide the difference. It now says the draws are not
// shared, and that the policies are the same, with no rerun advice (nor
// p95_precision_to_decide). With one class, optimize's sweep and the run
// are the same requests: the figures are equal and compare says they share
// their draws.
func TestCommonRandomNumbersOnlyWhenShared(t *testing.T) {
	two := drawsConfig("a", "b")
	c := Compare(optimizeJSONOf(t, two), runJSONOf(t, two))
	if len(c.Rows) != 2 {
		t.Fatalf("%d rows; want a and b", len(c.Rows))
	}
	txt, js := texts(t, c)
	for _, r := range c.Rows {
		if r.PolicyA != r.PolicyB {
			t.Fatalf("class %s: policies %q and %q; want the same pick as the run's policy", r.Class, r.PolicyA, r.PolicyB)
		}
		if d := delta(t, &Comparison{Rows: []Row{r}}, "p95"); d.A == d.B {
			t.Errorf("class %s: p95 %v on both sides; want other draws, other figures", r.Class, d.A)
		}
		if r.CommonRandomNumbers || !r.SamePolicy {
			t.Errorf("class %s: common random numbers %v, same policy %v; want false, true", r.Class, r.CommonRandomNumbers, r.SamePolicy)
		}
	}
	if c.CommonRandomNumbers() || strings.Contains(txt, "(common random numbers)") || strings.Contains(txt, "--precision") {
		t.Errorf("claims common random numbers or advises --precision:\n%s", txt)
	}
	for _, want := range []string{
		"do not share random numbers for a (swept alone in A, with b in B), b (swept alone in A, with a in B)",
		"a: the policies are the same (2.00s ×1 → m): the sides do not share random numbers, so their differences are sampling noise, and no rerun can show one better",
	} {
		if !strings.Contains(strings.Join(strings.Fields(txt), " "), want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	var out struct {
		CRN     bool `json:"common_random_numbers"`
		Classes []struct {
			CRN       bool     `json:"common_random_numbers"`
			Same      bool     `json:"same_policy"`
			DecideP95 *float64 `json:"p95_precision_to_decide"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(js), &out); err != nil {
		t.Fatal(err)
	}
	if out.CRN || len(out.Classes) != 2 {
		t.Fatalf("JSON common_random_numbers %v, %d classes; want false, 2:\n%s", out.CRN, len(out.Classes), js)
	}
	for _, cl := range out.Classes {
		if cl.CRN || !cl.Same || cl.DecideP95 != nil {
			t.Errorf("JSON class: common_random_numbers %v, same_policy %v, p95_precision_to_decide %v; want false, true, absent", cl.CRN, cl.Same, cl.DecideP95)
		}
	}

	one := drawsConfig("a")
	c = Compare(optimizeJSONOf(t, one), runJSONOf(t, one))
	d := delta(t, c, "p95")
	if d.A != d.B || !c.Rows[0].CommonRandomNumbers || !c.CommonRandomNumbers() {
		t.Errorf("one class: p95 %v and %v, common random numbers %v; want equal figures, true", d.A, d.B, c.CommonRandomNumbers())
	}
	if txt, _ := texts(t, c); !strings.Contains(txt, "(common random numbers)") || strings.Contains(txt, "do not share") {
		t.Errorf("one class: text does not say the draws are shared:\n%s", txt)
	}
}

// TestSamePolicyOnlyUnderSameConditions: two sides run the same policy
// under the same conditions only when the policy texts agree, neither
// side's requests interact, the scenario file is the same, and the what-if
// overrides differ at most in hedge delays (which the text shows): a rate
// or a winner rule set on one side only may make a real difference.
func TestSamePolicyOnlyUnderSameConditions(t *testing.T) {
	rep := func(sha string, overrides ...string) *Report {
		return &Report{Kind: Run, Scenario: "s", ScenarioSHA256: sha, Seed: 1, Overrides: overrides}
	}
	cl := func(policy string, interacts bool) *Class {
		return &Class{Name: "c", Policy: policy, interacts: interacts}
	}
	for _, tc := range []struct {
		name   string
		a, b   *Report
		ca, cb *Class
		want   bool
	}{
		{"same", rep("x"), rep("x"), cl("1s ×1 → m", false), cl("1s ×1 → m", false), true},
		{"delays set", rep("x"), rep("x", "classes[1].hedge.delay=1s"), cl("1s ×1 → m", false), cl("1s ×1 → m", false), true},
		{"other policy", rep("x"), rep("x"), cl("1s ×1 → m", false), cl("2s ×1 → m", false), false},
		{"no policy text", rep("x"), rep("x"), cl("", false), cl("", false), false},
		{"interacting", rep("x"), rep("x"), cl("1s ×1 → m", true), cl("1s ×1 → m", false), false},
		{"other file", rep("x"), rep("y"), cl("1s ×1 → m", false), cl("1s ×1 → m", false), false},
		{"rate set", rep("x"), rep("x", "arrivals.rate=40"), cl("1s ×1 → m", false), cl("1s ×1 → m", false), false},
		{"winner set", rep("x", `classes[0].hedge.winner="first_token"`), rep("x"), cl("1s ×1 → m", false), cl("1s ×1 → m", false), false},
	} {
		if got := samePolicy(tc.a, tc.b, tc.ca, tc.cb); got != tc.want {
			t.Errorf("%s: samePolicy %v; want %v", tc.name, got, tc.want)
		}
	}
}
