package fit

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// Error latency: when a failed request's error came back. Without
// error_latency a scenario's errors surface when the call would have
// completed, which misplaces them when errors come back sooner (a 5xx in
// 30 ms against answers in 0.4 s) or later (an upstream timeout), and with
// them the moment a fallback or a nonfatal copy fires. FitErrorLatency
// compares the failed requests' latencies with the successes' and, when
// they differ, models them for the block's error_latency.

// MinErrorFit is the number of failed latencies from which they are fitted
// as the latency is (Options.Model, by default the lowest-BIC lognormal or
// mixture that passes the checks): 72, the smallest n whose p50, p90 and p95
// each have a 95 % order-statistic interval inside the sample
// (QuantileRanks), so that a fitted shape can be checked where the verdict
// looks (Report.TooFew). Below it the block writes the failed latencies'
// empirical distribution — the observed values themselves, no shape assumed
// that the rows could not check.
const MinErrorFit = 72

// ErrorLatency is what FitErrorLatency found. Times are in seconds.
type ErrorLatency struct {
	// N is the number of failed requests with a latency; Missing the
	// number without one (an empty, zero or non-numeric cell).
	N, Missing int
	// Median is the failed latencies' median, OKMedian the successes'
	// (nearest rank, gonum stat.Empirical).
	Median, OKMedian float64
	// KS is the two-sample Kolmogorov–Smirnov distance between the failed
	// and the successful latencies (gonum stat.KolmogorovSmirnov), and
	// KSCritical its asymptotic 5 % critical value
	// 1.358·√((n + m)/(n·m)), n and m the two sample sizes; it is
	// conservative for small samples (the exact critical value is lower).
	KS, KSCritical float64
	// Differs is set when KS > KSCritical: the failed requests' latency is
	// not the successes', and the block gets error_latency. Otherwise an
	// error at the call's latency (the simulator's default) is consistent
	// with the log, and the block has none.
	Differs bool
	// Metric holds the fitted candidates of the failed latencies when
	// Differs (nil otherwise): the models of Options.Model when
	// N ≥ MinErrorFit, else the empirical distribution (the closed-form
	// lognormal shown beside it). Metric.Best() is what the block writes.
	Metric *Metric
}

// FitErrorLatency compares failed, the latencies of the failed requests,
// with ok, the successful requests' (both in seconds, finite and > 0; ok
// non-empty), by the two-sample KS test at 5 %, and fits failed when they
// differ (see ErrorLatency.Metric and MinErrorFit). missing is carried
// into ErrorLatency.Missing. It returns an error for a sample that is not
// finite and > 0.
func FitErrorLatency(failed, ok []float64, missing int, opt Options) (*ErrorLatency, error) {
	return fitErrorLatency(context.Background(), failed, ok, missing, opt)
}

func fitErrorLatency(ctx context.Context, failed, ok []float64, missing int, opt Options) (*ErrorLatency, error) {
	e := &ErrorLatency{N: len(failed), Missing: missing}
	if len(failed) == 0 {
		return e, nil
	}
	if err := checkSample(failed, 1); err != nil {
		return nil, fmt.Errorf("error_latency: %w", err)
	}
	if err := checkSample(ok, 1); err != nil {
		return nil, fmt.Errorf("error_latency: the successes: %w", err)
	}
	fs, err := sortedContext(ctx, failed)
	if err != nil {
		return nil, err
	}
	oks, err := sortedContext(ctx, ok)
	if err != nil {
		return nil, err
	}
	n, m := float64(len(oks)), float64(len(fs))
	e.Median = stat.Quantile(0.5, stat.Empirical, fs, nil)
	e.OKMedian = stat.Quantile(0.5, stat.Empirical, oks, nil)
	e.KS = stat.KolmogorovSmirnov(fs, nil, oks, nil)
	e.KSCritical = 1.358 * math.Sqrt((n+m)/(n*m))
	// One failed latency never differs: the critical value exceeds 1, the
	// largest distance.
	e.Differs = e.KS > e.KSCritical
	if !e.Differs {
		return e, nil
	}
	if len(fs) < MinErrorFit || fs[0] == fs[len(fs)-1] {
		opt.Model = ModelEmpirical
	}
	if e.Metric, err = fitValues(ctx, "error_latency", "s", fs, opt); err != nil {
		return nil, err
	}
	switch {
	case fs[0] == fs[len(fs)-1]:
		e.Metric.why = "all one value"
	case len(fs) < MinErrorFit:
		e.Metric.why = fmt.Sprintf("n < %d: too few to check a fitted shape at p95", MinErrorFit)
	}
	return e, nil
}

// Written returns the candidate the block writes as error_latency, or nil
// when it writes none.
func (e *ErrorLatency) Written() *Candidate {
	if e == nil || !e.Differs || e.Metric == nil {
		return nil
	}
	return e.Metric.Best()
}

// verdict says in words what the comparison found, for the report.
func (e *ErrorLatency) verdict() string {
	if e.N == 0 {
		return fmt.Sprintf("none of the %d failed requests has a latency: errors surface when the call would have completed (the simulator's default)", e.Missing)
	}
	with := fmt.Sprintf("%d failed requests with a latency", e.N)
	if e.Missing > 0 {
		with += fmt.Sprintf(" (%d without)", e.Missing)
	}
	cmp := fmt.Sprintf("median %s s against the successes' %s s; two-sample KS %.3f", fmtNum(e.Median), fmtNum(e.OKMedian), e.KS)
	if e.Differs {
		_, words := errorLatencySpec(e, e.Written())
		return fmt.Sprintf("%s, %s > %.3f (5%% critical value 1.358·√((n+m)/(n·m))): their latency differs from the successes', and the block gets error_latency (%s)",
			with, cmp, e.KSCritical, words)
	}
	return fmt.Sprintf("%s, %s ≤ %.3f (5%% critical value 1.358·√((n+m)/(n·m))): indistinguishable from the successes', so the block has no error_latency (errors surface when the call would have completed, the simulator's default)",
		with, cmp, e.KSCritical)
}

// errorLatencySpec returns c as a TOML distribution and in words: a
// constant when every observation is one value, else as specTOML and
// describe write it.
func errorLatencySpec(e *ErrorLatency, c *Candidate) (spec, words string) {
	if s := e.Metric.Sorted; c.Name == ModelEmpirical && s[0] == s[len(s)-1] {
		return fmt.Sprintf(`{ kind = "constant", value = %s }`, num(s[0])), fmt.Sprintf("constant, all %d at %s s", len(s), fmtNum(s[0]))
	}
	return specTOML(c, "s"), describe(c, "s")
}

// writeErrorLatency writes the block's error_latency line, or a comment
// saying why there is none, when failed requests have latencies.
func (r *Report) writeErrorLatency(b *bytes.Buffer) {
	e := r.ErrorLatency
	if e == nil || e.N == 0 {
		return
	}
	if c := e.Written(); c != nil {
		spec, words := errorLatencySpec(e, c)
		fmt.Fprintf(b, "# error_latency: when the errors of the %d failed requests with a latency came back: %s (the successes' median %s s; two-sample KS %.3f > %.3f)\n",
			e.N, words, fmtNum(e.OKMedian), e.KS, e.KSCritical)
		fmt.Fprintf(b, "error_latency = %s\n", spec)
		return
	}
	fmt.Fprintf(b, "# no error_latency: the latency of the %d failed requests with one (median %s s) is indistinguishable from the successes' (median %s s; two-sample KS %.3f ≤ %.3f), so errors surface when the call would have completed\n",
		e.N, fmtNum(e.Median), fmtNum(e.OKMedian), e.KS, e.KSCritical)
}

// jsonErrorLatency is an ErrorLatency; times in s.
type jsonErrorLatency struct {
	N          int         `json:"n"`
	Missing    int         `json:"missing"`
	Median     jnum        `json:"median_s"`
	OKMedian   jnum        `json:"ok_median_s"`
	KS         jnum        `json:"ks"`
	KSCritical jnum        `json:"ks_critical"`
	Differs    bool        `json:"differs"`
	Written    string      `json:"written,omitempty"`
	Fit        *jsonMetric `json:"fit,omitempty"`
	Verdict    string      `json:"verdict"`
}

func toJSONErrorLatency(e *ErrorLatency) *jsonErrorLatency {
	if e == nil {
		return nil
	}
	j := &jsonErrorLatency{N: e.N, Missing: e.Missing, Median: jnum(e.Median), OKMedian: jnum(e.OKMedian),
		KS: jnum(e.KS), KSCritical: jnum(e.KSCritical), Differs: e.Differs, Verdict: e.verdict()}
	if e.N == 0 {
		j.Median, j.OKMedian, j.KS, j.KSCritical = jnum(math.NaN()), jnum(math.NaN()), jnum(math.NaN()), jnum(math.NaN())
	}
	if c := e.Written(); c != nil {
		j.Written = c.Name
		m := toJSONMetric(e.Metric)
		j.Fit = &m
	}
	return j
}
