package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/hedgesim/hedgesim/export"
	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/retune"
)

const retuneSynopsis = `retune [flags] [SCENARIO] --from SOURCE

SCENARIO is a TOML file or a built-in scenario's name ('hedgesim list');
without one the built-in default is retuned, as run and optimize do.
Read each scenario model's live latency histogram from SOURCE, judge
whether it drifted from the scenario's model, and when one did, re-check
the current hedge policy on the live models (the rollout check) and
optimize on them: keep or change, class by class.

SOURCE is a file or an http(s) URL (a /metrics page) holding a Prometheus
text-format histogram, the JSON of a Prometheus API query, or OTLP JSON
(--format, guessed when omitted). Model M's series is the one whose
model label is M (--model-label) and whose other labels match --label.
--prometheus URL queries a Prometheus server instead, one instant query
per model over --window (or --query with {model}), each retried with
backoff within --timeout, as a --from URL is.

Drift: Pearson's chi-square of the live bucket counts against the
scenario model's, on the histogram's buckets; p50/p95/p99 with intervals
at 1 − alpha; a mixture's shares. Verdict per model: unchanged, shifted
(how much, where) or cannot tell (fewer than 50 observations, or buckets
that leave the test no degree of freedom). A queued model is judged
against its client-side latency simulated, its calls' correlation
allowed for (Rao–Scott, the design effect from batches of the simulated
calls; docs/retune.md).

When a model shifted, each class's static policy is also compared with an
adaptive percentile delay on the live models and through the shift
(--no-adaptive leaves it out). --export FORMAT diffs the current
policies' runtime configuration (hedgesim export) against the retuned
scenario's; --out DIR writes the report, its HTML page and the diff.

Exit status: 0 nothing to do, 3 a model shifted or a better pick was
found, 2 bad input (naming the model and the query) or no model could be
judged (every verdict cannot tell), 1 failure.`

// retuneBeforeWrite, when set (by tests), is called just before retune
// writes --write-scenario's file, after the report is printed.
var retuneBeforeWrite func()

// errRetuneAction marks a retune whose report asks for action: exit 3.
var errRetuneAction = errors.New("retune: drift or a better pick found")

func cmdRetune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("retune", retuneSynopsis, stderr)
	var fromFlag onceString
	fs.Var(&fromFlag, "from", "the histograms' `SOURCE`: a file or an http(s) URL")
	from := &fromFlag.v
	promURL := fs.String("prometheus", "", "query the Prometheus server at `URL` instead (its HTTP API, one instant query per model)")
	promQuery := fs.String("query", "", "with --prometheus: the PromQL `template`, {model} standing for the model's name (default: sum by (le) (increase(METRIC_bucket{model=\"{model}\"}[WINDOW])))")
	window := promWindow{v: 24 * time.Hour}
	fs.Var(&window, "window", "with --prometheus: the `duration` of increase() in the default query, in Prometheus's syntax such as 1d, 6h or 90m")
	format := fs.String("format", "", "SOURCE `format`: prometheus, prometheus-api or otlp (default: guessed)")
	metric := fs.String("metric", "", "the histogram metric's `name` (default: the source's only histogram)")
	labels := labelFlag{}
	fs.Var(labels, "label", "keep the series whose label `KEY=VALUE` matches (repeatable)")
	modelLabel := fs.String("model-label", retune.DefaultModelLabel, "the `label` whose value names the scenario model; none: match by --metric and --label alone (one model, --model NAME)")
	var models listFlag
	fs.Var(&models, "model", "retune only these models, comma-separated `list` (default: every model)")
	unitName := fs.String("unit", "", "`unit` of the bucket bounds: s, ms or us (default: from the source); one that contradicts the metric's name (_seconds, _milliseconds, _ms) or the source's unit is taken, with a warning under each model")
	counts := fs.String("histogram-counts", retune.CountsAll, "what each histogram `counts`: all (every call's latency to its end, calls the scenario's hedging or deadline cancels included: one recorded at the provider) or answered (the answered calls only: a model whose losing attempts a class's hedging cancels, or whose calls a class's deadline cuts, is then judged against its completed attempts simulated, and not refitted)")
	alpha := fs.Float64("alpha", 0.01, "drift test `level`: a model shifted when the chi-square p-value is below it")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait for an http(s) SOURCE, or for each model's Prometheus query, retries with backoff included")
	var seed, requests, checkRequests intFlag
	fs.Var(&seed, "seed", "random seed, overrides the scenario's `seed`")
	fs.Var(&requests, "requests", "`n` requests per candidate of the optimisation (default: the scenario's [optimize] or 200000)")
	fs.Var(&checkRequests, "check-requests", "`n` requests of the checks of the current policy (default 5 × --requests, at most 1000000)")
	objective := fs.String("objective", "", "`name` of what to optimise: p95, p99, cost, knee, answered (most requests answered within --target), checked (most pipeline turns checked within --target: every fail-open step answered in time) (default: the scenario's [optimize] or p95)")
	var target, sla durationFlag
	fs.Var(&target, "target", "answered and checked objectives: the `latency` within which a request counts as answered (or a pipeline turn as checked), such as 2s")
	fs.Var(&sla, "sla", "cost objective: the `latency` p95 must not exceed")
	var maxCost, minCut floatFlag
	fs.Var(&maxCost, "max-cost", "the most added cost allowed, in `percent` of no hedging (inf for no cap)")
	fs.Var(&minCut, "min-unanswered-cut-per-cost", "verdict: the `percent` of the unanswered share each percent of added cost must cut (default 0.5)")
	copies := listFlag{same: sameCount}
	fs.Var(&copies, "copies", "max copies beyond the primary to try, comma-separated `list` (default: the class's max_copies)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	wide := wideFlag(fs)
	writeScenario := pathFlag(fs, "write-scenario", "write the scenario with the shifted models' live fits (not those of models at a pool or a concurrency limit, whose histograms hold the wait, nor those judged on answered calls that hedging cancels) and the changed picks to `FILE` (comments say where each came from)")
	out := pathFlag(fs, "out", "write report.txt, report.json, index.html (the whole report as one self-contained page) and, with --export, export-FORMAT.diff to `DIR` (created if needed; its parent must exist), replaced whole")
	force := fs.Bool("force", false, "let --out replace a report another command (run, optimize) wrote there; files hedgesim did not write are never replaced")
	noPlots := fs.Bool("no-plots", false, "with --out: leave the new optimisation's figures out of index.html")
	exportFormat := fs.String("export", "", "diff the current policies' runtime configuration against the retuned scenario's, in export's `FORMAT`: "+strings.Join(export.Formats, ", "))
	approx := fs.Bool("approximate", false, "with --export: for a class the format cannot express exactly, write what its runtime will run, each difference noted, as export --approximate does")
	noAdaptive := fs.Bool("no-adaptive", false, "leave out the comparison of each class's static policy with an adaptive delay")
	quiet := fs.Bool("quiet", false, "no progress bar")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := positiveLatencies(&target, &sla); err != nil {
		return err
	}
	switch {
	case *from == "" && *promURL == "":
		return usageError{err: errors.New("no --from SOURCE or --prometheus URL given; usage: hedgesim retune SCENARIO --from SOURCE")}
	case *from != "" && *promURL != "":
		return usageError{err: errors.New("--from and --prometheus are exclusive: give one source")}
	case *promURL == "" && (*promQuery != "" || window.set):
		return usageError{err: errors.New("--query and --window go with --prometheus")}
	case *promURL != "" && *format != "":
		return usageError{err: errors.New("--format goes with --from; a Prometheus query's result is its API's JSON")}
	case !(*timeout > 0):
		return usageError{err: fmt.Errorf("--timeout %s: must be > 0", *timeout)}
	case *promURL != "" && !isURL(*promURL):
		return usageError{err: fmt.Errorf("--prometheus %s: want the server's http:// or https:// URL", *promURL)}
	case strings.Contains(*from, "://") && !isURL(*from):
		return usageError{err: fmt.Errorf("--from %s: only http:// and https:// URLs are fetched; otherwise give a file's path", *from)}
	}
	if !(*alpha > 0 && *alpha < 0.5) {
		return usageError{err: fmt.Errorf("--alpha %g: must be in (0, 0.5)", *alpha)}
	}
	if *counts != retune.CountsAll && *counts != retune.CountsAnswered {
		return usageError{err: fmt.Errorf("--histogram-counts %q: want %s or %s", *counts, retune.CountsAll, retune.CountsAnswered)}
	}
	if *format != "" && !slices.Contains(retune.Formats, *format) {
		return usageError{err: fmt.Errorf("--format %q: want %s", *format, strings.Join(retune.Formats, ", "))}
	}
	q := retune.Query{Metric: *metric, Labels: labels, ModelLabel: *modelLabel, Models: models.v}
	if *modelLabel == "none" {
		q.ModelLabel, q.NoModelLabel = "", true
	}
	if *unitName != "" {
		u, err := readers.ParseUnit(*unitName)
		if err != nil {
			return usageError{err: fmt.Errorf("--unit: %v", err)}
		}
		q.Unit = u
	}
	sc, err := scenarioArg(pos, seed, requests, optimize.MaxRequests, nil)
	if err != nil {
		return err
	}
	s := sc.Optimize
	if requests.set {
		s.Requests = int(requests.v)
	}
	if checkRequests.set {
		if checkRequests.v < 1 || checkRequests.v > optimize.MaxRequests {
			return usageError{err: fmt.Errorf("--check-requests %d: must be in [1, %d]", checkRequests.v, optimize.MaxRequests)}
		}
		s.CheckRequests = int(checkRequests.v)
	}
	if minCut.set {
		s.Rule.MinUnansweredCutPerCost = minCut.v
	}
	var copyList []int
	for _, x := range copies.v {
		k, err := strconv.Atoi(x)
		if err != nil {
			return usageError{err: fmt.Errorf("--copies: %q is not an integer", x)}
		}
		copyList = append(copyList, k)
	}
	if err := checkSearchFlagValues(&maxCost, nil, copyList); err != nil {
		return err
	}
	var objErr error
	s.Each(func(se *optimize.Search) {
		if copies.set {
			se.Copies = copyList
		}
		if *objective != "" {
			if err := se.Objective.SetName(*objective); err != nil {
				objErr = err
			}
		}
		if maxCost.set {
			se.Objective.MaxAddedCostPct = maxCost.v
		}
		if target.set {
			se.Objective.Target = target.v
		}
		if sla.set {
			se.Objective.SLA = sla.v
		}
	})
	if objErr != nil {
		return usageError{err: fmt.Errorf("--objective: %v", objErr)}
	}
	if err := checkObjectiveNeeds(&s, &sc.Config, *objective); err != nil {
		return err
	}
	if err := s.Validate(&sc.Config); err != nil {
		return usageError{err: err}
	}
	if *exportFormat == "" && *approx {
		return usageError{err: errors.New("--approximate goes with --export FORMAT")}
	}
	if *out == "" && *noPlots {
		return usageError{err: errors.New("--no-plots goes with --out DIR")}
	}
	eopt := export.Options{Approximate: *approx}
	if *exportFormat != "" {
		if !isFormat(*exportFormat) {
			return usageError{err: fmt.Errorf("--export %q: unknown; formats: %s", *exportFormat, strings.Join(export.Formats, ", "))}
		}
		if _, err := retune.CurrentExport(&sc.Config, *exportFormat, eopt); err != nil {
			return usageError{err: fmt.Errorf("--export %s: the current policies: %v", *exportFormat, err)}
		}
	}
	if *out != "" {
		others := []flagPath{{"write-scenario", *writeScenario}, {path: scenarioInput(pos).path}}
		if *from != "" && !isURL(*from) {
			others = append(others, flagPath{path: *from})
		}
		if err := prepareOutDir("out", *out, "retune", *force, others...); err != nil {
			return err
		}
	}
	var outScen *outputFile
	var name, traceDir string
	var src []byte
	if *writeScenario != "" || *exportFormat != "" {
		arg := ""
		if len(pos) == 1 {
			arg = pos[0]
		}
		if name, src, err = scenarioSource(arg); err != nil {
			return err
		}
		if arg != "" {
			if abs, err := filepath.Abs(filepath.Dir(name)); err == nil {
				traceDir = abs
			}
		}
		what := "--export " + *exportFormat
		if *writeScenario != "" {
			what = "--write-scenario " + *writeScenario
			if outScen, err = checkOutput("write-scenario", *writeScenario, scenarioInput(pos), input{"the --from source", *from}); err != nil {
				return err
			}
		}
		if err := retune.CheckRewritable(name, src, traceDir, &sc.Config); err != nil {
			return usageError{err: fmt.Errorf("%s: %v", what, err)}
		}
	}

	var live []retune.Live
	sourceName := *from
	if *promURL != "" {
		lim, err := inputLimits()
		if err != nil {
			return err
		}
		sourceName = *promURL
		ps := retune.PromSource{URL: *promURL, Template: *promQuery, Window: window.v, Timeout: *timeout, MaxBytes: lim.MaxDataBytes}
		live, err = retune.ReadPrometheus(ctx, ps, &sc.Config, q)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return usageError{err: err}
		}
	} else {
		source, err := readSource(ctx, *from, *format, *timeout)
		if err != nil {
			return err
		}
		if live, err = retune.Read(source, &sc.Config, q); err != nil {
			return usageError{err: err}
		}
	}
	fopt := fit.Options{Model: fit.ModelAuto, Seed: 1}
	if seed.set {
		fopt.Seed = uint64(seed.v)
	}
	assessed, err := retune.AssessCounts(ctx, &sc.Config, live, fopt, *alpha, *counts)
	if err != nil {
		var ie *retune.InputError
		if errors.As(err, &ie) {
			return usageError{err: err}
		}
		return err
	}
	rep := &retune.Report{Scenario: sc.Config.Name, Source: sourceName, At: time.Now().UTC().Format(time.RFC3339), Alpha: *alpha, Models: assessed}
	if slices.ContainsFunc(assessed, func(m retune.Model) bool { return m.Refit() }) {
		ropt := retune.RecheckOptions{Settings: s, NoAdaptive: *noAdaptive, Models: assessed}
		bar := newProgress(stderr, "retune", *quiet)
		if bar != nil {
			ropt.Progress = bar.set
			bar.live()
		}
		rep.Recheck, err = retune.RecheckPolicy(ctx, &sc.Config, retune.LiveConfig(&sc.Config, assessed), ropt)
		bar.finish()
		if err != nil {
			return err
		}
	}
	rep.Finish()
	if *exportFormat != "" {
		if rep.Export, err = retune.NewExportDiff(name, src, traceDir, &sc.Config, rep, *exportFormat, eopt); err != nil {
			return fmt.Errorf("--export %s: %w", *exportFormat, err)
		}
	}
	var text, js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		return err
	}
	if *asJSON {
		text.Write(js.Bytes())
	} else {
		t, err := fittedText(stdout, *wide, rep.WriteText)
		if err != nil {
			return err
		}
		text.Write(t)
		rep.WriteExportText(&text)
	}
	// The report is printed first: a report directory or a scenario that
	// cannot be written (their directories were checked before any work,
	// but may have changed since) does not lose it.
	if _, err := stdout.Write(text.Bytes()); err != nil {
		return err
	}
	if !rep.Judged() {
		// A source whose every histogram is too coarse or too small (a
		// broken exporter, a rate() query) is no evidence that the models
		// stand: bad input, with nothing written, so that a scheduled run
		// fails rather than passes.
		var why []string
		for _, m := range rep.Models {
			why = append(why, m.Model+": "+m.Drift.Why)
		}
		flagName := "--from"
		if *promURL != "" {
			flagName = "--prometheus"
		}
		return usageError{err: fmt.Errorf("%s %s: no model could be judged (%s); nothing written", flagName, sourceName, strings.Join(why, "; "))}
	}
	if *out != "" {
		if err := writeRetuneReport(ctx, *out, rep, js.Bytes(), args, *writeScenario, !*noPlots); err != nil {
			return fmt.Errorf("--out %s: %w", *out, err)
		}
	}
	if outScen != nil {
		data, err := retune.Scenario(name, src, traceDir, &sc.Config, rep)
		if err != nil {
			return fmt.Errorf("--write-scenario: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if retuneBeforeWrite != nil {
			retuneBeforeWrite()
		}
		if err := outScen.write(data); err != nil {
			return fmt.Errorf("--write-scenario %s: %w", *writeScenario, err)
		}
		if bytes.Equal(data, src) {
			// Written whole all the same (a scheduled job moves it over the
			// old one on exit 3), but a file identical to its input would
			// otherwise pass for a retuned one.
			printMessage(stderr, "hedgesim retune: --write-scenario %s: written, the same as %s: %s\n", *writeScenario, name, unchangedWhy(rep))
		}
	}
	if rep.Action {
		return errRetuneAction
	}
	return nil
}

// unchangedWhy says why retune's scenario is its input unchanged: which
// models shifted but were not refitted, and why, or that none shifted;
// and that no class's pick changed.
func unchangedWhy(rep *retune.Report) string {
	var held []string
	for _, m := range rep.Models {
		if m.Drift.Verdict != retune.Shifted || m.Refit() {
			continue
		}
		var why []string
		if m.QueuedAt != "" {
			why = append(why, "it waits at provider "+m.QueuedAt+", so its histogram holds the wait")
		}
		if len(m.CancelledBy) > 0 {
			why = append(why, "its histogram counts answered calls only, class "+strings.Join(m.CancelledBy, ", ")+" cancelling its slow attempts, so a fit is biased short")
		}
		if m.FitRejected != "" {
			why = append(why, m.FitRejectedBrief)
		}
		held = append(held, m.Model+" ("+strings.Join(why, "; and ")+")")
	}
	if len(held) == 0 {
		return "no model shifted, so nothing was refitted and no policy re-picked"
	}
	return "nothing was refitted and no policy re-picked: shifted but not refitted: " + strings.Join(held, ", ") + " (the report's notes say what to do)"
}

// readSource reads the histogram source at from: an http(s) URL, fetched
// within timeout, or a file within the data size limit; its format is
// format or guessed from its first bytes. Every failure is bad input.
func readSource(ctx context.Context, from, format string, timeout time.Duration) (retune.Source, error) {
	lim, err := inputLimits()
	if err != nil {
		return retune.Source{}, err
	}
	var data []byte
	if isURL(from) {
		if data, err = retune.FetchURL(ctx, nil, from, timeout, lim.MaxDataBytes); err != nil {
			if ctx.Err() != nil {
				return retune.Source{}, ctx.Err()
			}
			return retune.Source{}, usageError{err: fmt.Errorf("--from %s: %v", from, err)}
		}
	} else {
		r, _, closeFile, err := openLog(ctx, from, "csv") // any format: openLog only opens
		if errors.Is(err, fs.ErrNotExist) {
			return retune.Source{}, usageError{err: fmt.Errorf("--from %s: no such file (a URL starts with http:// or https://)", from)}
		}
		if err != nil {
			return retune.Source{}, err
		}
		data, err = io.ReadAll(r)
		closeFile()
		if err != nil {
			if ctx.Err() != nil {
				return retune.Source{}, ctx.Err()
			}
			return retune.Source{}, usageError{err: fmt.Errorf("--from %s: %v", from, err)}
		}
	}
	if format == "" {
		format = guessHistogramFormat(data)
		if format == "" {
			return retune.Source{}, usageError{err: fmt.Errorf("--from %s: not a histogram in a format retune reads (Prometheus text, Prometheus API JSON, OTLP JSON); name it with --format", from)}
		}
	}
	return retune.Source{Name: from, Format: format, Data: data}, nil
}

// promWindow is a duration in Prometheus's syntax (1d, 6h, 90m, 1h30m),
// parsed with github.com/prometheus/common/model, that remembers whether
// it was set.
type promWindow struct {
	v   time.Duration
	set bool
}

func (w *promWindow) String() string { return model.Duration(w.v).String() }
func (w *promWindow) Set(s string) error {
	d, err := model.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("%q: want a positive Prometheus duration such as 1d, 6h or 90m", s)
	}
	w.v, w.set = time.Duration(d), true
	return nil
}

// onceString is a string flag that may be given one value: a second,
// other value is an error naming both, not the last one silently
// winning; the same text again is taken once.
type onceString struct {
	v   string
	set bool
}

func (f *onceString) String() string { return f.v }
func (*onceString) checksRepeats()   {} // refuses a second source itself
func (f *onceString) Set(s string) error {
	if f.set && s != f.v {
		return fmt.Errorf("given twice (%q, then %q): retune reads one source; retune each source in a run of its own", f.v, s)
	}
	f.v, f.set = s, true
	return nil
}

// isURL reports whether a --from SOURCE is an http(s) URL.
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}
