package fit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/readers"
)

// The summary metrics that become distributions.
const (
	summaryLatency = "end_to_end_latency_s"
	summaryTTFT    = "ttft_s"
)

// TableFit is a published quantile table turned into a distribution.
type TableFit struct {
	// Metric is the summary metric; Ps and Xs the points used (ties
	// dropped, keeping the lowest percentile of equal values).
	Metric *readers.SummaryMetric
	Ps, Xs []float64
	// Dist is the dist.QuantileTable through the points.
	Dist *dist.QuantileTable
	// Dropped names percentiles left out because their value repeats the
	// one below.
	Dropped []string
}

// SummaryFit is an llmperf summary turned into a model: the whole-call
// latency and the time to first token as quantile tables.
type SummaryFit struct {
	Summary *readers.Summary
	// Latency is the end-to-end latency table (always present); TTFT the
	// time-to-first-token table (nil when not published).
	Latency, TTFT *TableFit
	// Failed, RateLimited and Invalid count the errors by code (-100 is
	// an invalid answer, 429 a rate limit, any other code a failure).
	Failed, RateLimited, Invalid int
}

// FitSummary turns an llmperf summary into quantile-table distributions.
// It returns an error when end_to_end_latency_s has fewer than two
// distinct positive percentiles.
func FitSummary(s *readers.Summary) (*SummaryFit, error) {
	f := &SummaryFit{Summary: s}
	var err error
	if f.Latency, err = tableFit(s, summaryLatency); err != nil {
		return nil, err
	}
	if s.Metric(summaryTTFT) != nil {
		if f.TTFT, err = tableFit(s, summaryTTFT); err != nil {
			return nil, err
		}
	}
	codes := parseCodeFrequency(s.ErrorCodes)
	for code, n := range codes {
		switch code {
		case 429:
			f.RateLimited += n
		case -100:
			f.Invalid += n
		default:
			f.Failed += n
		}
	}
	if other := s.Errors - f.RateLimited - f.Invalid - f.Failed; other > 0 {
		f.Failed += other // errors whose code the summary does not list
	}
	return f, nil
}

func tableFit(s *readers.Summary, metric string) (*TableFit, error) {
	m := s.Metric(metric)
	if m == nil {
		return nil, &readers.InputError{File: s.File, Line: 1, Field: "results_" + metric + "_quantiles_p50", Msg: "missing; the summary has no published percentiles of " + metric}
	}
	t := &TableFit{Metric: m}
	for i, x := range m.Xs {
		if !(x > 0) {
			t.Dropped = append(t.Dropped, pName(m.Ps[i])+" (not > 0)")
			continue
		}
		if len(t.Xs) > 0 && x == t.Xs[len(t.Xs)-1] {
			t.Dropped = append(t.Dropped, pName(m.Ps[i])+" (same value as the percentile below)")
			continue
		}
		t.Ps = append(t.Ps, m.Ps[i])
		t.Xs = append(t.Xs, x)
	}
	if len(t.Xs) < 2 {
		return nil, &readers.InputError{File: s.File, Line: m.Line, Field: "results_" + metric + "_quantiles", Msg: "fewer than two distinct percentiles > 0; a quantile table needs two"}
	}
	d, err := dist.NewQuantileTable(t.Ps, t.Xs)
	if err != nil {
		return nil, &readers.InputError{File: s.File, Line: m.Line, Field: "results_" + metric + "_quantiles", Msg: err.Error()}
	}
	t.Dist = d
	return t, nil
}

// codeFreq matches one "code: count" entry of results_error_code_frequency.
var codeFreq = regexp.MustCompile(`(-?[0-9]+(?:\.[0-9]*)?)\s*:\s*([0-9]+)`)

// parseCodeFrequency reads llmperf's "{429.0: 130, -1.0: 2}".
func parseCodeFrequency(s string) map[int]int {
	out := map[int]int{}
	for _, m := range codeFreq.FindAllStringSubmatch(s, -1) {
		c, err1 := strconv.ParseFloat(m[1], 64)
		n, err2 := strconv.Atoi(m[2])
		if err1 == nil && err2 == nil && c == math.Trunc(c) && math.Abs(c) < 1e6 {
			out[int(c)] += n
		}
	}
	return out
}

// tableSpec writes a quantile table as a TOML inline table.
func tableSpec(t *TableFit) string {
	parts := make([]string, len(t.Ps))
	for i := range t.Ps {
		parts[i] = tomlKey(pName(t.Ps[i])) + " = " + num(t.Xs[i])
	}
	return `{ kind = "quantiles", quantiles = { ` + strings.Join(parts, ", ") + ` } }`
}

// tail describes the table's tail assumption and checks it against the
// published mean and maximum.
func tail(t *TableFit) []string {
	lo, hi := pName(t.Ps[0]), pName(t.Ps[len(t.Ps)-1])
	lines := []string{fmt.Sprintf("between the published points the table is lognormal piece by piece; below %s and above %s it continues as the lognormal through the two outermost points on each side (sigma %.3g below, %.3g above)",
		lo, hi, segSigma(t, 0), segSigma(t, len(t.Ps)-2))}
	m := t.Metric
	var checks []string
	if !math.IsNaN(m.Mean) {
		checks = append(checks, fmt.Sprintf("table mean %s s vs published mean %s s", fmtNum(t.Dist.Mean()), fmtNum(m.Mean)))
	}
	if !math.IsNaN(m.Max) && m.Max > 0 {
		checks = append(checks, fmt.Sprintf("published max %s s is the table's %s (P(X > max) = %.2g)", fmtNum(m.Max), pctName(t.Dist.CDF(m.Max)), t.Dist.Survival(m.Max)))
	}
	if !math.IsNaN(m.Min) && m.Min > 0 {
		checks = append(checks, fmt.Sprintf("published min %s s is the table's %s", fmtNum(m.Min), pctName(t.Dist.CDF(m.Min))))
	}
	if len(checks) > 0 {
		lines = append(lines, "check: "+strings.Join(checks, "; "))
	}
	if r := t.Dist.Mean() / m.Mean; !math.IsNaN(m.Mean) && m.Mean > 0 && (r > 1.25 || r < 0.8) {
		lines = append(lines, fmt.Sprintf("WARNING: the table's mean is %.3g× the published mean: the assumed tail does not match the data (a few extreme requests above %s?); compare with a fit of the per-request log",
			r, hi))
	}
	if len(t.Dropped) > 0 {
		lines = append(lines, "left out: "+strings.Join(t.Dropped, ", "))
	}
	return lines
}

func segSigma(t *TableFit, i int) float64 {
	return math.Log(t.Xs[i+1]/t.Xs[i]) / (normalScore(t.Ps[i+1]) - normalScore(t.Ps[i]))
}

func normalScore(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

func pctName(p float64) string {
	switch {
	case p >= 1:
		return "p100 (beyond every finite quantile)"
	case p > 0.9999:
		return "p>99.99"
	}
	return fmt.Sprintf("p%.4g", 100*p)
}

// WriteTOML writes the summary's model block, with its tail assumption
// and checks as comments.
func (f *SummaryFit) WriteTOML(w io.Writer, o BlockOptions) error {
	_, err := io.WriteString(w, f.Block(o))
	return err
}

// Block returns the [models.NAME] block.
func (f *SummaryFit) Block(o BlockOptions) string {
	o = o.withDefaults(f.Summary.File)
	s := f.Summary
	var b bytes.Buffer
	total := s.Completed + s.Errors
	fmt.Fprintf(&b, "# Fitted by hedgesim fit from %s (llmperf summary of %s on %s): %d requests, %d completed, %d errors (%d rate-limited, %d invalid).\n",
		filepath.Base(s.File), orDash(s.Model), orDash(s.Framework), total, s.Completed, s.Errors, f.RateLimited, f.Invalid)
	if o.Command != "" {
		fmt.Fprintf(&b, "# Regenerate with: %s\n", o.Command)
	}
	fmt.Fprintf(&b, "# latency = the published percentiles of %s", summaryLatency)
	if !math.IsNaN(s.MeanOutputTokens) {
		fmt.Fprintf(&b, ", the whole call for about %g output tokens", s.MeanOutputTokens)
	}
	b.WriteString(".\n")
	for _, l := range tail(f.Latency) {
		fmt.Fprintf(&b, "#   %s\n", l)
	}
	fmt.Fprintf(&b, "[models.%s]\n", tomlKey(o.Name))
	fmt.Fprintf(&b, "provider = %s\n", strconv.Quote(o.Provider))
	fmt.Fprintf(&b, "latency = %s\n", tableSpec(f.Latency))
	if f.TTFT != nil {
		b.WriteString("# For a streamed model, the published time to first token (pair it with a tokens_per_s of your own):\n")
		fmt.Fprintf(&b, "# ttft = %s\n", tableSpec(f.TTFT))
		for _, l := range tail(f.TTFT) {
			fmt.Fprintf(&b, "#   %s\n", l)
		}
	}
	errs := f.Failed + f.RateLimited
	fmt.Fprintf(&b, "error_rate = %s  # %d of %d requests failed (%s)\n", num(ratio(errs, total)), errs, total, orDash(s.ErrorCodes))
	fmt.Fprintf(&b, "invalid_rate = %s  # %d of %d answers unusable (code -100)\n", num(ratio(f.Invalid, s.Completed+f.Invalid)), f.Invalid, s.Completed+f.Invalid)
	b.WriteString("# price_input_per_mtok = 0.0   # not in the summary: USD per million input tokens\n")
	b.WriteString("# price_output_per_mtok = 0.0  # not in the summary: USD per million output tokens\n")
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteJSON writes the summary fit as JSON: the tables used, their tail
// checks and the TOML block.
func (f *SummaryFit) WriteJSON(w io.Writer, o BlockOptions) error {
	type jt struct {
		Metric  string    `json:"metric"`
		Ps      []float64 `json:"p"`
		Xs      []float64 `json:"value"`
		Mean    jnum      `json:"table_mean"`
		PubMean jnum      `json:"published_mean"`
		PubMax  jnum      `json:"published_max"`
		Notes   []string  `json:"notes"`
	}
	table := func(t *TableFit) *jt {
		if t == nil {
			return nil
		}
		return &jt{t.Metric.Name, t.Ps, t.Xs, jnum(t.Dist.Mean()), jnum(t.Metric.Mean), jnum(t.Metric.Max), tail(t)}
	}
	s := f.Summary
	j := struct {
		File        string `json:"file"`
		Format      string `json:"format"`
		Model       string `json:"model"`
		Framework   string `json:"framework"`
		Completed   int    `json:"completed"`
		Errors      int    `json:"errors"`
		RateLimited int    `json:"rate_limited"`
		Invalid     int    `json:"invalid"`
		Latency     *jt    `json:"latency"`
		TTFT        *jt    `json:"ttft,omitempty"`
		TOML        string `json:"toml"`
	}{s.File, "llmperf-summary", s.Model, s.Framework, s.Completed, s.Errors, f.RateLimited, f.Invalid,
		table(f.Latency), table(f.TTFT), f.Block(o)}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
