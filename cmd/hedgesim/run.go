package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"

	"github.com/hedgesim/hedgesim/plots"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// intFlag is an integer flag that remembers whether it was set.
type intFlag struct {
	v   int64
	set bool
}

func (f *intFlag) String() string { return fmt.Sprint(f.v) }

// Set accepts a decimal integer or an integral number in exponent form
// such as 1e6.
func (f *intFlag) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		x, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || x != math.Trunc(x) {
			return fmt.Errorf("%q is not an integer", s)
		}
		if math.Abs(x) > 1<<62 {
			return fmt.Errorf("%s is out of range", s)
		}
		v = int64(x)
	}
	f.v, f.set = v, true
	return nil
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", runSynopsis, stderr)
	var seed, requests intFlag
	fs.Var(&seed, "seed", "random seed `N` (integer ≥ 0); overrides the scenario's seed")
	fs.Var(&requests, "requests", "simulate `N` requests (≥ 1, 1e6 form allowed); overrides the scenario's requests")
	asJSON := fs.Bool("json", false, "write the report as JSON (field names documented in docs/report.md)")
	wide := wideFlag(fs)
	tracePath := pathFlag(fs, "trace", "also write one CSV row per attempt of the hedged run to `FILE` (for small runs; a symbolic link is written through)")
	out := pathFlag(fs, "out", "also write to `DIR` (created if needed; its parent must exist) report.txt, report.json and plots, each as .png and .svg: CLASS-adaptive-delay for a class with an adaptive delay (the delay over the run), CLASS-steps for a pipeline class (where its requests spend their time), pool-NAME-replicas for an autoscaled pool (its replicas over the run)")
	force := fs.Bool("force", false, "let --out replace a report another command (optimize) wrote there; files hedgesim did not write are never replaced")
	whatIf := addWhatIfFlags(fs)
	quiet := fs.Bool("quiet", false, "no progress bar (shown on stderr only when it is a terminal)")
	var workers intFlag
	fs.Var(&workers, "workers", "simulate on `n` goroutines at most, each run's requests split into ranges when they are independent (default: the number of CPUs); the report does not depend on it")
	var maxMemory byteSize
	fs.Var(&maxMemory, "max-memory", "refuse a run estimated to need more than `SIZE` of memory, such as 8GiB or 500MB (default: the tightest of the memory available, the rlimits and the cgroup's limit)")
	prec := addPrecisionFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	opts := whatIf.options()
	if requests.set && requests.v >= 1 && requests.v <= sim.MaxRequests {
		// The file is checked with the requests that will run.
		if opts == nil {
			opts = &scenario.Options{}
		}
		opts.Requests = requests.v
	}
	sc, err := scenarioArg(pos, seed, requests, sim.MaxRequests, opts)
	if err != nil {
		return err
	}
	for _, w := range sc.Ignored {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	if workers.set && (workers.v < 1 || workers.v > 4096) {
		return usageError{err: fmt.Errorf("--workers %d: must be in [1, 4096]", workers.v)}
	}
	if !workers.set {
		workers.v = int64(runtime.GOMAXPROCS(0))
	}
	cfg := sc.Config
	if requests.set {
		if err := flagAgreesWithSet(whatIf.options(), "requests", "--requests", requests.v, int64(cfg.Requests)); err != nil {
			return err
		}
		cfg.Requests = int(requests.v)
	}
	most, limit, err := prec.runLimit(&cfg, replayLoader(pos, opts, seed))
	if err != nil {
		return err
	}
	if err := prec.checkAtMost(cfg.Requests, most, limit); err != nil {
		return err
	}
	if prec.p.set && *tracePath != "" {
		return usageError{err: fmt.Errorf("--precision: cannot be combined with --trace (the trace would hold only the first run)")}
	}
	if *out != "" {
		if err := prepareOutDir("out", *out, "run", *force, flagPath{"trace", *tracePath}, flagPath{path: scenarioInput(pos).path}); err != nil {
			return err
		}
	}
	if err := cfg.Validate(); err != nil {
		if requests.set {
			return usageError{err: fmt.Errorf("--requests %d: %w", requests.v, err)}
		}
		return err
	}
	// The hedged run and its baseline run at once.
	need := 2 * sim.EstimateMemory(&cfg)
	what, lower := fmt.Sprintf("simulating %d requests (with hedging and without, at once)", cfg.Requests), "--requests"
	if n := cfg.ClosedClients(); n > 0 {
		what = fmt.Sprintf("simulating %d requests with %d closed-loop clients (with hedging and without, at once)", cfg.Requests, n)
		lower = "--requests or clients (every client is held for the whole run)"
	}
	if err := checkMemory(need, maxMemory, what, lower); err != nil {
		return err
	}
	var trace *traceFile
	if *tracePath != "" {
		if trace, err = createTrace(*tracePath, cfg.Pooled(), scenarioInput(pos)); err != nil {
			return err
		}
		defer trace.abort() // a no-op once committed
	}
	var fn func(*sim.AttemptRecord)
	if trace != nil {
		fn = trace.write
	}
	bar := newProgress(stderr, "run", *quiet)
	bar.live()
	// Only a report written as JSON holds each class's batch figures
	// (per_batch, for compare); the text report does without their cost.
	perBatch := *asJSON || *out != ""
	var rep *sim.Report
	if prec.p.set { // without a trace
		rep, err = prec.runToPrecision(ctx, &cfg, int(workers.v), bar, perBatch, func(c *sim.Config) error {
			return checkMemory(2*sim.EstimateMemory(c), maxMemory, fmt.Sprintf("simulating %d requests for --precision", c.Requests), "--max-requests")
		})
	} else {
		rep, err = simulate(ctx, &cfg, fn, int(workers.v), bar, perBatch)
	}
	bar.finish()
	if err != nil {
		return err
	}
	rep.ScenarioSHA256 = sc.SHA256
	rep.Overrides = sc.Overrides
	if trace != nil {
		if err := trace.commit(); err != nil {
			return fmt.Errorf("writing the trace: %w", err)
		}
	}
	// Only the form printed is written, unless --out needs both.
	var text, js bytes.Buffer
	if *out != "" {
		// report.txt holds the full-width text.
		if err := rep.WriteText(&text); err != nil {
			return err
		}
	}
	if *asJSON || *out != "" {
		if err := rep.WriteJSON(&js); err != nil {
			return err
		}
	}
	b := js.Bytes()
	if !*asJSON {
		if b, err = fittedText(stdout, *wide, rep.WriteText); err != nil {
			return err
		}
	}
	if *out != "" {
		if err := writeRunReport(ctx, *out, rep, text.Bytes(), js.Bytes()); err != nil {
			return err
		}
	}
	_, err = stdout.Write(b)
	return err
}

// simulate runs cfg and its no-hedging baseline at the same time and
// compares them, until ctx is done: together, split into ranges on
// workers goroutines, when their requests are independent
// (sim.RunWithBaseline); the report does not depend on workers. fn, when
// not nil, sees every attempt of the hedged run, from one goroutine (that
// run is then made on its own, beside its baseline); bar (may be nil)
// counts the two runs as steps as they finish. With perBatch the report
// holds each class's batch figures (sim.NewReportPerBatch).
func simulate(ctx context.Context, cfg *sim.Config, fn func(*sim.AttemptRecord), workers int, bar *progress, perBatch bool) (*sim.Report, error) {
	newReport := sim.NewReport
	if perBatch {
		newReport = sim.NewReportPerBatch
	}
	const stage = "hedged run and no hedging, at once"
	bar.set(stage, 0, 2)
	if fn == nil {
		hedged, base, err := sim.RunWithBaseline(ctx, cfg, workers)
		if err != nil {
			return nil, err
		}
		bar.set(stage, 2, 2)
		return newReport(cfg, hedged, base), nil
	}
	var finished atomic.Int32
	var base *sim.Result
	var baseErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		base, baseErr = sim.RunSplit(ctx, sim.WithoutHedging(cfg), workers)
		bar.set(stage, int(finished.Add(1)), 2)
	}()
	hedged, err := sim.RunTraceContext(ctx, cfg, fn)
	bar.set(stage, int(finished.Add(1)), 2)
	<-done
	if err != nil {
		return nil, err
	}
	if baseErr != nil {
		return nil, baseErr
	}
	return newReport(cfg, hedged, base), nil
}

// writeRunReport writes the report directory of `run --out` (writeFiles):
// report.txt, report.json, CLASS-adaptive-delay.{png,svg} for every class
// with an adaptive delay and CLASS-steps.{png,svg} (where the slowest and
// the median requests spend their time) for every pipeline class, and
// pool-NAME-replicas.{png,svg} (its replicas over the run) for every
// autoscaled pool.
func writeRunReport(ctx context.Context, dir string, rep *sim.Report, text, js []byte) error {
	files := []outFile{{"report.txt", text}, {"report.json", js}}
	used := map[string]bool{}
	for i := range rep.Classes {
		c := &rep.Classes[i]
		var figs []plots.Figure
		if len(c.AdaptiveDelay) > 0 {
			figs = append(figs, plots.AdaptiveDelayFigure(c.Class, plots.AdaptiveDelayData(c.AdaptiveDelay, 0)))
		}
		if c.Pipeline != nil {
			figs = append(figs, plots.BreakdownFigure(plots.BreakdownData(c)))
		}
		if len(figs) == 0 {
			continue
		}
		var err error
		if files, err = appendFigures(files, fileStem(c.Class, fmt.Sprintf("class-%d", i+1), used), figs); err != nil {
			return fmt.Errorf("class %q: %w", c.Class, err)
		}
	}
	for i := range rep.Pools {
		p := &rep.Pools[i]
		if p.Autoscale == nil {
			continue
		}
		var err error
		figs := []plots.Figure{plots.ReplicasFigure(plots.ReplicasData(p))}
		if files, err = appendFigures(files, fileStem("pool-"+p.Provider, fmt.Sprintf("pool-%d", i+1), used), figs); err != nil {
			return fmt.Errorf("pool %q: %w", p.Provider, err)
		}
	}
	return writeFiles(ctx, dir, "run", files)
}

// appendFigures renders each figure in every format onto files, as
// STEM-NAME.FORMAT.
func appendFigures(files []outFile, stem string, figs []plots.Figure) ([]outFile, error) {
	for _, f := range figs {
		for _, format := range plots.Formats {
			data, err := f.Render(format)
			if err != nil {
				return nil, err
			}
			files = append(files, outFile{fmt.Sprintf("%s-%s.%s", stem, f.Name, format), data})
		}
	}
	return files, nil
}

// traceFile streams attempt rows into a temporary file beside the trace's
// target (checkOutput) and renames it into place on commit, so memory
// stays flat and an interrupted run leaves no partial trace.
type traceFile struct {
	out  *outputFile
	tmp  *os.File
	w    *bufio.Writer
	row  []byte
	err  error
	done bool
	// replicas adds the replica column (a scenario with a replica pool).
	replicas bool
}

// createTrace checks the trace path (checkOutput; never one of inputs)
// and opens its temporary file; errors are usage errors, reported before
// anything is simulated. With replicas, rows have a replica column.
func createTrace(path string, replicas bool, inputs ...input) (*traceFile, error) {
	out, err := checkOutput("trace", path, inputs...)
	if err != nil {
		return nil, err
	}
	tmp, err := out.createTemp()
	if err != nil {
		return nil, usageError{err: fmt.Errorf("--trace %s: cannot write there: %w", path, err)}
	}
	t := &traceFile{out: out, tmp: tmp, w: bufio.NewWriterSize(tmp, 1<<16), replicas: replicas}
	head := sim.TraceCSVHeader
	if replicas {
		head = sim.TraceReplicaCSVHeader
	}
	_, t.err = t.w.WriteString(head)
	return t, nil
}

func (t *traceFile) write(r *sim.AttemptRecord) {
	if t.err != nil {
		return
	}
	if t.replicas {
		t.row = r.AppendReplicaCSV(t.row[:0])
	} else {
		t.row = r.AppendCSV(t.row[:0])
	}
	_, t.err = t.w.Write(t.row)
}

// commit flushes the rows and renames the file into place.
func (t *traceFile) commit() error {
	if t.err == nil {
		t.err = t.w.Flush()
	}
	if t.err == nil {
		t.err = t.tmp.Chmod(0o644)
	}
	if t.err == nil {
		t.err = t.tmp.Sync()
	}
	if t.err == nil {
		t.err = t.tmp.Close()
	}
	if t.err == nil {
		t.err = os.Rename(t.tmp.Name(), t.out.target())
	}
	if t.err == nil {
		t.done = true
		syncDir(t.out.dir)
	}
	return t.err
}

// abort removes the temporary file unless the trace was committed.
func (t *traceFile) abort() {
	if !t.done {
		t.tmp.Close()
		os.Remove(t.tmp.Name())
	}
}
