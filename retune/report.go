package retune

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hedgesim/hedgesim/sim"
	"github.com/hedgesim/hedgesim/textfit"
)

// Report is a retune: each model's drift and, when a model shifted, the
// re-check of the current policy and the new picks. Its JSON form is the
// output of `hedgesim retune --json`.
type Report struct {
	Scenario string `json:"scenario"`
	// Source is where the histograms came from and At when they were
	// read (RFC 3339, UTC).
	Source string `json:"source"`
	At     string `json:"at"`
	// Alpha is the drift test's level.
	Alpha  float64 `json:"alpha"`
	Models []Model `json:"models"`
	// Recheck is nil when no model shifted: the scenario's models stand
	// and nothing is simulated.
	Recheck *Recheck `json:"recheck"`
	// Action is true when a model shifted, a class should change its
	// policy or a class's current policy is over its objective's cap on
	// added cost: what a scheduled job should raise (exit status 3).
	Action bool `json:"action"`
	// Export is the runtime configuration of the current policies
	// against the retuned scenario's (retune --export FORMAT); absent
	// without it.
	Export *ExportDiff `json:"export,omitempty"`
}

// Judged reports whether the drift of at least one model could be judged
// (its verdict is not CannotTell). A report of none is no evidence that
// the scenario's models stand: hedgesim retune exits 2 on it.
func (r *Report) Judged() bool {
	for _, m := range r.Models {
		if m.Drift.Verdict != CannotTell {
			return true
		}
	}
	return false
}

// Finish sets r.Action from the models and the advice.
func (r *Report) Finish() {
	r.Action = false
	for _, m := range r.Models {
		r.Action = r.Action || m.Drift.Verdict == Shifted
	}
	if r.Recheck != nil {
		for _, c := range r.Recheck.Classes {
			r.Action = r.Action || c.Decision == Change || c.OverCostCap
		}
	}
}

// WriteText writes the report as tables, each fitted to the width of w
// (textfit.Width: none for a plain writer; the caller wraps the prose
// lines, textfit.Wrap).
func (r *Report) WriteText(w io.Writer) error {
	var buf bytes.Buffer
	b := textfit.NewWriter(&buf, textfit.Width(w))
	fmt.Fprintf(b, "retune %s from %s at %s; drift judged at level %g (chi-square on the buckets, percentile intervals at %g%%)\n\n",
		r.Scenario, r.Source, r.At, r.Alpha, 100*(1-r.Alpha))
	tw := textfit.NewTable(b, 0)
	fmt.Fprintln(tw, "model\tobservations\tverdict\tX²\tdf\tp\tp50 scenario → live [interval]\tp95\tp99")
	for _, m := range r.Models {
		d := &m.Drift
		row := []string{m.Model, countText(d.N), d.Verdict, fmt.Sprintf("%.1f", d.ChiSquare), strconv.Itoa(d.DF), pText(d.PValue)}
		if d.Verdict == CannotTell {
			// No test: no statistic, and no live percentile to set
			// against the scenario's.
			row[3], row[4], row[5] = "-", "-", "-"
		}
		if d.DF < 1 {
			// No chi-square (the bounds' exact test gave p).
			row[3], row[4] = "-", "-"
		}
		for _, s := range d.Percentiles {
			mark := ""
			if s.Moved {
				mark = " *"
			}
			if d.Verdict == CannotTell {
				row = append(row, fmt.Sprintf("%s → -", num(s.Scenario)))
				continue
			}
			row = append(row, fmt.Sprintf("%s → %s [%s, %s]%s", num(s.Scenario), num(s.Live), num(s.Lo), num(s.Hi), mark))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	moved := false
	for _, m := range r.Models {
		for _, s := range m.Drift.Percentiles {
			moved = moved || s.Moved
		}
	}
	if moved {
		io.WriteString(b, "* the scenario's percentile lies outside the live interval; ")
	}
	io.WriteString(b, "intervals are the buckets holding the order-statistic ranks\n")
	for _, m := range r.Models {
		fmt.Fprintf(b, "\n%s: %s\n", m.Model, m.Drift.Describe())
		fmt.Fprintf(b, "  %s\n", m.Drift.Why)
		if m.simulated() {
			fmt.Fprintf(b, "  judged against %s\n", m.Against)
		}
		if m.NotApplied != "" {
			fmt.Fprintf(b, "  %s\n", m.NotApplied)
		}
		for _, w := range m.Drift.Warnings {
			fmt.Fprintf(b, "  warning: %s\n", w)
		}
		fmt.Fprintf(b, "  series: %s in %s; live fit (%s): %s\n", m.Query, m.Source, m.Key, m.Fit.Describe())
		for _, s := range m.Drift.Shares {
			fmt.Fprintf(b, "  path at median %s s: share %.3g in the scenario, %.3g live (SE %.2g)\n", num(s.Median), s.Scenario, s.Live, s.SE)
		}
	}
	if r.Recheck == nil && !r.Judged() {
		io.WriteString(b, "\nno model could be judged (every verdict is \"cannot tell\", for the reasons above): the source cannot say whether the scenario's models still hold; check the histograms' buckets and counts, and the query; nothing simulated\n")
		_, err := w.Write(buf.Bytes())
		return err
	}
	if notes := r.heldNotes(); len(notes) > 0 {
		for _, n := range notes {
			fmt.Fprintf(b, "\n%s\n", n)
		}
		if r.Recheck == nil {
			_, err := w.Write(buf.Bytes())
			return err
		}
	}
	if r.Recheck == nil {
		io.WriteString(b, "\nno model shifted: the scenario's models and policies stand; nothing simulated\n")
		_, err := w.Write(buf.Bytes())
		return err
	}
	rc := r.Recheck
	fmt.Fprintf(b, "\ncurrent policy on the live models (rollout check, %d requests; the scenario's models predicted → now):\n", rc.Check.Requests)
	tw = textfit.NewTable(b, 0)
	fmt.Fprintln(tw, "class\tpolicy\tp95\tp99\tanswered\tadded cost")
	for _, c := range rc.Classes {
		n := &c.Now
		fmt.Fprintf(tw, "%s\t%s\t%s → %s\t%s → %s\t%.1f%% → %.1f%%\t%s → %s\n", c.Class, c.CurrentLabel,
			sec(n.Predicted.P95), sec(n.Checked.P95), sec(n.Predicted.P99), sec(n.Checked.P99),
			100*n.PredictedAnswered, 100*n.AnsweredShare, pctText(n.PredictedAddedCostPct), pctOf(n.AddedCostPct))
	}
	tw.Flush()
	for _, c := range rc.Classes {
		if len(c.Held) > 0 {
			fmt.Fprintf(b, "  %s: %s\n", c.Class, c.heldText())
		}
	}
	for _, c := range rc.Classes {
		switch n := &c.Now; {
		case n.Flag != "":
			fmt.Fprintf(b, "  %s: %s\n", c.Class, n.Flag)
		case n.TooFew || n.PredictedTooFew:
			// p95 not compared: no pass either.
			fmt.Fprintf(b, "  %s: TOO FEW: %s\n", c.Class, n.Note)
		}
	}
	fmt.Fprintf(b, "\nnew picks on the live models (optimize, %d requests per candidate):\n", rc.New.RequestsPerCandidate)
	tw = textfit.NewTable(b, 0)
	fmt.Fprintln(tw, "class\tdecision\tnew pick\tp95\tanswered\tadded cost")
	for _, c := range rc.Classes {
		p95, answered, cost := c.newCells()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Class, c.Decision, c.New, p95, answered, cost)
	}
	tw.Flush()
	for _, c := range rc.Classes {
		fmt.Fprintf(b, "  %s: %s: %s\n", c.Class, c.Decision, c.Why)
		if c.OverCostCap {
			fmt.Fprintf(b, "  %s: %s\n", c.Class, c.OverCostCapWhy)
		}
		if c.New == "none" && !c.SamePolicy && c.NewPickNote != "" {
			fmt.Fprintf(b, "  %s: new pick none (no hedging): %s\n", c.Class, c.NewPickNote)
		}
	}
	if ac := rc.Adaptive; ac != nil {
		writeAdaptiveText(b, ac)
	}
	writeRecheckWarnings(b, rc)
	_, err := w.Write(buf.Bytes())
	return err
}

// heldText says that c's row holds the scenario's model for its held
// models.
func (c *ClassAdvice) heldText() string {
	return fmt.Sprintf("%s shifted but keeps the scenario's model here (not refitted, above): this row holds none of its live latency", strings.Join(c.Held, ", "))
}

// heldNotes returns the notes on the shifted models whose live fits are
// not applied (Model.NotApplied): those at a queue or pool, those whose
// histogram counts answered calls that the scenario's hedging or deadline
// cancels, and those whose fit is no model of the live latency
// (Model.FitRejected);
// with a re-check, that it keeps the scenario's model for them.
func (r *Report) heldNotes() []string {
	var queued, censored []string
	// The models whose fit is rejected, by what to do (fitAdvice), in
	// their order.
	var advice []string
	rejected := map[string][]string{}
	cut := "the scenario's hedging cancels its losing attempts"
	for _, m := range r.Models {
		if m.NotApplied == "" {
			continue
		}
		switch {
		case m.QueuedAt != "":
			queued = append(queued, m.Model)
		case len(m.CancelledBy) == 0:
			if _, ok := rejected[m.fitAdvice]; !ok {
				advice = append(advice, m.fitAdvice)
			}
			rejected[m.fitAdvice] = append(rejected[m.fitAdvice], m.Model)
		default:
			censored = append(censored, m.Model)
			if strings.Contains(m.NotApplied, "still running at") {
				cut = "the scenario cancels its losing attempts or its calls still running at a deadline"
			}
		}
	}
	then := "no policy is re-picked on it"
	if r.Recheck != nil {
		then = "the re-check below keeps the scenario's model for it (a class sending only to it reads as predicted there)"
	}
	var out []string
	if len(queued) > 0 {
		out = append(out, fmt.Sprintf("shifted at a queue or pool: %s; the client-side latency moved, but the scenario's model is the service time the simulation adds the wait and any replica's slowdown to, so the live fit is not written in its place and %s; check the provider's capacity and replicas, then the model", strings.Join(queued, ", "), then))
	}
	if len(censored) > 0 {
		out = append(out, fmt.Sprintf("shifted, judged on answered calls: %s; %s, the slow ones, so a fit of the answered calls is biased short: it is not written in its place and %s; to refit the model, give a histogram of every call (recorded at the provider, or by a client that records a cancelled call's latency too) with --histogram-counts all", strings.Join(censored, ", "), cut, then))
	}
	for _, a := range advice {
		out = append(out, fmt.Sprintf("shifted, without a model of the live latency: %s; the live fit is no model to re-plan on (why, under the model above), so it is not written in its place and %s; %s", strings.Join(rejected[a], ", "), then, a))
	}
	return out
}

// writeRecheckWarnings writes the warnings the JSON holds of the rollout
// check of the current policies and of the optimisation on the live
// models (too few requests, a saturated provider, …), so that the text
// does not read firmer than they allow.
func writeRecheckWarnings(b io.Writer, rc *Recheck) {
	var ws []string
	if rc.Check != nil && rc.Check.Report != nil {
		for _, w := range rc.Check.Report.Warnings {
			ws = append(ws, "rollout check: "+w)
		}
		for _, c := range rc.Check.Report.Classes {
			for _, w := range c.Warnings {
				ws = append(ws, "rollout check, class "+c.Class+": "+w)
			}
		}
	}
	if rc.New != nil {
		for _, c := range rc.New.Classes {
			for _, w := range c.Warnings {
				ws = append(ws, "optimize, class "+c.Class+": "+w)
			}
		}
	}
	if len(ws) == 0 {
		return
	}
	io.WriteString(b, "\n")
	for _, w := range ws {
		fmt.Fprintf(b, "warning: %s\n", w)
	}
}

// WriteExportText writes the export diff as it is, unwrapped (a diff's
// lines are not prose): a heading, then the unified diff, or a line saying
// there is none. It writes nothing without an export.
func (r *Report) WriteExportText(w io.Writer) error {
	e := r.Export
	if e == nil {
		return nil
	}
	var b bytes.Buffer
	switch {
	case e.Error != "":
		fmt.Fprintf(&b, "\nexport diff (%s): the new picks cannot be written in this format: %s\n", e.Format, e.Error)
	case e.Diff == "":
		fmt.Fprintf(&b, "\nexport diff (%s): the retuned scenario exports the same configuration as the current one\n", e.Format)
	default:
		fmt.Fprintf(&b, "\nexport diff (%s), the current policies → the retuned scenario's:\n%s", e.Format, e.Diff)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeAdaptiveText writes the comparison of each class's static policy
// with an adaptive delay.
func writeAdaptiveText(b io.Writer, ac *AdaptiveComparison) {
	fmt.Fprintf(b, "\nadaptive delay against the static policy (%d requests each, on the same draws):\n", ac.Requests)
	if ac.ShiftNote != "" {
		fmt.Fprintf(b, "  no shift modelled: %s\n", ac.ShiftNote)
	} else {
		fmt.Fprintf(b, "  the shift: %s\n", ac.Shift)
	}
	if len(ac.Classes) > 0 {
		tw := textfit.NewTable(b, 0)
		fmt.Fprintln(tw, "class\tpolicy\tmodels\tpXX\tanswered\thedged\tadded cost\tmean delay")
		for _, r := range ac.rows() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Class, r.Policy, r.Models, r.Q, r.Answered, r.Hedged, r.AddedCost, r.Delay)
		}
		tw.Flush()
		io.WriteString(b, "  pXX is each class's objective percentile (p95, or p99 for a p99 objective); mean delay: the adaptive delay's, over time\n")
	}
	for _, c := range ac.Classes {
		from := "the default adaptive delay (p95 of the primaries' last 1000 latencies)"
		if c.FromScenario {
			from = "the class's own adaptive delay"
		}
		fmt.Fprintf(b, "  %s: %s: %s, against %s\n", c.Class, c.Verdict, verdictText(&c), from)
		fmt.Fprintf(b, "    %s\n", c.Why)
		if c.CostNote != "" {
			fmt.Fprintf(b, "  %s: %s\n", c.Class, c.CostNote)
		}
	}
	for _, s := range ac.Skipped {
		fmt.Fprintf(b, "  not compared: %s\n", s)
	}
}

// verdictText says class c's verdict (AdaptiveClass.Verdict) in words,
// with what the adaptive delay is better at through the shift (BetterOn):
// a lower percentile, more answers, or as good for less added cost.
func verdictText(c *AdaptiveClass) string {
	how := "does better through the shift"
	if c.Shift != nil && c.Shift.Better == "adaptive" {
		switch on := c.Shift.BetterOn; on {
		case "added cost":
			how = "does as well through the shift, within the intervals, for less added cost"
		case "answered":
			how = "answers more through the shift"
		default:
			how = "does better on " + on + " through the shift"
		}
	}
	switch c.Verdict {
	case "adapt":
		if c.Shift == nil {
			return "the adaptive delay does better on the live models: let the client adapt"
		}
		return "the adaptive delay " + how + " and no worse on the live models: let the client adapt"
	case "trade-off":
		return "the adaptive delay " + how + " and worse on the live models"
	case "undecided":
		return "the class's percentile could not be compared (below): no case for the adaptive delay, keep a static delay and retune it on a schedule"
	}
	if where := overCapsWhere(c); where != "" {
		return "the adaptive delay is over the objective's cap " + where + " (below), so it is not recommended, as optimize rejects a candidate over a cap: keep a static delay and retune it on a schedule"
	}
	if c.Shift != nil && c.Shift.Better == "" && strings.Contains(c.Shift.BetterOn, "the adaptive delay's") {
		return "the adaptive delay does better through the shift but does not earn its added cost there by the verdict rule (below): keep a static delay and retune it on a schedule"
	}
	return "the adaptive delay does no better through the shift: keep a static delay and retune it on a schedule"
}

// WriteJSON writes the report as indented JSON; an infinite or undefined
// figure is null.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// newCells returns the new pick's p95, answered share and added cost as
// the report's table cells: "-" each when the optimisation is undecided.
func (c *ClassAdvice) newCells() (p95, answered, cost string) {
	if c.Undecided {
		return "-", "-", "-"
	}
	return sec(c.NewLatency.P95), fmt.Sprintf("%.1f%%", 100*float64(c.NewAnswered)), sim.SignedChange(float64(c.NewAddedCost), 1) + "%"
}

func pctOf(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return pctText(*v)
}

// jnum is a float that encodes as JSON null when it is infinite or NaN.
type jnum float64

func (x jnum) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// MarshalJSON writes a Shift with its infinite bounds as null.
func (s Shift) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		P         jnum `json:"p"`
		Scenario  jnum `json:"scenario_s"`
		Live      jnum `json:"live_s"`
		Lo        jnum `json:"lo_s"`
		Hi        jnum `json:"hi_s"`
		Moved     bool `json:"moved"`
		ChangePct jnum `json:"change_pct"`
	}{jnum(s.P), jnum(s.Scenario), jnum(s.Live), jnum(s.Lo), jnum(s.Hi), s.Moved, jnum(s.ChangePct)})
}

// MarshalJSON writes a ShareShift with an infinite SE as null.
func (s ShareShift) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Component int     `json:"component"`
		Median    jnum    `json:"median_s"`
		Scenario  float64 `json:"scenario"`
		Live      float64 `json:"live"`
		SE        jnum    `json:"se"`
		Moved     bool    `json:"moved"`
	}{s.Component, jnum(s.Median), s.Scenario, s.Live, jnum(s.SE), s.Moved})
}

// MarshalJSON writes a Drift with an infinite X² or undefined p as null.
func (d Drift) MarshalJSON() ([]byte, error) {
	type plain Drift
	return json.Marshal(struct {
		plain
		ChiSquare jnum `json:"chi_square"`
		PValue    jnum `json:"p_value"`
	}{plain(d), jnum(d.ChiSquare), jnum(d.PValue)})
}

// pText formats a p-value; one that underflows to 0 is "<1e-300".
func pText(p float64) string {
	if math.IsNaN(p) { // no test: too few observations or no degree of freedom
		return "-"
	}
	if p == 0 {
		return "<1e-300"
	}
	return fmt.Sprintf("%.3g", p)
}
