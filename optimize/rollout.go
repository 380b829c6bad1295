package optimize

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/sim"
)

// RolloutCheck is the whole scenario simulated once with every class's pick
// applied (an undecided class's configured policy), as it will be deployed — all classes' traffic at once, next to
// the same traffic without hedging — and compared with what the sweep
// predicted for each pick.
type RolloutCheck struct {
	// Requests is the number of requests simulated, over all classes.
	Requests int `json:"requests"`
	// Seed, when set, is the seed the check ran with instead of the
	// sweep's (CheckSeed): a check of no more requests than each
	// candidate's would otherwise repeat the sweep's draws request for
	// request, and so check nothing. Absent when the check runs on the
	// sweep's seed (more requests than a candidate's: it then goes on
	// past them).
	Seed *uint64 `json:"seed,omitempty"`
	// Classes compares, per optimized class, the check with the sweep.
	Classes []RolloutClass `json:"classes"`
	// Report is the full run (every class, overall, providers), exactly
	// what `hedgesim run` prints for the scenario with the picks applied
	// (see RolloutConfig).
	Report *sim.Report `json:"report"`
}

// RolloutClass is one class of a RolloutCheck. Latencies are times to a
// usable answer in seconds (a miss is +Inf, JSON null).
type RolloutClass struct {
	Class string `json:"class"`
	// Pick is the label of the class's pick ("none" for no hedging), or
	// "configured" when the verdict is undecided: the check then runs the
	// class's configured policy, which --write-scenario and export keep
	// for it, and Note says so.
	Pick string `json:"pick"`
	// Unswept is true when the check runs a policy the sweep did not
	// simulate (an undecided class's configured policy outside the grid):
	// the predicted fields are then zero and nothing is compared with them.
	// Absent when false.
	Unswept bool `json:"unswept,omitempty"`
	// Checked is the class in the rollout check, NoHedging the same
	// traffic without hedging, Predicted the pick in the sweep. Their
	// intervals are at the report's confidence level (Checked's and
	// NoHedging's: atLevel), whereas Report, hedgesim run's, has 95 %
	// intervals.
	Checked   sim.Latency `json:"latency_s"`
	NoHedging sim.Latency `json:"no_hedging_latency_s"`
	Predicted sim.Latency `json:"predicted_latency_s"`
	// AnsweredShare, NoHedgingAnswered and PredictedAnswered are the
	// shares of requests answered within the deadline.
	AnsweredShare     float64 `json:"answered_share"`
	NoHedgingAnswered float64 `json:"no_hedging_answered_share"`
	PredictedAnswered float64 `json:"predicted_answered_share"`
	// RateLimited is the number of the class's attempts that got a 429.
	RateLimited int64 `json:"rate_limited_attempts"`
	// AddedCostPct is the checked cost relative to no hedging, in percent,
	// and PredictedAddedCostPct the sweep's, both on the class's cost
	// basis (calls per request when the class costs nothing);
	// PredictedAddedCostPct is null in JSON when no request of the class
	// fell in the sweep.
	AddedCostPct          *float64 `json:"added_cost_pct"`
	PredictedAddedCostPct float64  `json:"predicted_added_cost_pct"`
	// Flagged is true when the check contradicts the sweep beyond sampling
	// noise: the checked p95 interval (Checked's) and the sweep's are
	// disjoint; the
	// checked answered share is significantly lower than no hedging's in
	// the check; or its Wilson interval and the sweep's are disjoint; or,
	// for an undecided class's configured policy, its added cost in the
	// check breaks the class's own objective (configuredCostFlag).
	// Flag says which, and why when it can.
	Flagged bool   `json:"flagged"`
	Flag    string `json:"flag"`
	// Note says what else differs, without flagging (a decided pick's
	// cost above the objective's cap), and when TooFew why.
	Note string `json:"note"`
	// TooFew is true when the check holds too few of the class's requests
	// for an interval on its p95 at the report's confidence level (after
	// the warm-up cut when its requests interact), or none: its p95 is
	// then not compared with the sweep's, so an unflagged check confirms
	// nothing; Note and a warning of the class say how many
	// --check-requests would do (checkTooFew). Absent when false.
	TooFew bool `json:"too_few,omitempty"`
	// PredictedTooFew is true when the sweep's prediction has no p95
	// interval (too few of the class's requests in the sweep): the
	// check's p95 is not compared with it either, which is no pass; Note
	// says how many --requests would give one. Absent when false.
	PredictedTooFew bool `json:"predicted_too_few,omitempty"`
	// AnsweredRiseCI is, when the class's requests interact, the interval
	// of the paired difference of the answered shares with and without
	// hedging over the two runs' 30 batches of the fixed grid (they share
	// their random numbers; sim.PairDiff), at the report's confidence
	// level; absent for independent requests or when it could not be
	// formed.
	AnsweredRiseCI *[2]*float64 `json:"paired_answered_rise_ci,omitempty"`
	// Within is, under objectives answered and checked, the share the
	// objective counts within its target, in the check, without hedging
	// and in the sweep: what the pick was chosen on. Absent under the
	// other objectives, and when no request of the class fell in the
	// check.
	Within *RolloutWithin `json:"within,omitempty"`

	// overCap, for an undecided class whose configured policy hedges, says
	// its added cost in the check ("+606.0% cost") when that is over the
	// objective's cap by more than 0.5 pt (rolloutCheck then rolls out no
	// hedging); "" otherwise.
	overCap string
	// answersFell is true when the class hedges and answers significantly
	// fewer requests in the check than without hedging.
	answersFell bool

	// noRequests is true when no request of the class fell in the check,
	// noPredicted when none fell in the sweep's run of the pick or the
	// sweep did not simulate what the check runs: their answered shares
	// (and the predicted added cost) are then unknown (JSON null, printed
	// "-"), not 0.
	noRequests, noPredicted bool
}

// RolloutWithin is the share of a class's requests that objective
// answered (checked) counts — answered (for checked, gone through checked:
// every fail-open step answered in time) within its target — in the
// rollout check, on the same traffic without hedging, and in the sweep's
// run of the pick. Shares are in [0, 1]; intervals are at the report's
// confidence level: Wilson's for independent requests, from the run's 30
// batches of the fixed grid when they interact (sim.BatchShareInterval;
// a checked share from the batches of the checked end-to-end times,
// sim.PipelineResult.CheckedTimes), null when none could be formed (the
// sweep's prediction of a checked share of requests that interact, whose
// batches count answers, not checked turns).
type RolloutWithin struct {
	// What is "answered" or "checked"; TargetS the target in seconds.
	What    string  `json:"what"`
	TargetS float64 `json:"target_s"`
	// Share is the check's, NoHedging the same traffic's without hedging.
	Share       float64      `json:"share"`
	ShareCI     *[2]*float64 `json:"share_ci"`
	NoHedging   float64      `json:"no_hedging_share"`
	NoHedgingCI *[2]*float64 `json:"no_hedging_share_ci"`
	// Predicted is the sweep's figure for the pick, with its interval;
	// null when the sweep has none (no request of the class, or the check
	// runs a policy the sweep did not simulate).
	Predicted   *float64     `json:"predicted_share"`
	PredictedCI *[2]*float64 `json:"predicted_share_ci"`
	// RiseCI is, when the requests interact, the interval of the paired
	// difference Share − NoHedging over the two runs' 30 batches of the
	// fixed grid (the check and its run without hedging share their
	// random numbers, so what a batch's requests shared cancels;
	// sim.PairDiff), at the report's confidence level; absent for
	// independent requests or when it could not be formed.
	RiseCI *[2]*float64 `json:"paired_rise_ci,omitempty"`
}

// checkWithin returns the RolloutWithin of a class under objective o
// (answered or checked, with a target) from the check's run h and its
// run without hedging b, and the sweep's pick (nil: no prediction); nil
// under other objectives or when either run has no request of the class.
func checkWithin(o Objective, h, b *sim.ClassResult, pick *Candidate, level float64) *RolloutWithin {
	if o.Goal != MostAnswered || o.Target <= 0 || h.Requests == 0 || b.Requests == 0 {
		return nil
	}
	w := &RolloutWithin{What: o.WithinWord(), TargetS: o.Target.Seconds()}
	w.Share, w.ShareCI = withinOf(o, h, level)
	w.NoHedging, w.NoHedgingCI = withinOf(o, b, level)
	if ph, pb := withinBatches(o, h), withinBatches(o, b); ph != nil && pb != nil {
		w.RiseCI = wireCI(sim.PairDiff(w.NoHedging, pb, w.Share, ph, level).CI)
	}
	if pick != nil && pick.Requests > 0 {
		x := pick.AnsweredWithinShare
		w.Predicted, w.PredictedCI = &x, pick.AnsweredWithinShareCI95
	}
	return w
}

// withinOf returns the share of r's requests that o counts within its
// target, and its interval at the level (see RolloutWithin); r must have
// requests.
func withinOf(o Objective, r *sim.ClassResult, level float64) (float64, *[2]*float64) {
	t := o.Target.Seconds()
	n := r.AnsweredWithin(t)
	if o.Checked && r.Pipeline != nil {
		n = r.Pipeline.CheckedWithin(t)
	}
	share := float64(n) / float64(r.Requests)
	if !r.Batched() {
		lo, hi := wilson(share, r.Requests, distuv.UnitNormal.Quantile((1+level)/2))
		return share, wireCI([2]float64{lo, hi})
	}
	// For checked, the checked end-to-end times, batched as the class's
	// requests (sim.PipelineResult.CheckedTimes): a turn checked within
	// t is one of them answered within t.
	per := withinBatches(o, r)
	if per == nil {
		return share, nil
	}
	return share, wireCI(sim.BatchShareInterval(share, per, level))
}

// answeredRise returns RolloutClass.AnsweredRiseCI of the check's run h
// and its run without hedging b: nil unless both are batched.
func answeredRise(h, b *sim.ClassResult, level float64) *[2]*float64 {
	ph, _, _, ok1 := h.GridShares(0)
	pb, _, _, ok2 := b.GridShares(0)
	if !ok1 || !ok2 || h.Requests == 0 || b.Requests == 0 {
		return nil
	}
	sh, sb := float64(h.Answered)/float64(h.Requests), float64(b.Answered)/float64(b.Requests)
	return wireCI(sim.PairDiff(sb, pb, sh, ph, level).CI)
}

// withinBatches returns the share of r's requests that o counts within
// its target in each batch of the fixed grid (sim.ClassResult.GridShares;
// for objective checked, of the checked end-to-end times), nil unless r
// is batched (its requests interact).
func withinBatches(o Objective, r *sim.ClassResult) []float64 {
	if !r.Batched() {
		return nil
	}
	g := r
	if o.Checked {
		if r.Pipeline == nil {
			return nil
		}
		g = r.Pipeline.CheckedTimes()
	}
	_, per, _, ok := g.GridShares(o.Target.Seconds())
	if !ok {
		return nil
	}
	return per
}

// WithinShare returns the share in [0, 1] of r's requests that objective
// o counts within its target — answered within it, or under checked gone
// through checked in time — and its interval at the level (Wilson's for
// independent requests, from the run's batches when they interact; nil
// when none can be formed), as the rollout check's RolloutWithin gives
// them; ok is false, and the share 0, when o has no target, is not
// answered or checked, or r has no request.
func WithinShare(o Objective, r *sim.ClassResult, level float64) (share float64, ci *[2]*float64, ok bool) {
	if o.Goal != MostAnswered || o.Target <= 0 || r.Requests == 0 {
		return 0, nil, false
	}
	share, ci = withinOf(o, r, level)
	return share, ci, true
}

// AnswersFell reports whether the class hedges and answers significantly
// fewer requests in the check than the same traffic without hedging (at
// the check's level): a configured policy that does so does not roll
// out, undecided or not (keepNoHedging), and retune does not keep it.
func (c *RolloutClass) AnswersFell() bool { return c.answersFell }

// NoRequests reports whether no request of the class fell in the check:
// its latencies and answered shares are then unknown (JSON null).
func (c *RolloutClass) NoRequests() bool { return c.noRequests }

// MarshalJSON writes c with the answered shares of a run without requests
// of the class (RolloutClass.noRequests, noPredicted) as null.
func (c RolloutClass) MarshalJSON() ([]byte, error) {
	type plain RolloutClass // without this method
	if !c.noRequests && !c.noPredicted {
		return json.Marshal(plain(c))
	}
	w := struct {
		plain
		AnsweredShare         *float64 `json:"answered_share"`
		NoHedgingAnswered     *float64 `json:"no_hedging_answered_share"`
		PredictedAnswered     *float64 `json:"predicted_answered_share"`
		PredictedAddedCostPct *float64 `json:"predicted_added_cost_pct"`
	}{plain(c), &c.AnsweredShare, &c.NoHedgingAnswered, &c.PredictedAnswered, &c.PredictedAddedCostPct}
	if c.noRequests {
		w.AnsweredShare, w.NoHedgingAnswered = nil, nil
	}
	if c.noPredicted {
		w.PredictedAnswered, w.PredictedAddedCostPct = nil, nil
	}
	return json.Marshal(w)
}

// RolloutConfig returns cfg with the pick of every class of rep applied
// (classes rep did not optimize, and classes whose verdict is undecided,
// keep their configured policy), and the given number of
// requests — for a replayed trace, at most the trace's length.
func RolloutConfig(cfg *sim.Config, rep *Report, requests int) *sim.Config {
	c := *cfg
	c.Classes = append([]sim.Class(nil), cfg.Classes...)
	for j := range rep.Classes {
		cr := &rep.Classes[j]
		for i := range c.Classes {
			if c.Classes[i].Name == cr.Class && !cr.Verdict.Undecided {
				c.Classes[i].Policy = cr.Picked().Policy(cfg.Classes[i].Policy)
				c.Classes[i].Pipeline = cr.Picked().pipelineFor(&cfg.Classes[i])
			}
		}
	}
	c.Requests = requests
	if c.Arrivals.Process == sim.Replay && c.Arrivals.Trace != nil && len(c.Arrivals.Trace.Arrivals) < requests {
		c.Requests = len(c.Arrivals.Trace.Arrivals)
	}
	return &c
}

// checkSeedKey is what CheckSeed mixes into a seed; its top bit is 0, so a
// seed in [0, 2⁶³) — any scenario's — maps to another there.
const checkSeedKey = 0x2545_f491_4f6c_dd1d

// CheckSeed returns the seed of a rollout check whose draws are its own
// for a sweep on seed: seed XOR a fixed 63-bit key — never seed itself,
// in [0, 2⁶³) when seed is, and the same for the same seed, so the check
// is reproducible (--write-scenario writes it).
func CheckSeed(seed uint64) uint64 { return seed ^ checkSeedKey }

// Check runs the rollout check of rep for cfg with the given number of
// requests, intervals at the given level; it stops with ctx's error when
// ctx is done. The check's run and its no-hedging baseline run at once,
// split on GOMAXPROCS goroutines when their requests are independent
// (sim.RunWithBaseline); the result does not depend on that.
func Check(ctx context.Context, cfg *sim.Config, rep *Report, requests int, level float64) (*RolloutCheck, error) {
	return checkOn(ctx, cfg, rep, requests, level, runtime.GOMAXPROCS(0))
}

// checkOn is Check on workers goroutines per run.
func checkOn(ctx context.Context, cfg *sim.Config, rep *Report, requests int, level float64, workers int) (*RolloutCheck, error) {
	rc, _, err := checkRuns(ctx, cfg, rep, requests, level, workers)
	return rc, err
}

// checkRun is a rollout check's configuration and its two runs, with
// every pick and without hedging.
type checkRun struct {
	cfg          *sim.Config
	hedged, base *sim.Result
}

// checkRuns is checkOn, also returning the runs it made.
func checkRuns(ctx context.Context, cfg *sim.Config, rep *Report, requests int, level float64, workers int) (*RolloutCheck, *checkRun, error) {
	c := RolloutConfig(cfg, rep, requests)
	hedged, base, err := sim.RunWithBaseline(ctx, c, workers)
	if err != nil {
		return nil, nil, err
	}
	// With each class's per-batch figures, as run --json of the same
	// scenario writes them: the check's report is that run's report.
	rc := &RolloutCheck{Requests: c.Requests, Report: sim.NewReportPerBatch(c, hedged, base)}
	var overloads []sim.Overload
	if len(base.Overloads(c)) == 0 {
		overloads = hedged.Overloads(c) // overloads the picks cause
	}
	for j := range rep.Classes {
		cr := &rep.Classes[j]
		for i := range c.Classes {
			if c.Classes[i].Name != cr.Class {
				continue
			}
			got := &rc.Report.Classes[i]
			pick := rolledOut(cr, &cfg.Classes[i])
			rcl := RolloutClass{
				Class: cr.Class, Pick: "configured", Unswept: pick == nil,
				Checked: got.Latency, NoHedging: got.NoHedging.Latency,
				AnsweredShare: got.AnsweredShare, NoHedgingAnswered: got.NoHedging.AnsweredShare,
				RateLimited:  got.Attempts.RateLimited,
				AddedCostPct: got.AddedCostPct,
			}
			if got.Requests == 0 {
				// No request fell in the class: its latencies and answered
				// shares are unknown, not 0 s and 0 %.
				rcl.Checked, rcl.NoHedging = unknownLatency(), unknownLatency()
				rcl.noRequests = true
			} else {
				rcl.Checked = atLevel(rcl.Checked, &hedged.Classes[i], got, level)
				rcl.NoHedging = atLevel(rcl.NoHedging, &base.Classes[i], got, level)
				rcl.AnsweredRiseCI = answeredRise(&hedged.Classes[i], &base.Classes[i], level)
			}
			// No request of the class in the sweep (its candidates have
			// none, or it was not simulated): no prediction.
			// Nor when the sweep did not simulate what the check runs
			// (pick nil: an undecided class's configured policy, unswept).
			rcl.noPredicted = cr.Requests == 0 || pick == nil
			rcl.Predicted = unknownLatency()
			if pick != nil {
				rcl.Predicted, rcl.PredictedAnswered, rcl.PredictedAddedCostPct = pick.Latency, pick.AnsweredShare, pick.AddedCostPct
				rcl.noPredicted = rcl.noPredicted || pick.Requests == 0
				if !cr.Verdict.Undecided {
					rcl.Pick = pick.Label
				}
			}
			hedging := hedges(&c.Classes[i])
			if pick != nil {
				hedging = pick.Hedging
			}
			if cr.CostBasis == CostCalls {
				if b := base.Classes[i]; b.Attempts.Sent > 0 && b.Requests > 0 && hedged.Classes[i].Requests > 0 {
					x := 100 * (float64(hedged.Classes[i].Attempts.Sent)/float64(hedged.Classes[i].Requests)/(float64(b.Attempts.Sent)/float64(b.Requests)) - 1)
					rcl.AddedCostPct = &x
				}
			}
			rcl.Flag = checkFlags(pick, hedging, &hedged.Classes[i], &base.Classes[i], got, &rcl.Checked, level)
			rcl.answersFell = hedging && sim.AnswersFall(got.NoHedging.AnsweredShare, base.Classes[i].Requests, got.AnsweredShare, hedged.Classes[i].Requests,
				distuv.UnitNormal.Quantile((1+level)/2))
			for _, o := range overloads {
				if reaches(c, &c.Classes[i], o) {
					f := fmt.Sprintf("%s: its 429s grow with a longer run than this check's", o)
					rcl.Flag = strings.TrimPrefix(rcl.Flag+"; "+f, "; ")
				}
			}
			if o := cr.Objective; cr.Verdict.Undecided && hedging && o.capsCost() && rcl.AddedCostPct != nil && *rcl.AddedCostPct > o.MaxAddedCostPct+0.5 {
				rcl.overCap = fpct(*rcl.AddedCostPct) + " " + costWordOf(cr.CostBasis)
			}
			if f := configuredCostFlag(cr, hedging, got.AddedCostPct); f != "" {
				rcl.Flag = strings.TrimPrefix(rcl.Flag+"; "+f, "; ")
			}
			rcl.Flagged = rcl.Flag != ""
			rcl.Within = checkWithin(cr.Objective, &hedged.Classes[i], &base.Classes[i], pick, level)
			if o := cr.Objective; !cr.Verdict.Undecided && hedging && o.Goal != LowestCost && !math.IsInf(o.MaxAddedCostPct, 1) && got.AddedCostPct != nil &&
				cr.CostBasis == CostUSD && *got.AddedCostPct > o.MaxAddedCostPct+0.5 {
				rcl.Note = fmt.Sprintf("the check's added cost %s is above the objective's cap of +%s%%", fpct(*got.AddedCostPct), fnum(o.MaxAddedCostPct))
			}
			if few := checkTooFew(c, i, got, rcl.Checked.P95CIOK, level); few != "" {
				rcl.TooFew = true
				rcl.Note = strings.TrimPrefix(rcl.Note+"; "+few, "; ")
				cr.Warnings = append(cr.Warnings, "rollout check: "+few)
			}
			if pick != nil && !pick.P95CIOK && got.Requests > 0 {
				// The prediction has no interval: nothing to compare the
				// check's p95 with, which is no pass either.
				need, base := minRequestsFor(pick, 0.95, level), cr.Baseline()
				if base.asked <= 0 && c.Batched() {
					// A prediction made otherwise than by a sweep (retune's),
					// on the check's traffic: batched as the check is.
					need = int(sim.MinBatchedRequests(0.95))
				}
				few := fmt.Sprintf("the sweep's p95 of the pick has no %s%% interval (%d simulated, at least %d needed): the check's p95 is not compared with it, so it neither confirms nor contradicts the prediction",
					fnum(100*level), pick.Requests, need)
				if base.asked > 0 && skewedCI(base, pick, 0.95, level) {
					few = fmt.Sprintf("the sweep's p95 of the pick has no %s%% interval (%s): the check's p95 is not compared with it, so it neither confirms nor contradicts the prediction",
						fnum(100*level), fewWhy(base, pick, 0.95, level, true))
				} else if base.asked > 0 {
					// A sweep's (not a prediction made otherwise, as
					// retune's): the --requests that would give one.
					few += "; " + rerunAdvice(base, pick, need)
				}
				rcl.PredictedTooFew = true
				rcl.Note = strings.TrimPrefix(rcl.Note+"; "+few, "; ")
			}
			if cr.Verdict.Undecided {
				n := "the verdict is undecided, so the check runs the class's configured policy, as --write-scenario and export keep it"
				if pick == nil {
					n += " (the sweep did not simulate it: no prediction to compare with)"
				}
				rcl.Note = strings.TrimPrefix(rcl.Note+"; "+n, "; ")
			}
			rc.Classes = append(rc.Classes, rcl)
		}
	}
	return rc, &checkRun{cfg: c, hedged: hedged, base: base}, nil
}

// configuredCostFlag says, for an undecided class whose configured policy
// the check runs (hedging), when the check's added cost (in percent, on
// the USD basis; nil when unknown) breaks what the class's own objective
// asks, which no evidence of the sweep supports: above its
// max_added_cost_pct, or any added cost when its own objective picks no
// hedging (under a group objective, the pick it would make alone); ""
// otherwise.
func configuredCostFlag(cr *ClassReport, hedging bool, added *float64) string {
	if !cr.Verdict.Undecided || !hedging || added == nil || cr.CostBasis != CostUSD {
		return ""
	}
	o := cr.Objective
	own := cr.ObjectivePick
	if cr.Group != nil {
		own = cr.Group.Alone
	}
	const what = "the verdict is undecided, so the configured policy rolls out, "
	switch {
	case o.Goal != LowestCost && !math.IsInf(o.MaxAddedCostPct, 1) && *added > o.MaxAddedCostPct+0.5:
		return fmt.Sprintf("%sat %s added cost in the check, above the objective's cap of +%s%%", what, fpct(*added), fnum(o.MaxAddedCostPct))
	case own >= 0 && own < len(cr.Candidates) && !cr.Candidates[own].Hedging && *added >= 0.5:
		return fmt.Sprintf("%sat %s added cost in the check, while the class's own objective picks no hedging", what, fpct(*added))
	}
	return ""
}

// rolledOut returns the candidate whose policy the rollout check runs for
// class cr (cl its class in the scenario): the pick, or when the verdict is
// undecided the class's configured policy — the candidate that simulated
// it, nil when the sweep simulated none.
func rolledOut(cr *ClassReport, cl *sim.Class) *Candidate {
	if !cr.Verdict.Undecided {
		return cr.Picked()
	}
	for k := range cr.Candidates {
		if c := &cr.Candidates[k]; c.Configured || simulates(c, cl) {
			return c
		}
	}
	return nil
}

// simulates reports whether candidate c simulates class cl's configured
// policy: for a pipeline, every step's.
func simulates(c *Candidate, cl *sim.Class) bool {
	if cl.Pipeline == nil {
		return samePolicy(c.Policy(cl.Policy), cl.Policy)
	}
	if len(c.stepPols) != len(cl.Pipeline.Steps) {
		return false
	}
	for s := range c.stepPols {
		if !samePolicy(c.stepPols[s], cl.Pipeline.Steps[s].Call.Policy) {
			return false
		}
	}
	return true
}

// hedges reports whether class cl sends copies: its policy, or for a
// pipeline any step's.
func hedges(cl *sim.Class) bool {
	if cl.Pipeline != nil {
		for s := range cl.Pipeline.Steps {
			if cl.Pipeline.Steps[s].Call.Policy.Copies > 0 {
				return true
			}
		}
		return false
	}
	return cl.Policy.Copies > 0
}

// atLevel returns l, the latency of run r in the check's report (got, its
// row: intervals at 95 %), with its intervals at the level instead: the
// order-statistic p95 and p99 intervals (r.QuantileCI) for independent
// requests; for a batched row, each t interval over its batches
// (θ̂ ± t·s/√B, sim's batchmeans.go) with its half-widths scaled by
// t₍₁₊level₎/₂,B−1 ÷ t₀.₉₇₅,B−1, which is that interval at the level — a
// bound that is not of that form (a miss, or the lowest batch's estimate
// when a batch's is a miss) does not depend on the level and stays.
func atLevel(l sim.Latency, r *sim.ClassResult, got *sim.ClassReport, level float64) sim.Latency {
	if level == DefaultLevel {
		return l // the report's own
	}
	if got.Batches == nil {
		l.P95CI95[0], l.P95CI95[1], l.P95CIOK = r.QuantileCI(0.95, level)
		l.P99CI95[0], l.P99CI95[1], l.P99CIOK = r.QuantileCI(0.99, level)
		return l
	}
	nu := float64(got.Batches.Count - 1)
	ratio := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile((1+level)/2) /
		distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile((1+DefaultLevel)/2)
	scale := func(ci *[2]float64, est float64) {
		if lo, hi := ci[0], ci[1]; !math.IsInf(lo, 0) && !math.IsInf(hi, 0) && !math.IsNaN(lo) && !math.IsNaN(hi) && !math.IsInf(est, 0) {
			ci[0], ci[1] = est-(est-lo)*ratio, est+(hi-est)*ratio
		}
	}
	scale(&l.P95CI95, l.P95)
	scale(&l.P99CI95, l.P99)
	if l.CIs != nil {
		cis := *l.CIs
		scale(&cis.Mean, l.Mean)
		scale(&cis.P50, l.P50)
		scale(&cis.P90, l.P90)
		scale(&cis.P999, l.P999)
		l.CIs = &cis
	}
	return l
}

// checkTooFew returns why the rollout check c (requests c.Requests) holds
// too few requests of its class i, reported as got, for an interval on
// p95 at the level (ok: the row's interval is one) — how many it holds
// (after the warm-up cut when the requests interact), how many are
// needed (MinRequestsForCI; sim.MinBatchedRequests when batched) and the
// --check-requests that would give them, scaled like adviseRequests by
// the share of the check's requests that reached the class's interval
// (its share of the arrivals when none did; with the cut margin when
// batched); "" when it holds enough.
func checkTooFew(c *sim.Config, i int, got *sim.ClassReport, ok bool, level float64) string {
	if ok && got.Requests > 0 {
		return ""
	}
	batched := c.Batched()
	need, kept, after := int64(MinRequestsForCI(0.95, level)), got.Requests, ""
	if batched {
		need = sim.MinBatchedRequests(0.95)
		if got.WarmUp != nil {
			kept -= got.WarmUp.Requests
		}
		if kept < got.Requests {
			after = fmt.Sprintf("%d after the warm-up cut, ", kept)
		}
	}
	if batched && got.Requests > 0 && kept >= need {
		// Enough kept: the batched interval reached below 0
		// (sim.ClipLatency), which no count of requests is known to fix.
		return fmt.Sprintf("the check's %s of this class give no %s%% interval on p95 (%sa batched interval reached below 0: the batches' figures are too uneven for it): its p95 is not compared with the sweep's, so it neither confirms nor contradicts the prediction; try --check-requests ≥ %d",
			fcount(got.Requests), fnum(100*level), after, 2*c.Requests)
	}
	held := fmt.Sprintf("the check's %s of this class %s", fcount(got.Requests), map[bool]string{true: "is", false: "are"}[got.Requests == 1])
	if got.Requests == 0 {
		held = "the check got no requests of this class, which is"
	}
	per := 0.0
	switch {
	case got.Requests > 0:
		k := float64(kept) / float64(got.Requests)
		if batched {
			k = plannedKept(k)
		}
		per = float64(got.Requests) / float64(c.Requests) * k
	case c.Arrivals.Process != sim.Replay && c.Classes[i].Clients == 0:
		per = c.Classes[i].Share
	}
	rerun := "raise --check-requests"
	if per > 0 {
		n := int64(math.Ceil(float64(need) / per))
		rerun = fmt.Sprintf("rerun with --check-requests ≥ %d", n)
		if n > MaxRequests {
			rerun = fmt.Sprintf("that would take --check-requests ≥ %d, more than the %d allowed", n, MaxRequests)
		}
		if tr := c.Arrivals.Trace; c.Arrivals.Process == sim.Replay && tr != nil && n > int64(len(tr.Arrivals)) && got.Requests > 0 {
			// A replayed trace: --check-requests replays no more than it
			// holds, so only a longer trace gives the class enough.
			all := len(tr.Arrivals)
			inTrace, about := float64(got.Requests), ""
			if c.Requests < all {
				inTrace, about = math.Round(float64(got.Requests)*float64(all)/float64(c.Requests)), "about "
			}
			class := math.Ceil(float64(need) / (per * float64(c.Requests) / float64(got.Requests)))
			rerun = fmt.Sprintf("the trace holds %s%d requests of this class (of %d in all), and --check-requests cannot replay past its end: a longer trace is needed, with at least %d of the class (about %d requests in all)",
				about, int64(inTrace), all, int64(class), int64(math.Ceil(class*float64(all)/inTrace)))
		}
	}
	return fmt.Sprintf("%s too few for a %s%% interval on p95 (%sat least %d needed): its p95 is not compared with the sweep's, so it neither confirms nor contradicts the prediction; %s",
		held, fnum(100*level), after, need, rerun)
}

// checkFlags returns why the rollout check of a class (hedged run h, which
// hedges or not, and its no-hedging baseline b, reported as got; checked,
// its row's latency, intervals at the level: atLevel) contradicts the
// sweep's prediction pick (nil: none, only the check's own answered shares
// are compared), or "". The p95 is compared on the interval the row shows
// — order statistics for independent requests, batches after the warm-up
// cut when they interact, as the sweep's — and only when it is one
// (P95CIOK; else checkTooFew says so).
func checkFlags(pick *Candidate, hedging bool, h, b *sim.ClassResult, got *sim.ClassReport, checked *sim.Latency, level float64) string {
	var flags []string
	lo, hi, ok := checked.P95CI95[0], checked.P95CI95[1], checked.P95CIOK
	if ok && pick != nil && pick.P95CIOK && (hi < pick.Latency.P95CI95[0] || lo > pick.Latency.P95CI95[1]) {
		f := fmt.Sprintf("the check's p95 %s [%s, %s] lies outside the sweep's %s [%s, %s]",
			fsec(got.Latency.P95), fsec(lo), fsec(hi), fsec(pick.Latency.P95),
			fsec(pick.Latency.P95CI95[0]), fsec(pick.Latency.P95CI95[1]))
		if !hedging {
			f += " although the class does not hedge: the class's own result differs between the two runs — other classes' load, or slow periods shared by many requests, which make requests dependent and the intervals too narrow"
		}
		flags = append(flags, f)
	}
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	if hedging && sim.AnswersFall(got.NoHedging.AnsweredShare, b.Requests, got.AnsweredShare, h.Requests, z) {
		flags = append(flags, fmt.Sprintf("in the check the pick answers significantly fewer requests than no hedging (%s → %s)",
			fpct2(got.NoHedging.AnsweredShare), fpct2(got.AnsweredShare)))
	}
	if pick != nil {
		lp, hp := wilson(pick.AnsweredShare, pick.Requests, z)
		lc, hcw := wilson(got.AnsweredShare, h.Requests, z)
		if hcw < lp || lc > hp {
			flags = append(flags, fmt.Sprintf("the check's answered share %s lies outside the sweep's interval [%s, %s]",
				fpct2(got.AnsweredShare), fpct2(lp), fpct2(hp)))
		}
	}
	return strings.Join(flags, "; ")
}

// reaches reports whether class cl of cfg sends attempts to the model or
// provider of overload o.
func reaches(cfg *sim.Config, cl *sim.Class, o sim.Overload) bool {
	for _, m := range append([]int{cl.Policy.Primary}, cl.Policy.Targets...) {
		md := &cfg.Models[m]
		if (o.Kind == "model" && md.Name == o.Name) || (o.Kind == "provider" && md.Provider == o.Name) {
			return true
		}
	}
	return false
}
