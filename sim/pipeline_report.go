package sim

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hedgesim/hedgesim/textfit"
)

// PipelineReport is the end-to-end view of a pipeline class, beside the
// class's row — whose answered share counts the requests that went through,
// checked or degraded, and whose latency is their end-to-end time (a
// request that failed is a miss there).
type PipelineReport struct {
	// EndToEnd is the time from arrival until the request ended — through
	// its last stage (checked or degraded), failed, or at its end-to-end
	// deadline — the time a user waits for the whole turn; NoHedgingEndToEnd
	// the same without hedging in any step.
	EndToEnd          Latency `json:"end_to_end_s"`
	NoHedgingEndToEnd Latency `json:"no_hedging_end_to_end_s"`
	// CheckedShare is the share of requests that went through with every
	// call answered (each fail-open step answered in time); DegradedShare
	// the share that went through with a fail-open step unanswered (the two
	// sum to the class's answered share); FailedShare the other misses
	// but those of TimedOutShare (below): turns a fail-closed step
	// stopped, and turns through their last stage without the answer
	// step's answer (its call failed open, or its stage was done without
	// it: PipelineResult.AnswerCut).
	CheckedShare  float64 `json:"checked_share"`
	DegradedShare float64 `json:"degraded_share"`
	// CheckedShareCI95 and DegradedShareCI95 are their 95 % intervals,
	// SharesCIMethod how they were made: Wilson's for independent requests
	// (intervals.go); when the requests interact, from batches of the
	// requests kept after the end-to-end figures' warm-up cut
	// (pipeline_sections.go: BatchShareInterval, which gives a share at 0
	// or 1 in every batch a width), over which the four shares and no
	// hedging's checked and degraded shares are then taken.
	CheckedShareCI95  *[2]*float64 `json:"checked_share_ci95,omitempty"`
	DegradedShareCI95 *[2]*float64 `json:"degraded_share_ci95,omitempty"`
	SharesCIMethod    string       `json:"shares_ci95_method,omitempty"`
	FailedShare       float64      `json:"failed_share"`
	// TimedOutShare is the share ended by the end-to-end deadline (under
	// the class's on_timeout, open or closed).
	TimedOutShare          float64 `json:"timed_out_share"`
	NoHedgingCheckedShare  float64 `json:"no_hedging_checked_share"`
	NoHedgingDegradedShare float64 `json:"no_hedging_degraded_share"`
	// CallsPerRequest is the step calls a request made (each call may send
	// several attempts: AttemptsPerRequest in the class row).
	CallsPerRequest float64 `json:"calls_per_request"`
	// TTFV is the time to first visible token: arrival to the first token
	// of the visible step's call (absent without a visible step); a
	// request that showed none is a miss.
	TTFV          *Latency `json:"ttfv_s,omitempty"`
	NoHedgingTTFV *Latency `json:"no_hedging_ttfv_s,omitempty"`
	// SlowRequests and MedianRequests are how many requests the steps'
	// SlowMean and MedianMean average over: the slowest 5 % by end-to-end
	// time, and those ranked from 45 % to 55 %.
	SlowRequests   int          `json:"slow_requests"`
	MedianRequests int          `json:"median_requests"`
	Steps          []StepReport `json:"steps"`
}

// StepReport is one step of a pipeline.
type StepReport struct {
	Step string `json:"step"`
	// Calls ran to their own end; Cut were let go of when their stage was
	// done without them or the request ended. CallsPerRequest counts both.
	Calls           int64   `json:"calls"`
	Cut             int64   `json:"cut"`
	CallsPerRequest float64 `json:"calls_per_request"`
	// CutPerRequest is Cut per pipeline request; NoHedgingCalls the calls
	// that ran to their end without hedging.
	CutPerRequest  float64 `json:"cut_per_request"`
	NoHedgingCalls int64   `json:"no_hedging_calls"`
	// AnsweredShare is of the calls that ran to their end, in [0, 1];
	// Latency is each such call's time from its start to a usable answer,
	// in seconds. A step none of whose calls ran to its end (never called:
	// its repeat drew 0 every time, or every call was cut) has neither:
	// AnsweredShare is nil and every figure of Latency NaN (JSON null, the
	// text "-"); so have NoHedgingAnsweredShare and NoHedgingLatency when
	// no call ran to its end without hedging.
	AnsweredShare *float64 `json:"answered_share"`
	// AnsweredShareCI95 is its 95 % interval and KeptCalls the calls the
	// step's figures are over, when the requests interact: then the calls
	// of the pipeline requests kept after the end-to-end warm-up cut, and
	// the intervals of AnsweredShare and Latency come from batches of
	// them (pipeline_sections.go; Latency's ci95_method says which).
	// Absent for independent requests, whose figures are over every call.
	AnsweredShareCI95      *[2]*float64 `json:"answered_share_ci95,omitempty"`
	KeptCalls              int64        `json:"kept_calls,omitempty"`
	Latency                Latency      `json:"latency_s"`
	NoHedgingLatency       Latency      `json:"no_hedging_latency_s"`
	NoHedgingAnsweredShare *float64     `json:"no_hedging_answered_share"`
	// HedgedShare is the share of calls that sent a copy; AttemptsPerCall
	// the attempts each call sent.
	HedgedShare     float64 `json:"hedged_share"`
	AttemptsPerCall float64 `json:"attempts_per_call"`
	// CostPer1k is what the step costs per 1000 pipeline requests.
	CostPer1k          Cost     `json:"cost_per_1k_usd"`
	NoHedgingCostPer1k Cost     `json:"no_hedging_cost_per_1k_usd"`
	AddedCostPct       *float64 `json:"added_cost_pct"`
	// AddedCostPctCI95 is its 95 % interval and AddedCostPctCIMethod how
	// it was made: for independent requests the paired ratio estimate
	// over the 1000 arrival sections (costsections.go,
	// CIMethodAddedCostPaired); when the requests interact, paired batch
	// means over the 30 batches of the fixed grid of the whole run
	// (CIMethodAddedCostGrid), as AddedCostPct is over the whole run.
	// Absent without AddedCostPct or when the interval cannot be formed.
	AddedCostPctCI95     *[2]*float64 `json:"added_cost_pct_ci95,omitempty"`
	AddedCostPctCIMethod string       `json:"added_cost_pct_ci95_method,omitempty"`
	// DegradedShare is the share of pipeline requests that went through
	// with a call of this step unanswered (fail open); a request degraded
	// by two steps counts in both, so the steps' shares may sum to more
	// than the pipeline's.
	DegradedShare float64 `json:"degraded_share"`
	// DegradedShareCI95 is its 95 % interval when the requests interact:
	// DegradedShare is then over the pipeline requests kept after the
	// end-to-end warm-up cut, and the interval comes from the batches of
	// the pipeline's shares (SharesCIMethod). Absent for independent
	// requests.
	DegradedShareCI95 *[2]*float64 `json:"degraded_share_ci95,omitempty"`
	// TailShare is the share of the slowest 5 % of requests (by end-to-end
	// time) in which this step took the most time, in [0, 1], a tie
	// counting a fraction for each step (PipelineResult.TailAttribution);
	// nil (JSON null, the text "-") when no slow request spent time in
	// any step — every step skipped, or no request — and there is
	// nothing to attribute. SlowMean and MedianMean are its mean seconds
	// in those requests and in the median ones (ranked 45 % to 55 %).
	TailShare  *float64 `json:"tail_share"`
	SlowMean   float64  `json:"slow_mean_s"`
	MedianMean float64  `json:"median_mean_s"`
}

// endView returns c with every request counted at the time it ended, as if
// all were answered: the end-to-end time of a pipeline request whatever
// its outcome — with c's arrival sections when it has them (a batched
// run), so that its figures can be batched too (batchmeans.go).
func (c *ClassResult) endView() *ClassResult {
	v := &ClassResult{Name: c.Name, Requests: c.Requests, Answered: c.Requests}
	v.lat = latencySet{na: c.lat.n(), sumA: c.lat.sumA, sqA: c.lat.sqA, maxA: c.lat.maxAll, maxAll: c.lat.maxAll}
	v.lat.sumA.addSum(c.lat.sumM)
	v.lat.sqA.addSum(c.lat.sqM)
	v.lat.ans = append(append([][]float32{}, c.lat.ans...), c.lat.miss...)
	v.lat.unsectioned, v.lat.unbilled = true, true
	if c.lat.sectioned() {
		v.lat.ansSec = append(append([][]uint16{}, c.lat.ansSec...), c.lat.missSec...)
		v.lat.secLast, v.lat.unsectioned, v.lat.noCut = c.lat.secLast, false, c.lat.noCut
	}
	return v
}

// pipelineReport returns the pipeline section of class h's report row,
// against its baseline b; nil for a one-call class and for a pipeline of
// one plain step (a single call, neither fanned out nor repeated), which
// is reported exactly as that call's class would be.
func pipelineReport(cl *Class, h, b *ClassResult) *PipelineReport {
	pl := cl.Pipeline
	if pl == nil || h.Pipeline == nil {
		return nil
	}
	if pl.OneCall() {
		return nil
	}
	hp, bp := h.Pipeline, b.Pipeline
	// When the requests interact, the end-to-end figures leave out the
	// warm-up and their intervals come from batches, as the class row's.
	e, eb, be, _ := summarizeRows(h.endView(), b.endView(), false)
	pr := &PipelineReport{
		EndToEnd:               e,
		NoHedgingEndToEnd:      be,
		CheckedShare:           share(hp.Checked, h.Requests),
		DegradedShare:          share(hp.DegradedAny, h.Requests),
		FailedShare:            share(h.Requests-hp.Checked-hp.DegradedAny-hp.TimedOut, h.Requests),
		TimedOutShare:          share(hp.TimedOut, h.Requests),
		NoHedgingCheckedShare:  share(bp.Checked, b.Requests),
		NoHedgingDegradedShare: share(bp.DegradedAny, b.Requests),
	}
	if !h.Batched() && h.Requests > 0 {
		pr.CheckedShareCI95 = wireCI(WilsonCI(hp.Checked, h.Requests))
		pr.DegradedShareCI95 = wireCI(WilsonCI(hp.DegradedAny, h.Requests))
		pr.SharesCIMethod = "Wilson score (independent requests)"
	} else if eb != nil {
		pr.setBatchedShares(hp, bp, eb.cutSec)
	}
	if hp.HasTTFV() {
		t, bt := SummarizeLatency(hp.TTFV()), SummarizeLatency(bp.TTFV())
		pr.TTFV, pr.NoHedgingTTFV = &t, &bt
	}
	slow, median, ns, nm := hp.Breakdown()
	pr.SlowRequests, pr.MedianRequests = ns, nm
	tail := hp.TailAttribution()
	var calls int64
	for s := range hp.Steps {
		hs, bs := &hp.Steps[s], &bp.Steps[s]
		calls += hs.Requests + hs.Cut
		sr := StepReport{
			Step: hs.Name, Calls: hs.Requests, Cut: hs.Cut,
			CallsPerRequest:        share(hs.Requests+hs.Cut, h.Requests),
			CutPerRequest:          share(hs.Cut, h.Requests),
			NoHedgingCalls:         bs.Requests,
			AnsweredShare:          callShare(hs.Answered, hs.Requests),
			Latency:                callLatency(&hs.ClassResult),
			NoHedgingLatency:       callLatency(&bs.ClassResult),
			NoHedgingAnsweredShare: callShare(bs.Answered, bs.Requests),
			HedgedShare:            share(hs.Hedged, hs.Requests+hs.Cut),
			AttemptsPerCall:        share(hs.Attempts.Sent, hs.Requests+hs.Cut),
			CostPer1k:              perPipeline1k(&hs.ClassResult, h.Requests),
			NoHedgingCostPer1k:     perPipeline1k(&bs.ClassResult, b.Requests),
			DegradedShare:          share(hs.Degraded, h.Requests),
			TailShare:              finite(tail[s]),
			SlowMean:               slow[s],
			MedianMean:             median[s],
		}
		if eb != nil {
			if sb, bb, ok := batchedStep(hs, bs, eb.cutSec); ok {
				sr.setBatched(sb, bb)
			}
			if d, ci, ok := hp.stepDegraded(s, eb.cutSec); ok {
				sr.DegradedShare, sr.DegradedShareCI95 = d, wireCIOpt(ci)
			}
		}
		if base := sr.NoHedgingCostPer1k.Total; base > 0 {
			pct := 100 * (sr.CostPer1k.Total - base) / base
			sr.AddedCostPct = &pct
			sr.setAddedCostCI(hs, bs)
		}
		pr.Steps = append(pr.Steps, sr)
	}
	pr.CallsPerRequest = share(calls, h.Requests)
	return pr
}

// callShare is a step's share a of its n calls that ran to their end;
// nil when there were none.
func callShare(a, n int64) *float64 {
	if n == 0 {
		return nil
	}
	x := share(a, n)
	return &x
}

// callLatency summarises the latencies of a step's calls c that ran to
// their end: every figure NaN when there were none (a one-call class
// without requests keeps SummarizeLatency's zeros in memory, and JSON
// null: ClassReport.MarshalJSON).
func callLatency(c *ClassResult) Latency {
	if c.Requests == 0 {
		return unknownLatency()
	}
	return SummarizeLatency(c)
}

// perPipeline1k is the cost of step c per 1000 of its pipeline's n requests.
func perPipeline1k(c *ClassResult, n int64) Cost {
	if n == 0 {
		return Cost{}
	}
	k := 1000 / float64(n)
	return Cost{
		Total:     (c.CostCompletedUSD + c.CostCancelledUSD) * k,
		Completed: c.CostCompletedUSD * k,
		Cancelled: c.CostCancelledUSD * k,
	}
}

// pipelineWarnings returns the warnings a pipeline class's configuration
// earns: a step deadline longer than the end-to-end deadline never fires,
// nor does a hedge delay or attempt timeout at or past it; an answer step
// (Pipeline.AnswerStep) that fails open gives no answer when its call
// does not, so its turn is a miss, not a degraded answer.
func pipelineWarnings(cl *Class) []ConfigWarning {
	if cl.Pipeline == nil {
		return nil
	}
	var out []ConfigWarning
	longer := cl.Pipeline.stepDeadlineLonger(cl.Deadline)
	for i := range cl.Pipeline.Steps {
		if s := cl.Pipeline.Steps[i].Name; slices.Contains(longer, s) {
			out = append(out, ConfigWarning{Step: i, Model: -1, Field: "deadline", Text: fmt.Sprintf("step %s: its deadline is longer than the end-to-end deadline %s, which ends the request first", s, FormatSeconds(cl.Deadline.Seconds()))})
		}
	}
	// A pipeline of one plain step is its call's class, which may fail
	// open: it earns the class's warnings, not this one.
	if a := cl.Pipeline.AnswerStep(); cl.Pipeline.Steps[a].Call.OnTimeout == FailOpen && !cl.Pipeline.OneCall() {
		out = append(out, ConfigWarning{Step: a, Model: -1, Field: "on_timeout", Text: fmt.Sprintf("step %s fails open, but it gives the answer (%s): a call of it without an answer leaves the request without one, a miss (a timeout open, an error, an invalid answer), not a degraded answer", cl.Pipeline.Steps[a].Name, answerWhy(cl.Pipeline))})
	}
	if e2e := cl.Deadline; e2e > 0 {
		for i, st := range cl.Pipeline.Steps {
			p := &st.Call.Policy
			if g := p.gap(1); p.Copies > 0 && p.Adaptive == nil && g >= e2e {
				out = append(out, ConfigWarning{Step: i, Model: -1, Field: "hedge.delay", Text: fmt.Sprintf("step %s: its hedge delay %s is at or past the end-to-end deadline %s: no copy is ever sent on a timer", st.Name, FormatSeconds(g.Seconds()), FormatSeconds(e2e.Seconds()))})
			}
			if p.AttemptTimeout >= e2e {
				out = append(out, ConfigWarning{Step: i, Model: -1, Field: "hedge.attempt_timeout", Text: fmt.Sprintf("step %s: its attempt timeout %s is at or past the end-to-end deadline %s: it never fires", st.Name, FormatSeconds(p.AttemptTimeout.Seconds()), FormatSeconds(e2e.Seconds()))})
			}
		}
	}
	return out
}

// answerWhy says why pl's answer step is (Pipeline.AnswerStep).
func answerWhy(pl *Pipeline) string {
	if pl.visibleStep() >= 0 {
		return "the visible step"
	}
	if len(pl.Steps) == 1 {
		return "the only step"
	}
	return "the last step, with no step visible; mark the step that gives it visible = true if it is another"
}

// writePipelines writes the pipeline section of every pipeline class.
func writePipelines(w io.Writer, rows []ClassReport) {
	for _, c := range rows {
		p := c.Pipeline
		if p == nil {
			continue
		}
		e, b := p.EndToEnd, p.NoHedgingEndToEnd
		ci := "n/a"
		if e.P95CIOK {
			ci = fmt.Sprintf("[%s, %s]", fsec(e.P95CI95[0]), fsec(e.P95CI95[1]))
		}
		fmt.Fprintf(w, "pipeline %s: end to end (arrival until the request ended: through, degraded or failed)\n", c.Class)
		tw := textfit.NewTable(w, tabwriter.AlignRight)
		fmt.Fprintln(tw, "  \tp50\tp95\tp95 95% CI\tp99\tmean\t\tno hedging p50\tp95\tp99\t")
		fmt.Fprintf(tw, "  end to end\t%s\t%s\t%s\t%s\t%s\t\t%s\t%s\t%s\t\n", fsec(e.P50), fsec(e.P95), ci, fsec(e.P99), fsec(e.Mean), fsec(b.P50), fsec(b.P95), fsec(b.P99))
		if t := p.TTFV; t != nil {
			bt := p.NoHedgingTTFV
			fmt.Fprintf(tw, "  first visible token\t%s\t%s\t\t%s\t%s\t\t%s\t%s\t%s\t\n", fsec(t.P50), fsec(t.P95), fsec(t.P99), fsec(t.Mean), fsec(bt.P50), fsec(bt.P95), fsec(bt.P99))
		}
		tw.Flush()
		var deg []string
		for _, s := range p.Steps {
			if s.DegradedShare > 0 {
				deg = append(deg, fmt.Sprintf("%s %s", s.Step, pct(s.DegradedShare)))
			}
		}
		degBy := ""
		if len(deg) > 0 {
			degBy = ", by step " + strings.Join(deg, ", ")
		}
		timedOut := ""
		if p.TimedOutShare > 0 {
			timedOut = fmt.Sprintf("; timed out end to end %s", pct(p.TimedOutShare))
		}
		fmt.Fprintf(w, "  answered %s: checked %s (no hedging %s), degraded %s (no hedging %s)%s; failed %s%s; %.2f calls per request\n",
			pct(c.AnsweredShare), pct(p.CheckedShare), pct(p.NoHedgingCheckedShare), pct(p.DegradedShare), pct(p.NoHedgingDegradedShare), degBy, pct(p.FailedShare), timedOut, p.CallsPerRequest)
		tw = textfit.NewTable(w, tabwriter.AlignRight)
		fmt.Fprintln(tw, "  step\tcalls/req\tcut/req\tanswered\t(no hedging)\tp50\tp95\tp99\tno hedging p95\thedged\tattempts/call\tcost per 1k\tadded\tslowest 5%: longest in\tmean s there\tmedian req\t")
		for _, s := range p.Steps {
			added := "n/a"
			if s.AddedCostPct != nil {
				added = signedPct(*s.AddedCostPct)
			}
			// Figures of the calls that ran to their end: none, when every
			// call was cut or the step never ran.
			ans, noAns, p50, p95, p99, b95 := "-", "-", "-", "-", "-", "-"
			if s.AnsweredShare != nil {
				ans, p50, p95, p99 = pct(*s.AnsweredShare), fsec(s.Latency.P50), fsec(s.Latency.P95), fsec(s.Latency.P99)
			}
			if s.NoHedgingAnsweredShare != nil {
				noAns, b95 = pct(*s.NoHedgingAnsweredShare), fsec(s.NoHedgingLatency.P95)
			}
			tail := "-"
			if s.TailShare != nil {
				tail = pct(*s.TailShare)
			}
			fmt.Fprintf(tw, "  %s\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.3f\t%s\t%s\t%s\t%s\t%s\t\n", s.Step, s.CallsPerRequest, s.CutPerRequest,
				ans, noAns, p50, p95, p99, b95, pct(s.HedgedShare), s.AttemptsPerCall, DollarsPer1k(s.CostPer1k.Total), added,
				tail, fsec(s.SlowMean), fsec(s.MedianMean))
		}
		tw.Flush()
		if stepsCut(p.Steps) {
			fmt.Fprintln(w, "  per step, answered and p50–p99 are of the calls that ran to their own end; cut/req counts the calls let go of (their stage done without them, or the request ended), which are in neither")
		}
		if len(p.Steps) > 0 && p.Steps[0].TailShare == nil {
			fmt.Fprintln(w, "  slowest 5%: no request spent time in any step (each skipped, or no requests): nothing to attribute")
		}
		fmt.Fprintln(w)
	}
}

// CIMethodAddedCostGrid names the interval of an added cost over the whole
// run when the requests interact (StepReport.AddedCostPctCIMethod).
const CIMethodAddedCostGrid = "paired batch means over 30 arrival-ordered batches of the whole run, with and without hedging (t interval)"

// setAddedCostCI gives sr, the row of step h against its no-hedging run b,
// the interval of its added cost: from the steps' paired section costs
// when the requests are independent, from their paired costs in the
// batches of the fixed grid (section k in batch ⌊k·30/1000⌋, no warm-up
// cut) when they interact — 100·(h_j − b_j)/b_j in batch j, est ±
// t₀.₉₇₅,29 · s/√30 (BatchInterval).
func (sr *StepReport) setAddedCostCI(h, b *StepResult) {
	pct := *sr.AddedCostPct
	if h.secBill != nil && b.secBill != nil {
		var hc, bc [numBatches]float64
		for k := range numSections {
			j := k * numBatches / numSections
			hc[j] += h.secBill[k]
			bc[j] += b.secBill[k]
		}
		xs := make([]float64, numBatches)
		for j := range xs {
			xs[j] = math.NaN()
			if bc[j] > 0 {
				xs[j] = 100 * (hc[j] - bc[j]) / bc[j]
			}
		}
		if sr.AddedCostPctCI95 = wireCIOpt(BatchInterval(pct, xs, 0.95)); sr.AddedCostPctCI95 != nil {
			sr.AddedCostPctCIMethod = CIMethodAddedCostGrid
		}
		return
	}
	if ci := pairedAddedCostCI(pct, h.secCost, b.secCost); !math.IsNaN(ci[0]) {
		sr.AddedCostPctCI95 = wireCI(ci)
		sr.AddedCostPctCIMethod = CIMethodAddedCostPaired
	}
}

// stepsCut reports whether a step of steps had calls let go of (cut), when
// the step table's answered shares and latencies, over the calls that ran
// to their own end, leave some out.
func stepsCut(steps []StepReport) bool {
	for _, s := range steps {
		if s.CutPerRequest > 0 {
			return true
		}
	}
	return false
}
