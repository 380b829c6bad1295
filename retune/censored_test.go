package retune

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// scaled returns a copy of cfg whose models named in names have their
// lognormal latency's median and p95 multiplied by k.
func scaled(t *testing.T, cfg *sim.Config, k float64, medians, p95s map[string]float64) *sim.Config {
	t.Helper()
	c := *cfg
	c.Models = slices.Clone(cfg.Models)
	for i := range c.Models {
		med, ok := medians[c.Models[i].Name]
		if !ok {
			continue
		}
		d, err := dist.LogNormalFromMedianP95(k*med, k*p95s[c.Models[i].Name])
		if err != nil {
			t.Fatal(err)
		}
		c.Models[i].Latency = d
	}
	return &c
}

// TestAssessAnsweredHedgedUnchanged is the new user's case: class c sends
// its primary to a and, after 1 s, a copy to b, cancelling the loser, so a
// histogram of a's answered calls lacks its slow calls that b's copy beat
// (and b's, those a beat). Counted as answered calls (CountsAnswered) it
// must read unchanged against the completed attempts simulated, in at least
// 19 of 20 seeds (each a false alarm with probability about alpha = 0.01,
// so 2 or more in 20 happen with probability 1.7 %), and never be refitted;
// taken as every call's latency (CountsAll, Assess) the same histogram
// reads shifted in every seed: about 9 % of a's calls, all slower than
// 1 s, are cancelled when b's copy answers first. With both models' median and
// p95 30 % higher it must read shifted, answered calls or not, and still
// not be refitted: a fit of answered calls is biased short.
func TestAssessAnsweredHedgedUnchanged(t *testing.T) {
	sc, err := scenario.Load("testdata/hedged2.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	both := map[string]float64{"a": 0.5, "b": 0.5}
	p95s := map[string]float64{"a": 2, "b": 2}
	slower := scaled(t, cfg, 1.3, both, p95s)
	ctx := context.Background()
	fopt := fit.Options{Model: fit.ModelAuto, Seed: 1}
	seeds, alarms := answeredDrift(t, cfg, slower, 200, func(seed uint64, shift bool, live []Live, ms []Model) {
		m := &ms[0]
		if !slices.Equal(m.CancelledBy, []string{"c"}) || m.QueuedAt != "" || m.Refit() || m.Applied {
			t.Errorf("seed %d: cancelled by %q, queued at %q, refit %v, applied %v; want [c], none, false, false", seed, m.CancelledBy, m.QueuedAt, m.Refit(), m.Applied)
		}
		if !strings.Contains(m.Against, "completed attempts") {
			t.Errorf("seed %d: judged against %q; want the completed attempts simulated", seed, m.Against)
		}
		if got := LiveConfig(cfg, ms).Models[0].Latency; got != cfg.Models[0].Latency {
			t.Errorf("seed %d: LiveConfig replaced the censored model's latency with %v", seed, got)
		}
		if shift {
			if m.Drift.Verdict != Shifted || !strings.Contains(m.NotApplied, "--histogram-counts all") {
				t.Errorf("seed %d, median +30%%: %s (%s), not applied %q; want shifted, not refitted", seed, m.Drift.Verdict, m.Drift.Why, m.NotApplied)
			}
			return
		}
		// The same histogram taken as every call's: the censoring
		// reads as a shift, with a warning naming the flag.
		all, err := assessAll(ctx, cfg, live, ms)
		if err != nil {
			t.Fatal(err)
		}
		if a := &all[0]; a.Drift.Verdict != Shifted || len(a.CancelledBy) != 0 || !slices.ContainsFunc(a.Drift.Warnings, func(w string) bool {
			return strings.Contains(w, "--histogram-counts answered")
		}) {
			t.Errorf("seed %d, counted as every call: %s, cancelled by %q, warnings %q; want shifted, none, a warning naming --histogram-counts answered", seed, a.Drift.Verdict, a.CancelledBy, a.Drift.Warnings)
		}
	})
	if alarms > seeds/20 {
		t.Errorf("%d of %d seeds read the unchanged hedged model as drifted; want at most %d", alarms, seeds, seeds/20)
	}
	if _, err := AssessCounts(ctx, cfg, nil, fopt, 0.01, "some"); err == nil || !strings.Contains(err.Error(), `"some"`) {
		t.Errorf("counts \"some\": %v; want an error naming it", err)
	}
}

// TestReportQueuedBesideUnqueued: q (at a provider of concurrency 6) and u
// (unlimited) both 30 % slower. u is refitted and the policies re-checked;
// q is not, and the report must say so wherever it is read: the note
// "shifted at a queue or pool" with the advice in the text and the page,
// the judged-against line in both, batch's row (its only model q) saying
// it holds the scenario's model, and in the JSON applied false with the
// reason for q, true for u, and batch's held_models. With q alone (no
// re-check) the page gives the note and the judged-against line too.
func TestReportQueuedBesideUnqueued(t *testing.T) {
	sc, err := scenario.Load("testdata/mixedq.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	slower := scaled(t, cfg, 1.3, map[string]float64{"q": 0.4, "u": 0.5}, map[string]float64{"q": 1.2, "u": 2})
	var live []Live
	for i, name := range []string{"q", "u"} {
		h := modelHistogram(t, slower, 77, name, pool3Bounds)
		live = append(live, Live{Model: name, Index: i, Key: "latency", Query: `inference_latency_seconds{model="` + name + `"}`, Hist: h})
	}
	ctx := context.Background()
	ms, err := AssessCounts(ctx, cfg, live, fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01, CountsAnswered)
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Drift.Verdict != Shifted || ms[1].Drift.Verdict != Shifted {
		t.Fatalf("verdicts %s, %s; want both shifted", ms[0].Drift.Verdict, ms[1].Drift.Verdict)
	}
	if ms[0].Applied || !strings.Contains(ms[0].NotApplied, "capacity and replicas") || !ms[1].Applied || ms[1].NotApplied != "" {
		t.Fatalf("q applied %v (%q), u applied %v (%q); want false with the capacity advice, and true", ms[0].Applied, ms[0].NotApplied, ms[1].Applied, ms[1].NotApplied)
	}
	st := sc.Optimize
	st.Requests, st.CheckRequests = 2000, 4000
	rc, err := RecheckPolicy(ctx, cfg, LiveConfig(cfg, ms), RecheckOptions{Settings: st, NoAdaptive: true, Models: ms})
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Scenario: cfg.Name, Source: "live.txt", Alpha: 0.01, Models: ms, Recheck: rc}
	r.Finish()
	var txt, js, page bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&page, nil, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"shifted at a queue or pool: q;", "check the provider's capacity and replicas", "judged against the client-side latency simulated", "batch: q shifted but keeps the scenario's model here"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
		// The page gives batch's note in its row of the table.
		if !strings.Contains(page.String(), strings.ReplaceAll(strings.TrimPrefix(want, "batch: "), "'", "&#39;")) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(txt.String(), "chat: q shifted") || strings.Contains(txt.String(), "chat: u shifted") {
		t.Errorf("chat's row says it holds a scenario model; it sends to u only, refitted:\n%s", txt.String())
	}
	// q alone, as --model q asks: nothing re-checked, and the page
	// must give the note, not "No model shifted".
	alone := &Report{Scenario: cfg.Name, Source: "live.txt", Alpha: 0.01, Models: ms[:1]}
	alone.Finish()
	var alonePage bytes.Buffer
	if err := alone.WriteHTML(&alonePage, nil, true); err != nil {
		t.Fatal(err)
	}
	if p := alonePage.String(); !strings.Contains(p, "shifted at a queue or pool: q;") || !strings.Contains(p, "judged against the client-side latency simulated") || strings.Contains(p, "No model shifted") {
		t.Errorf("page of q alone (no re-check) lacks the note or the judged-against line, or says no model shifted")
	}
	var got struct {
		Models []struct {
			Model      string `json:"model"`
			Applied    *bool  `json:"applied"`
			NotApplied string `json:"not_applied"`
		} `json:"models"`
		Recheck struct {
			Classes []struct {
				Class string   `json:"class"`
				Held  []string `json:"held_models"`
			} `json:"classes"`
		} `json:"recheck"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if m := got.Models; len(m) != 2 || m[0].Applied == nil || *m[0].Applied || !strings.Contains(m[0].NotApplied, "capacity and replicas") || m[1].Applied == nil || !*m[1].Applied {
		t.Errorf("JSON models %+v; want q applied false with the reason, u applied true", m)
	}
	for _, c := range got.Recheck.Classes {
		want := []string(nil)
		if c.Class == "batch" {
			want = []string{"q"}
		}
		if !slices.Equal(c.Held, want) {
			t.Errorf("JSON class %s held_models %q; want %q", c.Class, c.Held, want)
		}
	}
}

// TestAssessQueuedCancelledSaysSo: a queued model whose attempts class c
// cancels is judged against what its histogram counts, and the
// judged-against line says which: under CountsAll every call simulated,
// those c cancelled in service counted to the end of their drawn service
// time, those cancelled while queued left out (with their numbers); under
// CountsAnswered the completed attempts, those c cancels left out. The
// first sample holds more calls than the second.
func TestAssessQueuedCancelledSaysSo(t *testing.T) {
	sc, err := scenario.Load("testdata/hedgedq.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	h := modelHistogram(t, cfg, 9, "a", pool3Bounds)
	live := []Live{{Model: "a", Index: 0, Key: "latency", Query: `inference_latency_seconds{model="a"}`, Hist: h}}
	want := map[string]*regexp.Regexp{
		CountsAll:      regexp.MustCompile(`^the client-side latency simulated \((\d+) calls of \d+ requests at provider pa, the wait and any replica's slowdown included; the [1-9]\d* attempts class c cancelled in service counted to the end of their drawn service time, as a histogram of every call counts them, the \d+ cancelled while still queued left out, never having reached the model\)$`),
		CountsAnswered: regexp.MustCompile(`^the client-side latency simulated \((\d+) completed attempts of \d+ requests at provider pa, the wait and any replica's slowdown included, the attempts class c cancels left out, as a histogram of answered calls leaves them out\)$`),
	}
	n := map[string]int{}
	for _, counts := range []string{CountsAll, CountsAnswered} {
		ms, err := AssessCounts(context.Background(), cfg, live, fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01, counts)
		if err != nil {
			t.Fatal(err)
		}
		m := want[counts].FindStringSubmatch(ms[0].Against)
		if ms[0].QueuedAt != "pa" || m == nil {
			t.Fatalf("%s: queued at %q, judged against %q; want pa, matching %s", counts, ms[0].QueuedAt, ms[0].Against, want[counts])
		}
		n[counts], _ = strconv.Atoi(m[1])
	}
	if n[CountsAll] <= n[CountsAnswered] {
		t.Errorf("%d calls counting all, %d counting answered; want more counting all", n[CountsAll], n[CountsAnswered])
	}
}

// TestAssessAnsweredDeadlineUnchanged: class c sends to a with no hedge
// but a 2 s deadline, which cancels a's calls still running then (5 % of
// them: a's p95 is 2 s), so a histogram of a's answered calls lacks them.
// Counted as answered calls it must read unchanged against the completed
// attempts simulated in at least 19 of 20 seeds (as in
// TestAssessAnsweredHedgedUnchanged), naming c, and not be refitted
// (judged against the bare model, as before, it read shifted and was
// refitted). With a's median and
// p95 30 % higher it must read shifted, and still not be refitted. Taken
// as every call's, the same histogram reads shifted with the warning that
// names the flag.
func TestAssessAnsweredDeadlineUnchanged(t *testing.T) {
	sc, err := scenario.Load("testdata/deadline1.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	slower := scaled(t, cfg, 1.3, map[string]float64{"a": 0.5}, map[string]float64{"a": 2})
	ctx := context.Background()
	seeds, alarms := answeredDrift(t, cfg, slower, 300, func(seed uint64, shift bool, live []Live, ms []Model) {
		m := &ms[0]
		if !slices.Equal(m.CancelledBy, []string{"c"}) || m.QueuedAt != "" || m.Refit() || m.Applied || !strings.Contains(m.Against, "completed attempts") {
			t.Fatalf("seed %d: cancelled by %q, queued at %q, refit %v, applied %v, judged against %q; want [c], none, false, false, the completed attempts simulated",
				seed, m.CancelledBy, m.QueuedAt, m.Refit(), m.Applied, m.Against)
		}
		if shift {
			if m.Drift.Verdict != Shifted || !strings.Contains(m.NotApplied, "calls still running at the deadline") {
				t.Errorf("seed %d, median +30%%: %s (%s), not applied %q; want shifted, not refitted, saying the deadline cuts", seed, m.Drift.Verdict, m.Drift.Why, m.NotApplied)
			}
			return
		}
		all, err := assessAll(ctx, cfg, live, ms)
		if err != nil {
			t.Fatal(err)
		}
		if a := &all[0]; a.Drift.Verdict != Shifted || !slices.ContainsFunc(a.Drift.Warnings, func(w string) bool {
			return strings.Contains(w, "calls still running at the deadline") && strings.Contains(w, "--histogram-counts answered")
		}) {
			t.Errorf("seed %d, counted as every call: %s, warnings %q; want shifted, with a warning naming the deadline and --histogram-counts answered", seed, a.Drift.Verdict, a.Drift.Warnings)
		}
	})
	if alarms > seeds/20 {
		t.Errorf("%d of %d seeds read the unchanged deadline-cut model as drifted; want at most %d", alarms, seeds, seeds/20)
	}
}

// assessAll is Assess (CountsAll, alpha 0.01) of live, whose histograms
// ms (AssessCounts of the same live) has fitted: the fit of a histogram
// is the same however it is counted (fit.Options{Model: fit.ModelAuto,
// Seed: 1} in both), so it is not made again.
func assessAll(ctx context.Context, cfg *sim.Config, live []Live, ms []Model) ([]Model, error) {
	fits := make([]*fit.HistogramFit, len(ms))
	for i := range ms {
		fits[i] = ms[i].Fit
	}
	return assessFitted(ctx, cfg, live, fits, 0.01, CountsAll)
}

// answeredDrift assesses model a's histogram of answered calls
// (CountsAnswered, alpha 0.01) drawn from cfg and from slower on 20 seeds
// from base (4 under -short), handing each result to check with whether it
// came from slower, and counts the seeds whose unchanged histogram did not
// read unchanged.
func answeredDrift(t *testing.T, cfg, slower *sim.Config, base uint64, check func(seed uint64, shift bool, live []Live, ms []Model)) (seeds, alarms int) {
	t.Helper()
	seeds = 20
	if testing.Short() {
		seeds = 4
	}
	fopt := fit.Options{Model: fit.ModelAuto, Seed: 1}
	for s := range seeds {
		seed := base + uint64(s)
		for _, c := range []struct {
			cfg   *sim.Config
			shift bool
		}{{cfg, false}, {slower, true}} {
			h := modelHistogram(t, c.cfg, seed, "a", pool3Bounds)
			live := []Live{{Model: "a", Index: 0, Key: "latency", Query: `inference_latency_seconds{model="a"}`, Hist: h}}
			ms, err := AssessCounts(context.Background(), cfg, live, fopt, 0.01, CountsAnswered)
			if err != nil {
				t.Fatal(err)
			}
			if !c.shift && ms[0].Drift.Verdict != Unchanged {
				alarms++
				t.Logf("seed %d: %s: %s", seed, ms[0].Drift.Verdict, ms[0].Drift.Why)
			}
			check(seed, c.shift, live, ms)
		}
	}
	return seeds, alarms
}
