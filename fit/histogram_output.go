package fit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hedgesim/hedgesim/textfit"
)

// Key is the scenario key the histogram's model is written as: "ttft" for
// a histogram of the time to first token (a metric named so, such as
// vLLM's vllm:time_to_first_token_seconds or one with "ttft" in its name),
// "latency" otherwise.
func (h *HistogramFit) Key() string {
	m := strings.ToLower(h.Hist.Metric)
	if strings.Contains(m, "first_token") || strings.Contains(m, "ttft") {
		return "ttft"
	}
	return "latency"
}

// FormatCount formats a count of observations: a whole number in full
// (123456, not 1.235e+05), a fractional one (from a rate() or an
// extrapolated increase()) to one decimal.
func FormatCount(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// series names the histogram's metric and labels: name{a="x"}.
func (h *HistogramFit) series() string {
	keys := make([]string, 0, len(h.Hist.Labels))
	for k := range h.Hist.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%q", k, h.Hist.Labels[k]))
	}
	s := h.Hist.Metric
	if len(parts) > 0 {
		s += "{" + strings.Join(parts, ", ") + "}"
	}
	return s
}

// WriteText writes the fit report: the buckets with observed and expected
// counts, each model's chi-square and max CDF gap, the percentiles against
// the buckets that hold them, and the warnings.
func (h *HistogramFit) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s: %s histogram %s, %s observations in %d buckets\n",
		h.Hist.File, h.Hist.Format, h.series(), FormatCount(h.N), len(h.Hist.Counts))
	fmt.Fprintln(w)
	tw := textfit.NewTable(w, 0)
	head := "  bucket (s)\tobserved"
	for _, c := range h.Candidates {
		head += "\t" + c.Name
	}
	fmt.Fprintln(tw, head+"\t")
	for i := range h.Hist.Counts {
		row := fmt.Sprintf("  (%s, %s]\t%s", fmtNum(h.Hist.Lower[i]), fmtNum(h.Hist.Upper[i]), FormatCount(h.Hist.Counts[i]))
		for _, c := range h.Candidates {
			row += "\t" + fmt.Sprintf("%.1f", c.Expected[i])
		}
		fmt.Fprintln(tw, row+"\t")
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = textfit.NewTable(w, 0)
	fmt.Fprintln(tw, "  model\tlog-lik\tBIC\tchi-square\tdf\tp\tmax CDF gap\t")
	for i, c := range h.Candidates {
		mark := ""
		if i == h.Chosen {
			mark = " *"
		}
		p := "-"
		if !math.IsNaN(c.PValue) {
			p = fmt.Sprintf("%.3g", c.PValue)
		}
		fmt.Fprintf(tw, "  %s%s\t%.1f\t%.1f\t%.2f\t%d\t%s\t%.4f\t\n", c.Name, mark, c.LogLik, c.BIC, c.ChiSquare, c.DF, p, c.MaxCDFGap)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = textfit.NewTable(w, 0)
	fmt.Fprintln(tw, "  percentile\tmodel (s)\tdata: in bucket (s)\t")
	for _, p := range h.Percentiles {
		mark := ""
		if !p.Inside {
			mark = "  (outside)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t(%s, %s]%s\t\n", pName(p.P), fmtNum(p.Model), fmtNum(p.Lo), fmtNum(p.Hi), mark)
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "* chosen: %s. chi-square pools buckets to ≥ %d expected; p < 0.05 means the model's shape is rejected by the counts.\n", h.Best().Name, minExpected)
	for _, n := range h.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, s := range h.Warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
}

// Block returns the [models.NAME] block of the chosen model.
func (h *HistogramFit) Block(o BlockOptions) string {
	o = o.withDefaults(h.Hist.File)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Fitted by hedgesim fit from %s (%s histogram %s): %s observations.\n", filepath.Base(h.Hist.File), h.Hist.Format, h.series(), FormatCount(h.N))
	if o.Command != "" {
		fmt.Fprintf(&b, "# Regenerate with: %s\n", o.Command)
	}
	c := h.Best()
	cand := &Candidate{Name: c.Name, Mixture: &c.Mixture, Dist: c.Dist}
	fmt.Fprintf(&b, "[models.%s]\n", tomlKey(o.Name))
	fmt.Fprintf(&b, "provider = %s\n", strconv.Quote(o.Provider))
	key := h.Key()
	fmt.Fprintf(&b, "# %s: %s\n", key, describe(cand, "s"))
	fmt.Fprintf(&b, "%s = %s\n", key, specTOML(cand, "s"))
	if key == "ttft" {
		b.WriteString("# tokens_per_s = { kind = \"constant\", value = 50 }  # required with ttft: the decode speed is not in a TTFT histogram (a time-per-output-token histogram gives its inverse)\n")
	}
	b.WriteString("# error_rate = 0.0  # not in a latency histogram: take it from your error counter\n")
	b.WriteString("# price_input_per_mtok = 0.0   # USD per million input tokens\n")
	b.WriteString("# price_output_per_mtok = 0.0  # USD per million output tokens\n")
	return b.String()
}

// WriteTOML writes the report as TOML comments, then the model block.
func (h *HistogramFit) WriteTOML(w io.Writer, o BlockOptions) error {
	var rep, b bytes.Buffer
	h.WriteText(&rep)
	for _, line := range strings.Split(strings.TrimRight(rep.String(), "\n"), "\n") {
		b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
	}
	b.WriteString("\n")
	b.WriteString(h.Block(o))
	_, err := w.Write(b.Bytes())
	return err
}

// WriteJSON writes the fit as JSON, the TOML block included; a p-value
// that cannot be formed, the +Inf bound of the last bucket and an
// observed mean the histogram does not give (observed_mean_s: its sum ÷
// count, which every model is fitted to) are null.
func (h *HistogramFit) WriteJSON(w io.Writer, o BlockOptions) error {
	type jcand struct {
		Model     string    `json:"model"`
		Weights   []float64 `json:"weights"`
		Mu        []float64 `json:"mu"`
		Sigma     []float64 `json:"sigma"`
		LogLik    jnum      `json:"loglik"`
		BIC       jnum      `json:"bic"`
		Params    int       `json:"params"`
		Expected  []float64 `json:"expected"`
		ChiSquare jnum      `json:"chi_square"`
		DF        int       `json:"df"`
		PValue    jnum      `json:"p_value"`
		MaxGap    jnum      `json:"max_cdf_gap"`
	}
	type jpct struct {
		P      float64 `json:"p"`
		Model  jnum    `json:"model_s"`
		Lo     jnum    `json:"bucket_lo_s"`
		Hi     jnum    `json:"bucket_hi_s"`
		Inside bool    `json:"inside"`
	}
	out := struct {
		File        string            `json:"file"`
		Format      string            `json:"format"`
		Metric      string            `json:"metric"`
		Labels      map[string]string `json:"labels"`
		N           float64           `json:"observations"`
		Mean        *float64          `json:"observed_mean_s"`
		Lower       []jnum            `json:"bucket_lower_s"`
		Upper       []jnum            `json:"bucket_upper_s"`
		Counts      []float64         `json:"counts"`
		Candidates  []jcand           `json:"candidates"`
		Chosen      string            `json:"chosen"`
		Percentiles []jpct            `json:"percentiles"`
		Warnings    []string          `json:"warnings"`
		Notes       []string          `json:"notes"`
		TOML        string            `json:"toml"`
	}{
		File: h.Hist.File, Format: h.Hist.Format, Metric: h.Hist.Metric, Labels: h.Hist.Labels, N: h.N,
		Counts: h.Hist.Counts, Chosen: h.Best().Name, Warnings: nonNilStrings(h.Warnings), Notes: nonNilStrings(h.Notes),
		TOML: h.Block(o),
	}
	if h.Mean > 0 {
		out.Mean = &h.Mean
	}
	for i := range h.Hist.Counts {
		out.Lower = append(out.Lower, jnum(h.Hist.Lower[i]))
		out.Upper = append(out.Upper, jnum(h.Hist.Upper[i]))
	}
	for _, c := range h.Candidates {
		out.Candidates = append(out.Candidates, jcand{c.Name, c.Mixture.Weights, c.Mixture.Mu, c.Mixture.Sigma,
			jnum(c.LogLik), jnum(c.BIC), c.Params, c.Expected, jnum(c.ChiSquare), c.DF, jnum(c.PValue), jnum(c.MaxCDFGap)})
	}
	for _, p := range h.Percentiles {
		out.Percentiles = append(out.Percentiles, jpct{p.P, jnum(p.Model), jnum(p.Lo), jnum(p.Hi), p.Inside})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
