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
	"unicode"
	"unicode/utf8"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/textfit"
)

// BlockOptions name the model block WriteTOML writes.
type BlockOptions struct {
	// Name is the model's name, the NAME of [models.NAME]; default: the
	// log's file name without directory and extension.
	Name string
	// Provider is the model's failure domain; default: Name.
	Provider string
	// Command is the command line that regenerates the block, quoted in
	// its header comment ("" leaves it out).
	Command string
}

func (o BlockOptions) withDefaults(file string) BlockOptions {
	if o.Name == "" {
		o.Name = DefaultName(file)
	}
	if o.Provider == "" {
		o.Provider = o.Name
	}
	return o
}

// DefaultName returns a model name made from a file name: the base name
// without extension, its letters and digits of any script kept with "_"
// and "-", every other character (or byte that is not UTF-8) replaced by
// one "-" ("together_13b.json" → "together_13b", "日本 (1).csv" →
// "日本--1-"). A name that is not a TOML bare key is written quoted.
func DefaultName(file string) string {
	base := filepath.Base(file)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	var b strings.Builder
	for _, r := range base {
		if r == '_' || r == '-' || r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "model"
	}
	return b.String()
}

func bareKeyChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// tomlKey returns name as a TOML key: bare when it can be, quoted otherwise.
func tomlKey(name string) string {
	for i := 0; i < len(name); i++ {
		if !bareKeyChar(name[i]) {
			return strconv.Quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

// num formats a parameter for TOML: 6 significant digits, always a valid
// TOML float or integer.
func num(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// maxEmpirical is the most values an empirical block lists; a larger
// sample is written as that many evenly spaced quantiles of it.
const maxEmpirical = 1000

// specTOML writes the candidate c as a TOML inline distribution table
// (which may span lines inside its arrays) for unit.
func specTOML(c *Candidate, unit string) string {
	var b strings.Builder
	switch {
	case c.Name == ModelEmpirical:
		emp := c.Dist.(*dist.Empirical)
		n := emp.Len()
		vals := make([]float64, 0, min(n, maxEmpirical))
		if n <= maxEmpirical {
			for i := range n {
				vals = append(vals, emp.Quantile((float64(i)+0.5)/float64(n)))
			}
		} else {
			for i := range maxEmpirical {
				vals = append(vals, emp.Quantile((float64(i)+0.5)/maxEmpirical))
			}
		}
		b.WriteString(`{ kind = "empirical", values = [`)
		for i, v := range vals {
			if i%8 == 0 {
				b.WriteString("\n ")
			}
			b.WriteString(" " + num(v) + ",")
		}
		b.WriteString("\n] }")
	case c.Mixture.K() == 1:
		m := c.Mixture
		fmt.Fprintf(&b, `{ kind = "lognormal", mu = %s, sigma = %s }`, num(m.Mu[0]), num(m.Sigma[0]))
	default:
		m := c.Mixture
		ws := make([]string, m.K())
		for j := range ws {
			ws[j] = num(m.Weights[j])
		}
		fmt.Fprintf(&b, `{ kind = "mixture", weights = [%s], components = [`, strings.Join(ws, ", "))
		for j := range m.K() {
			fmt.Fprintf(&b, "\n  { kind = \"lognormal\", mu = %s, sigma = %s },  # median %s %s",
				num(m.Mu[j]), num(m.Sigma[j]), fmtNum(math.Exp(m.Mu[j])), unit)
		}
		b.WriteString("\n] }")
	}
	return b.String()
}

// describe summarises a candidate in words for a comment.
func describe(c *Candidate, unit string) string {
	switch {
	case c.Name == ModelEmpirical:
		return fmt.Sprintf("empirical, %d observations", c.Dist.(*dist.Empirical).Len())
	case c.Mixture.K() == 1:
		return fmt.Sprintf("lognormal, median %s %s, sigma %.3g", fmtNum(math.Exp(c.Mixture.Mu[0])), unit, c.Mixture.Sigma[0])
	}
	var parts []string
	for j := range c.Mixture.K() {
		parts = append(parts, fmt.Sprintf("%.3g at median %s %s (sigma %.3g)", c.Mixture.Weights[j], fmtNum(math.Exp(c.Mixture.Mu[j])), unit, c.Mixture.Sigma[j]))
	}
	return c.Name + ": " + strings.Join(parts, ", ")
}

// WriteTOML writes the report as TOML: the goodness-of-fit tables as
// comments, then the [models.NAME] block ready to paste into a scenario.
// The whole output is valid TOML.
func (r *Report) WriteTOML(w io.Writer, o BlockOptions) error {
	o = o.withDefaults(r.File)
	var b bytes.Buffer
	var rep bytes.Buffer
	r.WriteText(&rep)
	for _, line := range strings.Split(strings.TrimRight(rep.String(), "\n"), "\n") {
		b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
	}
	b.WriteString("\n")
	r.writeBlock(&b, o)
	_, err := w.Write(b.Bytes())
	return err
}

// Block returns the [models.NAME] block alone.
func (r *Report) Block(o BlockOptions) string {
	var b bytes.Buffer
	r.writeBlock(&b, o.withDefaults(r.File))
	return b.String()
}

func (r *Report) writeBlock(b *bytes.Buffer, o BlockOptions) {
	c := r.Counts
	fmt.Fprintf(b, "# Fitted by hedgesim fit from %s (%s): %d requests, %d ok.\n", filepath.Base(r.File), r.Format, c.Total, c.OK)
	if o.Command != "" {
		fmt.Fprintf(b, "# Regenerate with: %s\n", o.Command)
	}
	if poor, reasons := r.Poor(); poor {
		b.WriteString("# POOR FIT:\n")
		for _, s := range reasons {
			fmt.Fprintf(b, "#   %s\n", s)
		}
	}
	fmt.Fprintf(b, "[models.%s]\n", tomlKey(o.Name))
	fmt.Fprintf(b, "provider = %s\n", strconv.Quote(o.Provider))
	if r.Streamed {
		ttft := r.Metric("ttft").Best()
		if p := r.Prefill; p != nil && p.Used {
			fmt.Fprintf(b, "# ttft: the base, TTFT − input tokens / prefill_tokens_per_s: %s\n", describe(ttft, "s"))
			fmt.Fprintf(b, "ttft = %s\n", specTOML(ttft, "s"))
			fmt.Fprintf(b, "# prefill_tokens_per_s: 1 / slope of TTFT on input tokens, 95%% interval [%s, %s] tokens/s (p %s, n = %d)\n",
				fmtNum(p.SpeedLo), fmtNum(p.SpeedHi), fmtP(p.P), p.N)
			fmt.Fprintf(b, "prefill_tokens_per_s = { kind = \"constant\", value = %s }\n", num(p.Speed))
		} else {
			fmt.Fprintf(b, "# ttft: %s\n", describe(ttft, "s"))
			fmt.Fprintf(b, "ttft = %s\n", specTOML(ttft, "s"))
		}
		speed := r.Metric("tokens_per_s")
		if r.SpeedNote != "" {
			fmt.Fprintf(b, "# tokens_per_s: %s; fitted %s.\n", wrapComment(r.SpeedNote), describe(speed.Best(), "tokens/s"))
		} else {
			fmt.Fprintf(b, "# tokens_per_s: %s\n", describe(r.Speed, "tokens/s"))
		}
		fmt.Fprintf(b, "tokens_per_s = %s\n", specTOML(r.Speed, "tokens/s"))
	} else {
		lat := r.Metric("latency").Best()
		fmt.Fprintf(b, "# latency: %s\n", describe(lat, "s"))
		fmt.Fprintf(b, "latency = %s\n", specTOML(lat, "s"))
	}
	// 429s are not errors of the model: a scenario makes them with a
	// rate_limit, so they stay out of error_rate and are reported beside it.
	fmt.Fprintf(b, "error_rate = %s  # %d of %d requests failed%s\n", num(ratio(c.Failed, c.Total)), c.Failed, c.Total, codeList(c, readers.Failed))
	r.writeErrorLatency(b)
	if c.RateLimited > 0 {
		fmt.Fprintf(b, "# %d of %d requests were rate limited (%s of them, 429s): not in error_rate; model them with a rate_limit table on the model or its provider\n",
			c.RateLimited, c.Total, num(ratio(c.RateLimited, c.Total)))
	}
	fmt.Fprintf(b, "invalid_rate = %s  # %d of %d answers unusable%s\n", num(ratio(c.Invalid, c.OK+c.Invalid)), c.Invalid, c.OK+c.Invalid, codeList(c, readers.Invalid))
	b.WriteString("# price_input_per_mtok = 0.0   # not in the log: USD per million input tokens\n")
	b.WriteString("# price_output_per_mtok = 0.0  # not in the log: USD per million output tokens\n")
}

// wrapComment keeps a note on one comment line (notes are single sentences).
func wrapComment(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// codeList returns " (429 ×130, -1 ×1)" for the codes of the given
// statuses, or "".
func codeList(c readers.Counts, statuses ...readers.Status) string {
	var parts []string
	for _, s := range statuses {
		for code, n := range c.Codes[s] {
			parts = append(parts, fmt.Sprintf("%s ×%d", displayCode(code), n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	return " (" + strings.Join(parts, ", ") + ")"
}

func displayCode(code string) string {
	if code == "" {
		return `""`
	}
	return code
}

// WriteText writes the goodness-of-fit report in plain text.
func (r *Report) WriteText(w io.Writer) {
	c := r.Counts
	fmt.Fprintf(w, "%s: %s log, %d requests: %d ok, %d failed, %d rate-limited, %d invalid\n",
		r.File, r.Format, c.Total, c.OK, c.Failed, c.RateLimited, c.Invalid)
	for _, m := range r.Metrics {
		fmt.Fprintln(w)
		what := m.Name
		if m.Name == "latency" && r.Streamed {
			what = "latency (end to end, fitted directly; the block uses ttft + tokens/speed)"
		}
		if m.Name == "ttft" && r.Prefill != nil && r.Prefill.Used {
			what = "ttft (base: TTFT − input tokens / prefill speed)"
		}
		fmt.Fprintf(w, "%s (%s), n = %d\n", what, m.Unit, len(m.Sorted))
		writeTable(w, m)
	}
	if p := r.Prefill; p != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "ttft vs input tokens (least squares), n = %d, input %s to %s tokens\n", p.N, fmtNum(p.InputMin), fmtNum(p.InputMax))
		sign, perK := "+", 1000*p.Slope
		if perK < 0 {
			sign, perK = "−", -perK
		}
		fmt.Fprintf(w, "  ttft = %s s %s %s s per 1000 tokens (95%% interval [%s, %s], t = %.3g, p %s)\n",
			fmtNum(p.Intercept), sign, fmtNum(perK), fmtNum(1000*p.SlopeLo), fmtNum(1000*p.SlopeHi), p.T, fmtP(p.P))
	}
	switch {
	case r.Prefill != nil:
		fmt.Fprintf(w, "  %s\n", r.PrefillNote)
	case r.PrefillNote != "":
		fmt.Fprintf(w, "\nttft vs input tokens: %s\n", r.PrefillNote)
	}
	if r.TTFTCheck != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "ttft simulated: base ttft %s + input tokens / %s tokens/s (%d draws, input tokens resampled from the log)\n",
			r.Metric("ttft").Best().Name, fmtNum(r.Prefill.Speed), r.Draws)
		writeChecks(w, r.TTFTCheck, "simulated")
	}
	if r.EndToEnd != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "latency end to end, simulated: ttft %s + output tokens / tokens_per_s %s (%d draws, output tokens resampled from the log)\n",
			r.Metric("ttft").Best().Name, r.Speed.Name, r.Draws)
		writeChecks(w, r.EndToEnd, "simulated")
	}
	if e := r.ErrorLatency; e != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "error latency: %s\n", e.verdict())
		if e.Metric != nil {
			fmt.Fprintf(w, "error_latency (s), n = %d\n", len(e.Metric.Sorted))
			writeTable(w, e.Metric)
		}
	}
	fmt.Fprintln(w)
	if poor, reasons := r.Poor(); poor {
		fmt.Fprintln(w, "POOR FIT of the block below:")
		for _, s := range reasons {
			fmt.Fprintf(w, "  %s\n", s)
		}
	} else if few := r.TooFew(); few != "" {
		fmt.Fprintf(w, "too few rows to judge: %s; the block below is unchecked\n", few)
	} else {
		fmt.Fprintf(w, "fit ok: the block's p50, p90 and p95 lie inside the observed %.0f%% intervals and KS is below its 5%% critical value\n", 100*Level)
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
}

// writeTable writes one metric's candidates against the observations.
func writeTable(w io.Writer, m *Metric) {
	tw := textfit.NewTable(w, 0)
	head := "  model\tBIC\tKS"
	for _, p := range CheckedQuantiles {
		head += "\t" + pName(p)
	}
	fmt.Fprintln(tw, head+"\t")
	obs, ci := "  observed\t\t", fmt.Sprintf("  %.0f%% interval\t\t", 100*Level)
	for _, q := range m.Candidates[0].Goodness.Quantiles {
		obs += "\t" + fmtNum(q.Observed)
		ci += "\t" + interval(q)
	}
	fmt.Fprintln(tw, obs+"\t")
	fmt.Fprintln(tw, ci+"\t")
	for i, c := range m.Candidates {
		bic := "-"
		if !math.IsNaN(c.BIC) {
			bic = fmt.Sprintf("%.1f", c.BIC)
		}
		mark := ""
		if i == m.Chosen {
			mark = " <"
		}
		line := fmt.Sprintf("  %s%s\t%s\t%.3f", c.Name, mark, bic, c.Goodness.KS)
		for _, q := range c.Goodness.Quantiles {
			line += "\t" + fmtNum(q.Model) + outMark(q)
		}
		fmt.Fprintln(tw, line+"\t")
	}
	tw.Flush()
	fmt.Fprintf(w, "  < chosen (%s); * outside the observed interval; KS 5%% critical value 1.358/√n = %.3f; empirical is exact in-sample\n",
		chosenWhy(m), m.Candidates[0].Goodness.KSCritical)
	for _, n := range m.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
}

func chosenWhy(m *Metric) string {
	if m.why != "" {
		return m.why
	}
	if m.Best().Mixture != nil {
		lowest, lowestPassing := true, true
		for _, c := range m.Candidates {
			if c.Mixture != nil && c.BIC < m.Best().BIC {
				lowest = false
				lowestPassing = lowestPassing && c.Goodness.Poor
			}
		}
		switch {
		case lowest:
			return "lowest BIC"
		case lowestPassing && !m.Best().Goodness.Poor:
			return "lowest BIC among the fits that pass the checks"
		}
	}
	return "as requested"
}

// writeChecks writes observed against model percentiles of g.
func writeChecks(w io.Writer, g *Goodness, model string) {
	tw := textfit.NewTable(w, 0)
	head, obs, ci, mod := "  \t", "  observed\t", fmt.Sprintf("  %.0f%% interval\t", 100*Level), "  "+model+"\t"
	modCI := fmt.Sprintf("  draws' %.0f%% interval\t", 100*Level)
	for _, q := range g.Quantiles {
		head += "\t" + q.Name()
		obs += "\t" + fmtNum(q.Observed)
		ci += "\t" + interval(q)
		mod += "\t" + fmtNum(q.Model) + outMark(q)
		modCI += "\t[" + fmtNum(q.ModelLo) + ", " + fmtNum(q.ModelHi) + "]"
	}
	lines := []string{head, obs, ci, mod}
	if g.M > 0 {
		lines = append(lines, modCI)
	}
	for _, l := range lines {
		fmt.Fprintln(tw, l+"\t")
	}
	tw.Flush()
	if g.M > 0 {
		fmt.Fprintf(w, "  KS distance %.3f (two-sample 5%% critical value %.3f), n = %d against %d draws; a percentile passes when its observed interval and the draws' overlap\n", g.KS, g.KSCritical, g.N, g.M)
		return
	}
	fmt.Fprintf(w, "  KS distance %.3f (5%% critical value %.3f), n = %d\n", g.KS, g.KSCritical, g.N)
}

// interval writes q's observed 95 % interval: "n/a" when the sample bounds
// it on neither side (too few rows), and 0 for a missing lower bound (the
// figures fitted are latencies and speeds, all positive).
func interval(q QuantileCheck) string {
	noLo, noHi := !(q.Lo > math.Inf(-1)), !(q.Hi < math.Inf(1))
	if noLo && noHi {
		return "n/a"
	}
	lo := fmtNum(q.Lo)
	if noLo {
		lo = "0"
	}
	return "[" + lo + ", " + fmtNum(q.Hi) + "]"
}

func outMark(q QuantileCheck) string {
	if q.Inside {
		return ""
	}
	return "*"
}

// jnum is a JSON number that is null when not finite.
type jnum float64

func (v jnum) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

type jsonQuantile struct {
	P        jnum `json:"p"`
	Observed jnum `json:"observed"`
	Lo       jnum `json:"ci_lo"`
	Hi       jnum `json:"ci_hi"`
	Model    jnum `json:"model"`
	// ModelLo and ModelHi: the simulated model's own interval (end to
	// end only).
	ModelLo *jnum `json:"model_ci_lo,omitempty"`
	ModelHi *jnum `json:"model_ci_hi,omitempty"`
	Inside  bool  `json:"inside"`
}

type jsonGoodness struct {
	N          int            `json:"n"`
	KS         jnum           `json:"ks"`
	KSCritical jnum           `json:"ks_critical"`
	M          int            `json:"draws,omitempty"`
	Quantiles  []jsonQuantile `json:"quantiles"`
	Poor       bool           `json:"poor"`
	Reasons    []string       `json:"reasons,omitempty"`
}

type jsonCandidate struct {
	Model    string       `json:"model"`
	Weights  []float64    `json:"weights,omitempty"`
	Mu       []float64    `json:"mu,omitempty"`
	Sigma    []float64    `json:"sigma,omitempty"`
	LogLik   jnum         `json:"loglik"`
	BIC      jnum         `json:"bic"`
	Params   int          `json:"params"`
	Goodness jsonGoodness `json:"goodness"`
}

type jsonMetric struct {
	Name       string          `json:"name"`
	Unit       string          `json:"unit"`
	N          int             `json:"n"`
	Chosen     string          `json:"chosen"`
	Candidates []jsonCandidate `json:"candidates"`
	Notes      []string        `json:"notes,omitempty"`
}

type jsonReport struct {
	File        string                    `json:"file"`
	Format      string                    `json:"format"`
	Requests    int                       `json:"requests"`
	OK          int                       `json:"ok"`
	Failed      int                       `json:"failed"`
	RateLimited int                       `json:"rate_limited"`
	Invalid     int                       `json:"invalid"`
	Codes       map[string]map[string]int `json:"codes"`
	Streamed    bool                      `json:"streamed"`
	Metrics     []jsonMetric              `json:"metrics"`
	Speed       string                    `json:"tokens_per_s_model,omitempty"`
	SpeedNote   string                    `json:"tokens_per_s_note,omitempty"`
	EndToEnd    *jsonGoodness             `json:"end_to_end,omitempty"`
	Prefill     *jsonPrefill              `json:"prefill,omitempty"`
	PrefillNote string                    `json:"prefill_note,omitempty"`
	TTFTCheck   *jsonGoodness             `json:"ttft_simulated,omitempty"`
	Draws       int                       `json:"draws,omitempty"`
	ErrorLat    *jsonErrorLatency         `json:"error_latency,omitempty"`
	Poor        bool                      `json:"poor"`
	Reasons     []string                  `json:"reasons,omitempty"`
	TooFew      string                    `json:"too_few_to_judge,omitempty"`
	Warnings    []string                  `json:"warnings,omitempty"`
	TOML        string                    `json:"toml"`
}

// jsonPrefill is a Prefill; times in s, slopes in s per input token,
// speeds in tokens/s.
type jsonPrefill struct {
	N           int  `json:"n"`
	InputMin    jnum `json:"input_min"`
	InputMax    jnum `json:"input_max"`
	Intercept   jnum `json:"intercept_s"`
	Slope       jnum `json:"slope_s_per_token"`
	SlopeSE     jnum `json:"slope_se"`
	SlopeLo     jnum `json:"slope_ci_lo"`
	SlopeHi     jnum `json:"slope_ci_hi"`
	T           jnum `json:"t"`
	P           jnum `json:"p"`
	Significant bool `json:"significant"`
	Speed       jnum `json:"prefill_tokens_per_s"`
	SpeedLo     jnum `json:"prefill_ci_lo"`
	SpeedHi     jnum `json:"prefill_ci_hi"`
	Used        bool `json:"used"`
}

func toJSONMetric(m *Metric) jsonMetric {
	jm := jsonMetric{Name: m.Name, Unit: m.Unit, N: len(m.Sorted), Chosen: m.Best().Name, Notes: m.Notes}
	for i := range m.Candidates {
		cd := &m.Candidates[i]
		jc := jsonCandidate{Model: cd.Name, LogLik: jnum(cd.LogLik), BIC: jnum(cd.BIC), Params: cd.Params, Goodness: toJSONGoodness(&cd.Goodness)}
		if cd.Mixture != nil {
			jc.Weights, jc.Mu, jc.Sigma = cd.Mixture.Weights, cd.Mixture.Mu, cd.Mixture.Sigma
		}
		jm.Candidates = append(jm.Candidates, jc)
	}
	return jm
}

func toJSONGoodness(g *Goodness) jsonGoodness {
	j := jsonGoodness{N: g.N, KS: jnum(g.KS), KSCritical: jnum(g.KSCritical), M: g.M, Poor: g.Poor, Reasons: g.Reasons}
	for _, q := range g.Quantiles {
		jq := jsonQuantile{P: jnum(q.P), Observed: jnum(q.Observed), Lo: jnum(q.Lo), Hi: jnum(q.Hi), Model: jnum(q.Model), Inside: q.Inside}
		if g.M > 0 {
			lo, hi := jnum(q.ModelLo), jnum(q.ModelHi)
			jq.ModelLo, jq.ModelHi = &lo, &hi
		}
		j.Quantiles = append(j.Quantiles, jq)
	}
	return j
}

// WriteJSON writes the report as one indented JSON object, the TOML block
// included as a string. Numbers that are not finite (an interval end the
// sample cannot bound, the BIC of the empirical model) are null.
func (r *Report) WriteJSON(w io.Writer, o BlockOptions) error {
	c := r.Counts
	j := jsonReport{
		File: r.File, Format: r.Format, Requests: c.Total, OK: c.OK, Failed: c.Failed,
		RateLimited: c.RateLimited, Invalid: c.Invalid, Codes: map[string]map[string]int{}, Streamed: r.Streamed,
		SpeedNote: r.SpeedNote, Warnings: r.Warnings, TOML: r.Block(o),
	}
	for st, codes := range c.Codes {
		j.Codes[st.String()] = codes
	}
	for _, m := range r.Metrics {
		j.Metrics = append(j.Metrics, toJSONMetric(m))
	}
	j.ErrorLat = toJSONErrorLatency(r.ErrorLatency)
	if r.Speed != nil {
		j.Speed = r.Speed.Name
	}
	if r.EndToEnd != nil {
		g := toJSONGoodness(r.EndToEnd)
		j.EndToEnd, j.Draws = &g, r.Draws
	}
	if p := r.Prefill; p != nil {
		j.Prefill = &jsonPrefill{p.N, jnum(p.InputMin), jnum(p.InputMax), jnum(p.Intercept), jnum(p.Slope), jnum(p.SlopeSE),
			jnum(p.SlopeLo), jnum(p.SlopeHi), jnum(p.T), jnum(p.P), p.Significant, jnum(p.Speed), jnum(p.SpeedLo), jnum(p.SpeedHi), p.Used}
	}
	j.PrefillNote = r.PrefillNote
	if r.TTFTCheck != nil {
		g := toJSONGoodness(r.TTFTCheck)
		j.TTFTCheck = &g
	}
	j.Poor, j.Reasons = r.Poor()
	j.TooFew = r.TooFew()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
