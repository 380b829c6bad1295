package optimize

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hedgesim/hedgesim/sim"
	"github.com/hedgesim/hedgesim/textfit"
)

// MarshalJSON writes the objective as {"name", "text", "percentile",
// "max_added_cost_pct" (null for no cap, the default, and for the cost and
// knee objectives, which have no cost cap), "max_hedged_pct", "sla_s" (null
// when unset)}.
func (o Objective) MarshalJSON() ([]byte, error) {
	type obj struct {
		Name            string   `json:"name"`
		Text            string   `json:"text"`
		Percentile      float64  `json:"percentile"`
		MaxAddedCostPct *float64 `json:"max_added_cost_pct"`
		MaxHedgedPct    float64  `json:"max_hedged_pct"`
		SLA             *float64 `json:"sla_s"`
	}
	j := obj{Name: o.Name(), Text: o.String(), Percentile: o.Percentile, MaxHedgedPct: o.MaxHedgedPct}
	if (o.Goal == LowestLatency || o.Goal == MostAnswered) && !math.IsInf(o.MaxAddedCostPct, 1) {
		j.MaxAddedCostPct = &o.MaxAddedCostPct
	}
	if o.SLA > 0 {
		s := o.SLA.Seconds()
		j.SLA = &s
	}
	return json.Marshal(j)
}

// MarshalJSON writes the rule with its fields in snake case.
func (r Rule) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		MinGainPct              float64 `json:"min_gain_pct"`
		MinGainPerCost          float64 `json:"min_gain_per_cost"`
		MinUnansweredCutPerCost float64 `json:"min_unanswered_cut_per_cost"`
		RequireSignificant      bool    `json:"require_significant"`
	}{r.MinGainPct, r.MinGainPerCost, r.MinUnansweredCutPerCost, r.RequireSignificant})
}

// WriteJSON writes r as indented JSON followed by a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// CSVHeader is the header row of WriteCSV.
var CSVHeader = []string{
	"class", "label", "hedging", "delay_s", "copies", "target", "requests",
	"p50_s", "p90_s", "p95_s", "p95_ci_lo_s", "p95_ci_hi_s", "p99_s", "p99_ci_lo_s", "p99_ci_hi_s", "p99_9_s", "mean_s",
	"answered_share", "hedged_share", "attempts_per_request", "cost_per_1k_usd",
	"added_cost_pct", "added_calls_pct", "cost_basis",
	"feasible", "frontier", "pick", "indistinguishable_from_pick", "objective_pick",
	"fewer_answers", "answered_within_target_share", "status", "reasons",
}

// WriteCSV writes every candidate of every class, one row each, under
// CSVHeader. Latencies are in seconds, costs in USD per 1000 requests; the
// bounds of a p95 or p99 interval that too few requests support
// (Candidate.P95CIOK, P99CIOK false; JSON p95_ci95_ok, p99_ci95_ok) are
// empty, and so is answered_within_target_share when the class's objective
// has no target (the JSON's null); delay_s is empty for an adaptive
// candidate, and delay_s and copies for a pipeline candidate (its policy
// is per step: its label, the JSON's steps).
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	f := csvFloat
	b := strconv.FormatBool
	// An interval too few requests support (P95CIOK, P99CIOK false) is
	// left empty, as the text prints it n/a: not a narrow interval.
	ci := func(ok bool, x float64) string {
		if !ok {
			return ""
		}
		return f(x)
	}
	for _, cr := range r.Classes {
		for _, c := range cr.Candidates {
			l := c.Latency
			// A candidate without requests has no latencies, shares or
			// costs: empty, not NaN or 0.
			share, lat := f, f
			if c.Requests == 0 {
				share = func(float64) string { return "" }
				lat = share
			}
			// An objective without a target has no share within it:
			// empty, as the JSON's null.
			within := share(c.AnsweredWithinShare)
			if c.noTarget {
				within = ""
			}
			// An adaptive candidate has no fixed delay: its percentile
			// delay replaces the policy's, as the text's delay column
			// (its label) and the JSON's adaptive say; empty.
			delay, copies := f(c.DelaySeconds), strconv.Itoa(c.Copies)
			if c.Adaptive != nil {
				delay = ""
			}
			// A pipeline candidate has a policy per step (its label and
			// the JSON's steps), not one delay and number of copies:
			// both empty.
			if c.Steps != nil {
				delay, copies = "", ""
			}
			row := []string{
				cr.Class, c.Label, b(c.Hedging), delay, copies, c.Target, strconv.FormatInt(c.Requests, 10),
				lat(l.P50), lat(l.P90), lat(l.P95), ci(c.P95CIOK, l.P95CI95[0]), ci(c.P95CIOK, l.P95CI95[1]),
				lat(l.P99), ci(c.P99CIOK, l.P99CI95[0]), ci(c.P99CIOK, l.P99CI95[1]), lat(l.P999), lat(l.Mean),
				share(c.AnsweredShare), share(c.HedgedShare), share(c.AttemptsPerRequest), share(c.CostPer1kUSD),
				share(c.AddedCostPct), share(c.AddedCallsPct), cr.CostBasis,
				b(c.Feasible), b(c.OnFrontier), b(c.Pick), b(c.LikePick), b(c.ObjectivePick),
				b(c.FewerAnswers), within, c.Status, reasonCodes(c.Reasons),
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvFloat formats x with up to 12 significant digits: enough for a
// latency to the nanosecond up to 1000 s, and free of the float noise of
// the shortest exact form (1.9239342640000001).
func csvFloat(x float64) string {
	if x == 0 {
		return "0" // also for −0
	}
	return strconv.FormatFloat(x, 'g', 12, 64)
}

// requestsLine says how many requests each candidate ran: "200000 requests
// per candidate", or per class when a replayed trace gave a class fewer.
// A class swept alone that was not simulated (tooRare) is named apart:
// "200000 requests per candidate (rare: not simulated)".
func (r *Report) requestsLine() string {
	same := true
	var unsimulated []string
	for _, cr := range r.Classes {
		if cr.unsimulated() {
			unsimulated = append(unsimulated, cr.Class)
			continue
		}
		same = same && cr.Requests == int64(r.RequestsPerCandidate)
	}
	not := ""
	if len(unsimulated) > 0 {
		not = " (" + strings.Join(unsimulated, ", ") + ": not simulated)"
	}
	if same {
		return fcount(int64(r.RequestsPerCandidate)) + " per candidate" + not
	}
	var b strings.Builder
	if len(r.Joint) == 0 {
		b.WriteString("requests per candidate: the trace's, per class:")
	} else {
		b.WriteString("requests per candidate, per class (a coupled class: its share of the group's):")
	}
	first := true
	for _, cr := range r.Classes {
		if cr.unsimulated() {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		fmt.Fprintf(&b, " %s %d", cr.Class, cr.Requests)
	}
	return b.String() + not
}

// WriteText writes r as human-readable tables: a summary line per class,
// then per class the verdict and its reason, and the frontier (every
// candidate with all set) with the pick marked "*" and candidates whose
// percentile is not significantly different from the pick's marked "~".
// No line ends in a space.
func (r *Report) WriteText(w io.Writer, all bool) error {
	var b bytes.Buffer
	r.writeText(textfit.NewWriter(&b, textfit.Width(w)), all)
	_, err := w.Write(trimLineEnds(b.Bytes()))
	return err
}

// trimLineEnds returns text with the spaces that end its lines removed
// (tab-aligned tables pad their last cells).
func trimLineEnds(text []byte) []byte {
	out := make([]byte, 0, len(text))
	for line := range bytes.Lines(text) {
		body, nl := bytes.CutSuffix(line, []byte("\n"))
		out = append(out, bytes.TrimRight(body, " ")...)
		if nl {
			out = append(out, '\n')
		}
	}
	return out
}

// writeText is WriteText before the line ends are trimmed.
func (r *Report) writeText(w io.Writer, all bool) error {
	ew := &errWriter{w: w}
	how := "each class simulated alone (exact: no class shares a limited provider, model or budget)"
	coupled := slices.ContainsFunc(r.Classes, func(c ClassReport) bool { return len(c.OptimizedWith) > 0 })
	switch {
	case len(r.Joint) > 0 || coupled:
		how = "coupled classes optimized jointly, the others alone"
	case r.AloneDespiteCoupling:
		how = "each class simulated alone (--alone: classes that share a limited provider, model or budget miss each other's load)"
	}
	fmt.Fprintf(ew, "scenario %s, seed %d, %s; %s, every candidate on the same random draws; latency is the time to a usable answer (miss: none by the deadline)\n",
		r.Scenario, r.Seed, r.requestsLine(), how)
	if len(r.Overrides) > 0 {
		fmt.Fprintf(ew, "what-if overrides: %s\n", strings.Join(r.Overrides, ", "))
	}
	for _, g := range r.Joint {
		conv := "converged"
		if !g.Converged {
			conv = "not converged"
		}
		obj := ""
		if g.Search != "" {
			obj = fmt.Sprintf("; group objective %s: %s", g.Objective, g.Search)
		}
		fmt.Fprintf(ew, "jointly optimized: %s (sharing %s): %d rounds, %s, %d requests per simulation%s\n",
			strings.Join(g.Classes, ", "), strings.Join(g.Shared, ", "), g.Rounds, conv, g.Requests, obj)
	}
	r.writeRuleLines(ew)
	for _, cr := range r.Classes {
		for _, warn := range cr.Warnings {
			if upFront(warn) {
				fmt.Fprintf(ew, "warning: %s: %s\n", cr.Class, warn)
			}
		}
	}
	fmt.Fprintln(ew)

	tw := textfit.NewTable(ew, 0)
	// Classes judged on a share within a target (objective answered or
	// checked) get that share's column, the figure their verdict is on.
	withinHead, withinCell := r.withinColumn()
	fmt.Fprintln(tw, "class\tverdict\tdelay\tcopies\ttarget\tp95 before → after\t\tp99 before → after\t\tanswered before → after\t\t"+withinHead+"hedged\tattempts/req\tadded cost")
	for i := range r.Classes {
		cr := &r.Classes[i]
		b, c := cr.Baseline(), cr.Picked()
		verdict, delay, copies, target := cr.Verdict.Label, "-", "-", "-"
		if cr.Verdict.Undecided {
			// No pick: the configured policy rolls out, at its sweep
			// figures when the sweep simulated it.
			if c = cr.RolledOut(); c == nil {
				ab, _, _ := AnsweredShares(b, nil) // "-" without requests
				fmt.Fprintf(tw, "%s\t%s\tconfigured\t-\t-\t%s → -\t\t%s → -\t\t%s → -\t\t%s-\t-\t-\n", cr.Class, verdict,
					fsec(b.Latency.P95), fsec(b.Latency.P99), ab, withinCell(cr, b, nil))
				continue
			}
			delay = "configured"
		}
		switch {
		case cr.Verdict.Undecided:
		case cr.Verdict.Hedge && c.Steps != nil:
			delay = "per step: " + c.Label
		case cr.Verdict.Hedge:
			delay, copies, target = candDelay(c), strconv.Itoa(c.Copies), c.Target
		default:
			c = b
		}
		ab, ac, achange := AnsweredShares(b, c) // "-" without requests
		hedged, attempts := perRequest(c)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s → %s\t%s\t%s → %s\t%s\t%s → %s\t%s\t%s%s\t%s\t%s\n",
			cr.Class, verdict, delay, copies, target,
			fsec(b.Latency.P95), fsec(c.Latency.P95), measuredChange(b, c, 0.95),
			fsec(b.Latency.P99), fsec(c.Latency.P99), measuredChange(b, c, 0.99),
			ab, ac, achange, withinCell(cr, b, c),
			hedged, attempts, addedCost(cr, c))
	}
	tw.Flush()
	writePickSpend(ew, r.Classes)
	if r.ExportCommand != "" {
		fmt.Fprintf(ew, "roll out: %s\n", r.ExportCommand)
	}

	for i := range r.Classes {
		cr := &r.Classes[i]
		writeClass(ew, cr, r.Level, all)
	}
	if rc := r.Rollout; rc != nil {
		writeRollout(ew, rc)
	}
	r.writeRouting(ew)
	r.writeFleet(ew)
	fmt.Fprintf(ew, "\nquantiles: %s.\n", r.QuantileRule)
	sim.WritePrecisionPerCandidate(ew, r.Precision, "the interval of the pick's differences from no hedging and from its nearest rival (relative to no hedging's percentile, or its share not answered within the target)")
	fmt.Fprintln(ew, closingLegend(r.Classes))
	for _, cr := range r.Classes {
		for _, warn := range cr.Warnings {
			if !upFront(warn) {
				fmt.Fprintf(ew, "warning: %s: %s\n", cr.Class, warn)
			}
		}
	}
	return ew.err
}

// withinGroup is the classes judged on one share within a target.
type withinGroup struct {
	word    string // "answered" or "checked"
	target  float64
	classes []string
}

// withinGroups returns the groups of r's classes whose objective is
// answered or checked (MostAnswered), by (word, target), in report order;
// and whether every class is in one.
func (r *Report) withinGroups() (gs []withinGroup, all bool) {
	all = len(r.Classes) > 0
	for _, cr := range r.Classes {
		o := cr.Objective
		if o.Goal != MostAnswered || o.Target <= 0 {
			all = false
			continue
		}
		w, t := o.WithinWord(), o.Target.Seconds()
		k := slices.IndexFunc(gs, func(g withinGroup) bool { return g.word == w && g.target == t })
		if k < 0 {
			gs, k = append(gs, withinGroup{word: w, target: t}), len(gs)
		}
		gs[k].classes = append(gs[k].classes, cr.Class)
	}
	return gs, all
}

// RuleLines returns the verdict rule as the summary states it, each line
// beginning "verdict rule": RuleText, the percentile's rule, for the
// classes judged on a percentile, and for those judged on a share within
// a target (objective answered or checked, JudgeWithin) that share's rule,
// one line per (share, target) with the classes named when the lines are
// several. With no class judged on a share, one line of RuleText.
func (r *Report) RuleLines() []string {
	gs, all := r.withinGroups()
	if len(gs) == 0 {
		return []string{"verdict rule: " + r.RuleText}
	}
	var lines []string
	if !all {
		var names []string
		for _, cr := range r.Classes {
			if o := cr.Objective; o.Goal != MostAnswered || o.Target <= 0 {
				names = append(names, cr.Class)
			}
		}
		lines = append(lines, fmt.Sprintf("verdict rule (%s %s): %s", classesWord(len(names)), strings.Join(names, ", "), r.RuleText))
	}
	for _, g := range gs {
		head := "verdict rule"
		if !all || len(gs) > 1 {
			head = fmt.Sprintf("verdict rule (%s %s)", classesWord(len(g.classes)), strings.Join(g.classes, ", "))
		}
		lines = append(lines, head+": "+r.Rule.describeWithin(g.word, g.target, r.Level))
	}
	return lines
}

// writeRuleLines writes RuleLines.
func (r *Report) writeRuleLines(w io.Writer) {
	for _, l := range r.RuleLines() {
		fmt.Fprintln(w, l)
	}
}

func classesWord(n int) string {
	if n == 1 {
		return "class"
	}
	return "classes"
}

// WithinHead returns the head of the summary's column of the share of
// requests within the target, when a class is judged on one (objective
// answered or checked): "answered within 3.00s", or "within target" when
// the classes' shares or targets differ (each cell then names its own,
// WithinShares); "" when no class is judged on one.
func (r *Report) WithinHead() string {
	gs, _ := r.withinGroups()
	switch len(gs) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s within %s", gs[0].word, fsec(gs[0].target))
	}
	return "within target"
}

// WithinShares returns, for a class judged on the share of requests
// within its target (objective answered or checked), that share before
// (no hedging) → after (c; "-" when c is nil: no after-figure), as
// percentages ("50.1% → 87.6%", prefixed "answered within 3.00s: " when
// WithinHead is "within target"), and the change in percentage points
// ("(+37.4 pt)"); "" and "" for a class judged on a percentile.
func (r *Report) WithinShares(cr *ClassReport, c *Candidate) (fromTo, change string) {
	o := cr.Objective
	if o.Goal != MostAnswered || o.Target <= 0 {
		return "", ""
	}
	pre := ""
	if r.WithinHead() == "within target" {
		pre = fmt.Sprintf("%s within %s: ", o.WithinWord(), fsec(o.Target.Seconds()))
	}
	b := cr.Baseline()
	if c == nil {
		wb, _ := fshares(b.AnsweredWithinShare, b.AnsweredWithinShare)
		return pre + wb + " → -", ""
	}
	wb, wc := fshares(b.AnsweredWithinShare, c.AnsweredWithinShare)
	return pre + wb + " → " + wc, answeredChange(b.AnsweredWithinShare, c.AnsweredWithinShare)
}

// withinColumn returns the summary's column of the share within the
// target (WithinHead, WithinShares) as text table cells ending in tabs:
// its head and the function giving a class's cells ("-" for a class
// judged on a percentile); "" and empty cells when no class is judged on
// such a share.
func (r *Report) withinColumn() (string, func(cr *ClassReport, b, c *Candidate) string) {
	head := r.WithinHead()
	if head == "" {
		return "", func(*ClassReport, *Candidate, *Candidate) string { return "" }
	}
	return head + " before → after\t\t", func(cr *ClassReport, _, c *Candidate) string {
		fromTo, change := r.WithinShares(cr, c)
		if fromTo == "" {
			return "-\t\t"
		}
		return fromTo + "\t" + change + "\t"
	}
}

// writePickSpend writes what each class's pick costs per day and month at
// its arrival rate (a closed-loop class: the throughput its clients
// reached), as `hedgesim run` does for a run.
func writePickSpend(w io.Writer, classes []ClassReport) {
	fmt.Fprintln(w)
	tw := textfit.NewTable(w, tabwriter.AlignRight)
	open, closed := false, false
	for i := range classes {
		if classes[i].Picked().perSecond > 0 {
			closed = true // closed-loop clients: the rate they reached
		} else {
			open = true
		}
	}
	at := "arrival rate"
	switch {
	case closed && open:
		at = "arrival rate (closed-loop: throughput)"
	case closed:
		at = "throughput"
	}
	fmt.Fprintf(tw, "spend of the pick at %s\treq/s\tper day\tper month (%d d)\tno hedging per day\tper month\tadded per month\t\n", at, sim.DaysPerMonth)
	var total sim.Spend
	row := func(name string, s sim.Spend) {
		if s.NoRate {
			fmt.Fprintf(tw, "%s\tn/a\tn/a\tn/a\tn/a\tn/a\tn/a\t\n", name)
			return
		}
		if s.NoCost { // no request simulated: the rate alone is known
			fmt.Fprintf(tw, "%s\t%s\tn/a\tn/a\tn/a\tn/a\tn/a\t\n", name, sim.PerSecond(s.RequestsPerSecond))
			return
		}
		if s.NoPickCost { // the policy rolled out was not simulated
			r := sim.PerSecond(s.RequestsPerSecond)
			if s.NoPickRate { // nor the rate its closed-loop clients reach
				r = "n/a"
			}
			fmt.Fprintf(tw, "%s\t%s\tn/a\tn/a\t%s\t%s\tn/a\t\n", name, r,
				sim.Dollars(s.NoHedgingPerDay), sim.Dollars(s.NoHedgingPerMonth))
			return
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, sim.PerSecond(s.RequestsPerSecond),
			sim.Dollars(s.PerDay), sim.Dollars(s.PerMonth), sim.Dollars(s.NoHedgingPerDay), sim.Dollars(s.NoHedgingPerMonth),
			sim.Dollars(s.PerMonth-s.NoHedgingPerMonth))
	}
	for _, cr := range classes {
		s := cr.Spend
		row(cr.Class, s)
		total.RequestsPerSecond += s.RequestsPerSecond
		total.PerDay += s.PerDay
		total.PerMonth += s.PerMonth
		total.NoHedgingPerDay += s.NoHedgingPerDay
		total.NoHedgingPerMonth += s.NoHedgingPerMonth
		total.NoRate = total.NoRate || s.NoRate
		total.NoCost = total.NoCost || s.NoCost
		total.NoPickCost = total.NoPickCost || s.NoPickCost
		total.NoPickRate = total.NoPickRate || s.NoPickRate
	}
	if len(classes) > 1 {
		// The classes of the report together: what rolling out every pick costs.
		row("total", total)
	}
	tw.Flush()
	for i := range classes {
		if s := &classes[i].Spend; !s.NoRate && !s.NoCost && !s.NoPickCost && s.ThroughputChanged() {
			fmt.Fprintf(w, "  %s.\n", sim.ThroughputSpendNote)
			break
		}
	}
	for i := range classes {
		if cr := &classes[i]; cr.Verdict.Undecided {
			how := "at the sweep's figures for it"
			switch c := cr.RolledOut(); {
			case c == nil:
				how = "which the sweep did not simulate: its cost is the rollout check's"
			case c.Requests == 0:
				how = "with no figures: no request of the class fell in the sweep"
			}
			fmt.Fprintf(w, "  %s: undecided, so its configured policy rolls out (export and --write-scenario keep it), %s\n", cr.Class, how)
		}
	}
}

func writeClass(w io.Writer, cr *ClassReport, level float64, all bool) {
	p := cr.Objective.Percentile
	pn := pname(p)
	fmt.Fprintf(w, "\n%s: objective %s; %d candidates\n", cr.Class, cr.Objective, len(cr.Candidates))
	pick := cr.Picked()
	switch {
	case cr.Unpicked():
		fmt.Fprintf(w, "  pick: %s\n", cr.PickNote)
	case pick.Hedging:
		fmt.Fprintf(w, "  pick: %s (%s); %s\n", pick.Label, describe(pick), cr.PickNote)
	default:
		fmt.Fprintf(w, "  pick: no hedging; %s\n", cr.PickNote)
	}
	writeGroup(w, cr)
	fmt.Fprintf(w, "  verdict: %s: %s\n", verdictHead(cr), cr.Verdict.Reason)
	if len(cr.Steps) > 0 {
		whose := "the pick's"
		if cr.StepsOf == "objective_pick" {
			whose = "the objective's pick's (which the verdict rule rejects)"
		}
		fmt.Fprintf(w, "  where %s hedging goes, step by step (each against the same pick without hedging that step):\n", whose)
		for _, s := range cr.Steps {
			fmt.Fprintf(w, "    step %s: %s\n", s.Step, s.Why)
		}
	}
	if ps := cr.PipelineSearch; ps != nil {
		fmt.Fprintf(w, "  search: %s\n", ps.Found)
	}
	if !cr.Unpicked() {
		writeWon(w, cr) // else no candidate's figures are what rolls out
	}
	writeWhyNot(w, cr)
	for _, n := range cr.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}

	rows := cr.Frontier
	title := fmt.Sprintf("frontier (%d of %d candidates, by added cost)", len(cr.Frontier), len(cr.Candidates))
	if all {
		rows = make([]int, len(cr.Candidates))
		for i := range rows {
			rows[i] = i
		}
		title = "every candidate (f = on the frontier)"
	} else {
		if !cr.Candidates[cr.Pick].OnFrontier {
			rows = append(rows[:len(rows):len(rows)], cr.Pick)
			title += ", and the pick"
		}
		if o := cr.ObjectivePick; o != cr.Pick && !cr.Candidates[o].OnFrontier {
			rows = append(rows[:len(rows):len(rows)], o)
			title += ", and the objective's pick"
		}
	}
	like := pn
	if cr.Objective.Goal == MostAnswered {
		like = "share " + cr.Objective.WithinWord() + " within " + fsec(cr.Objective.Target.Seconds())
	}
	marks := "* pick, ~ " + like + " not significantly different from the pick"
	if cr.ObjectivePick != cr.Pick {
		marks = "* pick (recommended by the verdict rule), o the objective's pick, ~ " + like + " not significantly different from the pick"
	}
	if cr.RollsOut == RollsOutConfigured {
		marks = undecidedMarks(cr, rows, like)
	}
	fmt.Fprintf(w, "  %s; %s:\n", title, marks)
	tw := textfit.NewTable(w, tabwriter.AlignRight)
	ci := fmt.Sprintf("%s%% CI", fnum(100*level))
	front := ""
	if all {
		front = "\t"
	}
	within := "" // objective answered: the share answered within the target
	if cr.Objective.Goal == MostAnswered {
		within = "within " + fsec(cr.Objective.Target.Seconds()) + "\t"
		if cr.Objective.Checked {
			within = "checked " + within
		}
	}
	fmt.Fprintf(tw, "  \t%sdelay\tcopies\ttarget\tp95\t%s\tp99\t%s\t%sanswered\thedged\tattempts/req\tcost/1k req\tadded cost\t\n", front, ci, ci, within)
	for _, i := range rows {
		c := &cr.Candidates[i]
		mark := ""
		switch {
		case c.Pick:
			mark = "*"
		case c.ObjectivePick && c.LikePick:
			mark = "o~"
		case c.ObjectivePick:
			mark = "o"
		case c.LikePick:
			mark = "~"
		}
		if all {
			if c.OnFrontier {
				mark += "\tf"
			} else {
				mark += "\t"
			}
		}
		delay, copies, target := "none", "-", "-"
		switch {
		case c.Hedging && c.Steps != nil:
			delay = c.Label // a pipeline: each step's delay and copies
		case c.Hedging:
			delay, copies, target = candDelay(c), strconv.Itoa(c.Copies), c.Target
		}
		l := c.Latency
		w := ""
		if within != "" {
			w = fpct2(c.AnsweredWithinShare) + "\t"
		}
		answered, per1k := fmt.Sprintf("%.1f%%", 100*c.AnsweredShare), sim.DollarsPer1k(c.CostPer1kUSD)
		if c.Requests == 0 {
			answered, per1k = "-", "-"
			if within != "" {
				w = "-\t"
			}
		}
		hedged, attempts := perRequest(c)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\t%s\t%s\t%s\t%s\t\n",
			mark, delay, copies, target,
			fsec(l.P95), interval(l.P95CI95, c.P95CIOK),
			fsec(l.P99), interval(l.P99CI95, c.P99CIOK),
			w, answered, hedged, attempts, per1k, addedCost(cr, c))
	}
	tw.Flush()
}

// perRequest returns c's hedged share and attempts per request as table
// cells: "12.5%" and "1.125", or "-" and "-" for a candidate without
// requests, which has neither.
func perRequest(c *Candidate) (hedged, attempts string) {
	if c.Requests == 0 {
		return "-", "-"
	}
	return fmt.Sprintf("%.1f%%", 100*c.HedgedShare), fmt.Sprintf("%.3f", c.AttemptsPerRequest)
}

// closingLegend is the report's last legend line: added cost, and what
// "~" is relative to — the pick's interval, and for a class with no
// picked candidate (Unpicked), named, not known to differ from what rolls
// out, as its own legend says (undecidedMarks).
func closingLegend(classes []ClassReport) string {
	const added = "added cost is relative to no hedging on the same draws; "
	const rel = "~ = the percentile's interval overlaps the pick's (when requests interact: the interval of their paired difference holds 0)"
	const none = "~ = not known to differ from what rolls out"
	var unpicked []string
	for i := range classes {
		if classes[i].Unpicked() {
			unpicked = append(unpicked, classes[i].Class)
		}
	}
	switch len(unpicked) {
	case 0:
		return added + rel + "."
	case len(classes):
		return added + "no class has a picked candidate (each is undecided, so its configured policy rolls out): " + none + "."
	case 1:
		return added + rel + "; " + unpicked[0] + " has no picked candidate (undecided, so its configured policy rolls out): there " + none + "."
	}
	return added + rel + "; " + strings.Join(unpicked, ", ") + " have no picked candidate (undecided, so their configured policies roll out): there " + none + "."
}

// undecidedMarks is the frontier table's legend for an undecided class,
// whose configured policy rolls out (RollsOut): it explains each mark the
// rows use — "*" is that policy's candidate, not a pick the verdict made;
// "o" the objective's choice, which does not roll out; "~" relative to the
// pick, and, when no candidate is picked (Unpicked), that none is known
// to differ from what rolls out.
func undecidedMarks(cr *ClassReport, rows []int, like string) string {
	var star, o, tilde bool
	for _, i := range rows {
		c := &cr.Candidates[i]
		star = star || c.Pick
		o = o || (!c.Pick && c.ObjectivePick)
		tilde = tilde || (!c.Pick && c.LikePick)
	}
	var parts []string
	if star {
		parts = append(parts, "* pick: the configured policy, which rolls out as the verdict is undecided")
	}
	if o {
		parts = append(parts, "o the objective's choice, not what rolls out (the verdict is undecided)")
	}
	switch {
	case !tilde:
	case cr.Unpicked():
		parts = append(parts, "~ not known to differ from what rolls out (no candidate is picked: the configured policy rolls out, and the verdict could not tell the candidates apart)")
	default:
		parts = append(parts, "~ "+like+" not significantly different from the pick's")
	}
	if len(parts) == 0 {
		return "no marks"
	}
	return strings.Join(parts, ", ")
}

// writeWon writes who answered the pick's requests and the share that
// met the class's target before and after (the verdict's reason quotes
// what hedging rescued and harmed).
func writeWon(w io.Writer, cr *ClassReport) {
	pick, base := cr.Picked(), cr.Baseline()
	if pick.Requests == 0 {
		// No request fell in the class: nobody answered, and no share
		// met the target.
		if pick.Steps != nil || base.Steps != nil {
			fmt.Fprintf(w, "  %s: - → -\n", targetWord(cr.SLOSeconds))
		} else {
			fmt.Fprintf(w, "  who answered: -; %s: - → -\n", targetWord(cr.SLOSeconds))
		}
		return
	}
	if pick.Steps != nil || base.Steps != nil {
		// A pipeline: its calls are won in its steps.
		fmt.Fprintf(w, "  %s: %s → %s\n", targetWord(cr.SLOSeconds), fshare(base.MetShare), fshare(pick.MetShare))
		return
	}
	fmt.Fprintf(w, "  who answered: %s; %s: %s → %s\n", wonText(pick), targetWord(cr.SLOSeconds), fshare(base.MetShare), fshare(pick.MetShare))
	if s := replicaHoursText(pick, base); s != "" {
		fmt.Fprintf(w, "  %s\n", s)
	}
}

// replicaHoursText says what the pick's run kept its autoscaled pools up
// against no hedging's, which the added cost leaves out: "replica-hours
// of the autoscaled pools: 4.96 → 4.90 (-1.4%), not in the added cost";
// "" when no pool of the class's runs autoscales.
func replicaHoursText(pick, base *Candidate) string {
	if pick.ReplicaHours == nil || base.ReplicaHours == nil {
		return ""
	}
	p, b := *pick.ReplicaHours, *base.ReplicaHours
	change := "n/a"
	if b > 0 {
		change = fpct(100 * (p/b - 1))
	}
	return fmt.Sprintf("replica-hours of the autoscaled pools: %.2f → %.2f (%s), not in the added cost", b, p, change)
}

// writeWhyNot writes the "why not" list of a class: its best rejected
// candidates (WhyNotCount at most), each with the reasons it was
// rejected, the reason codes of the JSON in brackets.
func writeWhyNot(w io.Writer, cr *ClassReport) {
	idx, total := whyNot(cr, WhyNotCount)
	if len(idx) == 0 {
		return
	}
	pn := pname(cr.Objective.Percentile)
	rejected := ""
	if total > 0 {
		rejected = fmt.Sprintf("; %d of %d rejected", total, len(cr.Candidates))
	}
	fmt.Fprintf(w, "  why not: the %d candidates closest to being picked (nearest the pick in added cost, the frontier first), with why (every candidate's status and reasons: --json%s):\n", len(idx), rejected)
	tw := textfit.NewTable(w, 0)
	for _, i := range idx {
		c := &cr.Candidates[i]
		var why []string
		for _, r := range c.Reasons {
			why = append(why, fmt.Sprintf("%s [%s]", r.Text, r.Code))
		}
		delay := "none"
		switch {
		case c.Hedging && c.Steps != nil:
			delay = c.Label // a pipeline's: per step
		case c.Hedging && !c.Configured && c.Label != "":
			delay = c.Label // with its copies and target when the sweep varies them, as the tables and plots
		case c.Hedging:
			delay = candDelay(c)
		}
		figure := pn + " " + fsec(c.Q(cr.Objective.Percentile))
		if o := cr.Objective; o.Goal == MostAnswered {
			figure = fmt.Sprintf("within %s %s", fsec(o.Target.Seconds()), fpct2(c.AnsweredWithinShare))
			if o.Checked {
				figure = "checked " + figure
			}
		}
		cost := fpctCost(c.AddedCostPct)
		switch {
		case c.Requests == 0:
			cost = "-" // no requests: no cost measured
		case cr.CostBasis == CostCalls:
			cost += " calls"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", delay, figure, cost, strings.Join(why, "; "))
	}
	tw.Flush()
}

// describe says what a hedged candidate does: "1 copy to large-b after 650ms".
// candDelay is a candidate's delay column: its delay, or "configured"
// for the class's own policy (a fallback, an adaptive delay, a list).
func candDelay(c *Candidate) string {
	if c.Configured {
		return "configured"
	}
	if c.Adaptive != nil {
		return c.Label
	}
	return fdelay(c.Delay)
}

func describe(c *Candidate) string {
	if c.Steps != nil {
		var parts []string
		for _, s := range c.Steps {
			if s.Hedging {
				parts = append(parts, fmt.Sprintf("step %s: %d cop%s to %s, %s apart", s.Step, s.Copies, plural(s.Copies, "y", "ies"), s.Target, fdelay(s.Delay)))
			}
		}
		return strings.Join(parts, "; ")
	}
	if c.Configured {
		return fmt.Sprintf("the class's configured policy: up to %d cop%s to %s", c.Copies, plural(c.Copies, "y", "ies"), c.Target)
	}
	if c.Adaptive != nil {
		return describeAdaptive(c)
	}
	return fmt.Sprintf("%d cop%s to %s, %s apart", c.Copies, plural(c.Copies, "y", "ies"), c.Target, fdelay(c.Delay))
}

// interval formats a percentile's confidence interval, "n/a" when the
// requests are too few for one.
func interval(ci [2]float64, ok bool) string {
	if !ok {
		return "n/a"
	}
	return fmt.Sprintf("[%s, %s]", fsec(ci[0]), fsec(ci[1]))
}

// change formats the relative change from a to b: "(−32.7%)".
// Nothing is printed when either is a miss (+Inf) or a is not positive.
// measuredChange is change from b's p-quantile to c's, or "(no
// interval)" when c.NoIntervalFrom(b, p): the change is then not a
// measured one.
func measuredChange(b, c *Candidate, p float64) string {
	ch := change(b.Q(p), c.Q(p))
	if ch != "" && c.NoIntervalFrom(b, p) {
		return "(no interval)"
	}
	return ch
}

// NoIntervalFrom says that c's change from baseline b's p-quantile (0.95
// or 0.99) is not a measured one: c is not b, has requests, and too few of
// them for an interval on its p-quantile (CIOK false). The text report's
// summary, and index.html's, print "(no interval)" in place of the change
// then.
func (c *Candidate) NoIntervalFrom(b *Candidate, p float64) bool {
	return c != b && c.Requests > 0 && !c.CIOK(p)
}

func change(a, b float64) string {
	if !(a > 0) || a == b || math.IsInf(a, 1) || math.IsInf(b, 1) {
		return ""
	}
	return "(" + fpct(100*(b-a)/a) + ")"
}

// answeredChange formats the change of the answered share from a to b in
// percentage points, "(−0.6 pt)", with the precision of fshares, or the
// digits that keep its sign (sim.SignedChange): "(-0.002 pt)", not
// "(+0.00 pt)".
func answeredChange(a, b float64) string {
	if a == b {
		return ""
	}
	sa, _ := fshares(a, b)
	d := len(sa) - strings.IndexByte(sa, '.') - 2 // decimals, without the "%"
	return "(" + sim.SignedChange(100*(b-a), d) + " pt)"
}

// addedCost formats a candidate's added cost on the class's basis.
// A candidate without requests has none: "-".
func addedCost(cr *ClassReport, c *Candidate) string {
	if c.Requests == 0 {
		return "-"
	}
	s := fpct(c.AddedCostPct)
	if cr.CostBasis == CostCalls {
		s += " calls"
	}
	return s
}

// errWriter remembers the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

// Width is the width of the text written through e (textfit.Width).
func (e *errWriter) Width() int { return textfit.Width(e.w) }

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	_, e.err = e.w.Write(p)
	return len(p), nil
}

// fshareCI formats a share's interval on the wire as "[84.10%, 86.30%]",
// "[no interval]" when there is none.
func fshareCI(ci *[2]*float64) string {
	if ci == nil || ci[0] == nil || ci[1] == nil {
		return "[no interval]"
	}
	return fmt.Sprintf("[%s, %s]", fpct2(*ci[0]), fpct2(*ci[1]))
}

// writeRollout writes the rollout check: per class, the check next to no
// hedging and next to the sweep's prediction.
func writeRollout(w io.Writer, rc *RolloutCheck) {
	seed := ""
	if rc.Seed != nil {
		seed = fmt.Sprintf(" on seed %d, its own draws", *rc.Seed)
	}
	fmt.Fprintf(w, "\nrollout check: the whole scenario with every pick applied, %s%s (p95 in the check / no hedging / predicted by the sweep):\n", fcount(int64(rc.Requests)), seed)
	tw := textfit.NewTable(w, 0)
	// Closed-loop classes: the requests per second their clients got done,
	// without hedging → with the pick [95% CI]; no column for open arrivals.
	tputs := map[string]string{}
	if rc.Report != nil {
		for _, cl := range rc.Report.Classes {
			if t := cl.Throughput; t != nil {
				s := t.Text(true)
				if b := cl.NoHedging.Throughput; b != nil {
					s = b.Text(false) + " → " + s
				}
				tputs[cl.Class] = s
			}
		}
	}
	tputHead := ""
	if len(tputs) > 0 {
		tputHead = "throughput no hedging → check [95% CI]\t"
	}
	// Objectives answered and checked: the share the pick was chosen on,
	// without hedging → in the check [CI], and the sweep's.
	withinHead := ""
	if slices.ContainsFunc(rc.Classes, func(c RolloutClass) bool { return c.Within != nil }) {
		withinHead = "within target: no hedging → check [CI]\twithin target predicted\t"
	}
	// A class the check flags, or that had too few requests, says so in a
	// column of its own.
	flagHead := ""
	if slices.ContainsFunc(rc.Classes, func(c RolloutClass) bool { return c.Flagged || c.TooFew || c.PredictedTooFew }) {
		flagHead = "flag\t"
	}
	// Each header names its figure: when the table is split into groups
	// to fit the width, a column may lead a group of its own.
	fmt.Fprintln(tw, "  class\tpick\tp95 check\tp95 no hedging\tp95 predicted\tp99 check\tp99 no hedging\tanswered check\tanswered no hedging\tanswered predicted\t429s\tadded cost check\tadded cost predicted\t"+withinHead+tputHead+flagHead)
	for _, c := range rc.Classes {
		added := "n/a"
		if c.AddedCostPct != nil {
			added = fpct(*c.AddedCostPct)
		}
		flag := ""
		switch {
		case flagHead == "":
		case c.Flagged:
			flag = "FLAGGED\t"
		case c.TooFew || c.PredictedTooFew:
			flag = "TOO FEW\t"
		default:
			flag = "-\t"
		}
		tput := ""
		if len(tputs) > 0 {
			tput = cmp.Or(tputs[c.Class], "-") + "\t"
		}
		pp95, pans, padd := fsec(c.Predicted.P95), fpct2(c.PredictedAnswered), fpct(c.PredictedAddedCostPct)
		if c.Unswept {
			pp95, pans, padd = "-", "-", "-"
		}
		if c.noPredicted {
			pans, padd = "-", "-" // no request of the class in the sweep
		}
		ans, nhAns := fpct2(c.AnsweredShare), fpct2(c.NoHedgingAnswered)
		if c.noRequests {
			ans, nhAns = "-", "-" // no request of the class in the check
		}
		within := ""
		if withinHead != "" {
			within = "-\t-\t"
			if w := c.Within; w != nil {
				pred := "-"
				if w.Predicted != nil && !c.Unswept {
					pred = fpct2(*w.Predicted) + " " + fshareCI(w.PredictedCI)
				}
				within = fmt.Sprintf("%s within %s %s → %s %s\t%s\t", w.What, fsec(w.TargetS), fpct2(w.NoHedging), fpct2(w.Share), fshareCI(w.ShareCI), pred)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s%s%s\n", c.Class, c.Pick,
			fsec(c.Checked.P95), fsec(c.NoHedging.P95), pp95,
			fsec(c.Checked.P99), fsec(c.NoHedging.P99),
			ans, nhAns, pans,
			c.RateLimited, added, padd, within, tput, flag)
	}
	tw.Flush()
	for _, c := range rc.Classes {
		if c.Flagged {
			fmt.Fprintf(w, "  %s: FLAGGED: %s\n", c.Class, c.Flag)
		}
		if c.Note != "" {
			fmt.Fprintf(w, "  %s: %s\n", c.Class, c.Note)
		}
	}
	if rc.Report != nil {
		for _, warn := range rc.Report.SaturationWarnings() {
			fmt.Fprintf(w, "  warning: %s\n", warn)
		}
	}
}
