package compare

import (
	"github.com/hedgesim/hedgesim/sim"
	"github.com/hedgesim/hedgesim/textfit"

	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// WriteText writes c as a table with one block per class: each figure in
// A and in B (p95/p99 with their intervals), and the change, or "~" when
// it is not significant; nameA and nameB label the two sides.
func (c *Comparison) WriteText(w io.Writer, nameA, nameB string) error {
	ew := &errWriter{w: w}
	for _, side := range []struct {
		label, name string
		r           *Report
	}{{"A", nameA, c.A}, {"B", nameB, c.B}} {
		fmt.Fprintf(ew, "%s: %s (%s report, scenario %s, seed %d", side.label, side.name, side.r.Kind, side.r.Scenario, side.r.Seed)
		if len(side.r.Overrides) > 0 {
			fmt.Fprintf(ew, "; what-if %s", strings.Join(side.r.Overrides, ", "))
		}
		fmt.Fprintln(ew, ")")
	}
	writePrecisions(ew, c)
	if !c.SameScenario() {
		draws := "the runs share no random numbers"
		if c.A.Seed == c.B.Seed {
			// sim keys every draw by (seed, request, attempt) alone: the
			// same seed gives request i the same numbers in both files as
			// far as they agree, which is what the batches pair.
			draws = "with the same seed, request i draws the same random numbers in both only as far as the two files agree (a class, model or traffic the other lacks changes the draws), so paired differences, where given, are valid but may be wider than for one file"
		}
		fmt.Fprintf(ew, "warning: A and B are different scenarios (%s); classes are matched by name only, %s, and a difference may come from anything the scenarios do not share.\n", scenarioIDs(c), draws)
	}
	fmt.Fprintln(ew)
	var table bytes.Buffer
	tw := textfit.NewTableWidth(&table, textfit.Width(w), 0)
	fmt.Fprintln(tw, "class\tmetric\tA\t\tB\t\tchange")
	for _, r := range c.Rows {
		if r.PolicyA != "" || r.PolicyB != "" {
			fmt.Fprintf(tw, "%s\tpolicy\t%s\t\t%s\t\t\n", r.Class, orDash(r.PolicyA), orDash(r.PolicyB))
		}
		fmt.Fprintf(tw, "%s\trequests\t%d\t\t%d\t\t\n", r.Class, r.RequestsA, r.RequestsB)
		for _, d := range r.Deltas {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Class, d.Metric,
				value(d.Metric, d.A), ci(d, d.CIA), value(d.Metric, d.B), ci(d, d.CIB), change(d))
		}
	}
	tw.Flush()
	for _, line := range strings.SplitAfter(table.String(), "\n") {
		io.WriteString(ew, strings.TrimRight(line, " \n"))
		if strings.HasSuffix(line, "\n") {
			io.WriteString(ew, "\n")
		}
	}
	for _, r := range c.Rows {
		var ps []string
		n := 0
		for _, d := range r.Deltas {
			if d.Paired {
				ps = append(ps, d.Metric+" "+diffCI(d))
				n = d.PairedBatches
			}
		}
		if len(ps) > 0 {
			fmt.Fprintf(ew, "%s: paired B − A over %d batches: %s\n", r.Class, n, strings.Join(ps, ", "))
		}
	}
	for _, r := range c.Rows {
		for _, side := range []struct{ label, figures, policy string }{{"A", r.FiguresA, r.PolicyA}, {"B", r.FiguresB, r.PolicyB}} {
			if note := configuredNote(r.Class, side.label, side.figures); note != "" {
				fmt.Fprintln(ew, note)
			}
		}
	}
	for _, r := range c.Rows {
		if note := samePolicyNote(r); note != "" {
			fmt.Fprintln(ew, note)
		} else if note := undecidedNote(c, r); note != "" {
			fmt.Fprintln(ew, note)
		}
	}
	writePoolCosts(ew, c.Pools)
	for _, r := range c.Rows {
		if r.APickInB != nil {
			fmt.Fprintf(ew, "%s: A's pick in B: %s\n", r.Class, r.APickInB)
			fmt.Fprintf(ew, "%s: B's pick in A: %s\n", r.Class, r.BPickInA)
		}
	}
	for _, n := range c.OnlyA {
		fmt.Fprintf(ew, "class %s is only in A\n", n)
	}
	for _, n := range c.OnlyB {
		fmt.Fprintf(ew, "class %s is only in B\n", n)
	}
	// Each note is one line, which the terminal's fitting (textfit.Wrap)
	// wraps with an indent.
	tests := "(p95/p99: 95% intervals overlap; answered: two-proportion z test at 5%); ?: too few requests for an interval."
	if overlapTested(c) {
		tests = "(p95/p99: 95% intervals overlap; answered: two-proportion z test at 5%, or, where requests interact and the runs are not paired, the reports' 95% intervals overlap); ?: too few requests for an interval."
	}
	fmt.Fprintln(ew, "\nlatency: time to a usable answer (a request without one by its deadline is a miss, +∞: printed miss). ~: not significant "+tests)
	if n := pairedCount(c); n > 0 {
		fmt.Fprintf(ew, "Where requests interact, %s marked instead by the paired difference B − A over the runs' common batches (its 95%% interval over batches of arrivals after both warm-up cuts, listed under the table; ~ when it holds 0).\n", plural(n, "figure is", "figures are"))
	}
	if c.Unpaired != "" {
		fmt.Fprintf(ew, "Not paired by batches although requests interact: %s; the percentiles keep the overlap test, the shares are judged by the overlap of the reports' own intervals (batched where requests interact).\n", c.Unpaired)
	}
	marks := "the marks are conservative"
	if pairedCount(c) > 0 {
		marks = "the paired marks gain from it and the others are conservative"
	}
	switch {
	case !c.sameDraws():
	case !c.CommonRandomNumbers():
		writeOtherDraws(ew, c)
	case slices.Equal(c.A.Overrides, c.B.Overrides):
		fmt.Fprintf(ew, "Both runs are of the same scenario with the same seed (common random numbers): %s.\n", marks)
	default:
		fmt.Fprintf(ew, "Both runs are of the same scenario file with the same seed, and different what-if overrides: request i draws the same numbers in both (common random numbers), so %s; overrides of the traffic (rate, requests, shares) change which request meets which conditions, and the runs are then less alike.\n", marks)
	}
	return ew.err
}

// writeOtherDraws says, for two reports of one scenario file and seed,
// which classes were simulated among other classes in A than in B, so that
// their request i is another request in each and their differences
// include sampling noise, which classes (if any) still share draws, and
// which have figures that are not a report's own draws (Row.FiguresA,
// FiguresB: an undecided class's rollout check, or none).
func writeOtherDraws(w io.Writer, c *Comparison) {
	var other, same, notOwn []string
	for _, r := range c.Rows {
		if r.FiguresA != "" || r.FiguresB != "" {
			notOwn = append(notOwn, r.Class)
			continue
		}
		if r.CommonRandomNumbers {
			same = append(same, r.Class)
			continue
		}
		other = append(other, fmt.Sprintf("%s (%s in A, %s in B)", r.Class, simulatedText(c.A.Kind, r.Class, r.SimulatedA), simulatedText(c.B.Kind, r.Class, r.SimulatedB)))
	}
	var parts []string
	if len(other) > 0 {
		parts = append(parts, fmt.Sprintf("Both reports are of the same scenario file with the same seed, but do not share random numbers for %s: a class's request i is another request when it is simulated among other classes (optimize sweeps a class on its own requests unless it is coupled), so the differences there include sampling noise.", strings.Join(other, ", ")))
	}
	if len(same) > 0 {
		parts = append(parts, fmt.Sprintf("%s simulated among the same classes in both: request i draws the same numbers in both (common random numbers).", strings.Join(same, ", ")))
	}
	if len(notOwn) > 0 {
		parts = append(parts, fmt.Sprintf("%s: a side's figures are not its sweep's (an undecided class with no candidate picked: the rollout check's, or none), so they share no random numbers with the other side's.", strings.Join(notOwn, ", ")))
	}
	fmt.Fprintln(w, strings.Join(parts, " "))
}

// simulatedText says among which classes a report simulated class: "alone",
// or "with a, b" (the others).
func simulatedText(k Kind, class string, with []string) string {
	var others []string
	for _, n := range with {
		if n != class {
			others = append(others, n)
		}
	}
	if len(others) == 0 {
		if k == Optimize {
			return "swept alone"
		}
		return "alone"
	}
	return "with " + strings.Join(others, ", ")
}

// isShare reports whether a metric is a share of requests, whose change is
// in percentage points and which has no interval.
func isShare(metric string) bool {
	switch metric {
	case "answered", "checked", "hedged", "degraded", "met", "rescued", "harmed":
		return true
	}
	return false
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func value(metric string, x float64) string {
	if math.IsNaN(x) {
		return "-" // a class without requests
	}
	switch metric {
	case "answered", "checked", "degraded", "met", "rescued", "harmed":
		return fmt.Sprintf("%.2f%%", 100*x)
	case "hedged":
		return fmt.Sprintf("%.1f%%", 100*x)
	case "attempts/req":
		return fmt.Sprintf("%.3f", x)
	case "cost/1k":
		return sim.DollarsPer1k(x)
	}
	return formatSeconds(x)
}

func ci(d Delta, iv [2]float64) string {
	if !sideCIs(d) {
		return ""
	}
	if isShare(d.Metric) {
		return fmt.Sprintf("[%s, %s]", value(d.Metric, iv[0]), value(d.Metric, iv[1]))
	}
	return fmt.Sprintf("[%s, %s]", formatSeconds(iv[0]), formatSeconds(iv[1]))
}

// sideCIs reports whether d shows each side's own interval: a p95 or p99
// (or end-to-end p95) that was tested, or a share tested by the overlap of
// its intervals.
func sideCIs(d Delta) bool {
	if d.Mark != Significant && d.Mark != Same {
		return false
	}
	return d.Test == TestOverlap || !isShare(d.Metric) && d.Metric != "p50" && d.Metric != "cost/1k"
}

// pairedCount returns how many of c's figures were marked by a paired
// difference.
func pairedCount(c *Comparison) int {
	n := 0
	for _, r := range c.Rows {
		for _, d := range r.Deltas {
			if d.Paired {
				n++
			}
		}
	}
	return n
}

// plural returns "1 figure is" or "n figures are".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// diffCI formats a paired difference's interval in d's unit.
func diffCI(d Delta) string {
	f := func(x float64) string {
		switch {
		case isShare(d.Metric):
			return sim.SignedChange(100*x, 2) + " pt"
		case d.Metric == "cost/1k":
			if x < 0 {
				return "-" + sim.DollarsPer1k(-x)
			}
			return "+" + sim.DollarsPer1k(x)
		}
		if x < 0 {
			return "-" + formatSeconds(-x)
		}
		return "+" + formatSeconds(x)
	}
	return fmt.Sprintf("[%s, %s]", f(d.DiffCI[0]), f(d.DiffCI[1]))
}

// change formats d's change for the table's change column: B − A in
// percentage points for a share, (B − A)/A in percent otherwise (signed);
// "becomes an answer" for a percentile that was a miss in A and is not in
// B, and "rises to a miss" for the reverse, as optimize words them; "n/a"
// for another change without a ratio (A = 0, or a miss on both sides);
// "-" when a side has no requests. Then "~" in its place when not significant, " ?" after it when
// untested for too few requests.
func change(d Delta) string {
	var s string
	switch {
	case math.IsNaN(d.A) || math.IsNaN(d.B):
		return "-" // a side without requests
	case isShare(d.Metric):
		s = sim.SignedChange(d.Change, 2) + " pt"
	case math.IsInf(d.A, 1) && !math.IsInf(d.B, 1):
		s = "becomes an answer"
	case math.IsInf(d.B, 1) && !math.IsInf(d.A, 1):
		s = "rises to a miss"
	case math.IsNaN(d.Change):
		s = "n/a"
	default:
		s = sim.SignedChange(d.Change, 1) + "%"
	}
	switch d.Mark {
	case Same:
		s = "~"
	case Unknown:
		return s + " ?"
	}
	return s
}

// formatSeconds prints a latency as the reports do (sim.FormatSeconds).
func formatSeconds(s float64) string { return sim.FormatSeconds(s) }

// JSON shapes of WriteJSON.
type (
	jsonDelta struct {
		Metric string       `json:"metric"`
		A      *float64     `json:"a"`
		B      *float64     `json:"b"`
		Change *float64     `json:"change"`
		Unit   string       `json:"change_unit"`
		Sig    string       `json:"significance"`
		CIA    *[2]*float64 `json:"a_ci95,omitempty"`
		CIB    *[2]*float64 `json:"b_ci95,omitempty"`
		// Test and DiffCI: a paired test's name and the 95 % interval of
		// the difference B − A, in the figure's unit (absent otherwise);
		// for a share not paired, Test names its test (Delta.Test).
		Test    string       `json:"test,omitempty"`
		DiffCI  *[2]*float64 `json:"difference_ci95,omitempty"`
		Batches int          `json:"paired_batches,omitempty"`
	}
	jsonRow struct {
		Class     string      `json:"class"`
		PolicyA   string      `json:"a_policy,omitempty"`
		PolicyB   string      `json:"b_policy,omitempty"`
		RequestsA int64       `json:"a_requests"`
		RequestsB int64       `json:"b_requests"`
		Metrics   []jsonDelta `json:"metrics"`
		APickInB  *jsonFate   `json:"a_pick_in_b,omitempty"`
		BPickInA  *jsonFate   `json:"b_pick_in_a,omitempty"`
		// CommonRandomNumbers: the class's request i drew the same numbers
		// in both (Row.CommonRandomNumbers); SamePolicy: both sides ran the
		// same policy under the same conditions (Row.SamePolicy).
		CommonRandomNumbers bool `json:"common_random_numbers"`
		SamePolicy          bool `json:"same_policy"`
		// FiguresA and FiguresB: Row.FiguresA and FiguresB ("rollout_check"
		// or "none" for an undecided optimize class with no candidate
		// picked); absent otherwise.
		FiguresA string `json:"a_figures,omitempty"`
		FiguresB string `json:"b_figures,omitempty"`
		// DecideP95: for a p95 marked not_significant, the --precision
		// to rerun each side with to decide it (precision.go); absent
		// when the policies are the same (nothing to decide).
		DecideP95 *float64 `json:"p95_precision_to_decide,omitempty"`
	}
	jsonFate struct {
		Policy  string   `json:"policy"`
		Found   bool     `json:"found"`
		Status  string   `json:"status"`
		Reasons []string `json:"reasons"`
	}
	jsonComparison struct {
		A string `json:"a"`
		B string `json:"b"`
		// SameScenario and CommonRandomNumbers: see Comparison.
		SameScenario        bool      `json:"same_scenario"`
		CommonRandomNumbers bool      `json:"common_random_numbers"`
		Rows                []jsonRow `json:"classes"`
		OnlyA               []string  `json:"only_in_a"`
		OnlyB               []string  `json:"only_in_b"`
		// Unpaired: why classes whose requests interact were not
		// paired (Comparison.Unpaired; absent when none was left so).
		Unpaired string `json:"unpaired,omitempty"`
		// Pools: the autoscaled pools' replica costs (absent without).
		Pools []PoolCost `json:"pools,omitempty"`
		// PrecisionA and PrecisionB: how each report's run to a
		// precision ended (absent for a report made without --precision).
		PrecisionA *sim.Precision `json:"a_precision,omitempty"`
		PrecisionB *sim.Precision `json:"b_precision,omitempty"`
	}
)

// scenarioIDs names the two reports' scenarios for the warning: the names,
// with the start of the hashes when the names agree.
func scenarioIDs(c *Comparison) string {
	if c.A.Scenario != c.B.Scenario {
		return fmt.Sprintf("A: %s, B: %s", c.A.Scenario, c.B.Scenario)
	}
	return fmt.Sprintf("both named %s, scenario_sha256 %.12s… and %.12s…", c.A.Scenario, c.A.ScenarioSHA256, c.B.ScenarioSHA256)
}

// markNames are the JSON names of the marks.
var markNames = map[Mark]string{NoTest: "no_test", Significant: "significant", Same: "not_significant", Unknown: "too_few_requests"}

// WriteJSON writes c as indented JSON: per class, per metric, a and b
// (latencies in seconds, null for a miss), the
// change (percent, or percentage points for the shares "answered",
// "met", "rescued" and "harmed"; null when A is 0)
// (null when either side is a miss) and its significance ("significant", "not_significant", "no_test",
// "too_few_requests"); a figure marked by a paired difference (paired.go)
// adds test "paired_batches", difference_ci95 (B − A in the figure's unit)
// and paired_batches (their count).
func (c *Comparison) WriteJSON(w io.Writer, nameA, nameB string) error {
	out := jsonComparison{A: nameA, B: nameB, SameScenario: c.SameScenario(), CommonRandomNumbers: c.CommonRandomNumbers(), Rows: []jsonRow{}, OnlyA: nonNil(c.OnlyA), OnlyB: nonNil(c.OnlyB), Pools: c.Pools, Unpaired: c.Unpaired,
		PrecisionA: c.A.Precision, PrecisionB: c.B.Precision}
	for _, r := range c.Rows {
		jr := jsonRow{Class: r.Class, PolicyA: r.PolicyA, PolicyB: r.PolicyB, RequestsA: r.RequestsA, RequestsB: r.RequestsB,
			CommonRandomNumbers: r.CommonRandomNumbers, SamePolicy: r.SamePolicy, FiguresA: r.FiguresA, FiguresB: r.FiguresB}
		for _, d := range r.Deltas {
			jd := jsonDelta{Metric: d.Metric, A: finite(d.A), B: finite(d.B), Unit: "percent", Sig: markNames[d.Mark]}
			if isShare(d.Metric) {
				jd.Unit = "percentage_points"
			}
			if !math.IsNaN(d.Change) {
				ch := d.Change
				jd.Change = &ch
			}
			jd.Test = d.Test
			if d.Paired {
				iv := [2]*float64{finite(d.DiffCI[0]), finite(d.DiffCI[1])}
				jd.Test, jd.DiffCI, jd.Batches = "paired_batches", &iv, d.PairedBatches
			}
			if p, err := strconv.ParseFloat(decidePrecision(d.Change), 64); err == nil && d.Metric == "p95" && d.Mark == Same && !r.SamePolicy && undecidable(r, &d) == "" {
				jr.DecideP95 = &p
			}
			if sideCIs(d) {
				a := [2]*float64{finite(d.CIA[0]), finite(d.CIA[1])}
				b := [2]*float64{finite(d.CIB[0]), finite(d.CIB[1])}
				jd.CIA, jd.CIB = &a, &b
			}
			jr.Metrics = append(jr.Metrics, jd)
		}
		for _, f := range []struct {
			in  *Fate
			out **jsonFate
		}{{r.APickInB, &jr.APickInB}, {r.BPickInA, &jr.BPickInA}} {
			if f.in != nil {
				*f.out = &jsonFate{Policy: f.in.Policy, Found: f.in.Found, Status: f.in.Status, Reasons: nonNil(f.in.Reasons)}
			}
		}
		out.Rows = append(out.Rows, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// finite returns &x, or nil (JSON null: a miss) for an infinite x.
func finite(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	_, e.err = e.w.Write(p)
	return len(p), nil
}

// overlapTested reports whether a share of c was tested by the overlap of
// the reports' intervals (Delta.Test).
func overlapTested(c *Comparison) bool {
	for _, r := range c.Rows {
		for _, d := range r.Deltas {
			if d.Test == TestOverlap {
				return true
			}
		}
	}
	return false
}

// configuredNote says, for side (A or B) of class whose figures are not
// its report's pick's (Row.FiguresA, FiguresB), what rolls out and where
// the side's figures come from; "" for a pick's or a run's figures.
func configuredNote(class, side, figures string) string {
	const head = "%s: %s is undecided with no candidate picked: what rolls out is its configured policy, not its pick (candidate 0, no hedging); "
	switch figures {
	case FromRolloutCheck:
		return fmt.Sprintf(head+"%s's figures here are its rollout check's, which ran that policy on draws of its own.", class, side, side)
	case NoFigures:
		return fmt.Sprintf(head+"%s has no figures of that policy from its sweep and no rollout check, so none here (-).", class, side, side)
	}
	return ""
}
