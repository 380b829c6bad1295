package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/readers"
)

const fitSynopsis = `fit [flags] LOG
       hedgesim fit --split-half [flags] LOG...

Fit latency models to a log of per-request latencies and print a
[models.NAME] block ready to paste into a scenario. The goodness-of-fit
report comes first, as TOML comments, so the whole output is valid TOML.

LOG formats (--format, guessed from the file when omitted):
  llmperf          llmperf per-request JSON (raw_data/individual/*.json): TTFT
                   and decode speed are fitted separately; error_code 429 counts
                   as rate-limited, -100 as an invalid answer, others as errors
  llmperf-summary  llmperf summary JSON (raw_data/summary/*.json): the published
                   percentiles become a quantile table (lognormal tails)
  csv, jsonl       one row or object per request; --latency names the latency
                   column, --unit its unit; --ttft and --output-tokens make a
                   streamed model (--input-tokens adds the prompt length);
                   --status marks failed rows (counted in error_rate; their
                   latency, when it differs from the successes', becomes
                   error_latency)
  prometheus       a latency histogram in the Prometheus text format (a
                   /metrics page): NAME_bucket{le="…"} series; --metric NAME
                   and --label KEY=VALUE choose one series
  prometheus-api   the JSON of a Prometheus HTTP API query returning bucket
                   counts, e.g. sum by (le) (increase(NAME_bucket[1d]));
                   an error response ("status": "error") is guessed as one,
                   and its error given
  otlp             an OpenTelemetry histogram (explicit or exponential) in
                   OTLP JSON, e.g. from the collector's file exporter

A histogram is fitted by maximum likelihood on the interval-censored counts
(a lognormal, and mixtures by EM over the buckets), checked against the
counts with a chi-square test and the largest CDF gap at the bounds, with a
warning when the buckets are too coarse to resolve p95 or p99. --model auto
passes over a model whose chi-square has no degree of freedom left or
rejects it (p < 0.05), or a mixture with a component narrower than a tenth
of its bucket (a spike the buckets cannot see), for a sound one, and says
so; with no sound one, a model the counts reject is not preferred to one
they cannot test.

Models: a lognormal, mixtures of 2 and 3 lognormals fitted by EM, and the
empirical distribution; --model auto picks the parametric one with the
lowest BIC. Each is checked against the log: observed vs model p50, p90,
p95, p99 with the observed percentiles' 95% order-statistic intervals, and
the Kolmogorov-Smirnov distance. A poor fit is said so, with the reason.

Prefill: when a streamed log has input token counts (llmperf logs do), TTFT
is regressed on them by least squares; the prefill speed is 1/slope, with
its 95% interval from the slope's Student t interval. When the slope is
significantly > 0 (p < 0.05), the block gets prefill_tokens_per_s and its
ttft is fitted to TTFT - input/speed; otherwise the block is as without.

--split-half fits half of each log (seeded shuffle) and checks the p95 it
predicts against the other half's 95% interval.`

// cmdFit runs `hedgesim fit`. It stops when ctx is done — while reading,
// in the EM loops or between fits — returning ctx's error, with nothing
// written to stdout.
func cmdFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := fitCommand(ctx, args, stdout, stderr)
	if err != nil && ctx.Err() != nil {
		// A read cut short by the interrupt surfaces as the reader's own
		// error (a truncated row, say): the interrupt is what happened.
		return ctx.Err()
	}
	return err
}

func fitCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fit", fitSynopsis, stderr)
	format := fs.String("format", "", "log `format`: llmperf, llmperf-summary, csv, jsonl, prometheus, prometheus-api or otlp (default: guessed)")
	metric := fs.String("metric", "", "histograms: the metric `name` (default: the file's only histogram)")
	labels := labelFlag{}
	fs.Var(labels, "label", "histograms: keep the series whose label `KEY=VALUE` matches (repeatable)")
	latency := fs.String("latency", "", "csv/jsonl: `column` of the whole-call latency")
	fs.StringVar(latency, "column", "", "same as --latency")
	ttft := fs.String("ttft", "", "csv/jsonl: `column` of the time to first token (with --output-tokens)")
	outTok := fs.String("output-tokens", "", "csv/jsonl: `column` of the output token count (with --ttft)")
	inTok := fs.String("input-tokens", "", "csv/jsonl: `column` of the input token count (with --ttft): fit the prefill speed")
	status := fs.String("status", "", "csv/jsonl: status or error `column`; rows not OK are counted, and failed rows' latency, when it differs from the successes', fitted as error_latency; a column of booleans more than half false is refused without --ok (is_error: say --ok false)")
	var okFlag onceFlag
	okList := &okFlag.v
	fs.Var(&okFlag, "ok", "comma-separated status `values` that mean success (default: empty, ok, success, succeeded, healthy, 200, null, none, true)")
	unitName := fs.String("unit", "", "`unit` of the time columns: s, ms or us (default: from the column name, e.g. latency_ms)")
	model := fs.String("model", fit.ModelAuto, "model to emit: "+strings.Join(fit.Models, ", "))
	var seed intFlag
	seed.v = 1
	fs.Var(&seed, "seed", "random `seed` of EM starts, simulated draws and the split-half shuffle")
	name := fs.String("name", "", "model `name` in [models.NAME] (default: the log's file name without its extension, its letters and digits of any script kept, each other character a -)")
	provider := fs.String("provider", "", "the model's `provider` (failure domain; default: the name)")
	asJSON := fs.Bool("json", false, "write the fit as JSON (the TOML block included)")
	splitHalf := fs.Bool("split-half", false, "check each log's p95 by fitting one half and predicting the other")
	quiet := fs.Bool("quiet", false, "no progress spinner (shown on stderr only when it is a terminal)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError{err: errors.New("no LOG given; usage: hedgesim fit [flags] LOG")}
	}
	if len(pos) > 1 && !*splitHalf {
		return usageError{err: fmt.Errorf("takes one LOG, got %d (only --split-half takes several)", len(pos))}
	}
	if seed.v < 0 {
		return usageError{err: fmt.Errorf("--seed %d: must be ≥ 0", seed.v)}
	}
	for _, f := range []struct{ flag, v string }{{"name", *name}, {"provider", *provider}} {
		if strings.IndexFunc(f.v, unicode.IsControl) >= 0 {
			return usageError{err: fmt.Errorf("--%s %q: control characters (line breaks, tabs) are not allowed in a name", f.flag, f.v)}
		}
	}
	cols := readers.Columns{Latency: *latency, TTFT: *ttft, OutputTokens: *outTok, InputTokens: *inTok, Status: *status}
	if *unitName != "" {
		u, err := readers.ParseUnit(*unitName)
		if err != nil {
			return usageError{err: fmt.Errorf("--unit: %v", err)}
		}
		cols.Unit = u
	}
	if *okList != "" {
		cols.OK = strings.Split(*okList, ",")
	}
	opt := fit.Options{Model: *model, Seed: uint64(seed.v)}
	bar := newProgress(stderr, "fit", *quiet)
	bar.set("reading and fitting", 0, -1)
	bar.live()
	defer bar.finish()
	if *splitHalf {
		return fitSplitHalf(ctx, pos, *format, cols, opt, stdout, stderr)
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	block := fit.BlockOptions{Name: *name, Provider: *provider, Command: "hedgesim fit " + strings.Join(quoted, " ")}
	f := *format
	if f == "" {
		_, guessed, closeFile, err := openLog(ctx, pos[0], "")
		if err != nil {
			return err
		}
		closeFile()
		f = guessed
	}
	if histogramFormats[f] {
		out, err := fitHistogramFile(ctx, pos[0], f, readers.HistogramQuery{Metric: *metric, Labels: labels, Unit: cols.Unit}, opt, block, *asJSON)
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		_, err = stdout.Write(out)
		return err
	}
	res, err := fitFile(ctx, pos[0], f, cols, opt)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	switch res := res.(type) {
	case *fit.Report:
		if *asJSON {
			err = res.WriteJSON(&b, block)
		} else {
			err = res.WriteTOML(&b, block)
		}
	case *fit.SummaryFit:
		if *asJSON {
			err = res.WriteJSON(&b, block)
		} else {
			err = res.WriteTOML(&b, block)
		}
	}
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err = stdout.Write(b.Bytes())
	return err
}

// fitFile loads path in format (guessed when "") and fits it: a
// *fit.Report, or a *fit.SummaryFit for an llmperf summary. Bad input is a
// usageError. It stops with ctx's error when ctx is done.
func fitFile(ctx context.Context, path, format string, cols readers.Columns, opt fit.Options) (any, error) {
	r, format, closeFile, err := openLog(ctx, path, format)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	var log *readers.Log
	switch format {
	case "llmperf":
		log, err = readers.ReadLLMPerf(r, path)
	case "llmperf-summary":
		s, err := readers.ReadLLMPerfSummary(r, path)
		if err != nil {
			return nil, usageError{err: err}
		}
		f, err := fit.FitSummary(s)
		if err != nil {
			return nil, usageError{err: err}
		}
		return f, nil
	case "csv", "jsonl":
		if cols.Latency == "" {
			return nil, usageError{err: fmt.Errorf("%s: a %s log needs --latency COLUMN (and --unit unless the column name ends in _s or _ms)", path, format)}
		}
		if format == "csv" {
			log, err = readers.ReadCSV(r, path, cols)
		} else {
			log, err = readers.ReadJSONL(r, path, cols)
		}
	default:
		return nil, usageError{err: fmt.Errorf("--format %q: want llmperf, llmperf-summary, csv, jsonl, prometheus, prometheus-api or otlp", format)}
	}
	if err != nil {
		return nil, usageError{err: err}
	}
	rep, err := fit.FitLogContext(ctx, log, opt)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, usageError{err: err}
	}
	return rep, nil
}

// openLog opens the log at path for streaming (a regular file within the
// size limit, readers.Open) and names its format when format is "": from
// the extension and the first bytes. Reads fail with ctx's error once ctx
// is done.
func openLog(ctx context.Context, path, format string) (r io.Reader, guessed string, closeFile func() error, err error) {
	lim, err := inputLimits()
	if err != nil {
		return nil, "", nil, err
	}
	f, err := readers.Open(path, lim.MaxDataBytes)
	if err != nil {
		if errors.Is(err, readers.ErrTooLarge) {
			err = fmt.Errorf("%w (set %s to raise it)", err, readers.MaxBytesEnv)
		}
		return nil, "", nil, usageError{err: err}
	}
	br := bufio.NewReaderSize(ctxReader{ctx, f}, 1<<20)
	if format == "" {
		head, err := br.Peek(1 << 20)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			f.Close()
			return nil, "", nil, usageError{err: err}
		}
		format = guessFormat(path, head)
	}
	return br, format, f.Close, nil
}

// guessFormat names the format of a log from its extension and, for JSON,
// its first character (data is the file's first bytes): an array is an
// llmperf per-request file, an object a summary.
func guessFormat(path string, data []byte) string {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".csv":
		return "csv"
	case ".jsonl", ".ndjson":
		return "jsonl"
	}
	if h := guessHistogramFormat(data); h != "" && ext != ".csv" && ext != ".jsonl" {
		return h
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\ufeff")), " \t\r\n")
	switch {
	case ext == ".json" && bytes.HasPrefix(t, []byte("{")) && bytes.Contains(t, []byte("_quantiles_p")):
		return "llmperf-summary"
	case ext == ".json":
		return "llmperf" // its loader says what is wrong with anything else
	case bytes.HasPrefix(t, []byte("[")):
		return "llmperf"
	case bytes.HasPrefix(t, []byte("{")) && bytes.Contains(t, []byte("_quantiles_p")):
		return "llmperf-summary"
	case bytes.HasPrefix(t, []byte("{")):
		return "jsonl"
	}
	return "csv"
}

// fitSplitHalf prints the split-half table of the logs; logs with too few
// successful requests are listed as skipped.
func fitSplitHalf(ctx context.Context, paths []string, format string, cols readers.Columns, opt fit.Options, stdout, stderr io.Writer) error {
	var rows []fit.SplitHalfRow
	var skipped []string
	for _, p := range paths {
		r, f, closeFile, err := openLog(ctx, p, format)
		if err != nil {
			return err
		}
		var log *readers.Log
		switch f {
		case "llmperf":
			log, err = readers.ReadLLMPerf(r, p)
		case "csv":
			log, err = readers.ReadCSV(r, p, cols)
		case "jsonl":
			log, err = readers.ReadJSONL(r, p, cols)
		default:
			closeFile()
			return usageError{err: fmt.Errorf("%s: --split-half needs per-request logs (llmperf, csv, jsonl), not %s", p, f)}
		}
		closeFile()
		if err != nil {
			return usageError{err: err}
		}
		rs, err := fit.SplitHalfContext(ctx, log, opt)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, fit.ErrNoData) {
			skipped = append(skipped, err.Error())
			continue
		}
		if err != nil {
			return usageError{err: err}
		}
		rows = append(rows, rs...)
	}
	var b bytes.Buffer
	if len(rows) > 0 {
		if err := fit.WriteSplitHalf(&b, rows); err != nil {
			return err
		}
	}
	for _, s := range skipped {
		fmt.Fprintf(&b, "skipped: %s\n", s)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		return err
	}
	if len(rows) == 0 {
		return usageError{err: fmt.Errorf("no log has the %d successful requests the split-half check needs: %s", fit.MinSplitHalf, strings.Join(skipped, "; "))}
	}
	return nil
}

// ctxReader is an io.Reader that fails with ctx's error once ctx is done,
// so that a long read stops at the next buffer.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./=:,+@%.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./=:,+@%", r)))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
