package optimize_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// sparsePool is one class calling a model of constant 1 s latency on an
// autoscaled pool of 2 replicas (4 slots each, Knative's defaults:
// scale-to-zero grace 30 s), each replica $price an hour, with a constant
// 20 s cold start, at a request every 100 s on average: scaled to zero,
// nearly every request waits for a start. With api, copies may go to a
// hosted model "api" ($0.01 a request, constant 5 s, no pool).
func sparsePool(price float64, api bool) *sim.Config {
	cfg := &sim.Config{
		Name: "sparse", Seed: 3, Requests: 20000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 0.01},
		Models:   []sim.Model{{Name: "m", Provider: "gpu", Latency: dist.Constant{Value: 1}}},
		Providers: []sim.Provider{{Name: "gpu", Pool: &sim.Pool{Replicas: 2, Concurrency: 4,
			ColdStart: &sim.ColdStart{Latency: dist.Constant{Value: 20}},
			Autoscale: &sim.Autoscale{Min: 0, Initial: 0, Target: 4,
				Tick: 2 * time.Second, StableWindow: 60 * time.Second, PanicWindow: 6 * time.Second,
				PanicThreshold: 2, ScaleToZeroGrace: 30 * time.Second, PricePerReplicaHour: price}}}},
		Classes: []sim.Class{{Name: "c", Share: 1,
			InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 10}}},
	}
	if api {
		cfg.Models = append(cfg.Models, sim.Model{Name: "api", Provider: "api", Latency: dist.Constant{Value: 5}, PricePerRequest: 0.01})
		cfg.Providers = append(cfg.Providers, sim.Provider{Name: "api"})
		cfg.Classes[0].Policy = sim.Policy{Targets: []int{1}, Copies: 1, Delays: []time.Duration{2 * time.Second}}
	}
	return cfg
}

// fleetSettings sweeps one delay, 2 s, with 20 000 requests per candidate
// (enough for a 95 % interval on p95) and a rollout check of 20 000, under each floor of mins; the verdict rule
// asks no gain per unit of cost, so that a hedge that saves a cold start
// is taken whatever its price.
func fleetSettings(mins ...int) optimize.Settings {
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 20000, 20000
	s.Search.Delays = []time.Duration{2 * time.Second}
	s.Search.Objective.MinGainPerCost = 0
	s.Rule.MinGainPerCost = 0
	s.MinReplicas = mins
	return s
}

// TestFleetFreeReplicasKeepWarm: at $0 a replica-hour and no token price
// every floor costs $0 a month, so the tie goes to the lower p95: the
// floor of 2 (no cold start) beats scaling to zero. At $1000 a
// replica-hour the floor of 2 — both replicas always up — costs exactly
// 2 × $1000 × 24 h × 30 d = $1 440 000 a month (the closed form: a pool
// whose floor is its size cannot scale), and scaling to zero, up only
// around its sparse requests, is cheaper and wins.
func TestFleetFreeReplicasKeepWarm(t *testing.T) {
	t.Parallel()
	free := mustRun(t, sparsePool(0, false), fleetSettings(0, 2), optimize.Options{})
	f := free.Fleet
	if f == nil || len(f.Settings) != 2 {
		t.Fatalf("fleet %+v: want two settings", f)
	}
	for _, fs := range f.Settings {
		if fs.USDPerMonth != 0 || !fs.Meets {
			t.Errorf("min %d at $0: %v a month, meets %v; want $0 and met", fs.MinReplicas, fs.USDPerMonth, fs.Meets)
		}
	}
	if f.Cheapest != 1 || !(f.Settings[1].Picks[0].Latency < f.Settings[0].Picks[0].Latency) {
		t.Errorf("at $0 the cheapest is %d (p95 %v against %v); want min 2, the faster", f.Cheapest, f.Settings[1].Picks[0].Latency, f.Settings[0].Picks[0].Latency)
	}

	cfg := sparsePool(1000, false)
	dear := mustRun(t, cfg, fleetSettings(0, 2), optimize.Options{})
	if a := cfg.Providers[0].Pool.Autoscale; a.Min != 0 || a.Initial != 0 {
		t.Errorf("the floors changed the caller's config: min %d, initial %d", a.Min, a.Initial)
	}
	f = dear.Fleet
	warm := f.Settings[1]
	want := 2 * 1000 * 24.0 * sim.DaysPerMonth
	if math.Abs(warm.ReplicaUSDPerMonth-want) > 1e-9*want || math.Abs(warm.ReplicaHours-2*warm.RunSeconds/3600) > 1e-9*warm.ReplicaHours {
		t.Errorf("min 2: %v replica-hours over %v s, $%v a month; want 2 replicas throughout, $%v", warm.ReplicaHours, warm.RunSeconds, warm.ReplicaUSDPerMonth, want)
	}
	if warm.TokenUSDPerMonth != 0 {
		t.Errorf("min 2: tokens $%v a month; the model is free", warm.TokenUSDPerMonth)
	}
	if f.Cheapest != 0 || !(f.Settings[0].USDPerMonth < warm.USDPerMonth) {
		t.Errorf("at $1000 a replica-hour the cheapest is %d ($%v against $%v); want min 0", f.Cheapest, f.Settings[0].USDPerMonth, warm.USDPerMonth)
	}
	if free.Rollout == nil || free.Routing != nil {
		t.Error("the report's own rollout check is missing, or a routing section appeared")
	}
}

// TestFleetVerdict: with copies to a hosted API ($0.01 a request), a
// scaled-to-zero pool hedges (a copy at 2 s answers at 7 s instead of
// after the 20 s start) while one warm replica, of constant 1 s, gains
// nothing from a copy. Free replicas make the warm one cheaper (no copy
// to pay): keeping replicas warm beats hedging. At $1000 a replica-hour
// the reverse. Both verdicts are in the text and the JSON.
func TestFleetVerdict(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		price   float64
		cheap   int
		verdict string
	}{
		{0, 1, "keeping replicas warm beats hedging: min_replicas = 1 without hedging, $0 a month, against min_replicas = 0 with hedging (class c's pick 2s)"},
		{1000, 0, "hedging beats keeping replicas warm: min_replicas = 0 with hedging (class c's pick 2s)"},
	} {
		rep := mustRun(t, sparsePool(tt.price, true), fleetSettings(0, 1), optimize.Options{})
		f := rep.Fleet
		if !f.Settings[0].Picks[0].Hedged || f.Settings[1].Picks[0].Hedged {
			t.Fatalf("$%v: picks %+v, %+v; want a hedge at min 0 only", tt.price, f.Settings[0].Picks, f.Settings[1].Picks)
		}
		if f.Cheapest != tt.cheap || !strings.HasPrefix(f.Verdict, tt.verdict) {
			t.Errorf("$%v: cheapest %d, verdict %q; want %d and %q", tt.price, f.Cheapest, f.Verdict, tt.cheap, tt.verdict)
		}
		var text, js bytes.Buffer
		if err := rep.WriteText(&text, false); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "fleet: every autoscaled pool's min_replicas set to each of 0, 1") ||
			!strings.Contains(strings.Join(strings.Fields(text.String()), " "), tt.verdict) {
			t.Errorf("$%v: text report lacks the fleet section or its verdict:\n%s", tt.price, text.String())
		}
		var got struct {
			Fleet struct {
				Cheapest int `json:"cheapest"`
				Settings []struct {
					Min   int      `json:"min_replicas"`
					Total *float64 `json:"usd_per_month"`
				} `json:"settings"`
				Verdict string `json:"verdict"`
			} `json:"fleet"`
		}
		if err := json.Unmarshal(js.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if got.Fleet.Cheapest != tt.cheap || got.Fleet.Verdict != f.Verdict || len(got.Fleet.Settings) != 2 || got.Fleet.Settings[1].Min != 1 || got.Fleet.Settings[1].Total == nil {
			t.Errorf("$%v: JSON fleet %+v", tt.price, got.Fleet)
		}
	}
}

// TestFleetBadSettings: floors for a scenario without an autoscaled pool,
// a negative floor, one above max_replicas and floors without the rollout
// check are errors naming what is wrong; without floors the report has no
// fleet section, in text or JSON.
func TestFleetBadSettings(t *testing.T) {
	t.Parallel()
	plain := lognormalConfig()
	for _, tt := range []struct {
		cfg  *sim.Config
		s    optimize.Settings
		want string
	}{
		{plain, fleetSettings(1), "no autoscaled pool"},
		{sparsePool(1, false), fleetSettings(-1), "min replicas -1: must be ≥ 0"},
		{sparsePool(1, false), fleetSettings(3), "min replicas 3: above pool gpu's max_replicas 2"},
		{sparsePool(1, false), func() optimize.Settings { s := fleetSettings(1); s.CheckRequests = 0; return s }(), "need the rollout check"},
	} {
		if _, err := optimize.Run(tt.cfg, tt.s, optimize.Options{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("MinReplicas %v: error %v; want %q", tt.s.MinReplicas, err, tt.want)
		}
	}
	rep := mustRun(t, sparsePool(1, false), fleetSettings(), optimize.Options{})
	var text, js bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if rep.Fleet != nil || strings.Contains(text.String(), "fleet:") || strings.Contains(js.String(), `"fleet"`) {
		t.Error("a report without floors to compare has a fleet section")
	}
}

// TestFleetNoSettingMeets: under the cost objective with an SLA of 0.5 s,
// below the model's constant 1 s, no candidate of any floor is feasible:
// no setting meets the objective, none is named the cheapest, there is no
// verdict, and the text says so.
func TestFleetNoSettingMeets(t *testing.T) {
	t.Parallel()
	s := fleetSettings(0, 2)
	if err := s.Search.Objective.SetName("cost"); err != nil {
		t.Fatal(err)
	}
	s.Search.Objective.SLA = 500 * time.Millisecond
	rep := mustRun(t, sparsePool(1, false), s, optimize.Options{})
	f := rep.Fleet
	if f.Cheapest != -1 || f.Verdict != "" || f.Settings[0].Meets || f.Settings[1].Meets {
		t.Errorf("fleet %+v: want no setting meeting a 0.5 s SLA", f)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "no setting meets the objective") {
		t.Errorf("text report:\n%s", text.String())
	}
}

// TestFleetDoesNotDependOnWorkers: the floors' sweeps run side by side,
// and their comparison is the same on one worker and on four. Under
// -short with 2000 requests per candidate and in the rollout check: the
// identity holds at any size.
func TestFleetDoesNotDependOnWorkers(t *testing.T) {
	t.Parallel()
	s := fleetSettings(0, 1, 2)
	if testing.Short() {
		s.Requests, s.CheckRequests = 2000, 2000
	}
	var js [2]bytes.Buffer
	for i, w := range []int{1, 4} {
		rep := mustRun(t, sparsePool(1000, true), s, optimize.Options{Workers: w})
		if err := json.NewEncoder(&js[i]).Encode(rep.Fleet); err != nil {
			t.Fatal(err)
		}
	}
	if js[0].String() != js[1].String() {
		t.Errorf("fleet on 1 worker:\n%s\non 4:\n%s", js[0].String(), js[1].String())
	}
}
