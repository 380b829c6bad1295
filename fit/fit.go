package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/readers"
)

// The model names of Options.Model and Candidate.Name.
const (
	ModelAuto      = "auto"
	ModelLogNormal = "lognormal"
	ModelMixture2  = "mixture-2"
	ModelMixture3  = "mixture-3"
	ModelEmpirical = "empirical"
)

// Models lists the valid values of Options.Model.
var Models = []string{ModelAuto, ModelLogNormal, ModelMixture2, ModelMixture3, ModelEmpirical}

// Options tune FitValues and FitLog. The zero value is the default.
type Options struct {
	// Model is the model to emit: "auto" (or "") picks, among the
	// lognormal and the mixtures, the one with the lowest BIC that passes
	// the goodness-of-fit checks (Goodness.Poor unset), or the lowest BIC
	// when none passes; "lognormal", "mixture-2", "mixture-3" and
	// "empirical" force one, and EM then fits only a forced mixture (the
	// lognormal, in closed form, and the empirical distribution are
	// always fitted).
	Model string
	// MaxComponents bounds the mixtures tried under "auto", 1 to 3;
	// default 3.
	MaxComponents int
	// Seed makes EM starts and simulated draws reproducible.
	Seed uint64
	// Draws is the number of simulated requests for the end-to-end check;
	// default 50000.
	Draws int
	// OpenTop lets FitHistogram fit a histogram whose every observation
	// lies in its open last bucket (AllAboveTop), which it otherwise
	// refuses: retune judges such a live histogram's drift and needs its
	// fit's figures, but applies no fit of it.
	OpenTop bool
}

func (o Options) check() (Options, error) {
	if o.Model == "" {
		o.Model = ModelAuto
	}
	if !slices.Contains(Models, o.Model) {
		return o, fmt.Errorf("unknown model %q; want one of %s", o.Model, strings.Join(Models, ", "))
	}
	if o.MaxComponents == 0 {
		o.MaxComponents = 3
	}
	if o.MaxComponents < 1 || o.MaxComponents > 3 {
		return o, fmt.Errorf("max components %d: want 1, 2 or 3", o.MaxComponents)
	}
	if o.Draws == 0 {
		o.Draws = 50000
	}
	if o.Draws < 1000 {
		return o, fmt.Errorf("draws %d: want at least 1000", o.Draws)
	}
	return o, nil
}

// minPerParam is the number of observations a mixture needs per free
// parameter before it is tried: a K-component mixture needs n ≥ 10·(3K − 1)
// (50 for two components, 80 for three).
const minPerParam = 10

// Candidate is one model fitted to a metric.
type Candidate struct {
	// Name is "lognormal", "mixture-2", "mixture-3" or "empirical".
	Name string
	// Mixture holds the fitted parameters (nil for "empirical").
	Mixture *LogNormalMixture
	// Dist is the fitted distribution.
	Dist dist.Continuous
	// LogLik is the maximised log-likelihood and BIC the Bayesian
	// information criterion (NaN for "empirical", which is not a
	// parametric fit).
	LogLik, BIC float64
	// Params is the number of free parameters (n for "empirical").
	Params int
	// Goodness compares the model with the observations it was fitted to.
	Goodness Goodness
}

// Metric is one measured quantity of a log with the models fitted to it.
type Metric struct {
	// Name is the scenario key the metric feeds: "ttft", "tokens_per_s"
	// or "latency".
	Name string
	// Unit is "s" or "tokens/s".
	Unit string
	// Sorted are the observations, ascending.
	Sorted []float64
	// Candidates are the fitted models: lognormal, the mixtures that were
	// tried, empirical.
	Candidates []Candidate
	// Chosen is the index in Candidates of the model picked by
	// Options.Model.
	Chosen int
	// Notes say which mixtures were not tried and why, and when EM ran on
	// a subsample.
	Notes []string
	// why says why Chosen was chosen when no option asked for it ("" for
	// the rule of Options.Model).
	why string
}

// EMSample is the most observations EM runs on. A larger sample is
// represented, for EM only, by its EMSample order statistics at ranks
// ⌈(i − ½)·n/EMSample⌉, i = 1…EMSample (its evenly spaced quantiles: a
// deterministic subsample without sampling noise of its own); the
// log-likelihood and BIC of the fitted mixture, the lognormal fit, the
// percentiles and the KS distance use every observation. EM's cost grows
// with n times its iterations (a million observations took minutes); this
// bounds it to seconds, and at 10⁴ points the mixture's quantiles are
// within the sampling error of the data's.
const EMSample = 10000

// emSubsample returns the EMSample evenly spaced order statistics of the
// sorted sample s, or s itself when it is no larger.
func emSubsample(s []float64) []float64 {
	n := len(s)
	if n <= EMSample {
		return s
	}
	out := make([]float64, EMSample)
	for i := range out {
		out[i] = s[int((float64(i)+0.5)*float64(n)/EMSample)]
	}
	return out
}

// Best returns the chosen candidate.
func (m *Metric) Best() *Candidate { return &m.Candidates[m.Chosen] }

// Candidate returns the candidate called name, or nil.
func (m *Metric) Candidate(name string) *Candidate {
	for i := range m.Candidates {
		if m.Candidates[i].Name == name {
			return &m.Candidates[i]
		}
	}
	return nil
}

// FitValues fits the models of opt to the observations x (finite, > 0, at
// least 2 distinct), naming the metric name in unit. It fits a lognormal
// by maximum likelihood, 2- and 3-component lognormal mixtures by EM
// (FitMixture) when n allows (n ≥ 10 per free parameter) and opt permits,
// and the empirical distribution; it assesses every candidate against x
// (Assess) and chooses among the parametric ones by BIC, passing over
// those that fit poorly, unless opt.Model forces a model.
func FitValues(name, unit string, x []float64, opt Options) (*Metric, error) {
	return fitValues(context.Background(), name, unit, x, opt)
}

// fitValues is FitValues that stops with ctx's error when ctx is done.
func fitValues(ctx context.Context, name, unit string, x []float64, opt Options) (*Metric, error) {
	opt, err := opt.check()
	if err != nil {
		return nil, err
	}
	if err := checkSample(x, 2); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	xs, err := sortedContext(ctx, x)
	if err != nil {
		return nil, err
	}
	m := &Metric{Name: name, Unit: unit, Sorted: xs}
	n := len(x)
	// EM runs only for the mixtures auto chooses among, or the one asked
	// for; the lognormal (closed form) is always fitted.
	minK, maxK := 2, 0
	switch opt.Model {
	case ModelAuto:
		maxK = opt.MaxComponents
	case ModelMixture2:
		minK, maxK = 2, 2
	case ModelMixture3:
		minK, maxK = 3, 3
	}
	if lo, hi := m.Sorted[0], m.Sorted[n-1]; noSpread(lo, hi) {
		// No spread (up to rounding, as in a decode speed computed from
		// a constant one): no lognormal or mixture exists, the empirical
		// distribution (a constant) does.
		v := oneValue(m.Sorted[n/2])
		if opt.Model != ModelEmpirical {
			return nil, fmt.Errorf("%s: all %d observations are %s %s; a lognormal or a mixture needs some spread: fit model %q (a constant), or write kind = \"constant\", value = %s", name, n, v, unit, ModelEmpirical, v)
		}
		m.Notes = append(m.Notes, fmt.Sprintf("lognormal and mixtures not fitted: all %d observations are %s %s", n, v, unit))
		maxK = 0
	} else {
		// From here on the sorted copy serves: the fits and likelihoods do
		// not depend on the order, and x can be collected early.
		ln, err := FitLogNormal(m.Sorted)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ll, err := ln.logLik(ctx, m.Sorted)
		if err != nil {
			return nil, err
		}
		m.add(ModelLogNormal, ln, ll, n)
	}
	subsampled := false
	for k := minK; k <= maxK; k++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		kname := fmt.Sprintf("mixture-%d", k)
		need := minPerParam * (3*k - 1)
		if n < need && opt.Model != kname {
			m.Notes = append(m.Notes, fmt.Sprintf("%s not tried: n = %d, needs ≥ %d (10 per parameter)", kname, n, need))
			continue
		}
		if n < 3*k {
			m.Notes = append(m.Notes, fmt.Sprintf("%s not tried: n = %d is below %d", kname, n, 3*k))
			continue
		}
		sub := emSubsample(m.Sorted)
		mix, ll, err := fitMixture(ctx, sub, k, EMOptions{Seed: opt.Seed})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(sub) < n {
			if ll, err = mix.logLik(ctx, m.Sorted); err != nil {
				return nil, err
			}
			if !subsampled {
				subsampled = true
				m.Notes = append(m.Notes, fmt.Sprintf("mixtures fitted by EM on %d evenly spaced order statistics of the %d observations; their log-likelihood and BIC, and every percentile and KS distance, use all %d", EMSample, n, n))
			}
		}
		m.add(kname, mix, ll, n)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	emp, err := dist.NewEmpirical(m.Sorted)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m.Candidates = append(m.Candidates, Candidate{
		Name: ModelEmpirical, Dist: emp, LogLik: math.NaN(), BIC: math.NaN(), Params: n,
		Goodness: Assess(m.Sorted, emp),
	})
	m.Chosen = -1
	switch opt.Model {
	case ModelAuto:
		// The lowest BIC among the parametric fits that pass the checks;
		// if none passes, the lowest BIC overall.
		for _, passing := range []bool{true, false} {
			for i, c := range m.Candidates {
				if c.Mixture != nil && (!passing || !c.Goodness.Poor) && (m.Chosen < 0 || c.BIC < m.Candidates[m.Chosen].BIC) {
					m.Chosen = i
				}
			}
			if m.Chosen >= 0 {
				break
			}
		}
	default:
		for i, c := range m.Candidates {
			if c.Name == opt.Model {
				m.Chosen = i
			}
		}
	}
	if m.Chosen < 0 {
		return nil, fmt.Errorf("%s: model %s could not be fitted (n = %d)", name, opt.Model, n)
	}
	return m, nil
}

func (m *Metric) add(name string, mix LogNormalMixture, ll float64, n int) {
	d := mix.Dist()
	m.Candidates = append(m.Candidates, Candidate{
		Name: name, Mixture: &mix, Dist: d, LogLik: ll, Params: mix.Params(),
		BIC: BIC(ll, mix.Params(), n), Goodness: Assess(m.Sorted, d),
	})
}

// Report is the result of fitting a log.
type Report struct {
	// File and Format identify the log.
	File, Format string
	// Counts counts the log's requests by outcome.
	Counts readers.Counts
	// Streamed is set when TTFT and decode speed were fitted separately.
	Streamed bool
	// Metrics are the fitted metrics: "ttft", "tokens_per_s" and "latency"
	// (end to end) for a streamed log; "latency" otherwise.
	Metrics []*Metric
	// Speed is the tokens_per_s model a scenario can use: the chosen one
	// when it is above 0 with probability 1, as the scenario format
	// requires, else the empirical one (nil for a log that is not streamed).
	Speed *Candidate
	// SpeedNote says why Speed is not the chosen model ("" if it is).
	SpeedNote string
	// EndToEnd compares the end-to-end latency simulated from the ttft
	// and Speed models — TTFT + output tokens ÷ speed, the output tokens
	// resampled from the log, Draws requests — with the observed
	// latencies (streamed logs only).
	EndToEnd *Goodness
	// Draws is the number of simulated requests behind EndToEnd.
	Draws int
	// Prefill is the regression of TTFT on input tokens, for a streamed
	// log whose successful requests all have input token counts of more
	// than one value (nil otherwise). When Prefill.Used, the ttft metric
	// is fitted to the base TTFTs (Prefill.Base) and the block gets
	// prefill_tokens_per_s.
	Prefill *Prefill
	// PrefillNote says what the prefill regression found, or why there is
	// none although the log has input token counts ("" for a log without
	// them).
	PrefillNote string
	// TTFTCheck compares the TTFT simulated from the block — base ttft +
	// input tokens ÷ prefill speed, the input resampled from the log,
	// Draws requests — with the observed TTFTs (when Prefill.Used).
	TTFTCheck *Goodness
	// ErrorLatency compares the failed requests' latencies with the
	// successes' and, when they differ, fits them for the block's
	// error_latency (nil when no request failed; see FitErrorLatency).
	ErrorLatency *ErrorLatency
	// Warnings say which percentiles the sample is too small to bound.
	Warnings []string
}

// Metric returns the metric called name, or nil.
func (r *Report) Metric(name string) *Metric {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// Poor reports whether a model the scenario block uses fits poorly, with
// the reasons, each prefixed by its metric.
func (r *Report) Poor() (bool, []string) {
	var reasons []string
	add := func(what string, g *Goodness) {
		for _, s := range g.Reasons {
			reasons = append(reasons, what+": "+s)
		}
	}
	if r.Streamed {
		add("ttft ("+r.Metric("ttft").Best().Name+")", &r.Metric("ttft").Best().Goodness)
		if r.Speed.Name != ModelEmpirical { // the empirical speeds match themselves
			add("tokens_per_s ("+r.Speed.Name+")", &r.Speed.Goodness)
		}
		if r.TTFTCheck != nil {
			add("ttft (simulated: base + input/prefill speed)", r.TTFTCheck)
		}
		add("latency (simulated end to end)", r.EndToEnd)
	} else {
		add("latency ("+r.Metric("latency").Best().Name+")", &r.Metric("latency").Best().Goodness)
	}
	if c := r.ErrorLatency.Written(); c != nil && c.Name != ModelEmpirical { // the empirical matches itself
		add("error_latency ("+c.Name+")", &c.Goodness)
	}
	return len(reasons) > 0, reasons
}

// excludedWarning names the rows FitPrefill left out of the regression of
// TTFT on input tokens and says what the line is with them in.
func excludedWarning(l *readers.Log, p *Prefill) string {
	var at []int // the OK requests with a TTFT, in the order TTFTs lists them
	for i := range l.Len() {
		if q := l.At(i); q.Status == readers.OK && !math.IsNaN(q.TTFT) {
			at = append(at, i)
		}
	}
	var rows []string
	for k, i := range p.Excluded {
		if k == 10 {
			rows = append(rows, fmt.Sprintf("and %d more", len(p.Excluded)-k))
			break
		}
		q := l.At(at[i])
		rows = append(rows, fmt.Sprintf("%s:%d (input_tokens %g, ttft %.4g s)", filepath.Base(l.File), q.Line, q.InputTokens, q.TTFT))
	}
	return fmt.Sprintf("ttft vs input tokens: %d row(s) left out of the regression, each alone deciding the line (Cook's distance > 1): %s; with them the slope would be %s s per 1000 tokens (p %s), without them %s (p %s)",
		len(p.Excluded), strings.Join(rows, ", "), fmtNum(1000*p.AllSlope), fmtP(p.AllP), fmtNum(1000*p.Slope), fmtP(p.P))
}

// TooFew says, when the successful requests are too few for the verdict's
// percentiles (p50, p90 and p95) to have a Level interval inside the sample,
// which of them cannot be bounded and the n each needs; "" otherwise. With
// so few requests no fit can be called good: the verdict's checks pass
// vacuously.
func (r *Report) TooFew() string {
	n := len(r.Metric("latency").Sorted)
	var parts []string
	for _, p := range CheckedQuantiles[:3] {
		if boundedAt(n, p) {
			continue
		}
		need := n + 1
		for !boundedAt(need, p) {
			need++
		}
		parts = append(parts, fmt.Sprintf("%s needs n ≥ %d", pName(p), need))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("n = %d cannot bound the checked percentiles (%s)", n, strings.Join(parts, ", "))
}

// ErrNoData is wrapped by FitLog's error when the log has too few
// successful requests to fit.
var ErrNoData = errors.New("too few successful requests to fit")

// FitLog fits the successful requests of l. A streamed log (TTFT and
// output tokens present) gets TTFT and decode speed fitted separately and
// an end-to-end check by simulation; the whole-call latency is fitted in
// every case. The latencies of the failed requests that have one are
// compared with the successes' and, when they differ, fitted for
// error_latency (Report.ErrorLatency, FitErrorLatency).
func FitLog(l *readers.Log, opt Options) (*Report, error) {
	return FitLogContext(context.Background(), l, opt)
}

// FitLogContext is FitLog that stops when ctx is done, returning ctx's
// error: it is checked between the fits and in every EM iteration.
func FitLogContext(ctx context.Context, l *readers.Log, opt Options) (*Report, error) {
	opt, err := opt.check()
	if err != nil {
		return nil, err
	}
	r := &Report{File: l.File, Format: l.Format, Counts: l.Counts(), Streamed: l.Streamed(), Draws: opt.Draws}
	lat := l.Latencies()
	if len(lat) < 2 {
		return nil, fmt.Errorf("%s: %w: %d of %d requests succeeded; need at least 2%s", l.File, ErrNoData, len(lat), r.Counts.Total, statusesSeen(r.Counts, l.Format))
	}
	r.Warnings = SampleWarnings(len(lat))
	if r.Streamed {
		ttfts, inputs := l.TTFTs(), []float64(nil)
		if l.HasInputTokens() {
			inputs = l.InputTokenCounts()
			r.Prefill, err = FitPrefill(inputs, ttfts)
			switch {
			case errors.Is(err, ErrConstantInput):
				r.PrefillNote = fmt.Sprintf("every successful request has %g input tokens, so the prefill speed cannot be estimated (it needs prompts of different lengths); the block's ttft ignores the prompt length", inputs[0])
			case err != nil:
				r.PrefillNote = fmt.Sprintf("no regression of TTFT on input tokens: %v; the block's ttft ignores the prompt length", err)
			default:
				r.PrefillNote = r.Prefill.Note
				if p := r.Prefill; len(p.Excluded) > 0 {
					r.Warnings = append(r.Warnings, excludedWarning(l, p))
				}
			}
		}
		var notes []string
		if p := r.Prefill; p != nil && p.Used {
			base, dropped := p.Base(inputs, ttfts)
			if len(base) < 2 || 10*dropped > p.N {
				// A constant speed would leave many requests with a base
				// TTFT ≤ 0: the line does not describe them.
				p.Used = false
				p.Note = fmt.Sprintf("TTFT grows with the prompt (%s s per 1000 input tokens, p %s), but one prefill speed of %s tokens/s would leave %d of %d requests with a base TTFT ≤ 0 (more than 10%%): TTFT is not a base plus input ÷ one speed here, and the block's ttft ignores the prompt length",
					fmtNum(1000*p.Slope), fmtP(p.P), fmtNum(p.Speed), dropped, p.N)
				r.PrefillNote = p.Note
			}
		}
		if p := r.Prefill; p != nil && p.Used {
			base, dropped := p.Base(inputs, ttfts)
			ttfts = base
			notes = append(notes, fmt.Sprintf("base TTFT: TTFT − input tokens ÷ %s tokens/s (the prefill speed)", fmtNum(p.Speed)))
			if dropped > 0 {
				notes = append(notes, fmt.Sprintf("%d of %d requests left out: their base TTFT is ≤ 0 (a prefill faster than the fitted speed)", dropped, p.N))
			}
		}
		ttft, err := fitValues(ctx, "ttft", "s", ttfts, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.File, err)
		}
		ttft.Notes = append(notes, ttft.Notes...)
		speeds := l.DecodeSpeeds()
		if len(speeds) < 2 {
			return nil, fmt.Errorf("%s: %w: %d requests have a decode speed (output tokens > 0 and latency > ttft); need at least 2", l.File, ErrNoData, len(speeds))
		}
		speed, err := fitValues(ctx, "tokens_per_s", "tokens/s", speeds, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.File, err)
		}
		r.Metrics = append(r.Metrics, ttft, speed)
		r.Speed = speed.Best()
		if lo, _ := r.Speed.Dist.Support(); !(lo >= 0) || r.Speed.Dist.CDF(0) > 0 {
			r.SpeedNote = fmt.Sprintf("the scenario format needs a decode speed above 0 with probability 1, and the %s's is not; the empirical distribution of the %d observed speeds is used instead", r.Speed.Name, len(speeds))
			r.Speed = speed.Candidate(ModelEmpirical)
		} else if why := dist.InverseMeanInfinite(r.Speed.Dist); lo == 0 && why != "" {
			r.SpeedNote = fmt.Sprintf("the scenario format needs a decode speed whose 1/speed has a finite mean, and the %s's does not (%s); the empirical distribution of the %d observed speeds is used instead", r.Speed.Name, why, len(speeds))
			r.Speed = speed.Candidate(ModelEmpirical)
		}
		if p := r.Prefill; p != nil && p.Used {
			first, e2e := simulateStreamed(ttft.Best().Dist, r.Speed.Dist, p.Speed, inputs, l.OutputTokenCounts(), opt.Draws, opt.Seed)
			ts, err := sortedContext(ctx, l.TTFTs())
			if err != nil {
				return nil, err
			}
			ls, err := sortedContext(ctx, lat)
			if err != nil {
				return nil, err
			}
			gf, ge := AssessSample(ts, first), AssessSample(ls, e2e)
			r.TTFTCheck, r.EndToEnd = &gf, &ge
		} else {
			sim := SimulateEndToEnd(ttft.Best().Dist, r.Speed.Dist, l.OutputTokenCounts(), opt.Draws, opt.Seed)
			ls, err := sortedContext(ctx, lat)
			if err != nil {
				return nil, err
			}
			g := AssessSample(ls, sim)
			r.EndToEnd = &g
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e2e, err := fitValues(ctx, "latency", "s", lat, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.File, err)
	}
	r.Metrics = append(r.Metrics, e2e)
	if failed, missing := l.FailedLatencies(); len(failed)+missing > 0 {
		if r.ErrorLatency, err = fitErrorLatency(ctx, failed, lat, missing, opt); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%s: %w", l.File, err)
		}
	}
	return r, nil
}

// SimulateEndToEnd returns n simulated end-to-end latencies, sorted:
// TTFT + tokens ÷ speed with TTFT and speed drawn independently from their
// models and tokens drawn uniformly from outputs — what hedgesim's
// simulator computes for one attempt of a streamed model. Draws come from
// PCG stream (seed, 2).
func SimulateEndToEnd(ttft, speed dist.Dist, outputs []float64, n int, seed uint64) []float64 {
	src := rand.NewPCG(seed, 2)
	r := rand.New(src)
	out := make([]float64, n)
	for i := range out {
		tok := outputs[r.IntN(len(outputs))]
		out[i] = ttft.Rand(src) + tok/speed.Rand(src)
	}
	slices.Sort(out)
	return out
}

// simulateStreamed returns n simulated times to first token and n
// end-to-end latencies, each sorted, of a streamed model with a constant
// prefill speed (tokens/s): TTFT = base + input ÷ prefill and latency =
// TTFT + output ÷ speed, with base and speed drawn from their models and
// (input, output) drawn together, uniformly, from the log's requests —
// what hedgesim's simulator computes for one attempt. Draws come from PCG
// stream (seed, 2), in SimulateEndToEnd's order.
func simulateStreamed(base, speed dist.Dist, prefill float64, inputs, outputs []float64, n int, seed uint64) (first, e2e []float64) {
	src := rand.NewPCG(seed, 2)
	r := rand.New(src)
	first, e2e = make([]float64, n), make([]float64, n)
	for i := range n {
		j := r.IntN(len(outputs))
		first[i] = base.Rand(src) + inputs[j]/prefill
		e2e[i] = first[i] + outputs[j]/speed.Rand(src)
	}
	slices.Sort(first)
	slices.Sort(e2e)
	return first, e2e
}
