package retune

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// Model is one model's live histogram, the fit of it and its drift.
type Model struct {
	Model string `json:"model"`
	// Key is "latency" or "ttft" (see Live.Key); Query and Source say
	// where the histogram came from.
	Key    string `json:"key"`
	Query  string `json:"query"`
	Source string `json:"source"`
	// Fit is the histogram's fit (package fit); FitName its chosen
	// model ("lognormal", "mixture-2", …) and FitSpec that model as a
	// TOML inline distribution table.
	Fit     *fit.HistogramFit `json:"-"`
	FitName string            `json:"fit"`
	FitSpec string            `json:"fit_toml"`
	// Drift is the live histogram against the scenario's model, or, for a
	// queued model, against the client-side latency simulated.
	Drift Drift `json:"drift"`
	// QueuedAt, when not empty, names the provider at which the model's
	// attempts can wait or be slowed (a pool, or a concurrency limit); its
	// histogram is then taken as the client's: each completed attempt's
	// latency from sending to answer, the wait and a replica's slowdown
	// included, and under CountsAll each attempt cancelled in service to
	// the end of its drawn service time. Against says what Drift judged
	// the histogram against.
	QueuedAt string `json:"queued_at,omitempty"`
	Against  string `json:"judged_against"`
	// CancelledBy, when not empty, names the classes whose hedging cancels
	// the model's losing attempts, or whose deadline cancels its calls
	// still running then, its histogram being taken as of the answered
	// calls only (CountsAnswered): it is then judged, as a queued model
	// is, against the completed attempts simulated, and never refitted — a
	// fit of answered calls lacks the cancelled, slow ones and is biased
	// short.
	CancelledBy []string `json:"cancelled_by,omitempty"`
	// FitRejected, when not empty, says why the live fit is no model of
	// the live latency to re-plan on (rejected.go): its own chi-square
	// test rejects it at the run's level and the live counts are no less
	// likely under the scenario's model; or fewer than fit.MinOccupied
	// buckets hold observations, so its σ and percentiles are artefacts
	// (fit.HistogramFit.SpreadUnresolved); or every observation lies above
	// the top bound. The model is then not refitted. FitRejectedBrief
	// says the same in a clause for summaries ("its live fit (lognormal)
	// is rejected by its own test …"), and fitAdvice what to do.
	FitRejected      string `json:"fit_rejected,omitempty"`
	FitRejectedBrief string `json:"-"`
	fitAdvice        string
	// Applied says whether the live fit (FitSpec) replaces the scenario's
	// model in the re-check and in a written scenario (Refit); NotApplied
	// says why not when the model shifted, else "".
	Applied    bool   `json:"applied"`
	NotApplied string `json:"not_applied,omitempty"`
}

// Refit reports whether m's live fit replaces the scenario's model in the
// re-check and in a written scenario: when it shifted, is not queued
// (QueuedAt), the fit of a client-side histogram of a queued model being
// the model's latency with the wait and slowdown already in it, was
// not judged on answered calls that hedging cancels (CancelledBy), whose
// fit lacks the slow calls, and its fit is a model of the live latency
// (FitRejected empty).
func (m *Model) Refit() bool {
	return m.Drift.Verdict == Shifted && m.QueuedAt == "" && len(m.CancelledBy) == 0 && m.FitRejected == ""
}

// simulated reports whether m was judged against the client-side latency
// simulated (queued, or its answered calls censored by cancels).
func (m *Model) simulated() bool {
	return m.Key == "latency" && (m.QueuedAt != "" || len(m.CancelledBy) > 0)
}

// notApplied says why a shifted model's live fit is not applied, or "";
// cut says which of its calls the classes of CancelledBy cancel (cutText).
func (m *Model) notApplied(cut string) string {
	if m.Drift.Verdict != Shifted || m.Refit() {
		return ""
	}
	var why []string
	if m.QueuedAt != "" {
		why = append(why, fmt.Sprintf("its attempts wait or are slowed at provider %s, and the scenario's model is the service time the simulation adds the wait and any replica's slowdown to (the wait would be counted twice); check the provider's capacity and replicas, then the model", m.QueuedAt))
	}
	if len(m.CancelledBy) > 0 {
		why = append(why, fmt.Sprintf("its histogram counts answered calls only and class %s cancels its %s, the slow ones, so a fit of it is biased short; to refit the model, give a histogram of every call (one recorded at the provider, or by a client that records a cancelled call's latency too) with --histogram-counts all", strings.Join(m.CancelledBy, ", "), cut))
	}
	if m.FitRejected != "" {
		why = append(why, m.FitRejected)
	}
	return "not refitted: " + strings.Join(why, "; and ")
}

// Assess fits each live histogram with package fit (fopt) and judges its
// drift from the scenario's model at level alpha — for a queued model's
// latency (Model.QueuedAt; observed.go), from the client-side latency of
// the scenario simulated once for all of them, max(ObservedRequests,
// ObservedPerObservation × observations) requests (at most
// MaxObservedRequests; a replayed trace's own number), the scenario's seed,
// the test corrected for the calls' dependence when the scenario's
// requests interact (judgeObserved, Drift.Dependence); the drift's warnings
// (Drift.Warnings) are then followed by the fit's own (fit.HistogramFit's
// Warnings: buckets too coarse for a percentile, an unsound or untested
// pick, a _sum the buckets disagree with, few observations), each once. It stops with ctx's
// error when ctx is done. A histogram the fit rejects is an *InputError.
//
// The histograms are fitted at once, each on goroutines of its own (a fit
// is the same wherever it runs); a rejected histogram is reported in the
// order of live.
func Assess(ctx context.Context, cfg *sim.Config, live []Live, fopt fit.Options, alpha float64) ([]Model, error) {
	return AssessCounts(ctx, cfg, live, fopt, alpha, CountsAll)
}

// AssessCounts is Assess with the histograms taken to count counts
// (CountsAll or CountsAnswered): with CountsAnswered, a model's latency
// whose attempts a class's hedging or deadline cancels (cancelledBy) is
// judged, as a
// queued one is, against its completed attempts simulated, the cancelled
// ones missing from both (Model.CancelledBy), and is not refitted.
func AssessCounts(ctx context.Context, cfg *sim.Config, live []Live, fopt fit.Options, alpha float64, counts string) ([]Model, error) {
	if counts != CountsAll && counts != CountsAnswered {
		return nil, fmt.Errorf("histogram counts %q: want %q or %q", counts, CountsAll, CountsAnswered)
	}
	fits := make([]*fit.HistogramFit, len(live))
	errs := make([]error, len(live))
	var wg sync.WaitGroup
	for i := range live {
		// A live histogram whose every observation is above its top bound
		// (a slowdown past the buckets) is judged, not refused: it is
		// fitted for the drift's figures, and the fit is not applied
		// (openTopRejected).
		o := fopt
		o.OpenTop = true
		wg.Go(func() { fits[i], errs[i] = fit.FitHistogramContext(ctx, live[i].Hist, o) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for i, l := range live {
		if errs[i] != nil {
			return nil, &InputError{Model: l.Model, Query: l.Query, Source: l.Hist.File, Err: errs[i]}
		}
	}
	return assessFitted(ctx, cfg, live, fits, alpha, counts)
}

// assessFitted is AssessCounts with each live histogram's fit given:
// fits[i] is live[i].Hist's (fit.FitHistogramContext), counts CountsAll or
// CountsAnswered.
func assessFitted(ctx context.Context, cfg *sim.Config, live []Live, fits []*fit.HistogramFit, alpha float64, counts string) ([]Model, error) {
	// The queued models' client-side latency, from one simulation of the
	// scenario's traffic.
	var queued []string
	most := ObservedRequests
	censored := func(l Live) []string {
		if counts != CountsAnswered || l.Key != "latency" {
			return nil
		}
		cb, _, _ := cancelledBy(cfg, l.Index, l.Hist.Total())
		return cb
	}
	for _, l := range live {
		if l.Key == "latency" && (queuedAt(cfg, &cfg.Models[l.Index]) != "" || len(censored(l)) > 0) {
			queued = append(queued, l.Model)
			most = max(most, int(ObservedPerObservation*l.Hist.Total()))
		}
	}
	obs := &observed{}
	if len(queued) > 0 {
		var err error
		if obs, err = observedLatencies(ctx, cfg, queued, most, counts == CountsAll); err != nil {
			return nil, err
		}
	}
	var out []Model
	for i, l := range live {
		hf := fits[i]
		m := &cfg.Models[l.Index]
		scen := m.Latency
		if l.Key == "ttft" {
			scen = m.TTFT
		}
		at := queuedAt(cfg, m)
		var d Drift
		against := "the scenario's model"
		if xs, ok := obs.xs[l.Model]; ok {
			emp, err := observedDist(l.Model, xs)
			if err != nil {
				return nil, &InputError{Model: l.Model, Query: l.Query, Source: l.Hist.File, Err: err}
			}
			// A queued model's simulated sample counts what the histogram
			// counts: under CountsAll every call to its end, an attempt
			// cancelled in service to the end its answer would have had
			// (its wait and its drawn service time), one cancelled while
			// still queued left out (it never reached the model); under
			// CountsAnswered the completed attempts only.
			switch cb, _, _ := cancelledBy(cfg, l.Index, l.Hist.Total()); {
			case at != "" && len(cb) > 0 && counts == CountsAll:
				against = fmt.Sprintf("the client-side latency simulated (%d calls of %d requests at provider %s, the wait and any replica's slowdown included; the %d attempts class %s cancelled in service counted to the end of their drawn service time, as a histogram of every call counts them, the %d cancelled while still queued left out, never having reached the model)", len(xs), obs.requests, at, obs.cancelled[l.Model], strings.Join(cb, ", "), obs.queued[l.Model])
			case at != "" && len(cb) > 0:
				against = fmt.Sprintf("the client-side latency simulated (%d completed attempts of %d requests at provider %s, the wait and any replica's slowdown included, the attempts class %s cancels left out, as a histogram of answered calls leaves them out)", len(xs), obs.requests, at, strings.Join(cb, ", "))
			case at != "":
				against = fmt.Sprintf("the client-side latency simulated (%d completed attempts of %d requests at provider %s, the wait and any replica's slowdown included)", len(xs), obs.requests, at)
			default:
				against = fmt.Sprintf("the client-side latency simulated (%d completed attempts of %d requests, the attempts class %s cancels left out, as a histogram of answered calls leaves them out)", len(xs), obs.requests, strings.Join(censored(l), ", "))
			}
			d = judgeObserved(cfg, l.Hist, emp, xs, hf.Best().Dist, alpha)
		} else {
			d = Judge(l.Hist, scen, hf.Best().Dist, alpha)
			if at != "" {
				d.Warnings = append(d.Warnings, fmt.Sprintf("provider %s queues the model's attempts: a client-side histogram of its time to first token includes the wait, which the scenario's ttft excludes; judged against the ttft as it is, and not refitted", at))
			}
		}
		cb, hedged, deadline := cancelledBy(cfg, l.Index, l.Hist.Total())
		if counts == CountsAll && l.Key == "latency" && len(cb) > 0 && d.Verdict == Shifted {
			than := "the model"
			if at != "" {
				than = "every call simulated"
			}
			d.Warnings = append(d.Warnings, fmt.Sprintf("class %s cancels this model's %s; the histogram is taken as every call's latency (--histogram-counts all): if it counts the answered calls only, it lacks the slow calls cancelled and reads faster than %s; then give --histogram-counts answered", strings.Join(cb, ", "), cutText(hedged, deadline), than))
		}
		for _, w := range hf.Warnings {
			// The fit's own, after the reader's and the counts' it
			// shares with Judge.
			if !slices.Contains(d.Warnings, w) {
				d.Warnings = append(d.Warnings, w)
			}
		}
		mo := Model{
			Model: l.Model, Key: l.Key, Query: l.Query, Source: l.Hist.File,
			Fit: hf, FitName: hf.Best().Name, FitSpec: hf.SpecTOML(),
			Drift: d, QueuedAt: at, Against: against, CancelledBy: censored(l),
		}
		if _, judgedSimulated := obs.xs[l.Model]; !judgedSimulated && d.Verdict == Shifted {
			if mo.FitRejected = fitRejected(l.Hist, hf, scen, alpha); mo.FitRejected != "" {
				mo.FitRejectedBrief, mo.fitAdvice = testRejectedBrief(hf)
			}
		}
		if hf.SpreadUnresolved && d.Verdict == Shifted {
			mo.FitRejected = spreadRejected(l.Hist, hf)
			mo.FitRejectedBrief, mo.fitAdvice = spreadRejectedBrief(hf)
		}
		if err := fit.AllAboveTop(l.Hist); err != nil && d.Verdict == Shifted {
			mo.FitRejected = openTopRejected(l.Hist)
			mo.FitRejectedBrief, mo.fitAdvice = openTopRejectedBrief(hf)
		}
		mo.Applied, mo.NotApplied = mo.Refit(), mo.notApplied(cutText(hedged, deadline))
		out = append(out, mo)
	}
	return out, nil
}

// LiveConfig returns a copy of cfg in which every model to refit
// (Model.Refit: shifted, not queued) has its fitted live latency (or
// TTFT); models judged unchanged, or that cannot be told, keep the
// scenario's, so that fitting noise does not move a pick, and so do queued
// models, whose live fit holds the wait the simulation adds, and models
// whose fit is no model of the live latency (Model.FitRejected).
func LiveConfig(cfg *sim.Config, models []Model) *sim.Config {
	c := *cfg
	c.Models = slices.Clone(cfg.Models)
	for _, m := range models {
		if !m.Refit() {
			continue
		}
		i := slices.IndexFunc(c.Models, func(x sim.Model) bool { return x.Name == m.Model })
		var d dist.Continuous = m.Fit.Best().Dist
		if m.Key == "ttft" {
			c.Models[i].TTFT = d
		} else {
			c.Models[i].Latency = d
		}
	}
	return &c
}

// heldModels returns the models among models that class cl of cfg sends
// to (its policy's primary and targets, a pipeline's steps' too) and whose
// shift is not applied (Model.NotApplied).
func heldModels(cfg *sim.Config, cl *sim.Class, models []Model) []string {
	var idx []int
	add := func(p *sim.Policy) {
		idx = append(idx, p.Primary)
		idx = append(idx, p.Targets...)
	}
	if cl.Pipeline == nil {
		add(&cl.Policy)
	} else {
		for si := range cl.Pipeline.Steps {
			add(&cl.Pipeline.Steps[si].Call.Policy)
		}
	}
	var out []string
	for _, m := range models {
		if m.NotApplied == "" || slices.Contains(out, m.Model) {
			continue
		}
		if slices.ContainsFunc(idx, func(i int) bool { return i >= 0 && i < len(cfg.Models) && cfg.Models[i].Name == m.Model }) {
			out = append(out, m.Model)
		}
	}
	return out
}

// Decisions of a ClassAdvice.
const (
	Keep   = "keep"
	Change = "change"
)

// ClassAdvice compares, for one class, the current policy on the live
// models with the new pick optimize makes on them.
type ClassAdvice struct {
	Class string `json:"class"`
	// Now is the rollout check of the current policy on the live models
	// (optimize.Check): Checked its figures now, Predicted what the
	// scenario's models predicted for it (the same policy simulated on
	// them with the same requests and seed).
	Now optimize.RolloutClass `json:"current_policy"`
	// NowRequests is the class's requests in that check.
	NowRequests int64 `json:"current_policy_requests"`
	// New is the new pick's label ("none" for no hedging), with its
	// delay (seconds) and copies, and its figures from the sweep. A
	// pipeline's pick, whose hedged steps each have their own delay and
	// copies (New names them, "ga 100ms, gb 0s"; the sweep's candidate
	// gives them in Steps), and an undecided optimisation's have neither:
	// NewDelay and NewCopies are nil (JSON null).
	New          string      `json:"new_pick"`
	NewDelay     *float64    `json:"new_delay_s"`
	NewCopies    *int        `json:"new_copies"`
	NewLatency   sim.Latency `json:"new_latency_s"`
	NewAnswered  jnum        `json:"new_answered_share"`
	NewAddedCost jnum        `json:"new_added_cost_pct"`
	NewRequests  int64       `json:"new_requests"`
	// Percentile is the objective's percentile the decision compared
	// (0.95, or 0.99 for a p99 objective).
	Percentile float64 `json:"percentile"`
	// Decision is Keep or Change and Why says why, with the figures;
	// SamePolicy is true when the new pick is the current policy, which
	// CurrentLabel says in words.
	Decision     string `json:"decision"`
	Why          string `json:"why"`
	SamePolicy   bool   `json:"same_policy"`
	CurrentLabel string `json:"current_policy_label"`
	// NewPickNote is the optimisation's reason for the new pick
	// (optimize.ClassReport.PickNote): why it hedges as it does, or why
	// it does not hedge at all.
	NewPickNote string `json:"new_pick_note"`
	// Held names the models the class sends to that shifted but keep the
	// scenario's model in the re-check (Model.NotApplied: queued, or
	// judged on answered calls): the current policy's figures now hold no
	// live latency of theirs, and the new pick is made on the scenario's.
	Held []string `json:"held_models,omitempty"`
	// OverCostCap is true when the objective caps added cost (a p95, p99
	// or answered objective with a finite max_added_cost_pct or
	// --max-cost) and the current policy's added cost on the live models
	// is over it, by optimize's own feasibility rule: the current policy
	// no longer meets the scenario's objective, whatever Decision says.
	// OverCostCapWhy says so with the figures.
	OverCostCap    bool   `json:"current_policy_over_cost_cap"`
	OverCostCapWhy string `json:"current_policy_over_cost_cap_why,omitempty"`
	// Undecided is true when the optimisation on the live models is
	// undecided (optimize.Verdict.Undecided) and the current policy is
	// kept: the decision is Keep, New is "undecided" and the new pick's
	// figures are unknown (null). False when the current policy answers
	// significantly fewer requests than no hedging: the decision is then
	// Change, to no hedging (Decide).
	Undecided bool `json:"undecided,omitempty"`
	// NowVerdict is the verdict rule of the optimisation (its Report.Rule,
	// under the class's objective) applied to the current policy against
	// no hedging in the rollout check on the live models (earns.go): a
	// current policy that hedges is kept only while the rule accepts it
	// (Hedge) or cannot tell (Undecided). nil when the class does not
	// hedge, or when the decision came before the rule was applied (an
	// undecided optimisation, a new pick that is the current policy, a
	// policy over the cost cap).
	NowVerdict *optimize.Verdict `json:"current_policy_verdict,omitempty"`

	// rolled says which candidate of the class's optimisation a Change
	// rolls out (Rolled): 0 its pick, k > 0 the candidate k−1, −1 none.
	rolled int
}

// Recheck is the current policy re-checked on the live models and the new
// optimisation on them.
type Recheck struct {
	// Check is the rollout check of the current policies on the live
	// models, against the scenario's prediction for them.
	Check *optimize.RolloutCheck `json:"rollout_check"`
	// New is the optimisation on the live models.
	New *optimize.Report `json:"optimize"`
	// Classes advise, class by class, keep or change.
	Classes []ClassAdvice `json:"classes"`
	// Adaptive compares each class's static policy with an adaptive
	// delay on the live models and through the shift (adaptive.go); nil
	// when RecheckOptions.NoAdaptive.
	Adaptive *AdaptiveComparison `json:"adaptive,omitempty"`
}

// RecheckOptions say how to re-check.
type RecheckOptions struct {
	// Settings are the optimisation's (the scenario's [optimize] table
	// and the command line's overrides); Settings.CheckRequests is the
	// number of requests of the checks of the current policy (the
	// optimisation itself runs without a rollout check of its own).
	Settings optimize.Settings
	// Workers is the number of simulations at once (0: GOMAXPROCS).
	Workers int
	// Progress, when set, is called as optimize.Options.Progress is.
	Progress func(stage string, done, total int)
	// NoAdaptive leaves out the comparison with an adaptive delay.
	NoAdaptive bool
	// Models are the assessed models (Assess), which the comparison with
	// an adaptive delay needs for the shift environment (ShiftConfig).
	Models []Model
}

// RecheckPolicy simulates the current policy of every class of cfg on the
// scenario's models (cfg) and on the live ones (live), both with
// opt.Settings.CheckRequests requests on the scenario's seed, the first
// as the prediction the second is checked against (optimize.Check); then
// optimises every class on the live models (optimize.Run) and compares,
// class by class (see Decide). It stops with ctx's error when ctx is done.
func RecheckPolicy(ctx context.Context, cfg, live *sim.Config, opt RecheckOptions) (*Recheck, error) {
	s := opt.Settings
	level := s.Level
	n := s.CheckRequests
	if n <= 0 {
		n = min(optimize.DefaultCheckRequests, 5*s.Requests)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	pc := *cfg
	pc.Requests = n
	hedged, base, err := sim.RunWithBaseline(ctx, &pc, workers)
	if err != nil {
		return nil, err
	}
	pred := sim.NewReport(&pc, hedged, base)
	current := &optimize.Report{Scenario: cfg.Name, Seed: cfg.Seed, Level: level}
	for i, cl := range pc.Classes {
		got := &pred.Classes[i]
		c := optimize.Candidate{
			Label: "current", Configured: true, Hedging: hedges(&cl),
			Requests: got.Requests, Latency: got.Latency, AnsweredShare: got.AnsweredShare,
			HedgedShare: got.HedgedShare, AttemptsPerRequest: got.AttemptsPerRequest,
		}
		_, _, c.P95CIOK = hedged.Classes[i].QuantileCI(0.95, level)
		_, _, c.P99CIOK = hedged.Classes[i].QuantileCI(0.99, level)
		// When the requests interact, the row's interval is from batches
		// after the warm-up cut, which may need more requests than the
		// order statistics: it is an interval only when both say so.
		c.P95CIOK = c.P95CIOK && got.Latency.P95CIOK
		c.P99CIOK = c.P99CIOK && got.Latency.P99CIOK
		// The prediction's share within the objective's target, which
		// the check's (RolloutWithin.Predicted) is compared with.
		o := s.For(cl.Name).Objective
		if w, ci, ok := optimize.WithinShare(o, &hedged.Classes[i], level); ok {
			c.AnsweredWithinShare, c.AnsweredWithinShareCI95 = w, ci
		}
		basis := optimize.CostUSD
		if got.AddedCostPct != nil {
			c.AddedCostPct = *got.AddedCostPct
		} else {
			basis = optimize.CostCalls
			if b := base.Classes[i]; b.Attempts.Sent > 0 && b.Requests > 0 && hedged.Classes[i].Requests > 0 {
				c.AddedCostPct = 100 * (float64(hedged.Classes[i].Attempts.Sent)/float64(hedged.Classes[i].Requests)/(float64(b.Attempts.Sent)/float64(b.Requests)) - 1)
			}
		}
		cr := optimize.ClassReport{Class: cl.Name, Requests: got.Requests, Objective: o, CostBasis: basis,
			Candidates: []optimize.Candidate{c}}
		current.Classes = append(current.Classes, cr)
	}
	check, err := optimize.Check(ctx, live, current, n, level)
	if err != nil {
		return nil, err
	}
	for i := range check.Classes {
		// Here the "sweep" the check compares with is the prediction on
		// the scenario's models.
		check.Classes[i].Flag = strings.ReplaceAll(check.Classes[i].Flag, "the sweep's", "the prediction's")
		check.Classes[i].Note = strings.ReplaceAll(check.Classes[i].Note, "the sweep's", "the prediction's")
	}
	s.CheckRequests = 0
	newRep, err := optimize.Run(live, s, optimize.Options{Workers: opt.Workers, Context: ctx, Progress: opt.Progress})
	if err != nil {
		return nil, err
	}
	out := &Recheck{Check: check, New: newRep}
	for i := range newRep.Classes {
		cr := &newRep.Classes[i]
		ci := slices.IndexFunc(live.Classes, func(c sim.Class) bool { return c.Name == cr.Class })
		ri := slices.IndexFunc(check.Classes, func(c optimize.RolloutClass) bool { return c.Class == cr.Class })
		if ci < 0 || ri < 0 {
			continue
		}
		var nowReq int64
		var nowCI *[2]*float64
		for _, c := range check.Report.Classes {
			if c.Class == cr.Class {
				nowReq = c.Requests
				if c.Batches != nil { // requests that interact
					nowCI = c.AnsweredShareCI95
				}
			}
		}
		a := Decide(live, &live.Classes[ci], check.Classes[ri], nowReq, nowCI, cr, newRep.Rule, level)
		a.Held = heldModels(live, &live.Classes[ci], opt.Models)
		out.Classes = append(out.Classes, a)
	}
	if !opt.NoAdaptive {
		// As many requests as each candidate of the optimisation had.
		na := s.Requests
		if na <= 0 {
			na = optimize.DefaultRequests
		}
		if out.Adaptive, err = compareAdaptive(ctx, cfg, live, newRep, out.Classes, opt.Models, na, workers); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// compareAdaptive builds each class's static policy (the new pick when
// the advice is to change, else the current policy) and its adaptive
// variant (AdaptivePolicy), and compares them (CompareAdaptive) on the
// live models and through the shift (ShiftConfig).
func compareAdaptive(ctx context.Context, cfg, live *sim.Config, newRep *optimize.Report, advice []ClassAdvice, models []Model, n, workers int) (*AdaptiveComparison, error) {
	ac := &AdaptiveComparison{Requests: n}
	static := *live
	static.Classes = slices.Clone(live.Classes)
	adaptive := make([]sim.Policy, len(static.Classes))
	skip := make([]bool, len(static.Classes))
	pct := make([]float64, len(static.Classes))
	objs := make([]optimize.Objective, len(static.Classes))
	classes := make([]AdaptiveClass, len(static.Classes))
	for i := range static.Classes {
		cl := &static.Classes[i]
		ai := slices.IndexFunc(advice, func(a ClassAdvice) bool { return a.Class == cl.Name })
		ri := slices.IndexFunc(newRep.Classes, func(c optimize.ClassReport) bool { return c.Class == cl.Name })
		if cl.Pipeline != nil || ai < 0 || ri < 0 {
			skip[i] = true
			if cl.Pipeline != nil {
				ac.Skipped = append(ac.Skipped, cl.Name+": a pipeline class (its steps' policies are not compared with an adaptive delay)")
			}
			continue
		}
		pick := advice[ai].Rolled(&newRep.Classes[ri])
		pol := cl.Policy
		if advice[ai].Decision == Change || pol.Adaptive != nil {
			if pick == nil || pick.Configured {
				skip[i] = true
				why := ": its adaptive delay is its best policy; no static policy to compare"
				if pick == nil {
					why = ": the optimisation on the live models is undecided, and its policy has an adaptive delay; no static policy to compare"
				}
				ac.Skipped = append(ac.Skipped, cl.Name+why)
				continue
			}
			pol = pick.Policy(cl.Policy)
		}
		adaptive[i], classes[i].FromScenario = AdaptivePolicy(&cfg.Classes[i], pol)
		cl.Policy = pol
		pct[i] = advice[ai].Percentile
		objs[i] = newRep.Classes[ri].Objective
		classes[i].Class, classes[i].Percentile = cl.Name, pct[i]
	}
	for i := range static.Classes {
		if skip[i] {
			continue
		}
		classes[i].Static = sim.PolicyText(&static, &static.Classes[i])
		a := static
		a.Classes = slices.Clone(static.Classes)
		a.Classes[i].Policy = adaptive[i]
		classes[i].Adaptive = sim.PolicyText(&a, &a.Classes[i])
	}
	// The shift keeps the static policies; its models are the scenario's
	// and the live ones, alternating.
	shift, desc, note := ShiftConfig(scenarioModels(cfg, &static), models, n)
	ac.Shift, ac.ShiftNote = desc, note
	envs, err := CompareAdaptive(ctx, &static, shift, adaptive, skip, pct, objs, newRep.Rule, n, workers)
	if err != nil {
		return nil, err
	}
	for i := range classes {
		if skip[i] {
			continue
		}
		c := classes[i]
		c.Live, c.Shift = *envs[i][0], envs[i][1]
		verdict(&c)
		if ai := slices.IndexFunc(advice, func(a ClassAdvice) bool { return a.Class == c.Class }); ai >= 0 {
			c.CostNote = costNote(&c, &advice[ai], n)
		}
		ac.Classes = append(ac.Classes, c)
	}
	return ac, nil
}

// scenarioModels returns static with cfg's (the scenario's) models.
func scenarioModels(cfg, static *sim.Config) *sim.Config {
	c := *static
	c.Models = cfg.Models
	return &c
}

// hedges reports whether class cl sends copies.
func hedges(cl *sim.Class) bool {
	if cl.Pipeline != nil {
		for _, st := range cl.Pipeline.Steps {
			if st.Call.Policy.Copies > 0 {
				return true
			}
		}
		return false
	}
	return cl.Policy.Copies > 0
}

// samePolicy reports whether the pick p is class cl's current policy.
func samePolicy(cl *sim.Class, p *optimize.Candidate) bool {
	if p.Configured {
		return true
	}
	if cl.Pipeline != nil {
		return false
	}
	pol := &cl.Policy
	if !p.Hedging {
		return pol.Copies == 0
	}
	return pol.Adaptive == nil && len(pol.Delays) == 1 && pol.Delays[0] == p.Delay && pol.Copies == p.Copies && !p.SetsTargets()
}

// overCapAsk ends the over-cap note of a policy the decision keeps.
const overCapAsk = "; change the policy or raise the cap"

// Decide says keep or change for class cl of cfg: now is the current policy's
// rollout check on the live models (nowReq requests; nowAnswered its
// answered share's interval from batches when its requests interact, as
// the check's report gives it, nil for independent requests), cr
// the class's optimisation on them, rule its verdict rule (the
// optimisation's Report.Rule) and level the report's confidence level.
//
// The rules, in order:
//
//   - the optimisation is undecided (cr.Verdict.Undecided: too few
//     requests for an interval on the objective's percentile): keep, as
//     optimize keeps the configured policy (Undecided is set, and the new
//     pick's figures are not given);
//   - the current policy, in the check on the live models, answers
//     significantly fewer requests than no hedging
//     (now.AnswersFell): it is not kept, undecided or not, as optimize
//     does not roll out such a configured policy; the decision is change,
//     to no hedging, unless a rule below changes it to the new pick
//     (a new pick that is the current policy changes to no hedging too,
//     as optimize's rollout check rolls out no hedging for a pick it
//     finds answering fewer: fewer_answers_in_check);
//   - the new pick is the current policy: keep;
//   - the current policy's added cost on the live models is over the
//     objective's cap (OverCostCap): keep is not allowed; change to the
//     new pick, optimize's best within the cap, or to no hedging when the
//     pick is not within it;
//   - a current policy that hedges is kept only while it still earns its
//     cost: the verdict rule, applied to it against no hedging in the
//     check (currentVerdict, earns.go; NowVerdict), accepts it or cannot
//     tell. When it rejects it, the decision is change, to the new pick —
//     no hedging when the optimisation's verdict is "don't hedge" — as
//     optimize rolls out no hedging for a pick the rule rejects (unless
//     the policy answers significantly fewer than no hedging: the rule
//     above and below decides then);
//   - otherwise the new pick is better when its objective percentile's
//     interval lies wholly below the current policy's, or its answered
//     share's interval wholly above; worse when the reverse holds for
//     either (under objective answered or checked with a target, its
//     share within the target's interval, the objective's figure, stands
//     in for the percentile's, and Why gives that share first). Change
//     when it is better and not worse, or neither but at
//     least 1 point of added cost cheaper; keep otherwise (within the
//     intervals of the new best, or the new best trades answers or speed
//     for money). A keep of a policy that hedges beside a new pick of no
//     hedging says why (earnsNote): the rule still accepts it in the
//     check, or the check cannot tell.
//
// The percentiles are compared only when both intervals are sound
// (CIOK) and neither is unbounded above while its estimate is finite
// (an interval [lo, +Inf) cannot show that the other figure is no
// worse), unless both are misses; otherwise the new pick is never called
// better (neither answers nor cost decide: its percentile might be
// worse), only worse when it answers significantly fewer, and Why says
// "could not compare pXX".
//
// The answered shares' intervals are each run's own: Wilson's for
// independent requests, from batches when the requests interact (the
// check's report's, and the candidate's of optimize), since Wilson's are
// far too narrow then. The two runs cannot be paired batch by batch (the
// check runs every class together on CheckRequests, the optimisation
// each class alone), so the intervals treat them as independent samples,
// though they share the scenario's seed; like optimize's own test this
// errs towards keep. Under objectives answered and checked the shares
// within the target are compared the same way: the check's interval from
// its batches when its requests interact (RolloutWithin.ShareCI; for
// checked, of the checked end-to-end times), the new pick's from its
// batches when the sweep gives one, else Wilson's (the sweep gives none
// for a checked share of requests that interact).
func Decide(cfg *sim.Config, cl *sim.Class, now optimize.RolloutClass, nowReq int64, nowAnswered *[2]*float64, cr *optimize.ClassReport, rule optimize.Rule, level float64) ClassAdvice {
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	p := cr.Picked()
	pct := cr.Objective.Percentile
	if pct != 0.99 {
		pct = 0.95
	}
	a := ClassAdvice{
		Class: cr.Class, Now: now, NowRequests: nowReq, Percentile: pct, CurrentLabel: sim.PolicyText(cfg, cl),
		NewPickNote: cr.PickNote,
	}
	a.setNew(p)
	a.SamePolicy = samePolicy(cl, p)
	o := cr.Objective
	if (o.Goal == optimize.LowestLatency || o.Goal == optimize.MostAnswered) && !math.IsInf(o.MaxAddedCostPct, 1) &&
		now.AddedCostPct != nil && *now.AddedCostPct > o.MaxAddedCostPct+1e-9 {
		a.OverCostCap = true
		meets := "it no longer meets the scenario's objective"
		if now.PredictedAddedCostPct > o.MaxAddedCostPct+1e-9 {
			meets = fmt.Sprintf("it did not meet the scenario's objective on the scenario's models either (%s predicted)", pctText(now.PredictedAddedCostPct))
		}
		a.OverCostCapWhy = fmt.Sprintf("the current policy's added cost on the live models, %s, is over the objective's cap of +%s%% (max_added_cost_pct): %s"+overCapAsk,
			pctText(*now.AddedCostPct), num(o.MaxAddedCostPct), meets)
	}
	if cr.Verdict.Undecided && now.AnswersFell() {
		// As optimize (its rollout check's rule): a configured policy
		// that answers significantly fewer requests than no hedging does
		// not roll out, undecided or not; no hedging does.
		reason := noPrecision.ReplaceAllString(cr.Verdict.Reason, "")
		return a.noHedging(cl, now, cr, "the optimisation on the live models is undecided ("+reason+"), but")
	}
	if cr.Verdict.Undecided {
		// As optimize: an undecided class keeps its configured policy
		// (export and --write-scenario keep it), whatever Pick is.
		a.Undecided, a.SamePolicy, a.rolled = true, false, -1
		a.New, a.NewDelay, a.NewCopies, a.NewLatency, a.NewAnswered, a.NewAddedCost, a.NewRequests =
			"undecided", nil, nil, unknownLatency(), jnum(math.NaN()), jnum(math.NaN()), cr.Requests
		a.NewPickNote = ""
		// retune has no --precision: its lever is --requests alone.
		reason := noPrecision.ReplaceAllString(cr.Verdict.Reason, "")
		a.Decision, a.Why = Keep, "the optimisation on the live models is undecided, so the current policy stays, as optimize keeps the configured policy: "+reason
		if a.OverCostCap {
			a.Why += "; it stays though it is over the cost cap (below) until a rerun with more --requests can pick within it"
		}
		return a
	}
	if a.SamePolicy && now.AnswersFell() {
		// As optimize, whose rollout check rolls out no hedging when it
		// finds the pick answering significantly fewer requests than no
		// hedging (fewer_answers_in_check): the optimisation chose the
		// current policy, but the check refutes it.
		return a.noHedging(cl, now, cr, "the new best on the live models is the current policy, but")
	}
	if a.SamePolicy {
		a.Decision, a.Why = Keep, "the new best on the live models is the current policy"
		if a.OverCostCap {
			a.Why += fmt.Sprintf(", whose added cost the optimisation measured at %s, within the cap, and the check (more requests, every class together) at %s, over it",
				pctText(p.AddedCostPct), pctOf(now.AddedCostPct))
		}
		return a
	}
	nowQ, nowCI, nowOK := now.Checked.P95, now.Checked.P95CI95, now.Checked.P95CIOK
	if pct == 0.99 {
		nowQ, nowCI, nowOK = now.Checked.P99, now.Checked.P99CI95, now.Checked.P99CIOK
	}
	name := fmt.Sprintf("p%g", pct*100)
	nowCost := math.NaN()
	if now.AddedCostPct != nil {
		nowCost = *now.AddedCostPct
	}
	// Under objective answered or checked with a target, the objective's
	// figure is the share within the target: the reasons lead with it,
	// and it is compared in place of the percentile.
	within := o.Goal == optimize.MostAnswered && o.Target > 0 && now.Within != nil && p.Requests > 0
	on := name
	if within {
		on = now.Within.What + " within " + sec(now.Within.TargetS)
	}
	// figuresTo gives the current policy's figures against candidate to's.
	figuresTo := func(to *optimize.Candidate) string {
		f := fmt.Sprintf("%s %s → %s, answered %.1f%% → %.1f%%, added cost %s → %s",
			name, sec(nowQ), sec(to.Q(pct)), 100*now.AnsweredShare, 100*to.AnsweredShare, pctText(nowCost), pctText(to.AddedCostPct))
		if within {
			f = fmt.Sprintf("%s %.1f%% → %.1f%%, ", on, 100*now.Within.Share, 100*to.AnsweredWithinShare) + f
		}
		return f
	}
	if a.OverCostCap {
		to := p
		if p.Hedging && !p.Feasible {
			to = cr.Baseline()
			a.rolled = 1
			a.setNew(to)
		}
		// The decision already changes it: the note no longer asks to.
		a.OverCostCapWhy = strings.TrimSuffix(a.OverCostCapWhy, overCapAsk) + "; the policy changes (above)"
		a.Decision, a.Why = Change, fmt.Sprintf("the current policy is over the objective's cost cap on the live models (below), so it cannot be kept; %s: %s",
			map[bool]string{true: "the new pick is the best within the cap", false: "no hedging, the new pick not being within the cap"}[to == p],
			figuresTo(to))
		return a
	}
	figures := figuresTo(p)
	v, judged := currentVerdict(cl, &now, nowReq, nowAnswered != nil, cr, rule, level)
	if judged {
		a.NowVerdict = &v
	}
	if judged && !v.Hedge && !v.Undecided && !now.AnswersFell() {
		// As optimize rolls out no hedging for a pick its verdict rule
		// rejects: a current policy that no longer earns its cost is
		// not kept; what the optimisation picks rolls out.
		to := "the new pick, which the optimisation's verdict accepts"
		if !p.Hedging {
			to = "no hedging rolls out, as the optimisation on the live models says " + optimize.LabelNoHedge
		}
		a.Decision, a.Why = Change, fmt.Sprintf("the current policy no longer earns its cost on the live models by the verdict rule, against no hedging in the check (%s), so it is not kept; %s: %s",
			v.Reason, to, figures)
		return a
	}
	newCI := p.CI(pct)
	faster := p.CIOK(pct) && newCI[1] < nowCI[0]
	slower := p.CIOK(pct) && newCI[0] > nowCI[1]
	var unsound []string
	if !(math.IsInf(nowQ, 1) && math.IsInf(p.Q(pct), 1)) {
		switch {
		case !nowOK:
			unsound = append(unsound, "the current policy's 95 % interval is not sound")
		case openAbove(nowQ, nowCI) && !faster:
			unsound = append(unsound, "the current policy's interval has no upper bound")
		}
		switch {
		case !p.CIOK(pct):
			unsound = append(unsound, "the new pick's 95 % interval is not sound")
		case openAbove(p.Q(pct), newCI) && !slower:
			unsound = append(unsound, "the new pick's interval has no upper bound")
		}
	}
	if within {
		// The shares' own intervals (Wilson's where a run has none):
		// better when the new pick's lies wholly above the check's.
		wl, wh := ownInterval(p.AnsweredWithinShareCI95, p.AnsweredWithinShare, p.Requests, z)
		cl, ch := ownInterval(now.Within.ShareCI, now.Within.Share, nowReq, z)
		faster, slower, unsound = wl > ch, wh < cl, nil
	}
	var pickCI *[2]*float64
	if p.CIMethod == optimize.CIMethodGrid { // requests that interact
		pickCI = p.AnsweredShareCI95
	}
	nl, nh := ownInterval(pickCI, p.AnsweredShare, p.Requests, z)
	cl2, ch := ownInterval(nowAnswered, now.AnsweredShare, nowReq, z)
	more, fewer := nl > ch, nh < cl2
	switch {
	case len(unsound) > 0 && fewer:
		a.Decision, a.Why = Keep, "the new best under the objective answers fewer: "+figures
	case len(unsound) > 0:
		a.Decision, a.Why = Keep, fmt.Sprintf("could not compare %s (%s; more --requests or --check-requests may give one), so the new pick cannot be called better: %s",
			name, strings.Join(unsound, ", "), figures)
	case (faster || more) && !(slower || fewer):
		a.Decision, a.Why = Change, "the new pick does significantly better: "+figures
	case !(faster || more || slower || fewer) && p.AddedCostPct < nowCost-1:
		a.Decision, a.Why = Change, "the new pick does as well, within the intervals, for less added cost: "+figures
	case slower || fewer:
		a.Decision, a.Why = Keep, "the new best under the objective does worse on "+on+" or answers: "+figures
	default:
		a.Decision, a.Why = Keep, "the current policy is within the intervals of the new best: "+figures
	}
	if a.Decision == Keep && now.AnswersFell() {
		return a.noHedging(cl, now, cr, "the rules above would keep it ("+a.Why+"), but")
	}
	if a.Decision == Keep && hedges(cl) && !p.Hedging {
		a.Why += earnsNote(v, judged)
	}
	return a
}

// noHedging makes a change to no hedging (cr's baseline) for a current
// policy that answers significantly fewer requests than no hedging in the
// check on the live models (now.AnswersFell): such a policy is not kept,
// as optimize does not roll out such a configured policy. before says why
// the decision would otherwise have been another, ending in "but".
func (a *ClassAdvice) noHedging(cl *sim.Class, now optimize.RolloutClass, cr *optimize.ClassReport, before string) ClassAdvice {
	b := cr.Baseline()
	a.Undecided, a.rolled = false, 1
	a.setNew(b)
	a.SamePolicy = samePolicy(cl, b)
	a.NewPickNote = ""
	a.Decision = Change
	a.Why = fmt.Sprintf("%s the current policy answers significantly fewer requests than no hedging on the live models (%.2f%% → %.2f%% in the check), so it is not kept, as optimize does not roll out such a configured policy: no hedging rolls out, a pick never trading answers for speed",
		before, 100*now.NoHedgingAnswered, 100*now.AnsweredShare)
	if a.OverCostCap {
		a.OverCostCapWhy = strings.TrimSuffix(a.OverCostCapWhy, overCapAsk) + "; the policy changes (above)"
	}
	return *a
}

// setNew sets a's new-pick fields from candidate p; a pipeline's (p.Steps)
// has no single delay and copies (nil).
func (a *ClassAdvice) setNew(p *optimize.Candidate) {
	a.New, a.NewDelay, a.NewCopies = p.Label, nil, nil
	if p.Steps == nil {
		d, n := p.DelaySeconds, p.Copies
		a.NewDelay, a.NewCopies = &d, &n
	}
	a.NewLatency, a.NewAnswered, a.NewAddedCost, a.NewRequests = p.Latency, jnum(p.AnsweredShare), jnum(p.AddedCostPct), p.Requests
}

// Rolled returns the candidate of cr (the class's optimisation on the
// live models) that a's decision rolls out when it is Change: the pick,
// or no hedging when the current policy is over the cost cap and the
// pick is not within it; nil when a keeps the current policy because the
// optimisation is undecided.
func (a *ClassAdvice) Rolled(cr *optimize.ClassReport) *optimize.Candidate {
	switch {
	case a.rolled == 0:
		return cr.Picked()
	case a.rolled < 0 || a.rolled > len(cr.Candidates):
		return nil
	}
	return &cr.Candidates[a.rolled-1]
}

// noPrecision matches optimize's advice " or --precision X", which
// hedgesim optimize takes and retune does not.
var noPrecision = regexp.MustCompile(` or --precision [0-9.]+`)

// openAbove reports whether a percentile's interval ci is unbounded above
// while the estimate q is finite: its upper rank falls on a request not
// answered in time, so it cannot show that another figure is no worse.
func openAbove(q float64, ci [2]float64) bool {
	return !math.IsInf(q, 1) && math.IsInf(ci[1], 1) && !math.IsInf(ci[0], 1)
}

// unknownLatency returns a Latency whose figures are all unknown (NaN,
// null in JSON).
func unknownLatency() sim.Latency {
	n := math.NaN()
	return sim.Latency{Mean: n, P50: n, P90: n, P95: n, P99: n, P999: n,
		P95CI95: [2]float64{n, n}, P99CI95: [2]float64{n, n}}
}

// ownInterval returns a run's interval ci of a share p of n when it has
// one with both bounds, else Wilson's at z.
func ownInterval(ci *[2]*float64, p float64, n int64, z float64) (float64, float64) {
	if ci != nil && ci[0] != nil && ci[1] != nil {
		return *ci[0], *ci[1]
	}
	return wilson(p, n, z)
}

// wilson returns the Wilson score interval of a share p of n at z.
func wilson(p float64, n int64, z float64) (float64, float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / d
	return c - h, c + h
}

// sec formats a latency v in seconds as every command does
// (sim.FormatSeconds: "344ms", "2.62s"), and a miss (+Inf, or NaN for a
// percentile without a value) as "miss".
func sec(v float64) string {
	if math.IsInf(v, 1) || math.IsNaN(v) {
		return "miss"
	}
	return sim.FormatSeconds(v)
}

// pctText formats a change in percent with its sign (sim.SignedChange at
// one decimal: "+12.3%", "-0.04%"), or "n/a" for NaN.
func pctText(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return sim.SignedChange(v, 1) + "%"
}
