// Package compare sets two hedgesim reports side by side, class by class,
// for before/after reviews of a configuration change: p50/p95/p99 of the
// time to a usable answer, the answered share and the cost per 1000
// requests, with the change from A to B and, like benchstat, "~" where the
// difference is not significant.
//
// A report is the JSON of `hedgesim run` (each class's hedged run) or of
// `hedgesim optimize` (each class's pick, the policy to roll out). Two
// reports of either kind can be compared; classes are matched by name.
//
// Significance. p95 and p99 carry distribution-free confidence intervals
// from order statistics (the reports' p95_ci95 and p99_ci95): a change is
// significant when the two intervals are disjoint, as in benchstat and in
// the optimize report. This is conservative: two 95 % intervals that
// overlap a little can still hide a difference significant at 5 %. The
// answered share is compared with a two-proportion z test,
// z = (p_B − p_A) / √(p̄(1 − p̄)(1/n_A + 1/n_B)) with the pooled share p̄,
// significant when |z| > 1.96 (two-sided 5 %). p50 and cost carry no
// interval in the reports and are shown without a mark. Runs of the same
// scenario file that share a seed use common random numbers for a class
// simulated among the same classes in both (Row.CommonRandomNumbers: a run
// simulates every class together, optimize a class alone or with its
// coupled group), so the tests are conservative there too; otherwise the
// differences include sampling noise, and a class whose two sides ran the
// same policy under the same conditions (Row.SamePolicy) gets no advice to
// rerun. Reports of different scenarios are compared with a warning, since
// only their class names match; with the same seed they still pair their
// batches (sim keys every draw by seed, request and attempt alone, so the
// runs share the draws as far as the files agree), and the warning says so.
//
// When both are run reports of a class whose requests interact (a queue, a
// limit, a pool: the reports' per_batch), p50, p95, p99, the answered
// share and the cost per 1000 requests are instead judged on their paired
// difference over the batches after both warm-up cuts (paired.go), which
// stays honest under load, where the reports' own intervals are wide and
// their overlap says little, and is sharp when the runs share their random
// numbers. Where either report's requests interact but the two cannot be
// paired (other requests or seeds, a side of independent requests, or
// optimize reports, whose pick's intervals are batched when its requests
// interact), the answered, checked and degraded shares (and a pick's met
// share) are judged by the overlap of the reports' own intervals instead
// of the z test, which assumes independent requests (dropZTests), and
// Comparison.Unpaired says why; Delta.Test names the test. A class
// without requests on a side (which hedgesim reports with null latencies
// and shares) has no figures there, no change and no test.
//
// An optimize report's undecided class rolls out its configured policy
// (rolls_out "configured"); when no candidate is picked, its pick (0, no
// hedging) is not what rolls out and is not read as its figures: the side
// shows the configured policy with the figures of the report's rollout
// check, which ran it on draws of its own (Class.Figures
// FromRolloutCheck), or none without one (NoFigures), and the text says
// so (TestUndecidedConfiguredRollsOut).
//
// compare runs nothing, so it has no --precision: it states each report's
// own precision when it was made with --precision, and says how to decide
// a p95 it leaves undecided (precision.go).
package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hedgesim/hedgesim/sim"
)

// Kind says which command wrote a report.
type Kind string

// Report kinds.
const (
	Run      Kind = "run"
	Optimize Kind = "optimize"
)

// Where the figures of an undecided optimize class with no candidate
// picked come from (Class.Figures).
const (
	FromRolloutCheck = "rollout_check"
	NoFigures        = "none"
)

// Class is what a report says about one traffic class. Latencies are in
// seconds (+Inf for a percentile that lands on a miss: a request without a
// usable answer), shares in [0, 1], costs in US dollars per 1000 requests.
type Class struct {
	Name     string
	Requests int64
	// Policy describes the hedge policy: of an optimize pick ("800ms ×1 →
	// large-b", "effectively no hedging (12.6 s ×1 → b)" when the verdict
	// labels it so, or "no hedging"), or of a run's class (sim.PolicyText);
	// empty for a run report of a build that did not write it.
	Policy string
	// HedgedShare is the share of requests that sent a copy, and
	// AttemptsPerRequest the attempts per request (calls plus copies): the primary, copies
	// and retries included; HasHedging is false when the report lacks them.
	HedgedShare, AttemptsPerRequest float64
	HasHedging                      bool
	P50                             float64
	P95                             float64
	P99                             float64
	// P95CI and P99CI are the percentiles' confidence intervals [low,
	// high]; the OK flags are false when the class had too few requests
	// for one.
	P95CI, P99CI     [2]float64
	P95CIOK, P99CIOK bool
	AnsweredShare    float64
	CostPer1k        float64
	// Pipeline holds a pipeline class's end-to-end figures (run reports).
	Pipeline *Pipeline
	// Answered is the number of answered requests when HasAnswered (run
	// reports give it).
	Answered    int64
	HasAnswered bool
	// WarmUpCut is the number of requests a run's warm-up cut left out of
	// its answered share (and figures); 0 without a cut.
	WarmUpCut int64
	// Missing are the required fields that are absent or null.
	Missing []string
	// Figures says, of an optimize report's undecided class with no
	// candidate picked (rolls_out "configured", no candidate with status
	// "picked"), where its figures come from: FromRolloutCheck (the
	// rollout check, which ran the configured policy that rolls out) or
	// NoFigures (the report has none for it: its pick, 0, is not what
	// rolls out, and is not read as its figures); "" otherwise (the
	// pick's, or the run's).
	Figures string
	// pickPolicy is the pick's policy (policyOf) and candidates every
	// candidate with its fate, in an optimize report that gives them.
	pickPolicy string
	candidates []candidate
	// met, rescued and harmed are the pick's shares (optimize reports
	// that give them; nil otherwise).
	met, rescued, harmed *float64
	// perBatch are the class's figures per batch of the fixed grid, in a
	// run report of requests that interact (paired.go); nil otherwise.
	perBatch *sim.PerBatch
	// interacts says a class has requests that interact (a run report
	// gives batches, a warm-up cut or per_batch; an optimize report's pick
	// has batched intervals, ci95_method "batch means …"), and answeredCI
	// is the report's answered_share_ci95 (of the pick) (nil when absent or with a null
	// bound): batched then, Wilson's for independent requests.
	interacts  bool
	answeredCI *[2]float64
	// metCI is an optimize pick's met_share_ci95 (nil when absent).
	metCI *[2]float64
	// simulatedWith names, sorted, the classes of the run the class's
	// figures come from, itself included: every class of a run report;
	// in an optimize report the class and its optimized_with (the class
	// alone when that is empty or absent: optimize sweeps a class on its
	// own traffic unless it is coupled).
	simulatedWith []string
}

// Pipeline is what a run report says of a pipeline class as a whole: the
// end-to-end time (arrival until the request ended, whatever the outcome)
// and the shares of requests that went through checked (every fail-open
// step answered in time) and degraded — together the class's answered
// share.
type Pipeline struct {
	EndToEnd      sim.Latency
	CheckedShare  float64
	DegradedShare float64
	// CheckedCI and DegradedCI are the shares' 95 % intervals as the
	// report gives them (checked_share_ci95, degraded_share_ci95: Wilson's
	// for independent requests, batched when they interact); nil when
	// absent or with a null bound.
	CheckedCI, DegradedCI *[2]float64
}

// Report is one side of a comparison.
type Report struct {
	Kind     Kind
	Scenario string
	// ScenarioSHA256 is the hash of the scenario file (and its trace) the
	// report was made from; empty in reports that do not give it.
	ScenarioSHA256 string
	Seed           uint64
	// Requests is a run report's requests (the run's, all classes
	// together); 0 in optimize reports.
	Requests int64
	// Overrides are the what-if overrides the report was made with.
	Overrides []string
	Classes   []Class
	// Pools are the replica costs of a run report's autoscaled pools (A
	// only: see PoolCost); none in optimize reports.
	Pools []PoolCost
	// Precision is how the report's run to a precision ended (--precision:
	// precision.go); nil for a report made without it.
	Precision *sim.Precision
}

// runJSON and optimizeJSON are the fields of the two report kinds that a
// comparison reads; latencies are sim.Latency, whose null is a miss (+Inf).
type runJSON struct {
	Scenario  string   `json:"scenario"`
	SHA256    string   `json:"scenario_sha256"`
	Seed      uint64   `json:"seed"`
	Requests  int64    `json:"requests"`
	Overrides []string `json:"overrides"`
	Classes   []struct {
		Class    string `json:"class"`
		Policy   string `json:"policy"`
		Requests *int64 `json:"requests"`
		Answered *int64 `json:"answered"`
		// WarmUp is the warm-up cut of a run whose requests interact:
		// its answered share is over the requests after the cut.
		WarmUp *struct {
			Requests int64 `json:"requests"`
		} `json:"warm_up"`
		// Batches is present when the requests interact: the class's
		// intervals then come from batches.
		Batches           *json.RawMessage `json:"batches"`
		AnsweredShareCI95 *[2]*float64     `json:"answered_share_ci95"`
		HedgedShare       *float64         `json:"hedged_share"`
		Attempts          *float64         `json:"attempts_per_request"`
		Latency           *latencyField    `json:"latency_s"`
		AnsweredShare     *float64         `json:"answered_share"`
		Cost              *struct {
			Total *float64 `json:"total"`
		} `json:"cost_per_1k_usd"`
		PerBatch *sim.PerBatch `json:"per_batch"`
		Pipeline *struct {
			EndToEnd      sim.Latency  `json:"end_to_end_s"`
			CheckedShare  float64      `json:"checked_share"`
			DegradedShare float64      `json:"degraded_share"`
			CheckedCI95   *[2]*float64 `json:"checked_share_ci95"`
			DegradedCI95  *[2]*float64 `json:"degraded_share_ci95"`
		} `json:"pipeline"`
	} `json:"classes"`
}

type optimizeJSON struct {
	Scenario             string   `json:"scenario"`
	SHA256               string   `json:"scenario_sha256"`
	Seed                 uint64   `json:"seed"`
	Overrides            []string `json:"overrides"`
	RequestsPerCandidate *int     `json:"requests_per_candidate"`
	Classes              []struct {
		Class         string   `json:"class"`
		Requests      *int64   `json:"requests"`
		OptimizedWith []string `json:"optimized_with"`
		Pick          int      `json:"pick"`
		// RollsOut is "configured" when the verdict is undecided: the
		// class's configured policy rolls out, and pick is its candidate
		// when one is marked picked, else 0, which does not roll out.
		RollsOut string `json:"rolls_out"`
		Verdict  struct {
			Label string `json:"label"`
		} `json:"verdict"`
		Candidates []struct {
			Label        string            `json:"label"`
			Steps        []json.RawMessage `json:"steps"`
			Hedging      bool              `json:"hedging"`
			Status       string            `json:"status"`
			Reasons      []reason          `json:"reasons"`
			MetShare     *float64          `json:"met_share"`
			RescuedShare *float64          `json:"rescued_share"`
			HarmedShare  *float64          `json:"harmed_share"`
			DelayS       float64           `json:"delay_s"`
			Copies       int               `json:"copies"`
			Target       string            `json:"target"`
			Requests     *int64            `json:"requests"`
			LatencyJSON  *latencyField     `json:"latency_s"`
			P95OK        *bool             `json:"p95_ci95_ok"`
			P99OK        *bool             `json:"p99_ci95_ok"`
			// OldP95OK and OldP99OK are the flags' names in reports
			// of builds before optimize named them as run does.
			OldP95OK      bool     `json:"p95_ci_ok"`
			OldP99OK      bool     `json:"p99_ci_ok"`
			AnsweredShare *float64 `json:"answered_share"`
			CostPer1k     *float64 `json:"cost_per_1k_usd"`
			HedgedShare   *float64 `json:"hedged_share"`
			Attempts      *float64 `json:"attempts_per_request"`
			// CIMethod says how the candidate's intervals were made:
			// batch means when its requests interact (optimize's
			// CIMethodGrid), Wilson's otherwise; AnsweredShareCI95 is
			// the answered share's.
			CIMethod          string       `json:"ci95_method"`
			AnsweredShareCI95 *[2]*float64 `json:"answered_share_ci95"`
			MetShareCI95      *[2]*float64 `json:"met_share_ci95"`
		} `json:"candidates"`
	} `json:"classes"`
	// Rollout is the rollout check: Report is the run of every class's
	// pick (an undecided class's configured policy), as `hedgesim run
	// --json` writes it.
	Rollout *struct {
		Requests int             `json:"requests"`
		Report   json.RawMessage `json:"report"`
	} `json:"rollout_check"`
}

// Parse reads a report written by `hedgesim run --json` or `hedgesim
// optimize --json` (or report.json of --out). It tells the two apart by
// optimize's requests_per_candidate field.
func Parse(data []byte) (*Report, error) {
	var probe struct {
		RequestsPerCandidate *int            `json:"requests_per_candidate"`
		Classes              json.RawMessage `json:"classes"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("not a hedgesim JSON report: %w", jsonError(err))
	}
	if probe.Classes == nil {
		return nil, errors.New(`not a hedgesim JSON report: no "classes" field; want the JSON of hedgesim run --json or optimize --json`)
	}
	var r *Report
	var err error
	if probe.RequestsPerCandidate != nil {
		r, err = parseOptimize(data)
	} else {
		r, err = parseRun(data)
	}
	if err != nil {
		return nil, err
	}
	if r.Precision, err = parsePrecision(data); err != nil {
		return nil, err
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	return r, nil
}

// check reports every figure of r that no hedgesim report can hold: a
// class without a name or named twice, a required field absent or null, a
// negative request count, 0 requests beside figures other than 0 or null
// (hedgesim writes a class without requests with null latencies and
// shares and costs of 0),
// more answered
// requests than requests or an answered share other than their ratio, an
// answered share outside [0, 1], a cost that is negative or not finite,
// percentiles that are negative, NaN or out of order (p50 ≤ p95 ≤ p99), or
// a confidence interval (when the report calls it valid) that is reversed
// or does not hold its percentile, a share's interval (answered, met) that
// is reversed or leaves [0, 1], per_batch figures no run writes
// (checkPerBatch), or a precision object no run to a precision writes
// (checkPrecision). Each problem names the class and the
// JSON field; all are returned together.
func (r *Report) check() error {
	var errs []error
	if len(r.Classes) == 0 {
		return errors.New(`the report has no classes ("classes" is empty)`)
	}
	first := map[string]int{}
	for i, c := range r.Classes {
		at := fmt.Sprintf("classes[%d] (class %q)", i, c.Name)
		bad := func(field, format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: %s: %s", at, field, fmt.Sprintf(format, args...)))
		}
		if c.Name == "" {
			at = fmt.Sprintf("classes[%d]", i)
			bad("class", "missing or empty; every class has a name")
		} else if j, dup := first[c.Name]; dup {
			bad("class", "the name is also that of classes[%d]; a report names each class once", j)
		} else {
			first[c.Name] = i
		}
		for _, f := range c.Missing {
			bad(f, "missing or null; every report gives it")
		}
		if c.Requests < 0 {
			bad("requests", "%d; want a count ≥ 0", c.Requests)
		}
		if c.Requests == 0 && !slices.Contains(c.Missing, "requests") && (c.AnsweredShare > 0 || c.CostPer1k > 0 || positive(c.P50) || positive(c.P95) || positive(c.P99)) {
			bad("requests", "0, yet the class has figures; a class with percentiles, answers or cost has ≥ 1 request")
		}
		switch {
		case !c.HasAnswered:
		case c.Answered < 0:
			bad("answered", "%d; want a count ≥ 0", c.Answered)
		case c.Requests >= 0:
			if c.Answered > c.Requests {
				bad("answered", "%d exceeds requests %d", c.Answered, c.Requests)
			} else if c.Requests > 0 && c.WarmUpCut == 0 && c.AnsweredShare >= 0 && c.AnsweredShare <= 1 {
				// After a warm-up cut the share is over the requests kept,
				// which the counts do not give: only its range is checked.
				if want := float64(c.Answered) / float64(c.Requests); math.Abs(c.AnsweredShare-want) > 1e-6 {
					bad("answered_share", "%g, but answered/requests = %d/%d = %g; the share is that ratio", c.AnsweredShare, c.Answered, c.Requests, want)
				}
			}
		}
		if !(c.AnsweredShare >= 0 && c.AnsweredShare <= 1) {
			bad(r.field("answered_share"), "%g; want a share in [0, 1]", c.AnsweredShare)
		}
		if !(c.CostPer1k >= 0) || math.IsInf(c.CostPer1k, 0) {
			bad(r.field("cost"), "%g; want a cost ≥ 0 in USD", c.CostPer1k)
		}
		if c.HasHedging && !(c.HedgedShare >= 0 && c.HedgedShare <= 1) {
			bad(r.field("hedged_share"), "%g; want a share in [0, 1]", c.HedgedShare)
		}
		if c.HasHedging && (!(c.AttemptsPerRequest >= 0) || math.IsInf(c.AttemptsPerRequest, 0)) {
			bad(r.field("attempts_per_request"), "%g; want a number of attempts ≥ 0", c.AttemptsPerRequest)
		}
		ps := []struct {
			name string
			v    float64
		}{{"p50", c.P50}, {"p95", c.P95}, {"p99", c.P99}}
		okOrder := true
		for _, p := range ps {
			if !(p.v >= 0) {
				bad(r.field("latency_s")+"."+p.name, "%g; want a latency ≥ 0 in seconds, or null for a miss", p.v)
				okOrder = false
			}
		}
		if okOrder && !(c.P50 <= c.P95 && c.P95 <= c.P99) {
			bad(r.field("latency_s"), "p50 %s, p95 %s, p99 %s are out of order; percentiles never decrease", fmtSec(c.P50), fmtSec(c.P95), fmtSec(c.P99))
		}
		for _, ci := range []struct {
			name string
			p    float64
			iv   [2]float64
			ok   bool
		}{{"p95_ci95", c.P95, c.P95CI, c.P95CIOK}, {"p99_ci95", c.P99, c.P99CI, c.P99CIOK}} {
			if !ci.ok || !(ci.p >= 0) {
				continue // an interval the report itself calls meaningless
			}
			if !(ci.iv[0] >= 0 && ci.iv[0] <= ci.p && ci.p <= ci.iv[1]) {
				bad(r.field("latency_s")+"."+ci.name, "[%s, %s] does not hold its percentile %s (want low ≤ percentile ≤ high, low ≥ 0)",
					fmtSec(ci.iv[0]), fmtSec(ci.iv[1]), fmtSec(ci.p))
			}
		}
		for _, sh := range []struct {
			name string
			iv   *[2]float64
		}{{"answered_share_ci95", c.answeredCI}, {"met_share_ci95", c.metCI}} {
			const eps = 1e-9 // rounding of a clipped or Wilson bound
			if iv := sh.iv; iv != nil && !(iv[0] >= -eps && iv[0] <= iv[1] && iv[1] <= 1+eps) {
				bad(r.field(sh.name), "[%g, %g]; want low ≤ high, both shares in [0, 1]", iv[0], iv[1])
			}
		}
		if c.perBatch != nil {
			checkPerBatch(c.perBatch, bad)
		}
	}
	if r.Precision != nil {
		errs = append(errs, checkPrecision(r.Precision)...)
	}
	return errors.Join(errs...)
}

// field returns the JSON path of a class's figure in r's kind of report.
func (r *Report) field(name string) string {
	if r.Kind == Optimize {
		if name == "cost" {
			name = "cost_per_1k_usd"
		}
		return "candidates[pick]." + name
	}
	if name == "cost" {
		return "cost_per_1k_usd.total"
	}
	return name
}

// fmtSec formats a latency in seconds, "miss" for +Inf.
func fmtSec(v float64) string {
	if math.IsInf(v, 1) {
		return "miss"
	}
	return fmt.Sprintf("%g s", v)
}

func parseRun(data []byte) (*Report, error) {
	var in runJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("run report: %w", jsonError(err))
	}
	r := &Report{Kind: Run, Scenario: in.Scenario, ScenarioSHA256: in.SHA256, Seed: in.Seed, Requests: in.Requests, Overrides: in.Overrides}
	var pools runPoolsJSON
	if err := json.Unmarshal(data, &pools); err == nil {
		r.Pools = pools.poolCosts()
	}
	for _, c := range in.Classes {
		var l sim.Latency
		if c.Latency != nil {
			l = c.Latency.Latency
		}
		cl := Class{
			Name: c.Class, Policy: c.Policy,
			P50: l.P50, P95: l.P95, P99: l.P99, P95CI: l.P95CI95, P99CI: l.P99CI95,
			P95CIOK: l.P95CIOK, P99CIOK: l.P99CIOK,
		}
		if c.HedgedShare != nil && c.Attempts != nil {
			cl.HedgedShare, cl.AttemptsPerRequest, cl.HasHedging = *c.HedgedShare, *c.Attempts, true
		}
		need(&cl, "requests", c.Requests, &cl.Requests)
		if c.Latency == nil {
			cl.Missing = append(cl.Missing, "latency_s")
		} else {
			cl.Missing = append(cl.Missing, c.Latency.missing("latency_s")...)
		}
		needWithRequests(&cl, "answered_share", c.AnsweredShare, &cl.AnsweredShare)
		// A class without requests has no cost per request: run writes
		// its cost_per_1k_usd null.
		var total *float64
		if c.Cost != nil {
			total = c.Cost.Total
		}
		needWithRequests(&cl, "cost_per_1k_usd.total", total, &cl.CostPer1k)
		if c.Answered != nil {
			cl.Answered, cl.HasAnswered = *c.Answered, true
		}
		if c.WarmUp != nil {
			cl.WarmUpCut = c.WarmUp.Requests
		}
		cl.perBatch = c.PerBatch
		cl.interacts = c.Batches != nil || c.WarmUp != nil || c.PerBatch != nil
		cl.answeredCI = bounds(c.AnsweredShareCI95)
		if p := c.Pipeline; p != nil {
			cl.Pipeline = &Pipeline{EndToEnd: p.EndToEnd, CheckedShare: p.CheckedShare, DegradedShare: p.DegradedShare,
				CheckedCI: bounds(p.CheckedCI95), DegradedCI: bounds(p.DegradedCI95)}
		}
		r.Classes = append(r.Classes, cl)
	}
	var all []string
	for _, c := range r.Classes {
		all = append(all, c.Name)
	}
	slices.Sort(all)
	for i := range r.Classes {
		r.Classes[i].simulatedWith = all
	}
	return r, nil
}

func parseOptimize(data []byte) (*Report, error) {
	var in optimizeJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("optimize report: %w", jsonError(err))
	}
	r := &Report{Kind: Optimize, Scenario: in.Scenario, ScenarioSHA256: in.SHA256, Seed: in.Seed, Overrides: in.Overrides}
	for _, c := range in.Classes {
		if c.Pick < 0 || c.Pick >= len(c.Candidates) {
			return nil, fmt.Errorf("optimize report: class %q: pick %d is not one of its %d candidates", c.Class, c.Pick, len(c.Candidates))
		}
		p := c.Candidates[c.Pick]
		var l sim.Latency
		if p.LatencyJSON != nil {
			l = p.LatencyJSON.Latency
		}
		policy := "no hedging"
		switch {
		case p.Hedging && len(p.Steps) > 0:
			policy = "per step: " + p.Label // a pipeline
		case p.Hedging:
			policy = fmt.Sprintf("%s ×%d → %s", formatSeconds(p.DelayS), p.Copies, p.Target)
		}
		if l := c.Verdict.Label; p.Hedging && l != "" && l != "hedge" {
			policy = l + " (" + policy + ")" // "effectively no hedging (12.6 s ×1 → b)"
		}
		cl := Class{
			Name: c.Class, Policy: policy,
			P50: l.P50, P95: l.P95, P99: l.P99, P95CI: l.P95CI95, P99CI: l.P99CI95,
			P95CIOK: orOld(p.P95OK, p.OldP95OK), P99CIOK: orOld(p.P99OK, p.OldP99OK),
		}
		if p.HedgedShare != nil && p.Attempts != nil {
			cl.HedgedShare, cl.AttemptsPerRequest, cl.HasHedging = *p.HedgedShare, *p.Attempts, true
		}
		n := p.Requests
		if n == nil || *n == 0 {
			n = c.Requests
		}
		cl.pickPolicy = policyOf(p.Hedging, p.DelayS, p.Copies, p.Target, p.Label, len(p.Steps) > 0)
		cl.met, cl.rescued, cl.harmed = p.MetShare, p.RescuedShare, p.HarmedShare
		if cl.rescued == nil || cl.harmed == nil {
			cl.rescued, cl.harmed = nil, nil
		}
		for _, k := range c.Candidates {
			if k.Status != "" {
				cl.candidates = append(cl.candidates, candidate{policyOf(k.Hedging, k.DelayS, k.Copies, k.Target, k.Label, len(k.Steps) > 0), k.Status, k.Reasons})
			}
		}
		cl.interacts = strings.HasPrefix(p.CIMethod, "batch means")
		cl.answeredCI, cl.metCI = bounds(p.AnsweredShareCI95), bounds(p.MetShareCI95)
		need(&cl, "requests", n, &cl.Requests)
		if p.LatencyJSON == nil {
			cl.Missing = append(cl.Missing, "candidates[pick].latency_s")
		} else {
			cl.Missing = append(cl.Missing, p.LatencyJSON.missing("candidates[pick].latency_s")...)
		}
		needWithRequests(&cl, "candidates[pick].answered_share", p.AnsweredShare, &cl.AnsweredShare)
		need(&cl, "candidates[pick].cost_per_1k_usd", p.CostPer1k, &cl.CostPer1k)
		cl.simulatedWith = append([]string{c.Class}, c.OptimizedWith...)
		slices.Sort(cl.simulatedWith)
		if c.RollsOut == "configured" {
			if p.Status == "" || p.Status == "picked" {
				// The pick is the configured policy's candidate.
				cl.Policy = "configured: " + cl.pickPolicy
			} else if err := configuredFigures(&cl, in.Rollout); err != nil {
				return nil, err
			}
		}
		r.Classes = append(r.Classes, cl)
	}
	return r, nil
}

// configuredFigures makes cl, an undecided class of an optimize report
// with no candidate picked, what rolls out: its configured policy, with
// the figures of the report's rollout check (rollout, nil when the report
// has none), which ran that policy, else none (Figures NoFigures: the
// sweep did not simulate it, or its candidate is one no pick may be). The
// rollout check's figures have their own draws (seed and requests), so
// they share no random numbers with another report's (Compare) and are
// not paired over batches.
func configuredFigures(cl *Class, rollout *struct {
	Requests int             `json:"requests"`
	Report   json.RawMessage `json:"report"`
}) error {
	name, with := cl.Name, cl.simulatedWith
	if rollout != nil && len(rollout.Report) > 0 && string(rollout.Report) != "null" {
		run, err := parseRun(rollout.Report)
		if err != nil {
			return fmt.Errorf("optimize report: rollout_check.report: %w", err)
		}
		for _, rc := range run.Classes {
			if rc.Name != name {
				continue
			}
			*cl = rc
			cl.Policy = "configured: " + rc.Policy
			if rc.Policy == "" {
				cl.Policy = "configured"
			}
			cl.Figures, cl.perBatch, cl.simulatedWith = FromRolloutCheck, nil, with
			return nil
		}
	}
	// No figures: the pick's (candidate 0's) stay only to be checked
	// as the report's; Compare blanks them.
	cl.Policy, cl.Figures = "configured (not simulated)", NoFigures
	cl.pickPolicy, cl.candidates, cl.met, cl.rescued, cl.harmed, cl.metCI = "", nil, nil, nil, nil, nil
	return nil
}

// orOld returns *v, or old when v is absent (a report of an earlier
// build, which named the field otherwise).
func orOld(v *bool, old bool) bool {
	if v == nil {
		return old
	}
	return *v
}

// need copies the required field named field from v to dst, or records it
// in c.Missing when it is absent or null.
func need[T any](c *Class, field string, v *T, dst *T) {
	if v == nil {
		c.Missing = append(c.Missing, field)
		return
	}
	*dst = *v
}

// needWithRequests is need for a share of, or a cost per, c's requests: a
// class without requests has none, which reports write as null (read as
// 0, which compare shows as "-" for a side without requests).
func needWithRequests(c *Class, field string, v *float64, dst *float64) {
	if v == nil && c.Requests == 0 && !slices.Contains(c.Missing, "requests") {
		*dst = 0
		return
	}
	need(c, field, v, dst)
}

// Mark says whether a change is significant.
type Mark int

// Marks of a Delta.
const (
	// NoTest: the reports carry no interval for this figure.
	NoTest Mark = iota
	// Significant: the intervals are disjoint (|z| > 1.96 for shares), or
	// the paired difference's interval excludes 0.
	Significant
	// Same: not significantly different, printed "~".
	Same
	// Unknown: one side has too few requests for an interval.
	Unknown
)

// Delta is one figure of one class in both reports.
type Delta struct {
	Metric string
	A, B   float64
	// Change is (B − A)/A in percent for latencies and costs (NaN when A
	// is 0, or when A or B is a miss, both included: the change between
	// two misses is undefined), and B − A in percentage points for the
	// answered share. A
	// side whose class had no requests has its figures NaN, and Change is
	// NaN and Mark NoTest (emptySides).
	Change float64
	Mark   Mark
	// CIA and CIB are the intervals tested, when Mark is Significant or Same.
	CIA, CIB [2]float64
	// Paired says the mark comes from the paired difference B − A over
	// PairedBatches batches (paired.go), whose 95 % interval is DiffCI, in
	// the figure's unit (seconds, a share, USD per 1000 requests).
	Paired        bool
	DiffCI        [2]float64
	PairedBatches int
	// Test names the test of a share when it is not paired: TestZ (the
	// two-proportion z test, for independent requests) or TestOverlap
	// (the overlap of the two reports' own intervals, CIA and CIB, when
	// either side's requests interact); "" for other figures.
	Test string
	// noInterval says, when Mark is Unknown for a percentile, which of A
	// and B has too few requests for an interval.
	noInterval [2]bool
}

// Tests of a share (Delta.Test).
const (
	TestZ       = "two_proportion_z"
	TestOverlap = "interval_overlap"
)

// Row is one class present in both reports.
type Row struct {
	Class            string
	PolicyA, PolicyB string
	RequestsA        int64
	RequestsB        int64
	Deltas           []Delta
	// APickInB and BPickInA say, when both reports are optimize reports
	// with every candidate's fate and their picks differ, what B made of
	// A's pick and A of B's; nil otherwise.
	APickInB, BPickInA *Fate
	// CommonRandomNumbers says the class's request i drew the same numbers
	// in both reports: the same scenario file and seed, and the class
	// simulated among the same classes in both (SimulatedA, SimulatedB).
	// A run simulates every class together; optimize sweeps a class alone
	// (or with its coupled group), on the class's own requests, whose
	// request i is another request than the run's request i.
	CommonRandomNumbers bool
	// SimulatedA and SimulatedB name, sorted, the classes each report
	// simulated together with this one (itself included).
	SimulatedA, SimulatedB []string
	// SamePolicy says both sides ran the same policy under the same
	// conditions (samePolicy), so that no difference between them is the
	// policy's: with common random numbers there is none to find, and
	// without them what differs is sampling noise.
	SamePolicy bool
	// FiguresA and FiguresB are Class.Figures of each side: for an
	// undecided optimize class with no candidate picked, whether its
	// figures are its rollout check's (FromRolloutCheck) or absent
	// (NoFigures, printed "-"); "" for a pick's or a run's figures.
	FiguresA, FiguresB string
}

// Comparison is the result of Compare.
type Comparison struct {
	A, B *Report
	Rows []Row
	// OnlyA and OnlyB are the classes present in one report only.
	OnlyA, OnlyB []string
	// Pools are the replica costs of the autoscaled pools both run
	// reports give (replicas.go).
	Pools []PoolCost
	// Unpaired says why a class whose requests interact in either report
	// was not judged by paired differences (paired.go: the runs' requests
	// or seeds differ, so batch j holds other requests in each; or a
	// report gives no per_batch: an optimize report, or a run whose
	// requests do not interact); "" when none was left unpaired so.
	Unpaired string
}

// SameScenario reports whether the two reports come from the same scenario
// file: the same scenario_sha256 when both give one, else the same name.
func (c *Comparison) SameScenario() bool {
	if c.A.ScenarioSHA256 != "" && c.B.ScenarioSHA256 != "" {
		return c.A.ScenarioSHA256 == c.B.ScenarioSHA256
	}
	return c.A.Scenario == c.B.Scenario
}

// CommonRandomNumbers reports whether the two runs drew common random
// numbers for every class they share: the same scenario file with the same
// seed (what-if overrides may differ), and each class simulated among the
// same classes in both (Row.CommonRandomNumbers). Two run reports always
// are when of one file and seed; an optimize report's class swept alone
// is not against a run of several classes.
func (c *Comparison) CommonRandomNumbers() bool {
	if !c.sameDraws() {
		return false
	}
	for _, r := range c.Rows {
		if !r.CommonRandomNumbers {
			return false
		}
	}
	return true
}

// sameDraws reports whether the two reports are of the same scenario file
// and seed, so that a class simulated among the same classes in both draws
// the same numbers for its request i.
func (c *Comparison) sameDraws() bool {
	return c.SameScenario() && c.A.Seed == c.B.Seed
}

// samePolicy reports whether a class ran the same policy under the same
// conditions in both reports: the same policy text, its requests
// independent on both sides (no queue, limit or pool that other requests
// or classes load), the same scenario file, and what-if overrides that
// differ only in hedge delays (classes[…].hedge.delay), which the policy
// text shows. Another override may change the policy beyond its text or
// the conditions, so a difference could then be real.
func samePolicy(a, b *Report, ca, cb *Class) bool {
	if ca.Policy == "" || ca.Policy != cb.Policy || ca.interacts || cb.interacts || !(&Comparison{A: a, B: b}).SameScenario() {
		return false
	}
	for _, o := range symmetricDifference(a.Overrides, b.Overrides) {
		key, _, _ := strings.Cut(o, "=")
		if !strings.HasPrefix(key, "classes") || !strings.HasSuffix(strings.TrimSpace(key), ".hedge.delay") {
			return false
		}
	}
	return true
}

// symmetricDifference returns the strings in one of a and b only.
func symmetricDifference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, x)
		}
	}
	return out
}

// zCrit is the two-sided 5 % critical value of the standard normal.
const zCrit = 1.959963984540054

// Compare matches the classes of a and b by name, in a's order.
func Compare(a, b *Report) *Comparison {
	out := &Comparison{A: a, B: b, Pools: comparePools(a.Pools, b.Pools)}
	inB := make(map[string]int, len(b.Classes))
	for i, c := range b.Classes {
		inB[c.Name] = i
	}
	noPair := unpairedReason(a, b)
	seen := map[string]bool{}
	for _, ca := range a.Classes {
		seen[ca.Name] = true
		j, ok := inB[ca.Name]
		if !ok {
			out.OnlyA = append(out.OnlyA, ca.Name)
			continue
		}
		cb := b.Classes[j]
		deltas := []Delta{
			relative("p50", ca.P50, cb.P50),
			interval("p95", ca.P95, cb.P95, ca.P95CI, cb.P95CI, ca.P95CIOK, cb.P95CIOK),
			interval("p99", ca.P99, cb.P99, ca.P99CI, cb.P99CI, ca.P99CIOK, cb.P99CIOK),
			proportion("answered", ca.AnsweredShare, cb.AnsweredShare, ca.Requests, cb.Requests),
		}
		if ca.HasHedging && cb.HasHedging {
			deltas = append(deltas,
				proportion("hedged", ca.HedgedShare, cb.HedgedShare, ca.Requests, cb.Requests),
				relative("attempts/req", ca.AttemptsPerRequest, cb.AttemptsPerRequest))
		}
		deltas = append(deltas, relative("cost/1k", ca.CostPer1k, cb.CostPer1k))
		if pa, pb := ca.Pipeline, cb.Pipeline; pa != nil && pb != nil {
			ea, eb := pa.EndToEnd, pb.EndToEnd
			deltas = append(deltas,
				interval("end-to-end p95", ea.P95, eb.P95, ea.P95CI95, eb.P95CI95, ea.P95CIOK, eb.P95CIOK),
				proportion("checked", pa.CheckedShare, pb.CheckedShare, ca.Requests, cb.Requests),
				proportion("degraded", pa.DegradedShare, pb.DegradedShare, ca.Requests, cb.Requests))
		}
		out.Rows = append(out.Rows, Row{
			Class: ca.Name, PolicyA: ca.Policy, PolicyB: cb.Policy,
			RequestsA: ca.Requests, RequestsB: cb.Requests,
			Deltas: deltas,
		})
		r := &out.Rows[len(out.Rows)-1]
		r.SimulatedA, r.SimulatedB = ca.simulatedWith, cb.simulatedWith
		r.FiguresA, r.FiguresB = ca.Figures, cb.Figures
		own := ca.Figures == "" && cb.Figures == "" // the reports' own draws
		r.CommonRandomNumbers = own && out.sameDraws() && slices.Equal(ca.simulatedWith, cb.simulatedWith)
		r.SamePolicy = own && samePolicy(a, b, &ca, &cb)
		r.Deltas = append(r.Deltas, bought(&ca, &cb)...)
		switch {
		case ca.perBatch != nil && cb.perBatch != nil && noPair != "":
			out.Unpaired = noPair
		case ca.perBatch != nil && cb.perBatch != nil:
			pairDeltas(r.Deltas, &ca, &cb)
		case ca.interacts || cb.interacts:
			out.Unpaired = noBatchesReason(a, b, &ca, &cb)
		}
		if ca.interacts || cb.interacts {
			dropZTests(r.Deltas, &ca, &cb)
		}
		if noA, noB := ca.Requests == 0 || ca.Figures == NoFigures, cb.Requests == 0 || cb.Figures == NoFigures; noA || noB {
			emptySides(r.Deltas, noA, noB)
		}
		crossFates(r, &ca, &cb)
	}
	for _, cb := range b.Classes {
		if !seen[cb.Name] {
			out.OnlyB = append(out.OnlyB, cb.Name)
		}
	}
	return out
}

// emptySides blanks the figures of the side of a class that had no
// requests (emptyA, emptyB), which hedgesim writes as 0: each figure of
// that side becomes NaN (printed "-", JSON null), and no figure of the
// class has a change or a test.
func emptySides(ds []Delta, emptyA, emptyB bool) {
	for i := range ds {
		d := &ds[i]
		if emptyA {
			d.A = math.NaN()
		}
		if emptyB {
			d.B = math.NaN()
		}
		d.Change, d.Mark, d.Test, d.Paired = math.NaN(), NoTest, "", false
	}
}

// relChange is (b − a)/a in percent: NaN when either side is a miss
// (+Inf), both included, since ∞ − ∞ has no value, or when a is 0 and b
// is not.
func relChange(a, b float64) float64 {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.NaN() // a miss on a side, or on both: no ratio
	}
	if a == 0 {
		if b == 0 {
			return 0
		}
		return math.NaN()
	}
	return 100 * (b - a) / a
}

func relative(metric string, a, b float64) Delta {
	return Delta{Metric: metric, A: a, B: b, Change: relChange(a, b), Mark: NoTest}
}

// interval compares two percentiles by their confidence intervals:
// disjoint intervals are a significant change; okA and okB say each side
// has a real 95 % interval (Unknown, with the sides that lack one in
// noInterval, otherwise).
func interval(metric string, a, b float64, ciA, ciB [2]float64, okA, okB bool) Delta {
	d := Delta{Metric: metric, A: a, B: b, Change: relChange(a, b), CIA: ciA, CIB: ciB}
	switch {
	case !okA || !okB:
		d.Mark = Unknown
		d.noInterval = [2]bool{!okA, !okB}
	case ciA[1] < ciB[0] || ciB[1] < ciA[0]:
		d.Mark = Significant
	default:
		d.Mark = Same
	}
	return d
}

// proportion compares two shares of nA and nB requests with the pooled
// two-proportion z test.
func proportion(metric string, a, b float64, nA, nB int64) Delta {
	d := Delta{Metric: metric, A: a, B: b, Change: 100 * (b - a), Test: TestZ}
	if nA <= 0 || nB <= 0 {
		d.Mark = Unknown
		return d
	}
	pooled := (a*float64(nA) + b*float64(nB)) / float64(nA+nB)
	se := math.Sqrt(pooled * (1 - pooled) * (1/float64(nA) + 1/float64(nB)))
	switch {
	case se == 0 && a == b:
		d.Mark = Same
	case se == 0 || math.Abs(b-a)/se > zCrit:
		d.Mark = Significant
	default:
		d.Mark = Same
	}
	return d
}

// bounds returns a report's interval with both bounds, or nil.
func bounds(ci *[2]*float64) *[2]float64 {
	if ci == nil || ci[0] == nil || ci[1] == nil {
		return nil
	}
	return &[2]float64{*ci[0], *ci[1]}
}

// positive reports whether x is a latency above 0 in seconds: a finite
// figure, not a miss (+Inf) or NaN.
func positive(x float64) bool { return x > 0 && !math.IsInf(x, 1) }

// latencyField is a report's latency_s as read, with the percentiles
// compare reads that it does not give: sim.Latency reads an absent key as
// a miss, as it reads null, and "latency_s": {} is no class whose every
// request missed (run --json writes every key, null for a miss).
type latencyField struct {
	sim.Latency
	absent []string
}

// UnmarshalJSON reads b as sim.Latency does and notes which of p50, p95
// and p99 it lacks.
func (f *latencyField) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &f.Latency); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	for _, k := range []string{"p50", "p95", "p99"} {
		if _, ok := keys[k]; !ok {
			f.absent = append(f.absent, k)
		}
	}
	return nil
}

// missing names the percentiles f lacks as fields of at ("latency_s.p95").
func (f *latencyField) missing(at string) []string {
	var out []string
	for _, k := range f.absent {
		out = append(out, at+"."+k)
	}
	return out
}
