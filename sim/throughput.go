package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/hedgesim/hedgesim/textfit"
)

// writeThroughput writes the throughput table of rows, when the run has
// closed-loop clients (rows carry a Throughput).
func writeThroughput(w io.Writer, rows []ClassReport) {
	if len(rows) == 0 || rows[0].Throughput == nil {
		return
	}
	tw := textfit.NewTable(w, tabwriter.AlignRight)
	fmt.Fprintln(tw, "throughput\treq/s\t95% CI\tclients\tmean think\tno hedging req/s\t")
	for _, c := range rows {
		t := c.Throughput
		base := "-"
		if b := c.NoHedging.Throughput; b != nil {
			base = rate(b.PerSecond)
		}
		think := "-"
		if t.Clients > 0 {
			think = fsec(t.MeanThink)
		}
		ci := "n/a"
		if t.HasCI() {
			ci = t.CIText()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t\n", c.Class, rate(t.PerSecond), ci, t.Clients, think, base)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// HasCI reports whether t's 95 % interval exists (see Throughput.CI95).
func (t *Throughput) HasCI() bool { return !math.IsNaN(t.CI95[0]) }

// CIText formats t's 95 % interval in requests per second as the reports
// do, "[lo, hi]", both bounds with the decimals of t's rate to 4
// significant digits ("[7.190, 7.477]" about 7.33, not "[7.19, 7.477]"),
// +Inf as "inf"; t must have one (HasCI).
func (t *Throughput) CIText() string {
	d := rateDecimals(t.PerSecond)
	return fmt.Sprintf("[%s, %s]", rateFixed(t.CI95[0], d), rateFixed(t.CI95[1], d))
}

// rateDecimals returns the decimals that give x 4 significant digits
// (3 for 0 and for a value that is not finite), at most 9.
func rateDecimals(x float64) int {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return 3
	}
	return min(max(3-int(math.Floor(math.Log10(math.Abs(x)))), 0), 9)
}

// rateFixed formats a throughput in requests per second with d decimals,
// +Inf as "inf".
func rateFixed(x float64, d int) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return strconv.FormatFloat(x, 'f', d, 64)
}

// Text formats t as the reports do: requests per second to 4 significant
// digits, trailing zeros kept, with "/s", and with withCI its 95 %
// interval when it has one (CIText).
func (t *Throughput) Text(withCI bool) string {
	s := rate(t.PerSecond) + "/s"
	if withCI && t.HasCI() {
		s += " " + t.CIText()
	}
	return s
}

// CIMethodThroughput names how a throughput's interval is made
// (Throughput.CI95).
const CIMethodThroughput = "batch means of the durations of batches of equal request counts (t interval, inverted)"

// rate formats a throughput in requests per second to 4 significant
// digits, trailing zeros kept (7.330), as its interval's bounds are.
func rate(x float64) string { return rateFixed(x, rateDecimals(x)) }

// throughputJSON is Throughput on the wire: a bound that does not exist
// (NaN, or +Inf above a batch mean that is not significantly above zero)
// is null.
type throughputJSON struct {
	PerSecond float64     `json:"requests_per_s"`
	CI95      [2]*float64 `json:"ci95"`
	// CIMethod names how CI95 was made; absent without an interval.
	CIMethod  string  `json:"ci95_method,omitempty"`
	Requests  int64   `json:"requests"`
	Seconds   float64 `json:"span_s"`
	Clients   int     `json:"clients"`
	MeanThink float64 `json:"mean_think_s"`
}

// MarshalJSON writes t with missing interval bounds as null.
func (t Throughput) MarshalJSON() ([]byte, error) {
	w := throughputJSON{PerSecond: t.PerSecond, Requests: t.Requests, Seconds: t.Seconds, Clients: t.Clients, MeanThink: t.MeanThink}
	for i, x := range t.CI95 {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			w.CI95[i] = &x
		}
	}
	if t.HasCI() {
		w.CIMethod = CIMethodThroughput
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes; a null bound is NaN.
func (t *Throughput) UnmarshalJSON(b []byte) error {
	var w throughputJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = Throughput{PerSecond: w.PerSecond, Requests: w.Requests, Seconds: w.Seconds, Clients: w.Clients, MeanThink: w.MeanThink, CI95: [2]float64{math.NaN(), math.NaN()}}
	for i, x := range w.CI95 {
		if x != nil {
			t.CI95[i] = *x
		}
	}
	return nil
}
