package optimize

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/sim"
)

// Cost bases of ClassReport.CostBasis.
const (
	// CostUSD: added cost is measured in US dollars.
	CostUSD = "usd"
	// CostCalls: the class costs nothing without hedging (no prices), so
	// added cost is measured in calls (attempts) per request.
	CostCalls = "calls"
)

// Candidate is one policy tried for a class, with what it did. Latencies
// are in seconds, shares in [0, 1], costs in USD per 1000 requests and
// percentages relative to the class's no-hedging candidate.
type Candidate struct {
	// Label names the candidate in tables and plots: "none" for no
	// hedging, else the delay ("650ms"), followed by "×k" when the grid
	// tries several copy counts and "→model" when it tries several targets.
	Label string `json:"label"`
	// Hedging is false for the no-hedging candidate.
	Hedging bool `json:"hedging"`
	// Configured is true for the class's own policy as the scenario
	// configures it (label "configured"), tried when it is of a kind the
	// grid does not try: fallback copies, an adaptive delay, or a list of
	// different delays.
	Configured bool `json:"configured"`
	// Adaptive is, for an adaptive candidate (label "adaptive pNN",
	// Search.Adaptive), its adaptive delay, which replaces Delay (then
	// only the policy's starting value, never in force); absent otherwise.
	Adaptive *AdaptiveDelay `json:"adaptive,omitempty"`
	// Delay is the gap before each copy (0 for no hedging).
	Delay        time.Duration `json:"-"`
	DelaySeconds float64       `json:"delay_s"`
	// Copies is the maximum number of copies beyond the primary (0 for no
	// hedging) and Target the model(s) they go to, comma-separated.
	Copies int    `json:"copies"`
	Target string `json:"target"`
	// Requests is the number of requests simulated.
	Requests int64 `json:"requests"`
	// Latency has the percentiles (nearest rank), the mean and the
	// confidence intervals of p95 and p99 (at the report's level, despite
	// the field names, which are shared with `hedgesim run`).
	Latency sim.Latency `json:"latency_s"`
	// P95CIOK and P99CIOK say whether the intervals of p95 and p99 are
	// order-statistic intervals inside the sample (sim's
	// ClassResult.QuantileCI), or batched ones whose batches are long
	// enough. When false, the requests are too few (see
	// MinRequestsForCI): the interval is clamped to the sample's extremes
	// and means nothing, and no difference in that percentile counts as
	// significant. The zero value is false. JSON names them as run's
	// report does (p95_ci95_ok; before, p95_ci_ok).
	P95CIOK bool `json:"p95_ci95_ok"`
	P99CIOK bool `json:"p99_ci95_ok"`
	// AnsweredShare is the share of requests with a valid answer within
	// the deadline; HedgedShare the share that sent at least one copy.
	AnsweredShare float64 `json:"answered_share"`
	HedgedShare   float64 `json:"hedged_share"`
	// AnsweredShareCI95, AnsweredWithinShareCI95 and AddedCostPctCI95 are
	// the intervals, at the report's confidence_level, of AnsweredShare,
	// AnsweredWithinShare (with a target) and AddedCostPct, made as
	// CIMethod says (intervals.go): Wilson's for independent requests,
	// batch means when they interact. The added cost's, made as
	// AddedCostPctCIMethod says, is paired with no hedging: over the
	// run's 1000 arrival sections for independent requests, batch by
	// batch when they interact; it is absent on the calls basis, whose
	// per-request figures the run does not keep, and without prices.
	AnsweredShareCI95       *[2]*float64 `json:"answered_share_ci95,omitempty"`
	AnsweredWithinShareCI95 *[2]*float64 `json:"answered_within_target_share_ci95,omitempty"`
	AddedCostPctCI95        *[2]*float64 `json:"added_cost_pct_ci95,omitempty"`
	CIMethod                string       `json:"ci95_method,omitempty"`
	AddedCostPctCIMethod    string       `json:"added_cost_pct_ci95_method,omitempty"`
	// FewerAnswers is true when the answered share is significantly lower
	// than no hedging's: the difference of the two proportions exceeds z
	// standard errors at the report's level (a two-sided test that treats
	// the runs as independent samples; on common random numbers they are
	// positively correlated, so the test errs towards calling a fall
	// insignificant). Such a candidate is never picked, nor judged "hedge",
	// unless Rule.AllowFewerAnswers.
	FewerAnswers bool `json:"fewer_answers"`
	// OverLimit is true when the candidate's run offers a request-rate
	// limit more requests per second than it admits in the long run
	// (sim's Result.Overloads) while no hedging does not. Such a
	// candidate is judged on its measured figures, 429s included, when
	// the sweep spans at least MinRefills refills of the limit's bucket;
	// otherwise — a shorter run hides part of the overload behind the
	// bucket's initial burst — or with Rule.ExcludeOverload it is
	// excluded, OverloadExcluded, and never picked.
	OverLimit        bool `json:"over_rate_limit"`
	OverloadExcluded bool `json:"overload_excluded"`
	// Loads are the limits the candidate's run pushed past what they
	// sustain, hedging's or not: a provider whose queue grows without
	// bound (LoadQueue). Unstable is true when one of those queues is
	// stable without hedging: the candidate's figures then depend on the
	// sweep's length, and it is never picked.
	Loads    []Load `json:"overloads"`
	Unstable bool   `json:"unstable"`
	// AnsweredWithinShare is the share of requests answered within the
	// objective's Target (objective answered; 0 without a target, JSON
	// null) — for objective checked, of the pipeline turns checked within
	// it.
	AnsweredWithinShare float64 `json:"answered_within_target_share"`
	AttemptsPerRequest  float64 `json:"attempts_per_request"`
	CostPer1kUSD        float64 `json:"cost_per_1k_usd"`
	// AddedCostPct is the cost relative to no hedging, in percent, on the
	// class's cost basis (USD, or calls when the class is free);
	// AddedCallsPct is always in calls.
	AddedCostPct  float64 `json:"added_cost_pct"`
	AddedCallsPct float64 `json:"added_calls_pct"`
	// ReplicaHours is the replica-hours the autoscaled pools the
	// candidate's run sent attempts to were up or starting, summed: what
	// hedging's copies make the pools scale to, which AddedCostPct (tokens
	// and calls) leaves out. Absent when the run sent none to an
	// autoscaled pool (and for pipeline classes).
	ReplicaHours *float64 `json:"replica_hours,omitempty"`
	// Feasible says whether the candidate is within the objective's limits.
	Feasible bool `json:"feasible"`
	// OnFrontier says whether it is on the cost-versus-percentile frontier.
	OnFrontier bool `json:"frontier"`
	// Pick marks the recommended candidate (ClassReport.Pick) and
	// ObjectivePick the one the objective chose (ClassReport.ObjectivePick);
	// they differ only when the verdict rule moved the pick.
	Pick          bool `json:"pick"`
	ObjectivePick bool `json:"objective_pick"`
	// LikePick is true when the objective's percentile is not
	// significantly different from the pick's (the intervals overlap):
	// "~" in the table.
	LikePick bool `json:"indistinguishable_from_pick"`
	// Status is the candidate's fate: StatusPicked, StatusEligible
	// (within every limit, not the best) or StatusRejected; Reasons say
	// why it is not the pick, as codes with figures (empty for the pick).
	// See fate.go.
	Status  string   `json:"status"`
	Reasons []Reason `json:"reasons"`
	// Survival is the empirical survival curve P(T > t), thinned.
	Survival []SurvivalPoint `json:"-"`
	// WonPrimaryShare and WonByCopies are the shares of requests the
	// primary, and copies to each model, answered: nil (JSON null) for a
	// pipeline candidate (one with Steps), whose turns are answered by
	// several calls, each won in its step, not by one call's primary,
	// and WonPrimaryShare nil too for a candidate without requests;
	// MetShare the share
	// that met the class's target (ClassReport.SLOSeconds, or answered);
	// RescuedShare and HarmedShare the shares hedging rescued and harmed,
	// paired request by request with no hedging (0 for no hedging, in
	// every class; for a hedging candidate null when the runs could not
	// be paired, as with closed-loop clients or a pipeline).
	// See won.go.
	WonPrimaryShare *float64    `json:"won_by_primary_share"`
	WonByCopies     []CopyShare `json:"won_by_copies"`
	MetShare        float64     `json:"met_share"`
	RescuedShare    *float64    `json:"rescued_share"`
	HarmedShare     *float64    `json:"harmed_share"`
	// MetShareCI95, RescuedShareCI95 and HarmedShareCI95 are their
	// intervals at the report's level (intervals.go): Wilson's for
	// independent requests, from the batches of the run's fixed grid when
	// the requests interact; RescuedShareCI95 and HarmedShareCI95 absent
	// when their shares are null, and all three absent when the requests
	// interact and the run was not paired, as with closed-loop clients.
	MetShareCI95     *[2]*float64 `json:"met_share_ci95,omitempty"`
	RescuedShareCI95 *[2]*float64 `json:"rescued_share_ci95,omitempty"`
	HarmedShareCI95  *[2]*float64 `json:"harmed_share_ci95,omitempty"`

	// Steps is, for a pipeline class, each step's policy in the candidate
	// (absent for a one-call class).
	Steps []StepPick `json:"steps,omitempty"`

	// policy of the candidate (unexported: what was simulated)
	targets  []int
	stepPols []sim.Policy // a pipeline's step policies
	// bundle, for a pipeline candidate, is set when one of its hedged
	// steps buys less than the verdict rule asks per 1% of cost: it
	// passes the rule only bundled with steps that do, and is not
	// recommended instead of the objective's pick (unbundle).
	bundle *Reason
	// fewerInCheck, set when the rollout check found the candidate, the
	// pick, answering significantly fewer requests than no hedging, is
	// the reason it no longer is (refutePick).
	fewerInCheck *Reason
	// fallback: the configured policy sends copies only after a failure.
	fallback bool
	// The counts behind the shares of who won (won.go).
	won                  sim.Won
	met, rescued, harmed int64
	paired               bool
	// perSecond is the rate at which the candidate's closed-loop clients
	// got requests done (0 for open arrivals).
	perSecond float64
	// batchQ holds the linearised p95 and p99 of each batch of sim's fixed
	// grid when the class's requests interact, for paired decisions
	// (paired.go), and batchFrom the first batch after the warm-up cut;
	// nil otherwise.
	batchQ    [2][]float64
	batchFrom int
	// batchS holds, when the class's requests interact, the answered
	// share, the share answered within the objective's target (nil
	// without one) and the cost per 1000 requests (nil without prices) of
	// each batch of sim's fixed grid over the whole run
	// (sim.ClassResult.GridShares); nil otherwise.
	batchS [3][]float64
	// batchF holds, when the class's requests interact and the run was
	// paired, the shares of each batch of the same grid that met the
	// target, were rescued and were harmed (sim.ClassResult.GridFates);
	// nil otherwise.
	batchF [3][]float64
	// secCost holds, for a no-hedging run whose requests are
	// independent, the run's cost in USD of each of its 1000 arrival
	// sections (sim.ClassResult.SectionCosts); nil otherwise. costSE and
	// costK are, for a hedged candidate paired with such a run, its added
	// cost's standard error in percentage points over those sections and
	// their number (sim.PairedAddedCostSE); 0 and 0 otherwise.
	secCost []float64
	costSE  float64
	costK   int

	// adaptive is an adaptive candidate's delay (adaptive.go).
	adaptive *sim.Adaptive

	// cut is the requests the warm-up cut left out of a batched
	// candidate's figures (0 otherwise): its intervals hold Requests −
	// cut. asked and expect are set on a class's baseline (decide): the
	// requests asked per candidate (Settings.Requests) and those of the
	// class expected at its share of them (0: unknown, as for closed-loop
	// clients or a replayed trace), which scale the advised --requests
	// (adviseRequests).
	cut    int64
	asked  int64
	expect float64
	// batched says the class's run batches its intervals (set with
	// asked): minRequestsFor of a class without requests.
	batched bool
	// replay is set on the baseline of a class whose run replays a trace
	// (replayRun), for the advice on more requests; nil otherwise.
	replay *replayRun
	// rare is set on the baseline of a class swept alone that was not
	// simulated, its requests spanning more time than a run may
	// (tooRare); nil otherwise.
	rare *tooRare
	// upper holds, for independent requests too few for a two-sided
	// interval of the p95 (index 0) or p99 (1), the order statistic that
	// is a one-sided upper bound on it at the report's level
	// (sim.UpperBoundRank), in seconds, upperRank its rank among upperN
	// latencies; rank 0 when there is none (see upperBound).
	upper             [2]float64
	upperRank, upperN [2]int
	// noTarget says that the class's objective has no target: JSON
	// answered_within_target_share is null (MarshalJSON).
	noTarget bool
	// breakerWarns are the run's warnings of circuit breakers from which
	// cancelled calls hid failures (sim.BreakerResult.HiddenWarning).
	breakerWarns []string
	// answerCut counts, for a pipeline class, the run's turns whose answer
	// step's stage was done without its answer, every call of it let go
	// of (sim.PipelineResult.AnswerCut); 0 otherwise.
	answerCut int64
}

// MarshalJSON writes c. A candidate without requests (of a class no
// request fell in at its share of a joint sweep) has no shares:
// answered_share, hedged_share, attempts_per_request,
// answered_within_target_share, won_by_primary_share and met_share are
// null, not 0, as its latencies are (in memory they stay 0, but
// WonPrimaryShare is nil); so are its costs, cost_per_1k_usd,
// added_cost_pct and added_calls_pct. A pipeline candidate's
// won_by_primary_share and won_by_copies are null (nil in memory): its
// calls are won in its steps. The
// candidate of a class whose objective has no target (p95, p99, cost,
// knee) has no share within it: answered_within_target_share is null.
func (c Candidate) MarshalJSON() ([]byte, error) {
	type plain Candidate // without this method
	switch {
	case c.Requests > 0 && c.noTarget:
		return json.Marshal(struct {
			plain
			AnsweredWithinShare *float64 `json:"answered_within_target_share"`
		}{plain: plain(c)})
	case c.Requests > 0:
		return json.Marshal(plain(c))
	}
	return json.Marshal(struct {
		plain
		AnsweredShare       *float64 `json:"answered_share"`
		HedgedShare         *float64 `json:"hedged_share"`
		AnsweredWithinShare *float64 `json:"answered_within_target_share"`
		AttemptsPerRequest  *float64 `json:"attempts_per_request"`
		MetShare            *float64 `json:"met_share"`
		CostPer1kUSD        *float64 `json:"cost_per_1k_usd"`
		AddedCostPct        *float64 `json:"added_cost_pct"`
		AddedCallsPct       *float64 `json:"added_calls_pct"`
	}{plain: plain(c)})
}

// Q returns the candidate's p-percentile (0.95 or 0.99) in seconds.
func (c *Candidate) Q(p float64) float64 {
	if p == 0.99 {
		return c.Latency.P99
	}
	return c.Latency.P95
}

// CI returns the confidence interval of the p-percentile (0.95 or 0.99).
func (c *Candidate) CI(p float64) [2]float64 {
	if p == 0.99 {
		return c.Latency.P99CI95
	}
	return c.Latency.P95CI95
}

// upperBound returns a one-sided upper confidence bound in seconds on
// c's p-percentile (0.95 or 0.99) at the report's level, and how it was
// had: the two-sided interval's upper end when there is one (whose level
// is higher still), else for independent requests the order statistic of
// sim.UpperBoundRank. ok is false when neither exists (too few requests,
// or requests that interact without a batched interval).
func (c *Candidate) upperBound(p float64) (ub float64, how string, ok bool) {
	i := 0
	if p == 0.99 {
		i = 1
	}
	switch {
	case c.CIOK(p):
		return c.CI(p)[1], "the upper end of its interval", true
	case c.upperRank[i] > 0:
		return c.upper[i], fmt.Sprintf("its one-sided upper bound (order statistic %d of %d independent requests)", c.upperRank[i], c.upperN[i]), true
	}
	return math.NaN(), "", false
}

// slaMetOneSided reports whether base, a class's no hedging, meets the
// SLA of the cost objective o at the level on a one-sided question — its
// percentile's upper bound (upperBound: its interval's upper end, or a
// one-sided order statistic of independent requests) is within the SLA,
// even when a two-sided interval cannot be had — and why: "its one-sided
// upper bound (…), 2.39s at 95%, is within it too".
func slaMetOneSided(base *Candidate, o Objective, level float64) (string, bool) {
	ub, how, ok := base.upperBound(o.Percentile)
	if !ok || ub > o.SLA.Seconds() {
		return "", false
	}
	return fmt.Sprintf("%s, %s at %s%%, is within it too", how, fsec(ub), fnum(100*level)), true
}

// CIOK reports whether the interval of the p-percentile (0.95 or 0.99)
// is a real order-statistic interval (see P95CIOK).
func (c *Candidate) CIOK(p float64) bool {
	if p == 0.99 {
		return c.P99CIOK
	}
	return c.P95CIOK
}

// ClassReport is the optimisation of one class.
type ClassReport struct {
	Class string `json:"class"`
	// Requests is the number of requests simulated for each candidate of
	// the class: Report.RequestsPerCandidate, or the class's own requests
	// of a replayed trace when the trace has fewer.
	Requests int64 `json:"requests"`
	// DeadlineSeconds is the class's deadline (0 = none) and SLOSeconds
	// its latency target (0 = none: a request meets it when answered).
	DeadlineSeconds float64 `json:"deadline_s"`
	SLOSeconds      float64 `json:"slo_s"`
	// Objective chose the pick among the candidates.
	Objective Objective `json:"objective"`
	// CostBasis is CostUSD or CostCalls.
	CostBasis string `json:"cost_basis"`
	// Candidates are every policy tried; Candidates[0] is no hedging.
	Candidates []Candidate `json:"candidates"`
	// Frontier holds the indices of the candidates on the frontier, by
	// increasing added cost.
	Frontier []int `json:"frontier"`
	// Pick is the index of the recommended candidate; PickNote says why.
	// It is the objective's choice (ObjectivePick) unless that choice
	// fails the verdict rule and a candidate within the objective's limits
	// passes it: then Pick is that candidate (the cheapest such for
	// objective cost and a trade-off pick, else the fastest), the verdict is "hedge" and PickNote
	// and the verdict's reason name the objective's choice. When the
	// verdict is "don't hedge", Pick is 0, no hedging: Pick is always what
	// to roll out (for an undecided class, see RollsOut).
	Pick     int    `json:"pick"`
	PickNote string `json:"pick_note"`
	// RollsOut is RollsOutConfigured when the verdict is undecided: the
	// class's configured policy rolls out (export and --write-scenario
	// keep it), and Pick is that policy's candidate, or, when the sweep
	// did not simulate it or its candidate is one no pick may be (an
	// overload, an unstable queue), stays 0 with no candidate marked picked
	// (Unpicked). Absent otherwise: the pick rolls out. A configured
	// policy that answers significantly fewer requests than no hedging (in
	// the sweep, or in the rollout check when the sweep did not simulate
	// it) does not roll out: the verdict is then "don't hedge", and
	// RollsOut absent (keepNoHedging).
	RollsOut string `json:"rolls_out,omitempty"`
	// ObjectivePick is the index of the candidate the objective chose,
	// before the verdict rule; equal to Pick unless the rule moved it.
	ObjectivePick int `json:"objective_pick"`
	// Verdict says whether to ship the pick.
	Verdict Verdict `json:"verdict"`
	// Spend is what the pick costs per day and per month at the class's
	// arrival rate (the scenario's rate times the class's share, as
	// `hedgesim run` reports it; for closed-loop clients, the rate the
	// pick's clients reached), with no hedging's at the same rate.
	Spend sim.Spend `json:"spend_usd"`
	// Warnings limit what the numbers mean (too few requests for an
	// interval, a short trace, an SLA no candidate meets); Notes say how
	// the candidates were judged (an overloaded rate limit measured over
	// enough refills of its bucket).
	Warnings []string `json:"warnings"`
	Notes    []string `json:"notes"`
	// OptimizedWith names the other classes of the coupled group this class
	// was optimized with (see Run); empty when it was swept alone, which is
	// exact for it because it shares no limited provider, model or budget.
	OptimizedWith []string `json:"optimized_with"`
	// Group says how a group objective chose the pick of a class optimized
	// jointly (group.go); nil when the class's own objective chose it.
	Group *GroupChoice `json:"group,omitempty"`
	// Steps says, for a pipeline class, where the pick's hedging budget
	// went: each step's policy and what it adds over not hedging that step
	// (absent for a one-call class).
	Steps []StepAdvice `json:"steps,omitempty"`
	// StepsOf says whose steps Steps describes: "pick", or
	// "objective_pick" when the verdict rule rejected the objective's
	// hedged pick (and Pick is no hedging).
	StepsOf string `json:"steps_of,omitempty"`
	// PipelineSearch says, for a pipeline class, how many combinations of
	// its steps' policies were simulated and how the pick was found
	// (absent for a one-call class).
	PipelineSearch *PipelineSearch `json:"pipeline_search,omitempty"`
	// Series groups candidate indices by (copies, target), each by
	// increasing delay, for plots; Series[i][0] is not the baseline.
	Series []Series `json:"-"`

	// asked, expect, batched and replay are the baseline's
	// (Candidate.asked, expect, batched, replay), given to it by decide.
	asked   int64
	expect  float64
	batched bool
	replay  *replayRun

	// decidedNote is PickNote as the verdict left it, before
	// rollOutConfigured prefixed what rolls out.
	decidedNote string
	// refuted is the label of the sweep's pick that the rollout check
	// found answering significantly fewer requests than no hedging
	// (refutePick); "" otherwise.
	refuted string
	// steppedBack says that the verdict rule refused the trade-off
	// walk's end and the pick is the walk's last point it accepts
	// (walkBack).
	steppedBack bool

	// rolled is 1 + the index of the configured policy's candidate (see
	// RolledOut), −1 when the sweep has none, 0 when not yet found.
	rolled int
}

// Series is the candidates of one (copies, target) pair, by delay. For a
// pipeline class, a series is one step's delays with the other steps as
// picked, and X holds that step's delay in seconds for each member (nil
// otherwise: the members' own DelaySeconds).
type Series struct {
	Name    string
	Members []int
	X       []float64
}

// Baseline returns the no-hedging candidate.
func (cr *ClassReport) Baseline() *Candidate { return &cr.Candidates[0] }

// Picked returns the chosen candidate.
func (cr *ClassReport) Picked() *Candidate { return &cr.Candidates[cr.Pick] }

// RolledOut returns the candidate of what export and --write-scenario roll
// out for the class: the pick, or, when the verdict is undecided, the
// configured policy's candidate (no hedging, a grid candidate of the same
// policy, or the "configured" one), nil when the sweep has none (it did
// not simulate the configured policy).
func (cr *ClassReport) RolledOut() *Candidate {
	switch {
	case !cr.Verdict.Undecided:
		return cr.Picked()
	case cr.rolled > 0:
		return &cr.Candidates[cr.rolled-1]
	case cr.rolled < 0:
		return nil
	}
	for k := range cr.Candidates {
		if cr.Candidates[k].Configured {
			return &cr.Candidates[k]
		}
	}
	return nil
}

// RollsOutConfigured is ClassReport.RollsOut of an undecided class: its
// configured policy rolls out.
const RollsOutConfigured = "configured"

// Unpicked reports whether no candidate of cr is picked: its verdict is
// undecided, so its configured policy rolls out (RollsOut), and the sweep
// did not simulate that policy, or its candidate is one no pick may be
// (ReasonFewerAnswers, ReasonOverload, ReasonUnstable; its reasons say
// which). Pick is
// then 0, no hedging, which is not what rolls out.
func (cr *ClassReport) Unpicked() bool {
	return cr.RollsOut == RollsOutConfigured && !cr.Picked().Pick
}

// rollOutConfigured makes the pick of an undecided class what rolls out,
// its configured policy (RolledOut): Pick is that policy's candidate, the
// only one marked picked, or no candidate is (Unpicked); the note says so,
// and the candidates' fates follow. Other classes are left as they are.
func rollOutConfigured(cr *ClassReport, rule Rule, level float64) {
	if !cr.Verdict.Undecided {
		return
	}
	cr.RollsOut = RollsOutConfigured
	cs := cr.Candidates
	k := -1
	if c := cr.RolledOut(); c != nil {
		for i := range cs {
			if &cs[i] == c {
				k = i
			}
		}
	}
	const keep = "export and --write-scenario keep it"
	cr.decidedNote = cr.PickNote
	old := cr.Pick
	var beyond []Reason
	if k >= 0 {
		// Only what no pick may be; the hedged-share cap and the SLA do
		// not stop the configured policy from rolling out (the cost cap
		// does, below).
		for _, r := range limitReasons(&cs[k], &cs[0], cr.Objective, rule) {
			if r.Code == ReasonFewerAnswers || r.Code == ReasonOverload || r.Code == ReasonUnstable {
				beyond = append(beyond, r)
			}
		}
	}
	if k >= 0 && slices.ContainsFunc(beyond, func(r Reason) bool { return r.Code == ReasonFewerAnswers }) {
		ab, ac := fshares(cs[0].AnsweredShare, cs[k].AnsweredShare)
		keepNoHedging(cr, rule, level, fmt.Sprintf("its candidate (%s) answers significantly fewer requests than no hedging in the sweep (%s → %s)", cs[k].Label, ab, ac), neverFewer)
		return
	}
	if o := cr.Objective; k >= 0 && cs[k].Hedging && o.capsCost() && costLess(o.MaxAddedCostPct, cs[k].AddedCostPct) {
		keepNoHedging(cr, rule, level, fmt.Sprintf("its candidate (%s) adds %s %s in the sweep, over the objective's cap of +%s%%",
			cs[k].Label, fpct(cs[k].AddedCostPct), costWordOf(cr.CostBasis), fnum(o.MaxAddedCostPct)), neverOverCap)
		return
	}
	switch {
	case k < 0:
		cr.PickNote = fmt.Sprintf("undecided, so no candidate is picked: the configured policy rolls out (%s), which the sweep did not simulate; %s", keep, cr.PickNote)
		cr.Pick = 0
	case len(beyond) > 0:
		cr.PickNote = fmt.Sprintf("undecided, so no candidate is picked: the configured policy rolls out (%s), and its candidate (%s) is one no pick may be (%s); %s",
			keep, cs[k].Label, reasonCodes(beyond), cr.PickNote)
		cr.Pick = 0
	case cs[k].Hedging:
		cr.PickNote = fmt.Sprintf("undecided, so the configured policy rolls out (%s); %s", keep, cr.PickNote)
		cr.Pick = k
	default:
		cr.PickNote = fmt.Sprintf("undecided, so the configured policy, no hedging, rolls out (%s); %s", keep, cr.PickNote)
		cr.Pick = k
	}
	if cr.Pick != old && cr.StepsOf == "pick" {
		// A pipeline's steps described the old pick, which is no longer
		// the pick.
		cr.Steps, cr.StepsOf = nil, ""
	}
	for i := range cs {
		cs[i].Pick = false
	}
	finishPick(cr, level)
	if k < 0 || len(beyond) > 0 {
		// No candidate is picked. The verdict could not tell the
		// candidates apart: none is known to differ from what rolls out.
		for i := range cs {
			cs[i].Pick, cs[i].LikePick = false, true
		}
	}
	fates(cr, rule, level)
}

// targetPastDeadline says, when the objective's target (answered or
// checked within it) is past class cl's deadline, that it ranks nothing
// by speed: a request is answered by its deadline or not at all, so
// "within the target" is "answered at all"; "" otherwise. A target equal
// to the deadline says that on purpose (guard-check's budget).
func targetPastDeadline(cl *sim.Class, o Objective) string {
	if o.Target <= 0 || cl.Deadline <= 0 || o.Target <= cl.Deadline {
		return ""
	}
	return fmt.Sprintf("the objective's target of %s is past the class's deadline of %s: a request is answered by its deadline or not at all, so %s within the target is %s at all; a target below the deadline also counts speed",
		fsec(o.Target.Seconds()), fsec(cl.Deadline.Seconds()), o.WithinWord(), o.WithinWord())
}

// The principles keepNoHedging names.
const (
	neverFewer   = "a pick never trades answers for speed"
	neverOverCap = "what rolls out stays within the objective's cost cap"
)

// capsCost reports whether o caps the added cost: a finite
// max_added_cost_pct under objective p95, p99 (on the trade-off or not) or
// answered (LowestLatency, MostAnswered), as limitReasons reads it.
func (o Objective) capsCost() bool {
	return (o.Goal == LowestLatency || o.Goal == MostAnswered) && !math.IsInf(o.MaxAddedCostPct, 1)
}

// costWordOf is "cost", or "calls" on the calls basis.
func costWordOf(basis string) string {
	if basis == CostCalls {
		return "calls"
	}
	return "cost"
}

// keepNoHedging makes an undecided class whose configured policy answers
// significantly fewer requests than no hedging, or adds more cost than
// the objective's cap (why says which and where: its sweep candidate, or
// the rollout check), roll out no hedging: by default a pick never trades
// answers for speed nor goes over the cap, and neither does what rolls
// out when the verdict cannot tell (principle says which). The verdict
// becomes "don't hedge" (Pick 0, RollsOut empty), its reason keeping why
// the sweep could not tell, so that the text, JSON, CSV, export and
// --write-scenario all roll out no hedging.
func keepNoHedging(cr *ClassReport, rule Rule, level float64, why, principle string) {
	v := &cr.Verdict
	v.Reason = fmt.Sprintf("the configured policy does not roll out: %s, and %s, so no hedging rolls out; %s", why, principle, v.Reason)
	v.Undecided, v.Hedge, v.DecidedBy, v.Significant = false, false, "", false
	cr.RollsOut = ""
	cr.PickNote = fmt.Sprintf("no hedging rolls out, not the configured policy: %s; %s", why, cr.decidedNote)
	old := cr.Pick
	cr.Pick = 0
	if cr.Pick != old && cr.StepsOf == "pick" {
		cr.Steps, cr.StepsOf = nil, ""
	}
	for i := range cr.Candidates {
		cr.Candidates[i].Pick = false
	}
	finishPick(cr, level)
	fates(cr, rule, level)
}

// refutePick makes a class whose pick, a hedge, the rollout check of
// n requests found answering significantly fewer requests than no
// hedging (base → got, answered shares) roll out no hedging, as
// keepNoHedging does for a configured policy: by default a pick never
// trades answers for speed, and the check's finding outweighs the
// sweep's. The verdict becomes "don't hedge" (Pick 0, decided by
// nothing), its reason saying why before what the sweep found, and the
// refuted candidate is rejected with ReasonFewerInCheck, so that the
// text, JSON, CSV, export and --write-scenario all roll out no hedging.
// It returns why, for the rollout check's note.
func refutePick(cr *ClassReport, rule Rule, level float64, n int, base, got float64) string {
	pick := &cr.Candidates[cr.Pick]
	ab, ag := fshares(base, got)
	why := fmt.Sprintf("it answers significantly fewer requests than no hedging in a first rollout check of %d requests (%s → %s)", n, ab, ag)
	pick.fewerInCheck = &Reason{Code: ReasonFewerInCheck, Value: got, Limit: base, Unit: UnitShare,
		Text: fmt.Sprintf("the pick of the sweep, but %s: a pick never trades answers for speed", why)}
	v := &cr.Verdict
	v.Reason = fmt.Sprintf("the pick (%s) does not roll out: %s, and a pick never trades answers for speed, so no hedging rolls out; in the sweep: %s", pick.Label, why, v.Reason)
	v.Undecided, v.Hedge, v.DecidedBy, v.Significant = false, false, "", false
	cr.RollsOut, cr.refuted = "", pick.Label
	cr.PickNote = fmt.Sprintf("no hedging rolls out, not the sweep's pick %s: %s; the sweep's pick: %s", pick.Label, why, cr.PickNote)
	if cr.StepsOf == "pick" {
		cr.Steps, cr.StepsOf = nil, ""
	}
	cr.Pick = 0
	for i := range cr.Candidates {
		cr.Candidates[i].Pick = false
	}
	finishPick(cr, level)
	fates(cr, rule, level)
	return "the sweep's pick " + pick.Label + " does not roll out: " + why
}

// setRolledOut finds, for RolledOut, the candidate of class i's configured
// policy in cfg.
func (cr *ClassReport) setRolledOut(cfg *sim.Config, i int) {
	base := cfg.Classes[i].Policy
	unhedged := base.Copies == 0
	if p := cfg.Classes[i].Pipeline; p != nil {
		// A pipeline hedges in its steps' policies, not the class's.
		for _, st := range p.Steps {
			unhedged = unhedged && st.Call.Policy.Copies == 0
		}
	}
	cr.rolled = -1
	for k := range cr.Candidates {
		c := &cr.Candidates[k]
		if k == 0 && unhedged || k > 0 && (c.Configured || c.Steps == nil && samePolicy(c.Policy(base), base)) {
			cr.rolled = k + 1
			return
		}
	}
}

// Report is the optimisation of a scenario, class by class. Its JSON form
// is the stable machine-readable output of `hedgesim optimize --json`.
type Report struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	// RequestsPerCandidate is the number of requests asked for per
	// candidate (Settings.Requests). A class of a replayed trace runs on
	// its own requests of the trace when they are fewer: see
	// ClassReport.Requests.
	RequestsPerCandidate int `json:"requests_per_candidate"`
	// Level is the confidence level of the intervals.
	Level        float64 `json:"confidence_level"`
	QuantileRule string  `json:"quantile_rule"`
	// Rule is the verdict rule and RuleText says it in words.
	Rule     Rule          `json:"verdict_rule"`
	RuleText string        `json:"verdict_rule_text"`
	Classes  []ClassReport `json:"classes"`
	// Joint lists the groups of coupled classes that were optimized
	// together (empty when every class was swept alone).
	Joint []JointGroup `json:"joint"`
	// AloneDespiteCoupling is true when Settings.Alone swept alone
	// classes that are coupled: their picks ignore each other's load.
	AloneDespiteCoupling bool `json:"alone_despite_coupling"`
	// Rollout is the rollout check: the whole scenario simulated once with
	// every class's pick applied (nil when Settings.CheckRequests is 0).
	Rollout *RolloutCheck `json:"rollout_check"`
	// Precision is how an optimization to a precision ended (set by the
	// caller: hedgesim optimize --precision); absent otherwise.
	Precision *sim.Precision `json:"precision,omitempty"`
	// ExportCommand, when set (by the caller, which knows where the report
	// is written), is the command that exports the picks as client or proxy
	// configuration; the text report prints it under the summary table.
	ExportCommand string `json:"-"`
	// ScenarioSHA256 identifies the scenario's input files (the scenario
	// package's Scenario.SHA256), so that reports of different inputs are
	// told apart; set by the caller, "" when unknown.
	ScenarioSHA256 string `json:"scenario_sha256"`
	// Overrides are what-if changes applied on top of the scenario file
	// ("arrivals.rate=40"); absent when there are none.
	Overrides []string `json:"overrides,omitempty"`
	// Routing compares the pools' balancers (Settings.Balancers); absent
	// without.
	Routing *Routing `json:"routing,omitempty"`
	// Fleet compares keep-warm floors of the autoscaled pools
	// (Settings.MinReplicas) in dollars a month; absent without.
	Fleet *Fleet `json:"fleet,omitempty"`
}

// Options tune how Run works, not what it computes.
type Options struct {
	// Workers is the number of candidates simulated at once; 0 means
	// runtime.GOMAXPROCS(0). The report does not depend on it.
	Workers int
	// Progress, when set, is called after each simulation with the stage
	// ("baseline" or "candidates") and the simulations done and to do in
	// it. Calls are serialised.
	Progress func(stage string, done, total int)
	// Context, when set, cancels the sweep: no simulation starts after it
	// is done, the running ones stop within a few thousand requests
	// (sim.RunContext), and Run returns its error.
	Context context.Context
}

// Run optimises the hedge policy of every class of cfg (or of s.Only)
// under s. Each class is simulated alone, as a scenario with that class
// only: s.Requests requests at the class's share of the arrival rate (or,
// with a replayed trace, the class's own requests of the trace), with the
// scenario's seed for every candidate, so all candidates see the same
// arrivals, token counts and attempt draws (common random numbers). The
// no-hedging candidate runs first; its p10 and p99 set the default delay
// grid. Candidates run in parallel on opt.Workers goroutines; the report
// is the same for any number of workers.
//
// A candidate keeps the rest of the class's policy (winner, error rules,
// cancellation, budgets) but uses a fixed delay: an adaptive delay is
// switched off, and an explicit target replaces "a different provider".
// A candidate the simulator rejects is left out with a warning; Run fails
// when a class is left without a hedged candidate. Simulating a class alone leaves out the load other classes put on shared
// provider queues and rate limits.
//
// With s.Balancers, Report.Routing compares balancers (routing.go); with
// s.MinReplicas, Report.Fleet compares keep-warm floors of the autoscaled
// pools in dollars a month (fleet.go). Each costs one more sweep per
// setting; the report's classes and rollout check stay the scenario's.
func Run(cfg *sim.Config, s Settings, opt Options) (*Report, error) {
	m := &memo{simulate: true, keep: len(s.Balancers) > 0}
	rep, _, err := sweep(cfg, s, opt, m, true)
	if err == nil && len(s.Balancers) > 0 {
		rep.Routing, err = routing(cfg, s, opt, rep, m.kept)
	}
	if err == nil && len(s.MinReplicas) > 0 {
		rep.Fleet, err = fleet(cfg, s, opt)
	}
	return rep, err
}

// sweep is Run with its measurements from m, and the rollout check only
// with check. When m lacks measurements — those of other shards, or of a
// coupled group's later steps — the report is nil; next then names the
// first open step of each coupled group that has one. A measurement
// missing from a memo that does not simulate is an error, except the
// baseline of a coupled group's step (that step is next).
func sweep(cfg *sim.Config, s Settings, opt Options, m *memo, check bool) (rep *Report, next []string, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if err := s.Validate(cfg); err != nil {
		return nil, nil, err
	}
	s.PerClass = maps.Clone(s.PerClass)
	s.Each(func(se *Search) { se.Objective.setMarginal(s.Rule) })
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	var mu sync.Mutex
	progress := func(stage string, total int) func() {
		if opt.Progress == nil {
			return nil
		}
		done := 0
		return func() {
			mu.Lock()
			defer mu.Unlock()
			done++
			opt.Progress(stage, done, total)
		}
	}

	rep = &Report{
		Scenario: cfg.Name, Seed: cfg.Seed, RequestsPerCandidate: s.Requests,
		Level: s.Level, QuantileRule: sim.QuantileRuleFor(cfg), Rule: s.Rule,
	}
	type classJob struct {
		cfg      *sim.Config
		search   Search
		q10, q99 float64
		// paired is cfg with its candidates paired with the baseline's
		// met bits (sim.Pair), or cfg when there are none.
		paired *sim.Config
	}
	var groups [][]int
	var shared [][]string
	groups, shared = coupledGroups(cfg, &s)
	if s.Alone {
		rep.AloneDespiteCoupling = len(groups) > 0
		groups, shared = nil, nil
	}
	grouped := map[int]bool{}
	for _, g := range groups {
		for _, i := range g {
			grouped[i] = true
		}
	}
	// The quantile rule is that of the classes simulated here: it speaks
	// of batches and a warm-up cut only when one of them reaches something
	// its requests interact through (a pool or limit only other classes
	// reach changes nothing for them), of pipelines only when one is.
	swept := *cfg
	swept.Classes = nil
	for i := range cfg.Classes {
		if grouped[i] || optimized(&s, cfg.Classes[i].Name) {
			swept.Classes = append(swept.Classes, cfg.Classes[i])
		}
	}
	rep.QuantileRule = sim.QuantileRuleFor(&swept)
	var jobs []*classJob
	var alone []int // cfg index of each job's class
	// Classes swept alone whose requests would span more simulated time
	// than a run may (tooRare): reported unmeasured, not simulated.
	rare := map[int]*tooRare{}
	// Pipeline classes are searched by runPipeline: alone, or on the
	// traffic of the classes they are coupled with (with), which stay at
	// their configured policies; the joint search of a group holds its
	// pipeline classes at theirs (joint).
	var pipelines []int
	with := map[int][]int{}
	joint := s
	joint.Only = nil
	for _, group := range groups {
		for _, i := range group {
			if !optimized(&s, cfg.Classes[i].Name) {
				continue
			}
			if cfg.Classes[i].Pipeline != nil {
				pipelines = append(pipelines, i)
				with[i] = slices.DeleteFunc(slices.Clone(group), func(j int) bool { return j == i })
				continue
			}
			joint.Only = append(joint.Only, cfg.Classes[i].Name)
		}
	}
	var jointGroups [][]int
	var jointShared [][]string
	for g, group := range groups {
		if slices.ContainsFunc(group, func(i int) bool { return slices.Contains(joint.Only, cfg.Classes[i].Name) }) {
			jointGroups = append(jointGroups, group)
			jointShared = append(jointShared, shared[g])
		}
	}
	for i := range cfg.Classes {
		name := cfg.Classes[i].Name
		if !optimized(&s, name) || grouped[i] {
			continue
		}
		if r := rareAlone(cfg, i, s.Requests); r != nil {
			rare[i] = r
			continue
		}
		if cfg.Classes[i].Pipeline != nil {
			pipelines = append(pipelines, i)
			continue
		}
		alone = append(alone, i)
		cc, warn, err := classConfig(cfg, i, s.Requests)
		if err != nil {
			return nil, nil, err
		}
		cr := ClassReport{
			Class:           name,
			DeadlineSeconds: seconds(cfg.Classes[i].Deadline),
			SLOSeconds:      seconds(cfg.Classes[i].SLO),
			Objective:       s.For(name).Objective,
			Warnings:        []string{},
			asked:           int64(s.Requests),
		}
		cr.expect, cr.batched = classRun(cc, 0)
		cr.replay = replayOf(cc, cfg, 1)
		if warn != "" {
			cr.Warnings = append(cr.Warnings, warn)
		}
		rep.Classes = append(rep.Classes, cr)
		jobs = append(jobs, &classJob{cfg: cc, search: s.For(name)})
	}

	if len(rare) > 0 && len(jobs) == 0 && len(pipelines) == 0 && len(jointGroups) == 0 {
		// Nothing else to optimize: the class asked for cannot be.
		_, _, err := classConfig(cfg, slices.Min(slices.Collect(maps.Keys(rare))), s.Requests)
		return nil, nil, err
	}

	// Stage 1: the no-hedging baseline of every class.
	err = parallelContext(ctx, len(jobs), workers, func(j int) error {
		job := jobs[j]
		c := job.cfg
		key := fmt.Sprintf("class %s: none", c.Classes[0].Name)
		me, err := m.get(key, -1, func() (Measurement, error) {
			pol := c.Classes[0].Policy
			sim.NoHedging(&pol)
			rc := *c
			rc.Pair = &sim.Pair{Record: true}
			res, err := m.runBaseline(ctx, &rc, pol)
			if err != nil {
				return Measurement{}, fmt.Errorf("class %q: %w", c.Classes[0].Name, err)
			}
			return baseline(res, c, 0, s.Level, job.search.Objective.Target), nil
		})
		if err != nil {
			return err
		}
		if me == nil {
			return missingError(key)
		}
		base := Candidate{Label: "none"}
		me.apply(&base)
		job.q10, job.q99 = me.Span[0], me.Span[1]
		job.paired = pairedWith(c, me.MetBits)
		rep.Classes[j].Candidates = []Candidate{base}
		rep.Classes[j].Requests = base.Requests
		return nil
	}, progress("baseline", len(jobs)))
	if err != nil {
		return nil, nil, err
	}

	// Stage 2: every hedged candidate of every class, as one flat list.
	type candJob struct{ class, cand int }
	var all []candJob
	for j, job := range jobs {
		cr := &rep.Classes[j]
		cands, series := grid(job.cfg, job.search, job.q10, job.q99)
		if len(cands) == 0 {
			return nil, nil, fmt.Errorf("class %q: every delay to try is at or past its deadline %s; try shorter delays", cr.Class, fsec(cr.DeadlineSeconds))
		}
		base := cr.Candidates[0]
		cr.Candidates = append([]Candidate{base}, cands...)
		cr.Series = series
		for k := 1; k < len(cr.Candidates); k++ {
			all = append(all, candJob{j, k})
		}
	}
	// A candidate the simulator rejects (say, copies and targets whose
	// correlation matrix is not positive semidefinite) is left out with a
	// warning, unless it leaves its class without a hedged candidate.
	failed := make([]error, len(all))
	open := make([]bool, len(rep.Classes)) // a class lacking another shard's measurements
	keys := make([]string, len(all))
	for i, cj := range all {
		keys[i] = fmt.Sprintf("class %s: candidate %d (%s)", rep.Classes[cj.class].Class, cj.cand, rep.Classes[cj.class].Candidates[cj.cand].Label)
	}
	tick := progress("candidates", len(all))
	made, err := simulateCandidates(ctx, m, keys, len(jobs), workers, s.Requests, tick, func(i int) (int, *sim.Config, sim.Policy) {
		cj := all[i]
		c := jobs[cj.class].paired
		return cj.class, c, rep.Classes[cj.class].Candidates[cj.cand].Policy(c.Classes[0].Policy)
	}, func(i int, res *sim.Result, err error) (Measurement, error) {
		cj := all[i]
		return measureRun(ctx, keys[i], res, jobs[cj.class].cfg, 0, err, s.Level, jobs[cj.class].search.Objective.Target, rep.Classes[cj.class].Candidates[0].secCost)
	})
	if err != nil {
		return nil, nil, err
	}
	// Every measurement is made or known: take them in order.
	for i, cj := range all {
		cand := &rep.Classes[cj.class].Candidates[cj.cand]
		me, err := m.get(keys[i], i, func() (Measurement, error) { return made[i], nil })
		switch {
		case err != nil:
			return nil, nil, err
		case me == nil && !m.simulate:
			return nil, nil, missingError(keys[i])
		case me == nil:
			open[cj.class] = true
		case me.Err != "":
			failed[i] = me.err()
		default:
			me.apply(cand)
		}
	}
	complete := !slices.Contains(open, true)
	for j := range rep.Classes {
		if open[j] {
			continue
		}
		var bad []error
		for i, cj := range all {
			if cj.class != j {
				continue
			}
			if len(bad) == 0 {
				bad = make([]error, len(rep.Classes[j].Candidates))
			}
			bad[cj.cand] = failed[i]
		}
		if err := dropFailed(&rep.Classes[j], bad); err != nil {
			return nil, nil, err
		}
	}

	for j := range rep.Classes {
		if !open[j] {
			decide(&rep.Classes[j], s.Rule, s.Level)
		}
	}

	// Coupled classes: optimized together on their shared traffic.
	byIndex := map[int]*ClassReport{}
	for j, i := range alone {
		byIndex[i] = &rep.Classes[j]
	}
	for i, r := range rare {
		byIndex[i] = unmeasured(cfg, s, i, r)
	}
	for g, group := range jointGroups {
		reports, jg, step, err := runJoint(ctx, cfg, joint, group, jointShared[g], workers, progress, m)
		if err != nil {
			return nil, nil, err
		}
		if step != "" {
			next = append(next, step)
			continue
		}
		maps.Copy(byIndex, reports)
		rep.Joint = append(rep.Joint, jg)
	}
	if m.grow != nil && len(jointGroups)+len(pipelines) > 0 {
		m.grow.resimulated() // the joint and pipeline searches are simulated again
	}
	for _, i := range pipelines {
		if m.record || m.asked != nil {
			// A shard's part (RunShard) and Expect leave pipeline classes
			// out: they are searched whole where the report is made, by Run
			// or Assemble.
			continue
		}
		// A coupled pipeline is searched with its group's one-call classes
		// at their picks (found above, with it at its configured policy).
		picked := *cfg
		picked.Classes = slices.Clone(cfg.Classes)
		for _, j := range with[i] {
			if cr, ok := byIndex[j]; ok {
				picked.Classes[j].Policy = cr.Picked().Policy(cfg.Classes[j].Policy)
			}
		}
		cr, err := runPipeline(ctx, &picked, s, i, with[i], workers, progress)
		if err != nil {
			return nil, nil, err
		}
		byIndex[i] = cr
	}
	if !complete || len(next) > 0 {
		return nil, next, nil
	}
	var ordered []ClassReport
	for i := range cfg.Classes {
		if cr, ok := byIndex[i]; ok {
			cr.Warnings = append(cr.Warnings, spanWarnings(cfg, i, cr)...)
			if w := targetPastDeadline(&cfg.Classes[i], cr.Objective); w != "" {
				cr.Warnings = append(cr.Warnings, w)
			}
			slowVerdict(cfg, i, cr)
			cr.setRolledOut(cfg, i)
			rollOutConfigured(cr, s.Rule, s.Level)
			cr.Spend = pickSpend(cfg, i, cr)
			if w := sim.NoSpanWarning(cfg); w != "" {
				cr.Warnings = append(cr.Warnings, w)
			}
			cr.Warnings = append(cr.Warnings, pickBreakerWarnings(cr)...)
			if w := pickAnswerCutWarning(&cfg.Classes[i], cr); w != "" {
				cr.Warnings = append(cr.Warnings, w)
			}
			ordered = append(ordered, *cr)
		}
	}
	rep.Classes = ordered
	if rep.Joint == nil {
		rep.Joint = []JointGroup{}
	}
	rep.RuleText = s.Rule.Describe(0.95, s.Level)
	if len(rep.Classes) > 0 {
		p := rep.Classes[0].Objective.Percentile
		same := true
		for _, cr := range rep.Classes {
			same = same && cr.Objective.Percentile == p
		}
		if same {
			rep.RuleText = s.Rule.Describe(p, s.Level)
		} else {
			rep.RuleText = strings.Replace(s.Rule.Describe(p, s.Level), pname(p), "the objective's percentile", 1)
		}
	}
	if check {
		if err := rolloutCheck(ctx, cfg, s, rep, workers); err != nil {
			return nil, nil, err
		}
	}
	return rep, nil, nil
}

// rolloutCheck sets rep.Rollout, the rollout check of rep's picks for
// cfg under s (none when s asks for no check requests), on workers
// goroutines per run.
func rolloutCheck(ctx context.Context, cfg *sim.Config, s Settings, rep *Report, workers int) error {
	n := s.checkRequests()
	if n <= 0 {
		groupRolledOut(cfg, &s, rep, nil)
		return nil
	}
	// A check of no more requests than a candidate's would draw what
	// the sweep drew, request for request: it gets its own draws.
	ccfg, own := cfg, n <= s.Requests
	if own {
		c := *cfg
		c.Seed = CheckSeed(cfg.Seed)
		ccfg = &c
	}
	// A first check that is run again leaves none of its warnings.
	warned := make([]int, len(rep.Classes))
	for k := range rep.Classes {
		warned[k] = len(rep.Classes[k].Warnings)
	}
	rc, run, err := checkRuns(ctx, ccfg, rep, n, s.Level, workers)
	if err != nil {
		return fmt.Errorf("rollout check: %w", err)
	}
	// An undecided class whose configured policy the sweep did not
	// simulate is judged by the check: when there it answers
	// significantly fewer requests than no hedging, no hedging rolls out
	// (keepNoHedging), and the check runs again with it.
	first := map[string]string{} // class → why the check ran again
	for j := range rc.Classes {
		rcl := &rc.Classes[j]
		k := slices.IndexFunc(rep.Classes, func(c ClassReport) bool { return c.Class == rcl.Class })
		if k < 0 {
			continue
		}
		cr := &rep.Classes[k]
		if cr.Verdict.Hedge && !cr.Verdict.Undecided && rcl.answersFell && !cr.Objective.AllowFewerAnswers {
			why := refutePick(cr, s.Rule, s.Level, rc.Requests, rcl.NoHedgingAnswered, rcl.AnsweredShare)
			if i := slices.IndexFunc(cfg.Classes, func(c sim.Class) bool { return c.Name == cr.Class }); i >= 0 {
				cr.Spend = pickSpend(cfg, i, cr)
			}
			first[cr.Class] = why + ", so the check runs no hedging"
			continue
		}
		if !cr.Verdict.Undecided || !rcl.Unswept || !rcl.answersFell && rcl.overCap == "" {
			continue
		}
		why := fmt.Sprintf("it answers significantly fewer requests than no hedging in a first rollout check of %d requests (%s → %s)",
			rc.Requests, fpct2(rcl.NoHedgingAnswered), fpct2(rcl.AnsweredShare))
		principle := neverFewer
		if !rcl.answersFell {
			why = fmt.Sprintf("it adds %s in a first rollout check of %d requests, over the objective's cap of +%s%%", rcl.overCap, rc.Requests, fnum(cr.Objective.MaxAddedCostPct))
			principle = neverOverCap
		}
		keepNoHedging(cr, s.Rule, s.Level, why, principle)
		if i := slices.IndexFunc(cfg.Classes, func(c sim.Class) bool { return c.Name == cr.Class }); i >= 0 {
			cr.Spend = pickSpend(cfg, i, cr)
		}
		first[cr.Class] = "the class's configured policy does not roll out: " + why + ", so the check runs no hedging"
	}
	if len(first) > 0 {
		for k := range rep.Classes {
			rep.Classes[k].Warnings = rep.Classes[k].Warnings[:warned[k]]
		}
		if rc, run, err = checkRuns(ctx, ccfg, rep, n, s.Level, workers); err != nil {
			return fmt.Errorf("rollout check: %w", err)
		}
		for j := range rc.Classes {
			if rcl := &rc.Classes[j]; first[rcl.Class] != "" {
				rcl.Note = strings.TrimPrefix(rcl.Note+"; "+first[rcl.Class], "; ")
			}
		}
	}
	if own {
		rc.Seed = &ccfg.Seed
	}
	rep.Rollout = rc
	groupRolledOut(cfg, &s, rep, run)
	return nil
}

// dropFailed removes from cr the candidates whose simulation failed
// (bad[i] != nil, for candidate i; bad may be nil), with a warning naming
// each and why, and renumbers cr.Series. It returns an error when no
// hedged candidate is left.
func dropFailed(cr *ClassReport, bad []error) error {
	if !slices.ContainsFunc(bad, func(err error) bool { return err != nil }) {
		return nil
	}
	index := make([]int, len(cr.Candidates)) // new index, or −1
	var kept []Candidate
	for i, c := range cr.Candidates {
		index[i] = -1
		if bad[i] != nil {
			cr.Warnings = append(cr.Warnings, fmt.Sprintf("candidate %s (%s) left out: %v", c.Label, describe(&c), bad[i]))
			continue
		}
		index[i] = len(kept)
		kept = append(kept, c)
	}
	if len(kept) < 2 {
		i := slices.IndexFunc(bad, func(err error) bool { return err != nil })
		return fmt.Errorf("class %q: every hedged candidate failed; candidate %s: %w", cr.Class, cr.Candidates[i].Label, bad[i])
	}
	cr.Candidates = kept
	var series []Series
	for _, sr := range cr.Series {
		var members []int
		for _, i := range sr.Members {
			if index[i] >= 0 {
				members = append(members, index[i])
			}
		}
		if len(members) > 0 {
			series = append(series, Series{Name: sr.Name, Members: members})
		}
	}
	cr.Series = series
	return nil
}

// pairedWith returns c with its runs paired with the no-hedging run's met
// bits (sim.Pair), or c itself when there are none.
func pairedWith(c *sim.Config, bits *sim.MetBits) *sim.Config {
	if bits == nil {
		return c
	}
	pc := *c
	pc.Pair = &sim.Pair{Base: bits}
	return &pc
}

// runPolicy runs the one-class config c with the class's policy replaced by
// pol, until ctx is done. c is shared between goroutines and not modified.
func runPolicy(ctx context.Context, c *sim.Config, pol sim.Policy) (*sim.Result, error) {
	cc := *c
	cl := c.Classes[0]
	cl.Policy = pol
	cc.Classes = []sim.Class{cl}
	return sim.RunContext(ctx, &cc)
}

// decide compares every candidate of cr with its baseline, draws the
// frontier, picks under the objective, marks the candidates like the pick
// and gives the verdict.
func decide(cr *ClassReport, rule Rule, level float64) {
	for i := range cr.Candidates {
		cr.Candidates[i].noTarget = cr.Objective.Target <= 0
	}
	cs := cr.Candidates
	base := &cs[0]
	base.asked, base.expect, base.batched, base.replay = cr.asked, cr.expect, cr.batched, cr.replay
	cr.CostBasis = CostCalls
	if base.CostPer1kUSD > 0 {
		cr.CostBasis = CostUSD
	}
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	baseOver := base.OverLimit
	for i := range cs {
		compare(&cs[i], base, cr.CostBasis)
		setIntervals(&cs[i], base, cr.CostBasis, level, cr.Objective.Target > 0)
		cs[i].FewerAnswers = fewerAnswers(base, &cs[i], z)
		// Only an overload hedging causes counts against a candidate.
		cs[i].OverLimit = cs[i].OverLimit && !baseOver
		cs[i].OverloadExcluded = excludeOverload(&cs[i], base, rule)
		cs[i].Unstable = slices.ContainsFunc(newLoads(&cs[i], base), func(l Load) bool { return l.Kind == LoadQueue })
		if cs[i].Loads == nil {
			cs[i].Loads = []Load{}
		}
	}
	cr.Warnings = append(cr.Warnings, loadWarnings(cs)...)
	cr.Objective.AllowFewerAnswers = rule.AllowFewerAnswers
	if cr.Objective.cutLevel = 0; rule.RequireSignificant && (cr.Objective.Goal == LowestLatency || cr.Objective.Goal == MostAnswered) {
		cr.Objective.cutLevel = level
	}
	p := cr.Objective.Percentile
	cr.Frontier = Frontier(cs, p)
	if cr.Objective.Goal == MostAnswered {
		cr.Frontier = frontierBy(cs, func(a, b *Candidate) bool { return moreWithin(a, b, p) }, func(int) bool { return true })
	}
	for _, i := range cr.Frontier {
		cs[i].OnFrontier = true
	}
	cr.Pick, cr.PickNote = Pick(cs, cr.Objective)
	cr.ObjectivePick = cr.Pick
	cs[cr.Pick].ObjectivePick = true
	cr.Verdict = judgeFor(cr.Objective, base, &cs[cr.Pick], level, rule, cr.CostBasis)
	if o := cr.Objective; o.Goal == LowestCost && cr.Pick == 0 && cr.Verdict.Undecided {
		if why, ok := slaMetOneSided(base, o, level); ok {
			u := base.unansweredShare()
			cr.Verdict = Verdict{Alternative: -1, UnansweredBefore: u, UnansweredAfter: u,
				Reason: cr.PickNote + ": " + why}
		}
	}
	tooFew := !base.CIOK(p) || !cs[cr.Pick].CIOK(p)
	if !cs[cr.Pick].Hedging && !tooFew {
		cr.Verdict.Reason = cr.PickNote
	}
	cr.Verdict.Alternative = -1
	// A trade-off pick that the rule rejects moves to the cheapest
	// candidate the rule accepts: the least step past where the trade-off
	// ended.
	cheapest := cr.Objective.Goal == LowestCost || cr.Objective.walks()
	if obj := &cs[cr.Pick]; base.CIOK(p) && !obj.CIOK(p) && obj.Hedging {
		// Only the objective's pick lacks an interval (its requests
		// interact, as an adaptive delay's do, and need more for one):
		// it cannot be judged, but the candidates with their own
		// intervals can. The best of those the rule accepts is
		// recommended, as when the objective's pick fails the rule —
		// also when its unanswered share alone made it "hedge": nothing
		// about a candidate whose requests interact counts as
		// significant without its interval.
		if a := acceptable(cs, cr.Objective, level, rule, cr.CostBasis, cheapest, func(c *Candidate) bool { return c.Feasible && c.CIOK(p) }); a >= 0 {
			need := minRequestsFor(obj, p, level)
			v := judgeFor(cr.Objective, base, &cs[a], level, rule, cr.CostBasis)
			v.Reason = fmt.Sprintf("recommend %s: the %s pick (%s) cannot be judged at these requests: too few for a %s%% interval on %s (%d simulated, at least %d needed: %s); %s passes: %s",
				cs[a].Label, goalWord(cr.Objective), obj.Label, fnum(100*level), pname(p), obj.Requests, need, rerunAdvice(base, obj, need), cs[a].Label, v.Reason)
			cr.PickNote = fmt.Sprintf("recommended instead of the objective's pick (%s: %s), which has too few requests for an interval on %s", obj.Label, cr.PickNote, pname(p))
			cr.Pick, cr.Verdict = a, v
		} else if v := cr.Verdict; v.Hedge && v.DecidedBy == DecidedByUnanswered {
			if _, paired := pairedAnswered(base, obj, level); !paired {
				// No candidate with an interval passes, and the "hedge"
				// rests on Wilson's intervals of the unanswered share
				// alone, which assume independent requests, while the
				// pick's interact and its batches cannot be paired with
				// no hedging's: as above, it cannot be judged. Undecided,
				// with the requests its interval needs.
				need := minRequestsFor(obj, p, level)
				sb, sp := fshares(v.UnansweredBefore, v.UnansweredAfter)
				v.Hedge, v.Undecided, v.DecidedBy, v.UnansweredSignificant, v.detail = false, true, "", false, DetailTooFew
				v.Reason = fmt.Sprintf("cannot tell at %s: the %s pick (%s) has too few for a %s%% interval on %s (%d simulated, at least %d needed: %s); its unanswered share falls (%s → %s), but its requests interact and cannot be paired with no hedging's, and Wilson's intervals assume independent requests, so the fall is not judged significant; no candidate with an interval passes the rule",
					fcount(obj.Requests), goalWord(cr.Objective), obj.Label, fnum(100*level), pname(p), obj.Requests, need, rerunAdvice(base, obj, need), sb, sp)
				cr.Verdict = v
			}
		}
	}
	if !cr.Verdict.Hedge && !tooFew {
		// The objective's pick fails the rule. When a candidate within the
		// objective's limits passes it, recommend that one instead: "don't
		// hedge" next to an acceptable candidate is no advice. First
		// the walk's last point before its end that the rule accepts
		// (the walk went one move too far), else the cheapest (it
		// stopped too early).
		// When the rule refuses a hedged trade-off pick because its gain
		// is not significant, a costlier candidate that the rule accepts
		// on a share (the unanswered share, or the share not within the
		// target) must earn its added cost over that pick as a move of
		// the walk would (tradeOff.earns): a cut of a few requests more
		// than the refused pick's clears the significance bar by chance,
		// and the rest of its gain is the refused pick's own.
		var walk *tradeOff
		if obj := &cs[cr.Pick]; cr.Objective.walks() && obj.Hedging && cr.Verdict.detail == DetailNotSignificant {
			walk, _ = cr.tradeOff()
		}
		earned := func(c *Candidate) bool {
			if walk == nil || costWithin(c.AddedCostPct, cs[cr.Pick].AddedCostPct) || !onShare(cr, c, level, rule) {
				return true
			}
			ok, _ := walk.earns(&cs[cr.Pick], c, level, rule, costWordOf(cr.CostBasis))
			return ok
		}
		if a := walkBack(cr, level, rule); a >= 0 {
			obj := &cs[cr.Pick]
			v := judgeFor(cr.Objective, base, &cs[a], level, rule, cr.CostBasis)
			v.Reason = fmt.Sprintf("recommend %s: the %s pick (%s) fails the rule (%s); %s, the last point of the walk to it that the rule accepts, passes: %s",
				cs[a].Label, goalWord(cr.Objective), obj.Label, cr.Verdict.Reason, cs[a].Label, v.Reason)
			cr.PickNote = fmt.Sprintf("recommended instead of the objective's pick (%s: %s), which fails the verdict rule: the last point of the trade-off walk to it that the rule accepts", obj.Label, cr.PickNote)
			cr.Pick, cr.Verdict, cr.steppedBack = a, v, true
		} else if a := acceptable(cs, cr.Objective, level, rule, cr.CostBasis, cheapest, func(c *Candidate) bool { return c.Feasible && c.bundle == nil && earned(c) }); a >= 0 {
			obj := &cs[cr.Pick]
			objLabel, fails := "no hedging", "buys nothing the rule accepts"
			if obj.Hedging {
				objLabel, fails = obj.Label, "fails the rule ("+cr.Verdict.Reason+")"
			}
			v := judgeFor(cr.Objective, base, &cs[a], level, rule, cr.CostBasis)
			v.Reason = fmt.Sprintf("recommend %s: the %s pick (%s) %s; %s passes: %s",
				cs[a].Label, goalWord(cr.Objective), objLabel, fails, cs[a].Label, v.Reason)
			cr.PickNote = fmt.Sprintf("recommended instead of the objective's pick (%s: %s), which fails the verdict rule", objLabel, cr.PickNote)
			cr.Pick, cr.Verdict = a, v
		} else if a := acceptable(cs, cr.Objective, level, rule, cr.CostBasis, cheapest, func(c *Candidate) bool { return c.Feasible && c.bundle == nil }); a >= 0 {
			// The rule accepts a costlier candidate against no hedging,
			// but it buys too little over the refused pick for its added
			// cost: recommending it would buy noise.
			unearned(cr, walk, a, "the cheapest candidate the rule accepts", level, rule)
		} else if a := nearestAcceptable(cs, cr.Objective, level, rule, cr.CostBasis); a >= 0 && !earned(&cs[a]) {
			unearned(cr, walk, a, "beyond the objective's limits the closest candidate the rule accepts", level, rule)
		} else if a >= 0 {
			// Say when only the objective's limits stand in the way, so
			// that a user knows which setting keeps the class from hedging.
			v := judgeFor(cr.Objective, base, &cs[a], level, rule, cr.CostBasis)
			cr.Verdict.Reason += fmt.Sprintf("; beyond the objective's limits, the rule would accept %s%s: %s", cs[a].Label, aboveSLA(&cs[a], cr.Objective), v.Reason)
			cr.Verdict.Alternative = a
		}
		if b := acceptable(cs, cr.Objective, level, rule, cr.CostBasis, cheapest, func(c *Candidate) bool { return c.Feasible && c.bundle != nil }); b >= 0 && !cr.Verdict.Hedge && cr.Verdict.Alternative < 0 {
			// Say why a candidate the rule accepts is not recommended.
			cr.Verdict.Reason += fmt.Sprintf("; %s passes the rule only as a bundle, not recommended: %s", cs[b].Label, cs[b].bundle.Text)
		}
	}
	if !cr.Verdict.Hedge && cs[cr.Pick].Hedging {
		// The verdict rejects the objective's hedged pick: what to roll out
		// is no hedging, and Pick says so; ObjectivePick keeps the rejected one.
		if cr.Verdict.Undecided {
			cr.PickNote = fmt.Sprintf("the verdict cannot tell the objective's pick (%s: %s) from no hedging at these requests", cs[cr.Pick].Label, cr.PickNote)
		} else {
			cr.PickNote = fmt.Sprintf("the verdict rule rejects the objective's pick (%s: %s)", cs[cr.Pick].Label, cr.PickNote)
		}
		cr.Pick = 0
	}
	if k := slices.IndexFunc(cs, func(c Candidate) bool { return c.Configured }); k >= 0 && k != cr.Pick &&
		!rule.AllowFewerAnswers && fewerAnswers(&cs[k], &cs[cr.Pick], z) {
		// The class runs its configured policy today: advice that answers
		// significantly fewer requests than that is no advice.
		was := &cs[cr.Pick]
		ak, ap := fshares(cs[k].AnsweredShare, was.AnsweredShare)
		why := fmt.Sprintf("keep the configured policy: the pick it would replace (%s) answers significantly fewer requests (%s → %s)", was.Label, ak, ap)
		cr.PickNote = why
		cr.Pick = k
		cr.Verdict = Verdict{
			Hedge: true, Reason: why, DecidedBy: DecidedByConfigured, Alternative: -1,
			AddedCostPct:     cs[k].AddedCostPct,
			UnansweredBefore: base.unansweredShare(), UnansweredAfter: cs[k].unansweredShare(),
		}
	}
	if o := cr.Objective; o.Goal == LowestCost && cs[cr.Pick].Q(p) > o.SLA.Seconds() {
		cr.Verdict.SLAMissed = true
		if cs[cr.ObjectivePick].Feasible {
			// A candidate meets the SLA, but the verdict rule moved the
			// pick to one that does not: what rolls out misses it.
			who := "no hedging's"
			if pk := &cs[cr.Pick]; pk.Hedging {
				who = "the pick's (" + pk.Label + ")"
			}
			miss := fmt.Sprintf("the SLA is not met: %s %s of %s is above %s", who, pname(p), fsec(cs[cr.Pick].Q(p)), fsec(o.SLA.Seconds()))
			cr.PickNote += "; " + miss
			cr.Verdict.Reason += "; " + miss
		}
	}
	if m := allMiss(cr); m != "" {
		cr.PickNote += "; " + m
		cr.Verdict.Reason += fmt.Sprintf("; ranked by the answered share, %s being a miss for every candidate: objective \"answered\" says so", pname(p))
	}
	finishPick(cr, level)

	n := base.Requests
	if n == 0 {
		cr.Warnings = append(cr.Warnings, fmt.Sprintf("%s: its latencies are unknown (\"-\", JSON null) and nothing about it can be judged; a %s%% interval on %s needs at least %d: %s",
			noRequestsHead(base), fnum(100*level), pname(p), minRequestsFor(base, p, level), rerunAdvice(base, base, minRequestsFor(base, p, level))))
	} else if !base.CIOK(p) {
		// With a warm-up cut, or an interval that reached below 0 with
		// enough kept, the requests simulated are not what it lacked:
		// fewWhy says what the cut left and the --requests to rerun with.
		switch head := requestsAre(n) + " too few for a"; {
		case skewedCI(base, base, p, level) || base.kept() < n:
			if skewedCI(base, base, p, level) {
				head = fmt.Sprintf("%d requests give no", n)
			}
			cr.Warnings = append(cr.Warnings, fmt.Sprintf("%s %s%% interval on %s (%s); no difference counts as significant",
				head, fnum(100*level), pname(p), fewWhy(base, base, p, level, true)))
		default:
			cr.Warnings = append(cr.Warnings, fmt.Sprintf("%s %s%% interval on %s: at least %d are needed; no difference counts as significant",
				head, fnum(100*level), pname(p), minRequestsFor(base, p, level)))
		}
	} else if few := unjudged(cs, p); len(few) > 0 {
		// Candidates whose requests interact (adaptive delays) need more
		// requests for a batched interval than no hedging does.
		need := minRequestsFor(&cs[few[0]], p, level)
		labels := make([]string, len(few))
		for i, k := range few {
			labels[i] = cs[k].Label
		}
		cr.Warnings = append(cr.Warnings, fmt.Sprintf("%s too few for a %s%% interval on %s of %s (%s), whose requests interact: at least %d are needed (%s); nothing about them counts as significant",
			requestsAre(n), fnum(100*level), pname(p), plural(len(few), "1 candidate", fmt.Sprintf("%d candidates", len(few))), strings.Join(labels, ", "), need, rerunAdvice(base, &cs[few[0]], need)))
	} else if !base.P99CIOK {
		cr.Warnings = append(cr.Warnings, fmt.Sprintf("%s too few for a %s%% interval on p99 (at least %d are needed); treat p99 as rough",
			requestsAre(n), fnum(100*level), minRequestsFor(base, 0.99, level)))
	}
	capped := 0
	for i := range cs {
		if sim.CappedSummary(cs[i].Latency) != "" {
			capped++
		}
	}
	if capped > 0 {
		cr.Warnings = append(cr.Warnings, fmt.Sprintf("%d of %d candidates have percentiles at the simulator's cap of %s (no hedging: %s): single draws are capped at about 9 years, so the inputs lie outside what it models",
			capped, len(cs), sim.FormatSeconds(sim.CapSeconds), orNone(sim.CappedSummary(base.Latency))))
	}
	if cr.Objective.Goal == LowestCost && !cs[cr.ObjectivePick].Feasible {
		// Only when the objective found none: a pick the verdict rule
		// moved off a candidate within the SLA says so in its note.
		cr.Warnings = append(cr.Warnings, fmt.Sprintf("no candidate meets %s ≤ %s", pname(p), fsec(cr.Objective.SLA.Seconds())))
	}
	notes, warns := overloadNotes(cs, rule, cr.replay)
	cr.Notes = append(cr.Notes, notes...)
	if cr.Notes == nil {
		cr.Notes = []string{}
	}
	cr.Warnings = append(cr.Warnings, warns...)
	fates(cr, rule, level)
}

// unjudged returns the indices of the hedged candidates of cs without an
// interval on the p-percentile when no hedging (cs[0]) has one.
func unjudged(cs []Candidate, p float64) []int {
	var few []int
	if !cs[0].CIOK(p) {
		return nil
	}
	for k := range cs {
		if cs[k].Hedging && !cs[k].CIOK(p) && cs[k].Requests > 0 {
			few = append(few, k)
		}
	}
	return few
}

// finishPick marks cr's pick, labels its verdict, quotes what it rescued
// and harmed, and marks the candidates not significantly different from
// it at the confidence level.
func finishPick(cr *ClassReport, level float64) {
	cs := cr.Candidates
	p := cr.Objective.Percentile
	pick := &cs[cr.Pick]
	pick.Pick = true
	label(cr)
	if cr.Pick != 0 && pick.Hedging && cr.Objective.Goal != MostAnswered && pick.Requests > 0 && !pick.CIOK(p) {
		// No interval on the objective's percentile: the delay picked
		// is not measured against its neighbours', whatever the
		// verdict stands on.
		need := minRequestsFor(pick, p, level)
		cr.PickNote += fmt.Sprintf("; its delay is noise: too few requests for a %s%% interval on %s (%d simulated, at least %d needed), so a delay nearby may do as well; %s",
			fnum(100*level), pname(p), pick.Requests, need, rerunAdvice(&cs[0], pick, need))
	}
	if b := boughtText(pick); b != "" && cr.Verdict.Hedge && (*pick.RescuedShare > 0 || *pick.HarmedShare > 0 || cr.SLOSeconds > 0) {
		// Quoted where a request's fate can change: a class where every
		// request is answered either way gains speed only.
		cr.Verdict.Reason += "; request by request against no hedging" + metBasisNote(cr) + ": " + b
	}
	for i := range cs {
		cs[i].LikePick = false
		if i != cr.Pick {
			// Under objective answered (or checked), the objective's own
			// figure is the share within the target. Else, without a real
			// interval on either side, nothing is known to differ from
			// the pick.
			if cr.Objective.Goal == MostAnswered {
				cs[i].LikePick = likePickWithin(&cs[i], pick, level)
			} else {
				cs[i].LikePick = !cs[i].CIOK(p) || !pick.CIOK(p) || likePick(&cs[i], pick, p, level)
			}
		}
	}
}

// orNone returns s, or "none" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// walkBack returns the index in cr.Candidates of the last point of the
// trade-off walk before the objective's pick (cr.Pick, the walk's end)
// that is hedged, not a bundle (bundles_a_step_below_rule) and accepted by
// the rule against no hedging; −1 when there is none, or when cr's
// objective does not walk. Every move of the walk passed the marginal
// test, so that point is the fastest on the walk the rule lets roll out.
func walkBack(cr *ClassReport, level float64, rule Rule) int {
	if !cr.Objective.walks() {
		return -1
	}
	t, f := cr.tradeOff()
	if len(f) == 0 {
		return -1
	}
	path := t.path(f)
	if f[path[len(path)-1]] != cr.Pick {
		return -1
	}
	cs := cr.Candidates
	for k := len(path) - 2; k >= 0; k-- {
		c := &cs[f[path[k]]]
		if !c.Hedging || c.bundle != nil {
			continue
		}
		if judgeFor(cr.Objective, &cs[0], c, level, rule, cr.CostBasis).Hedge {
			return f[path[k]]
		}
	}
	return -1
}

// acceptable returns the index of the fastest hedged candidate of cs
// (ties to the cheaper, as Pick ranks them) or, with cheapest, of the
// cheapest (ties to the faster), among those for which ok holds, that the
// rule accepts against cs[0]; −1 if there is none.
func acceptable(cs []Candidate, o Objective, level float64, rule Rule, basis string, cheapest bool, ok func(*Candidate) bool) int {
	p := o.Percentile
	best := -1
	for i := range cs {
		c := &cs[i]
		if !c.Hedging || !ok(c) {
			continue
		}
		if best >= 0 {
			b := &cs[best]
			if cheapest {
				if costLess(b.AddedCostPct, c.AddedCostPct) || (sameCost(c.AddedCostPct, b.AddedCostPct) && !better(c, b, p)) {
					continue
				}
			} else if !better(c, b, p) && (better(b, c, p) || costWithin(b.AddedCostPct, c.AddedCostPct)) {
				continue
			}
		}
		if v := judgeFor(o, &cs[0], c, level, rule, basis); v.Hedge {
			best = i
		}
	}
	return best
}

// nearestAcceptable returns the index of the hedged candidate of cs beyond
// o's limits (Feasible false) that the rule accepts against cs[0] and that
// is closest to the limits: the least Excess, ties to the faster, then the
// cheaper; −1 if there is none.
func nearestAcceptable(cs []Candidate, o Objective, level float64, rule Rule, basis string) int {
	p := o.Percentile
	best, bestX := -1, 0.0
	for i := range cs {
		c := &cs[i]
		if !c.Hedging || c.Feasible || c.bundle != nil {
			continue
		}
		x := Excess(c, o)
		if best >= 0 {
			b := &cs[best]
			switch {
			case x > bestX:
				continue
			case x == bestX:
				if !better(c, b, p) && (better(b, c, p) || costWithin(b.AddedCostPct, c.AddedCostPct)) {
					continue
				}
			}
		}
		if v := judgeFor(o, &cs[0], c, level, rule, basis); v.Hedge {
			best, bestX = i, x
		}
	}
	return best
}

// Excess says how far c lies beyond the limits of o: the sum, over the
// limits it violates, of its excess over each — added cost above
// MaxAddedCostPct (LowestLatency, MostAnswered) and hedged share above MaxHedgedPct, in
// percentage points, and for LowestCost the percentile above the SLA, in
// percent of the SLA. It is 0 for a candidate within the limits.
func Excess(c *Candidate, o Objective) float64 {
	x := max(0, 100*c.HedgedShare-o.MaxHedgedPct)
	switch o.Goal {
	case LowestLatency, MostAnswered:
		if !math.IsInf(o.MaxAddedCostPct, 1) {
			x += max(0, c.AddedCostPct-o.MaxAddedCostPct)
		}
	case LowestCost:
		if sla := o.SLA.Seconds(); sla > 0 {
			x += max(0, 100*(c.Q(o.Percentile)-sla)/sla)
		}
	}
	return x
}

// aboveSLA says, for objective cost, that c's percentile is above the SLA:
// " (p95 2.54s, above the SLA of 2.00s)"; "" otherwise.
func aboveSLA(c *Candidate, o Objective) string {
	if sla := o.SLA.Seconds(); o.Goal != LowestCost || c.Q(o.Percentile) <= sla {
		return ""
	}
	return fmt.Sprintf(" (%s %s, above the SLA of %s)", pname(o.Percentile), fsec(c.Q(o.Percentile)), fsec(o.SLA.Seconds()))
}

// goalWord names the objective's pick in a verdict: "the trade-off pick",
// "the lowest-p95 pick", "the cheapest pick", "the knee pick".
func goalWord(o Objective) string {
	switch o.Goal {
	case LowestCost:
		return "cheapest"
	case Knee:
		return "knee"
	}
	if o.walks() {
		return "trade-off"
	}
	if o.Goal == MostAnswered {
		return "most-answered"
	}
	return "lowest-" + pname(o.Percentile)
}

// requestsAre says "1 request is" or "n requests are".
func requestsAre(n int64) string {
	if n == 1 {
		return "1 request is"
	}
	return fmt.Sprintf("%d requests are", n)
}

func overlap(a, b [2]float64) bool { return a[0] <= b[1] && b[0] <= a[1] }

// grid builds the hedged candidates of the one-class config c (without
// the baseline) and groups them into series; q10 and q99 are the class's
// no-hedging percentiles in seconds, for the default delays.
//
// When the class's configured policy is of a kind the grid does not try —
// fallback copies, an adaptive delay, or a list of different delays — it is
// added last as candidate "configured", in no series, so that the pick is
// never worse than keeping it.
func grid(c *sim.Config, s Search, q10, q99 float64) ([]Candidate, []Series) {
	out, series := fixedGrid(c, s, q10, q99)
	return append(out, adaptiveCandidates(c, s.Adaptive)...), series
}

// fixedGrid is grid without the adaptive candidates.
func fixedGrid(c *sim.Config, s Search, q10, q99 float64) ([]Candidate, []Series) {
	out, series := delayGrid(c, s, q10, q99)
	base := c.Classes[0].Policy
	if base.Copies == 0 || !(hasFallback(&base) || base.Adaptive != nil || len(slices.Compact(slices.Clone(base.Delays))) > 1) {
		return out, series // a fixed delay: the grid's delays are the choice
	}
	for i := range out {
		if samePolicy(out[i].Policy(base), base) {
			return out, series
		}
	}
	names := make([]string, 0, len(base.Targets))
	for _, m := range base.Targets {
		names = append(names, c.Models[m].Name)
	}
	if len(names) == 0 {
		names = append(names, c.Models[base.Primary].Name)
	}
	var d time.Duration
	if len(base.Delays) > 0 {
		d = max(base.Delays[0], 0)
	}
	out = append(out, Candidate{
		Label: "configured", Hedging: true, Configured: true, Delay: d, DelaySeconds: seconds(d),
		Copies: base.Copies, Target: strings.Join(names, ","), fallback: hasFallback(&base),
	})
	return out, series
}

// delayGrid is grid without the configured candidate.
func delayGrid(c *sim.Config, s Search, q10, q99 float64) ([]Candidate, []Series) {
	cl := &c.Classes[0]
	delays := s.Delays
	if delays == nil {
		delays = DefaultDelays(q10, q99)
	}
	if dl := cl.Deadline; dl > 0 {
		// A copy due at or after the deadline is never sent: such a
		// delay is no hedging, and no scenario may say it.
		delays = slices.DeleteFunc(slices.Clone(delays), func(d time.Duration) bool { return d >= dl })
	}
	copies := s.Copies
	if copies == nil {
		copies = []int{max(cl.Policy.Copies, 1)}
	}
	// Like delays, copies and targets are tried once each: a repeated value
	// would only repeat a candidate.
	copies = slices.Compact(slices.Sorted(slices.Values(copies)))
	type target struct {
		idx  []int
		name string
	}
	var targets []target
	if s.Targets == nil {
		idx := cl.Policy.Targets
		if len(idx) == 0 {
			idx = []int{cl.Policy.Primary}
		}
		names := make([]string, len(idx))
		for i, m := range idx {
			names[i] = c.Models[m].Name
		}
		targets = []target{{nil, strings.Join(names, ",")}}
	} else {
		for i, name := range s.Targets {
			if slices.Contains(s.Targets[:i], name) {
				continue
			}
			for m := range c.Models {
				if c.Models[m].Name == name {
					targets = append(targets, target{[]int{m}, name})
					break
				}
			}
		}
	}
	var out []Candidate
	var series []Series
	for _, k := range copies {
		for _, t := range targets {
			var sr Series
			sr.Name = fmt.Sprintf("%d cop%s to %s", k, plural(k, "y", "ies"), t.name)
			for _, d := range delays {
				label := fdelay(d)
				if len(copies) > 1 {
					label += fmt.Sprintf("×%d", k)
				}
				if len(targets) > 1 {
					label += "→" + t.name
				}
				out = append(out, Candidate{
					Label: label, Hedging: true, Delay: d, DelaySeconds: seconds(d),
					Copies: k, Target: t.name, targets: t.idx,
				})
				sr.Members = append(sr.Members, len(out)) // index in Candidates, after the baseline
			}
			series = append(series, sr)
		}
	}
	return out, series
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// gridSpan returns the no-hedging p10 and p99 in seconds that the default
// delay grid spans. When p99 is a miss (more than 1 % of requests without a
// usable answer), the grid reaches to the deadline instead — or, without
// one, to the slowest answer — so that late hedges, which may rescue the
// missed requests, are tried.
func gridSpan(r *sim.ClassResult, deadline time.Duration) (q10, q99 float64) {
	q := r.Quantiles(0.10, 0.99)
	q10, q99 = q[0], q[1]
	if !math.IsInf(q99, 1) {
		return q10, q99
	}
	if deadline > 0 {
		q99 = deadline.Seconds()
	} else {
		q99 = r.MaxAnswered() // NaN when nothing was answered
	}
	if math.IsInf(q10, 1) {
		q10 = math.NaN() // nothing answered: the grid's fallback spacing
	}
	return q10, q99
}

// DefaultDelays returns the default delay grid for a class whose
// no-hedging latency has 10th and 99th percentiles q10 and q99 (seconds):
// 0; q10/4, q10/2 and 3·q10/4; and DefaultDelayCount delays spaced
// geometrically from q10 to q99. Delays are rounded to three significant
// digits (four, or none, when rounding would merge grid points). The grid
// thus searches well below the p95 it tries to improve. A degenerate spread
// (q99 ≤ q10) gives an even grid from 0 to 2·q99.
func DefaultDelays(q10, q99 float64) []time.Duration {
	n := DefaultDelayCount
	var raw []float64
	switch {
	case !(q99 > 0) || math.IsInf(q99, 0):
		for i := range n + 3 {
			raw = append(raw, 0.05*float64(i+1)) // 50 ms steps when nothing is known
		}
	case !(q10 > 0) || q99 <= q10*1.0001:
		for i := range n + 3 {
			raw = append(raw, 2*q99*float64(i+1)/float64(n+3))
		}
	default:
		raw = append(raw, q10/4, q10/2, 3*q10/4)
		r := math.Pow(q99/q10, 1/float64(n-1))
		for i := range n {
			raw = append(raw, q10*math.Pow(r, float64(i)))
		}
	}
	for _, digits := range []int{3, 4, 0} {
		out := []time.Duration{0}
		for _, x := range raw {
			d := time.Duration(math.Round(roundSig(x, digits) * 1e9))
			if d > out[len(out)-1] {
				out = append(out, d)
			}
		}
		if len(out) == len(raw)+1 || digits == 0 {
			return out
		}
	}
	panic("unreachable")
}

// roundSig rounds x > 0 to the given number of significant digits (0 = no
// rounding).
func roundSig(x float64, digits int) float64 {
	if digits == 0 || x <= 0 {
		return x
	}
	e := math.Pow10(digits - 1 - int(math.Floor(math.Log10(x))))
	return math.Round(x*e) / e
}

// pickSpend is the spend of class i's pick at the class's arrival rate.
// An undecided class has no pick: what rolls out is its configured
// policy, at the sweep's "configured" candidate's cost when the sweep has
// one, else unknown to the sweep: the class's rate and no hedging's
// spend are known (NoPickCost) — with closed-loop clients, whose rate
// under that policy is unknown too, no hedging's rate and spend alone
// (NoPickRate); nothing (NoRate: n/a, JSON null) without candidates.
func pickSpend(cfg *sim.Config, i int, cr *ClassReport) sim.Spend {
	pick := cr.RolledOut()
	if pick == nil {
		if len(cr.Candidates) == 0 {
			return sim.Spend{NoRate: true}
		}
		base := cr.Baseline()
		if cfg.Classes[i].Clients > 0 {
			if base.Requests == 0 || !(base.perSecond > 0) {
				return sim.Spend{NoRate: true}
			}
			// No hedging's figures are known: its clients' throughput
			// and cost; the configured policy's are not.
			s := sim.SpendAtRates(0, base.perSecond, 0, base.CostPer1kUSD)
			s.NoPickCost, s.NoPickRate = true, true
			return s
		}
		s := pickSpend0(cfg, i, cr, base) // no hedging's figures as the pick's
		s.NoCost = s.NoCost || base.Requests == 0
		if !s.NoRate {
			s.PerDay, s.PerMonth, s.NoPickCost = 0, 0, true
		}
		return s
	}
	if pick.Requests == 0 {
		// No request of the class in the sweep: its rate is known, its
		// cost is not.
		s := pickSpend0(cfg, i, cr, pick)
		s.NoCost = true
		return s
	}
	return pickSpend0(cfg, i, cr, pick)
}

// pickSpend0 is pickSpend of the candidate pick that rolls out.
func pickSpend0(cfg *sim.Config, i int, cr *ClassReport, pick *Candidate) sim.Spend {
	rate := sim.ArrivalRate(cfg) * cfg.Classes[i].Share
	if cfg.Classes[i].Clients > 0 {
		// Closed-loop clients: the pick and no hedging each at the rate
		// their clients reached.
		base := cr.Baseline()
		return sim.SpendAtRates(pick.perSecond, base.perSecond, pick.CostPer1kUSD, base.CostPer1kUSD)
	}
	if sim.NoArrivalSpan(cfg) {
		return sim.Spend{NoRate: true} // a trace that spans no time has no rate
	}
	return sim.SpendAt(rate, pick.CostPer1kUSD, cr.Baseline().CostPer1kUSD)
}

// tooRare says why a class swept alone is not simulated: at its share of
// the arrival rate (total requests/s), rate requests per second, the
// requests asked would span span seconds of simulated time, past the
// sim.MaxSpan (100 years) a run may span.
type tooRare struct {
	share, total, rate, span float64
	requests                 int
}

// rareAlone returns why open-arrival class i of cfg, swept alone with the
// given number of requests, cannot be simulated (tooRare), or nil when it
// can: its requests at its share of the arrival rate span at most
// sim.MaxSpan. Closed-loop classes and replayed traces are never too rare.
func rareAlone(cfg *sim.Config, i, requests int) *tooRare {
	cl := &cfg.Classes[i]
	if cfg.Arrivals.Process == sim.Replay || cl.Clients > 0 {
		return nil
	}
	rate := cfg.Arrivals.Rate * cl.Share
	if span := float64(requests) / rate; span > sim.MaxSpan.Seconds() {
		return &tooRare{share: cl.Share, total: cfg.Arrivals.Rate, rate: rate, span: span, requests: requests}
	}
	return nil
}

// why says that the class was not simulated, and why.
func (r *tooRare) why() string {
	return fmt.Sprintf("the class was not simulated: swept alone at its share %g of %g requests/s (%.3g per second), its %d requests would span %.3g s (%.3g years) of simulated time, past the 100 years a run may span",
		r.share, r.total, r.rate, r.requests, r.span, r.span/sim.MaxSpan.Seconds()*100)
}

// advice says what would give the class need requests: the --requests
// that fit in sim.MaxSpan at its rate, or, when need do not, a larger
// share or arrival rate.
func (r *tooRare) advice(need int) string {
	fit := int64(r.rate * sim.MaxSpan.Seconds()) // requests within 100 years at its rate
	if int64(need) > fit {
		return fmt.Sprintf("%d requests at its rate would span %.3g s, past that limit too: raise its share or the arrival rate", need, float64(need)/r.rate)
	}
	return fmt.Sprintf("rerun with --requests from %d to %d, which at its rate span at most 100 years", need, fit)
}

// unmeasured returns the report of class i of cfg (one-call or
// pipeline), not simulated because swept alone its requests would span
// too long (r). Like a class
// no request fell in, its latencies are unknown (NaN: "-", JSON null), its
// only candidate is no hedging, and its verdict is undecided, saying why
// and what it would need; a warning says the same.
func unmeasured(cfg *sim.Config, s Settings, i int, r *tooRare) *ClassReport {
	cl := &cfg.Classes[i]
	cr := &ClassReport{
		Class:           cl.Name,
		DeadlineSeconds: seconds(cl.Deadline),
		SLOSeconds:      seconds(cl.SLO),
		Objective:       s.For(cl.Name).Objective,
		Warnings:        []string{},
		asked:           int64(s.Requests),
	}
	c := *cfg
	one := *cl
	one.Share = 1
	c.Classes = []sim.Class{one}
	c.Arrivals.Rate, c.Requests = r.rate, s.Requests
	cr.batched = c.Batched()
	base := Candidate{Label: "none", Latency: unknownLatency(), Loads: []Load{}, rare: r}
	cr.Candidates = []Candidate{base}
	decide(cr, s.Rule, s.Level)
	if !cr.Verdict.Undecided {
		// Objective answered judges no hedging against itself as "don't
		// hedge"; with nothing simulated, nothing is known.
		p := cr.Objective.Percentile
		need := minRequestsFor(&cr.Candidates[0], p, s.Level)
		cr.Verdict = Verdict{Undecided: true, Alternative: -1, detail: DetailTooFew, GainPct: math.NaN(),
			Reason: fmt.Sprintf("cannot tell: %s, and a %s%% interval on %s needs at least %d: %s", r.why(), fnum(100*s.Level), pname(p), need, r.advice(need))}
		label(cr)
	}
	return cr
}

// unsimulated reports whether cr's class was not simulated, too rare to
// sweep alone (tooRare).
func (cr *ClassReport) unsimulated() bool {
	return len(cr.Candidates) > 0 && cr.Candidates[0].rare != nil
}

// NotSimulated says why cr's class was not simulated, or "" when it was:
// swept alone at its share of the arrival rate, the requests asked would
// span more than the 100 years (sim.MaxSpan) a run may span. Such a class
// has only no hedging as a candidate, with unknown latencies, and an
// undecided verdict. Only a report made by Run or Assemble knows; one
// read back from JSON says "".
func (cr *ClassReport) NotSimulated() string {
	if !cr.unsimulated() {
		return ""
	}
	return cr.Candidates[0].rare.why()
}

// classConfig returns a config with only class i of cfg, at share 1, with
// the given number of requests: at the class's share of the arrival rate,
// or for a replayed trace with a class column, the class's own requests of
// the trace. warn is set when the trace is shorter than asked.
func classConfig(cfg *sim.Config, i, requests int) (*sim.Config, string, error) {
	c := *cfg
	cl := cfg.Classes[i]
	if cl.Clients == 0 {
		cl.Share = 1 // a closed-loop class takes no share of the arrivals
	}
	c.Classes = []sim.Class{cl}
	c.Requests = requests
	warn := ""
	switch tr := cfg.Arrivals.Trace; {
	case cfg.Arrivals.Process != sim.Replay:
		c.Arrivals.Rate = cfg.Arrivals.Rate * cfg.Classes[i].Share
		if r := rareAlone(cfg, i, requests); r != nil {
			return nil, "", fmt.Errorf("%w: class %q is swept alone at its share %g of %g requests/s: %d requests at %.3g per second span %.3g s of simulated time, past the %.3g s (100 years) a run may span: raise its share or the arrival rate (optimized with other classes, see --classes, it is reported as not simulated)",
				sim.ErrInvalidConfig, cl.Name, r.share, r.total, requests, r.rate, r.span, sim.MaxSpan.Seconds())
		}
	case tr.Class != nil:
		var t sim.Trace
		for j, k := range tr.Class {
			if k != i {
				continue
			}
			t.Arrivals = append(t.Arrivals, tr.Arrivals[j])
			if tr.Input != nil {
				t.Input = append(t.Input, tr.Input[j])
			}
			if tr.Output != nil {
				t.Output = append(t.Output, tr.Output[j])
			}
		}
		if len(t.Arrivals) == 0 {
			return nil, "", fmt.Errorf("class %q has no requests in the trace", cl.Name)
		}
		c.Arrivals.Trace = &t
	}
	if tr := c.Arrivals.Trace; c.Arrivals.Process == sim.Replay && len(tr.Arrivals) < requests {
		c.Requests = len(tr.Arrivals)
		warn = fmt.Sprintf("the trace has %s of this class; each candidate runs on those, not %d", fcount(int64(len(tr.Arrivals))), requests)
	}
	return &c, warn, nil
}

// parallel calls fn(0), …, fn(n−1) on up to workers goroutines and returns
// the error of the lowest index that failed. progress, when set, is called
// after each call.
func parallel(n, workers int, fn func(i int) error, progress func()) error {
	return parallelContext(context.Background(), n, workers, fn, progress)
}

// parallelContext is parallel that returns ctx's error once ctx is done;
// no call starts after that.
func parallelContext(ctx context.Context, n, workers int, fn func(i int) error, progress func()) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				errs[i] = fn(i)
				if progress != nil {
					progress()
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hasFallback reports whether one of pol's copies is fallback-only (a
// negative gap: sent only after a failure).
func hasFallback(pol *sim.Policy) bool {
	for _, d := range pol.Delays {
		if d < 0 {
			return true
		}
	}
	return false
}

// withinAdvice says, under objectives answered and checked, what would
// decide whether the objective's pick cuts the share not answered within
// the target significantly: "; rerun with --requests ≥ N" (rerunAdvice at
// the requests sharesApartRequests gives for the two shares), or that no
// run allowed would; "" under other objectives, whose verdicts say it
// themselves, or when the runs are paired (requests that interact).
func withinAdvice(cr *ClassReport, level float64) string {
	if cr.Objective.Goal != MostAnswered {
		return ""
	}
	base, obj := cr.Baseline(), &cr.Candidates[cr.Pick]
	if _, paired := withinCut(base, obj, level); paired {
		return ""
	}
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	need := sharesApartRequests(1-base.AnsweredWithinShare, 1-obj.AnsweredWithinShare, z)
	if need == 0 {
		return fmt.Sprintf("; no run of up to %d requests would part the Wilson intervals at these shares", MaxRequests)
	}
	return fmt.Sprintf("; the Wilson intervals overlap; not significant at %d requests: %s", min(base.Requests, obj.Requests), rerunAdvice(base, obj, int(need)))
}

// unearned makes cr's verdict undecided: the rule refused the objective's
// pick because its gain is not significant, and cs[a], a costlier
// candidate the rule accepts against no hedging on a share (what: which
// one), does not earn its added cost over that pick (t.earns). More
// requests decide whether the pick's gain is real, and with it whether
// anything costlier is worth its cost: the reason says how many
// (withinAdvice; Judge's reason gives it under objectives p95 and p99).
func unearned(cr *ClassReport, t *tradeOff, a int, what string, level float64, rule Rule) {
	cs := cr.Candidates
	obj := &cs[cr.Pick]
	_, buys := t.earns(obj, &cs[a], level, rule, costWordOf(cr.CostBasis))
	beyond := fmt.Sprintf("%s, %s, is not recommended: beyond the %s pick it does not earn its added %s (%s)", cs[a].Label, what, goalWord(cr.Objective), costWordOf(cr.CostBasis), buys)
	v := cr.Verdict
	v.Hedge, v.Undecided, v.DecidedBy = false, true, ""
	v.Reason = fmt.Sprintf("cannot tell at %s: the %s pick (%s) fails the rule (%s%s); %s",
		fcount(obj.Requests), goalWord(cr.Objective), obj.Label, v.Reason, withinAdvice(cr, level), beyond)
	cr.Verdict = v
}

// onShare reports whether the rule accepts c against no hedging on a
// share of requests: under objectives answered and checked always (the
// share not within the target), under p95 and p99 when its unanswered
// share decided (DecidedByUnanswered).
func onShare(cr *ClassReport, c *Candidate, level float64, rule Rule) bool {
	if cr.Objective.Goal == MostAnswered {
		return true
	}
	return judgeFor(cr.Objective, cr.Baseline(), c, level, rule, cr.CostBasis).DecidedBy == DecidedByUnanswered
}
