package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/export"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/plots"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// floatFlag is a float flag that remembers whether it was set.
type floatFlag struct {
	v   float64
	set bool
}

func (f *floatFlag) String() string { return strconv.FormatFloat(f.v, 'g', -1, 64) }
func (f *floatFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) {
		return fmt.Errorf("%q is not a number", s)
	}
	f.v, f.set = v, true
	return nil
}

// boolFlag is a boolean flag that remembers whether it was set.
type boolFlag struct {
	v   bool
	set bool
}

func (f *boolFlag) IsBoolFlag() bool { return true }
func (f *boolFlag) String() string   { return strconv.FormatBool(f.v) }
func (f *boolFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%q is not true or false", s)
	}
	f.v, f.set = v, true
	return nil
}

// durationFlag is a duration flag (with a unit) that remembers whether it
// was set.
type durationFlag struct {
	v   time.Duration
	set bool
}

func (f *durationFlag) String() string { return f.v.String() }
func (f *durationFlag) Set(s string) error {
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	f.v, f.set = v, true
	return nil
}

// listFlag is a comma-separated list flag.
type listFlag struct {
	v   []string
	raw string
	set bool
	// same returns the value x stands for (a delay's duration, a copy
	// count), and ok false for an x that is not one (left for the
	// caller's own error); nil: x stands for itself. No value may be
	// listed twice.
	same func(x string) (key string, ok bool)
}

func (f *listFlag) String() string { return strings.Join(f.v, ",") }
func (*listFlag) checksRepeats()   {} // refuses a second list itself

// Set takes a comma-separated list; an empty list or an empty element
// ("1s,,2s", a trailing comma) is an error naming the element. A second
// Set of the same list (the same values in the same order, by same:
// "1s,2s" and "1000ms,2s") changes nothing; of another list it is an
// error naming both lists: the second would silently replace the first.
// A value listed twice ("fast,fast", or "1s,1000ms" by same)
// is an error naming both: a repeat would only repeat candidates, or
// models, or classes.
func (f *listFlag) Set(s string) error {
	if f.set {
		if k := f.keys(s); k != nil && slices.Equal(k, f.keys(f.raw)) {
			return nil
		}
		return givenTwice(f.raw, s)
	}
	f.v, f.raw, f.set = nil, s, true
	if strings.TrimSpace(s) == "" {
		return errors.New("empty list")
	}
	seen := map[string]string{}
	for i, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x == "" {
			return fmt.Errorf("element %d is empty; want a comma-separated list with no empty elements", i+1)
		}
		k, ok := x, true
		if f.same != nil {
			k, ok = f.same(x)
		}
		if ok {
			if prev, dup := seen[k]; dup {
				if prev == x {
					return fmt.Errorf("%s is listed twice; list each value once", x)
				}
				return fmt.Errorf("%s is listed twice (as %s and %s); list each value once", prev, prev, x)
			}
			seen[k] = x
		}
		f.v = append(f.v, x)
	}
	return nil
}

// keys returns the values the list s stands for, in order (by same), or
// nil when an element is empty or not a value.
func (f *listFlag) keys(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		k, ok := strings.TrimSpace(x), true
		if f.same != nil {
			k, ok = f.same(k)
		}
		if !ok || k == "" {
			return nil
		}
		out = append(out, k)
	}
	return out
}

// givenTwice is the error of a flag given a second time, first then
// second: the flag package names the flag, and the command exits 2.
func givenTwice(first, second string) error {
	return fmt.Errorf("given twice (%q, then %q); give every value in one comma-separated list", first, second)
}

// onceFlag is a string flag that may be given one value: a second,
// other value would silently replace the first; the same text again is
// taken once.
type onceFlag struct {
	v   string
	set bool
}

func (f *onceFlag) String() string { return f.v }
func (*onceFlag) checksRepeats()   {} // refuses a second value itself

// Set takes s, or refuses a second value other than the first.
func (f *onceFlag) Set(s string) error {
	if f.set && s != f.v {
		return fmt.Errorf("given twice (%q, then %q); give it once", f.v, s)
	}
	f.v, f.set = s, true
	return nil
}

// sameDelay is a --delays list's value: the duration x stands for.
func sameDelay(x string) (string, bool) {
	d, err := time.ParseDuration(x)
	return strconv.FormatInt(int64(d), 10), err == nil
}

// sameCount is a --copies list's value: the integer x stands for.
func sameCount(x string) (string, bool) {
	k, err := strconv.Atoi(x)
	return strconv.Itoa(k), err == nil
}

func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration; want a number with a unit, such as 750ms or 2s", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative; want a duration ≥ 0", s)
	}
	return d, nil
}

const optimizeSynopsis = `optimize [flags] [SCENARIO]

Sweeps the hedge delay (and optionally the number of copies and the hedge
target) of every traffic class on the same random draws, and prints per class
the recommended delay, p95/p99 before and after with confidence intervals, the
answered and hedged shares, the added cost and a verdict (hedge or don't, with
the reason; undecided, not "don't hedge", on too few requests for a percentile
interval unless the unanswered share falls significantly, or on a sweep shorter
than one slow-period cycle of a provider the class uses; --write-scenario
keeps an undecided class's configured policy).
Settings come from the scenario's [optimize] table (scenarios/README.md);
flags override them for every class. With --out, the report (report.txt,
report.json, index.html — the whole report as one self-contained page for a
review — and candidates.csv) and plots (CLASS-cost, CLASS-survival,
CLASS-delay, as PNG and SVG; no survival plot for a class without an answered
request, and no plot for a class without requests) are written to DIR; CLASS
is the class's name in ASCII letters, digits, '-', '_' and '.' (others '_'),
or class-N, its place in the scenario, for a name with no ASCII letter or
digit.

With --shard i/n (0 ≤ i < n), only shard i's share of the candidates is
simulated and written as a part to --out FILE; hedgesim merge combines the
n parts into the report this command writes without --shard (hedgesim help
merge).`

// optimizeJob is a parsed optimize command line.
type optimizeJob struct {
	args    []string // as given
	sc      *scenario.Scenario
	cfg     sim.Config
	s       optimize.Settings
	workers int
	out     string
	asJSON  bool
	wide    bool // --wide: the text at full width
	all     bool
	noPlots bool
	quiet   bool
	ws      *rolloutWriter
	// writeScenario is the command line's own --write-scenario file (""
	// without one): args write the scenario themselves. merge's ws comes
	// from its own flag, not from args.
	writeScenario string
	// shard is set by --shard (out is then the part's file), resume by
	// --resume.
	shard   *optimize.Shard
	resume  string
	prec    *precisionFlags // --precision, --max-requests
	partial partArgs        // args without --shard and --resume, for the part
	// scenarioArgs are the positional arguments: the scenario, if named.
	scenarioArgs []string
	settings     []string // resultSettings
}

func cmdOptimize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	job, err := parseOptimize(args, stderr)
	if err != nil {
		return err
	}
	if job.shard != nil {
		return runShard(ctx, job, stdout, stderr)
	}
	opt := optimize.Options{Workers: job.workers, Context: ctx}
	bar := newProgress(stderr, "optimize", job.quiet)
	if bar != nil {
		opt.Progress = bar.set
		bar.live()
	}
	if job.ws != nil {
		job.ws.notes, job.ws.cmd = stderr, "hedgesim optimize"
	}
	rep, err := job.optimize(ctx, opt)
	bar.finish()
	if err != nil {
		return err
	}
	warnNotSimulated(stderr, "hedgesim optimize", rep)
	return job.finish(ctx, rep, stdout)
}

// warnNotSimulated writes a warning on stderr for each class of rep that
// was not simulated (optimize.ClassReport.NotSimulated), so that a report
// read only for the other classes' picks does not hide it; cmd, the
// command ("hedgesim optimize" or "hedgesim merge"), prefixes each.
func warnNotSimulated(stderr io.Writer, cmd string, rep *optimize.Report) {
	for i := range rep.Classes {
		if why := rep.Classes[i].NotSimulated(); why != "" {
			printMessage(stderr, cmd+": warning: class %q: %s; it is reported undecided, its latencies unknown (\"-\", JSON null), the other classes optimized\n", rep.Classes[i].Class, why)
		}
	}
}

// optimize runs the optimization of job with options opt: to the
// precision asked, if any, extending the candidates' runs at each
// doubling (optimize.Growth) unless job.prec.resimulate, which runs the
// whole optimization again from the start each time.
func (job *optimizeJob) optimize(ctx context.Context, opt optimize.Options) (*optimize.Report, error) {
	if !job.prec.p.set || job.prec.resimulate {
		rep, err := optimize.Run(&job.cfg, job.s, opt)
		if err != nil {
			return nil, err
		}
		return job.prec.toPrecisionOptimize(ctx, &job.s, rep, func(s optimize.Settings) (*optimize.Report, error) {
			return optimize.Run(&job.cfg, s, opt)
		})
	}
	g := optimize.NewGrowth(&job.cfg, opt)
	rep, err := g.Sweep(job.s)
	if err == nil {
		rep, err = job.prec.toPrecisionOptimize(ctx, &job.s, rep, g.Sweep)
	}
	if err != nil {
		return nil, err
	}
	rep.Precision.Simulated = g.Simulated()
	return rep, g.Finish(job.s, rep)
}

// parseOptimize parses and checks an optimize command line, loads its
// scenario and checks, before any simulation, that its outputs can be
// written.
func parseOptimize(args []string, stderr io.Writer) (*optimizeJob, error) {
	fs := newFlagSet("optimize", optimizeSynopsis, stderr)
	var seed, requests, workers intFlag
	var maxCost, maxHedged, minGain, minGainPerCost, minCut, confidence floatFlag
	var from, to, step, sla, target durationFlag
	var targets, classes, balancers, minReplicas listFlag
	delays, copies := listFlag{same: sameDelay}, listFlag{same: sameCount}
	var significant, allowFewer, excludeOverload, alone boolFlag
	var checkRequests intFlag
	fs.Var(&seed, "seed", "random seed, overrides the scenario's `seed` (integer ≥ 0)")
	fs.Var(&requests, "requests", "`n` requests simulated per candidate (default 200000, or [optimize] requests)")
	fs.Var(&delays, "delays", "hedge delays to try, comma-separated `list` such as 100ms,250ms,1s (default: 0, 3 delays below the class's no-hedging p10 and 40 from its p10 to its p99)")
	fs.Var(&from, "from", "first `duration` of a delay range, with --to and --step (default 0s)")
	fs.Var(&to, "to", "last `duration` of a delay range")
	fs.Var(&step, "step", "`duration` between the delays of a range")
	fs.Var(&copies, "copies", "max copies beyond the primary to try, comma-separated `list` such as 1,2 (default: the class's max_copies)")
	fs.Var(&targets, "targets", "models to send copies to, comma-separated `list` (default: the class's targets)")
	groupObjective := fs.String("group-objective", "", "how classes optimized jointly are picked: weighted (the lowest traffic-weighted p95/p99 of the group), worst (the lowest worst ratio of a class's percentile to its own without hedging) or each (each class's own objective) (default weighted, or [optimize] group_objective)")
	objective := fs.String("objective", "", "`name` of what to optimise: p95, p99 (lowest percentile within the caps), cost (lowest cost with p95 ≤ --sla), knee, answered (most requests answered within --target), checked (most pipeline turns checked within --target: every fail-open step answered in time) (default p95, or [optimize] objective)")
	fs.Var(&target, "target", "answered and checked objectives: the `latency` within which a request counts as answered (or checked), such as 2s")
	fs.Var(&allowFewer, "allow-fewer-answers", "let the pick answer significantly fewer requests than no hedging (default false: a pick never trades answers for speed)")
	fs.Var(&excludeOverload, "exclude-overload", "exclude every candidate that overloads a rate limit no hedging does not, even when the sweep measured its 429s (default false: such a candidate is judged on its measured figures when the sweep spans at least 20 refills of the limit's bucket, excluded otherwise)")
	fs.Var(&maxCost, "max-cost", "p95, p99 and answered objectives: a hard ceiling on added cost, in `percent` of no hedging (default inf: none; the pick is where the trade-off ends)")
	fs.Var(&maxHedged, "max-hedged", "the largest share of requests that may send a copy, in `percent` (default 100)")
	fs.Var(&sla, "sla", "cost objective: the `latency` p95 must not exceed, such as 2s")
	fs.Var(&minGain, "min-gain", "verdict: the smallest improvement worth having, in `percent` (default 10)")
	fs.Var(&minGainPerCost, "min-gain-per-cost", "verdict: the `percent` of p95 (p99) each percent of added cost must buy (default 1)")
	fs.Var(&minCut, "min-unanswered-cut-per-cost", "verdict: the `percent` of the unanswered share each percent of added cost must cut (default 0.5)")
	fs.Var(&significant, "require-significant", "verdict: require the improvement to be significant (default true)")
	fs.Var(&confidence, "confidence", "confidence `level` of the intervals (default 0.95)")
	fs.Var(&classes, "classes", "optimise only these classes, comma-separated `list` of names")
	fs.Var(&balancers, "balancers", "also sweep the scenario with every replica pool set to each of these balancers, comma-separated `list` of random, round_robin, least_outstanding, p2c, latency_ewma, and compare each class's options under every balancer (a scenario with a [providers.NAME.pool])")
	fs.Var(&minReplicas, "min-replicas", "also sweep the scenario, with its rollout check, with every autoscaled pool's min_replicas set to each of these keep-warm floors, comma-separated `list` such as 0,1,2, and compare the fleet's dollars a month, idle replicas included (a scenario with a [providers.NAME.pool.autoscale])")
	fs.Var(&workers, "workers", "`n` candidates simulated at once (default: the number of CPUs); the report does not depend on it")
	fs.Var(&alone, "alone", "sweep every class alone at its share of the traffic, even classes coupled by a shared limited provider, model or budget (default false: those are optimized jointly)")
	fs.Var(&checkRequests, "check-requests", "`n` requests of the rollout check, the whole scenario with every pick applied (default 1000000, or 5 × --requests when less; 0 skips it)")
	writeScenario := pathFlag(fs, "write-scenario", "write the scenario with every pick applied to `FILE`, so that `hedgesim run FILE` reproduces the rollout check; only the hedge tables ([classes.hedge], [classes.steps.hedge]), the top-level requests and seed (the rollout check's) and a relative arrivals.trace or #:schema path (made absolute, to be found from FILE) change; comments are kept, the #:schema line and the header comments first, and a symbolic link is written through")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of tables")
	wide := wideFlag(fs)
	all := fs.Bool("all", false, "list every candidate in the tables, not only the frontier")
	out := pathFlag(fs, "out", "write report.txt, report.json, index.html (the whole report as one self-contained page), candidates.csv and PNG/SVG plots to `DIR` (created if needed; its parent must exist); with --shard, the file to write the part to")
	force := fs.Bool("force", false, "let --out replace a report another command (run) wrote there; files hedgesim did not write are never replaced")
	noPlots := fs.Bool("no-plots", false, "with --out, do not draw plots")
	whatIf := addWhatIfFlags(fs)
	prec := addPrecisionFlags(fs)
	quiet := fs.Bool("quiet", false, "no progress bar (shown on stderr only when it is a terminal)")
	var maxMemory byteSize
	fs.Var(&maxMemory, "max-memory", "refuse a sweep estimated to need more than `SIZE` of memory, such as 8GiB or 500MB (default: the tightest of the memory available, the rlimits and the cgroup's limit)")
	shardFlag := fs.String("shard", "", "simulate only shard `i/n` of the sweep (0 ≤ i < n, 0-based like JOB_COMPLETION_INDEX) and write the part to --out FILE; hedgesim merge makes the report from every shard's part")
	adaptive := addAdaptiveFlag(fs)
	resume := pathFlag(fs, "resume", "with --shard: continue a sweep from the `STATE` file hedgesim merge wrote when coupled classes need another stage")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if err := positiveLatencies(&target, &sla); err != nil {
		return nil, err
	}
	if err := optimizeFlagsAgreeWithSet(fs, whatIf.set); err != nil {
		return nil, err
	}
	if err := adaptive.check(*writeScenario, *shardFlag); err != nil {
		return nil, err
	}
	if f := fs.Lookup("objective"); f != nil && *objective == "" {
		set := false
		fs.Visit(func(g *flag.Flag) { set = set || g == f })
		if set {
			return nil, usageError{err: errors.New("--objective: empty; want p95, p99, cost, knee, answered or checked")}
		}
	}
	var shard *optimize.Shard
	if *shardFlag != "" {
		sh, err := optimize.ParseShard(*shardFlag)
		if err != nil {
			return nil, usageError{err: fmt.Errorf("--shard: %v", err)}
		}
		shard = &sh
		switch {
		case *out == "":
			return nil, usageError{err: errors.New("--shard needs --out FILE, the file to write the part to")}
		case *writeScenario != "":
			return nil, usageError{err: errors.New("--write-scenario cannot go with --shard: the picks are known only when hedgesim merge has every part; pass --write-scenario FILE to hedgesim merge instead")}
		case balancers.set:
			return nil, usageError{err: errors.New("--balancers cannot go with --shard: a sharded sweep covers the scenario's own balancers; compare balancers in one process, or shard one sweep per balancer with --set providers.NAME.pool.balancer=…")}
		case minReplicas.set:
			return nil, usageError{err: errors.New("--min-replicas cannot go with --shard: a sharded sweep covers the scenario's own pools; compare floors in one process")}
		}
	} else if *resume != "" {
		return nil, usageError{err: errors.New("--resume needs --shard: it continues a sharded sweep")}
	}
	opts := whatIf.options()
	if sla.set || target.set {
		// The file's objectives are checked with what the flags give them.
		if opts == nil {
			opts = &scenario.Options{}
		}
		opts.SLA, opts.Target = sla.v, target.v
	}
	sc, err := scenarioArg(pos, seed, requests, optimize.MaxRequests, opts)
	if err != nil {
		return nil, err
	}
	for _, w := range sc.Ignored {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	switch {
	case *out != "" && shard != nil:
		if err := checkPartOutput("out", *out, partFormat, input{"the --resume state", *resume}, scenarioInput(pos)); err != nil {
			return nil, err
		}
	case *out != "":
		if err := prepareOutDir("out", *out, "optimize", *force, flagPath{"write-scenario", *writeScenario}, flagPath{path: scenarioInput(pos).path}); err != nil {
			return nil, err
		}
	}
	cfg := sc.Config
	s := sc.Optimize
	if requests.set {
		s.Requests = int(requests.v)
	}
	if workers.set && (workers.v < 1 || workers.v > 4096) {
		return nil, usageError{err: fmt.Errorf("--workers %d: must be in [1, 4096]", workers.v)}
	}
	if confidence.set {
		s.Level = confidence.v
	}
	if minGain.set {
		s.Rule.MinGainPct = minGain.v
	}
	if minGainPerCost.set {
		s.Rule.MinGainPerCost = minGainPerCost.v
	}
	if minCut.set {
		s.Rule.MinUnansweredCutPerCost = minCut.v
	}
	if significant.set {
		s.Rule.RequireSignificant = significant.v
	}
	if allowFewer.set {
		s.Rule.AllowFewerAnswers = allowFewer.v
	}
	if excludeOverload.set {
		s.Rule.ExcludeOverload = excludeOverload.v
	}
	if *groupObjective != "" {
		if !slices.Contains(optimize.GroupObjectives, *groupObjective) {
			return nil, usageError{err: fmt.Errorf("--group-objective %q: want weighted, worst or each", *groupObjective)}
		}
		s.GroupObjective = *groupObjective
	}
	if alone.set {
		s.Alone = alone.v
	}
	if checkRequests.set {
		if checkRequests.v < 0 || checkRequests.v > optimize.MaxRequests {
			return nil, usageError{err: fmt.Errorf("--check-requests %d: must be in [0, %d] (0 skips the rollout check)", checkRequests.v, optimize.MaxRequests)}
		}
		s.CheckRequests = int(checkRequests.v)
	}
	var ws *rolloutWriter
	if *writeScenario != "" && whatIf.options() != nil {
		return nil, usageError{err: errors.New("--write-scenario cannot go with --set or --scale-rate: the file written holds the picks, not the overrides, so running it would not reproduce the rollout check; put the overrides in the scenario file first")}
	}
	if *writeScenario != "" {
		arg := ""
		if len(pos) == 1 {
			arg = pos[0]
		}
		if ws, err = newRolloutWriter(*writeScenario, arg, &sc.Config); err != nil {
			return nil, err
		}
	}
	if classes.set {
		s.Only = classes.v
	}
	if balancers.set {
		if !cfg.Pooled() {
			return nil, usageError{err: errors.New("--balancers: the scenario has no replica pool ([providers.NAME.pool]) for a balancer to route")}
		}
		for _, name := range balancers.v {
			b, ok := balancerNamed(name)
			if !ok {
				return nil, usageError{err: fmt.Errorf("--balancers: unknown balancer %q%s; allowed: %s", name, didYouMean(name), strings.Join(balancerNames(), ", "))}
			}
			if !slices.Contains(s.Balancers, b) {
				s.Balancers = append(s.Balancers, b)
			}
		}
	}

	if minReplicas.set {
		if s.CheckRequests == 0 {
			return nil, usageError{err: errors.New("--min-replicas needs the rollout check, whose replica-hours it compares: drop --check-requests 0 (or check_requests = 0)")}
		}
		if s.MinReplicas, err = parseMinReplicas(minReplicas.v, &cfg); err != nil {
			return nil, err
		}
	}

	// Search overrides, applied to every class.
	var grid []time.Duration
	switch rng := from.set || to.set || step.set; {
	case delays.set && rng:
		return nil, usageError{err: errors.New("--delays and --from/--to/--step are exclusive")}
	case delays.set:
		for _, x := range delays.v {
			d, err := parseDuration(x)
			if err != nil {
				return nil, usageError{err: fmt.Errorf("--delays: %v", err)}
			}
			grid = append(grid, d)
		}
		if len(grid) > optimize.MaxDelays {
			return nil, usageError{err: fmt.Errorf("--delays: %d delays; at most %d", len(grid), optimize.MaxDelays)}
		}
		grid = optimize.NormalizeDelays(grid)
	case rng:
		if !to.set || !step.set {
			// Say which is missing, and that --to is below --from too
			// when it is: "--from 2s --to 1s" gave --to.
			var missing []string
			for _, f := range []struct {
				name string
				set  bool
			}{{"--to", to.set}, {"--step", step.set}} {
				if !f.set {
					missing = append(missing, f.name)
				}
			}
			msg := fmt.Sprintf("a delay range needs --to and --step (--from defaults to 0s): %s not given", strings.Join(missing, " and "))
			if to.set && to.v < from.v {
				msg += fmt.Sprintf("; and --to %v is below --from %v", to.v, from.v)
			}
			return nil, usageError{err: errors.New(msg)}
		}
		if grid, err = optimize.DelayRange(from.v, to.v, step.v); err != nil {
			return nil, usageError{err: fmt.Errorf("--from/--to/--step: %v", err)}
		}
	}
	var copyList []int
	for _, x := range copies.v {
		k, err := strconv.Atoi(x)
		if err != nil {
			return nil, usageError{err: fmt.Errorf("--copies: %q is not an integer", x)}
		}
		copyList = append(copyList, k)
	}
	if err := checkSearchFlagValues(&maxCost, &maxHedged, copyList); err != nil {
		return nil, err
	}
	var objErr error
	s.Each(func(se *optimize.Search) {
		adaptive.apply(se)
		if grid != nil {
			se.Delays = grid
		}
		if copies.set {
			se.Copies = copyList
		}
		if targets.set {
			se.Targets = targets.v
		}
		o := &se.Objective
		if *objective != "" {
			if err := o.SetName(*objective); err != nil {
				objErr = err
			}
		}
		if maxCost.set {
			o.MaxAddedCostPct = maxCost.v
		}
		if maxHedged.set {
			o.MaxHedgedPct = maxHedged.v
		}
		if sla.set {
			o.SLA = sla.v
		}
		if target.set {
			o.Target = target.v
		}
	})
	if objErr != nil {
		return nil, usageError{err: fmt.Errorf("--objective: %v", objErr)}
	}
	if *objective != "" {
		for i := range cfg.Classes {
			cl := &cfg.Classes[i]
			if s.For(cl.Name).Objective.Checked && !optimize.CanCheck(cl) && (len(s.Only) == 0 || slices.Contains(s.Only, cl.Name)) {
				return nil, usageError{err: fmt.Errorf("--objective %s: class %q: %s", *objective, cl.Name, optimize.NotCheckable)}
			}
		}
	}
	if err := checkObjectiveNeeds(&s, &cfg, *objective); err != nil {
		return nil, err
	}
	delayFlags := "--delays " + strings.Join(delays.v, ",")
	if !delays.set {
		delayFlags = fmt.Sprintf("--from %s --to %s --step %s", &from, &to, &step)
	}
	if err := checkDelayFlags(delayFlags, grid, &s, &cfg, stderr); err != nil {
		return nil, err
	}
	if err := objectiveFlagsApply(&s, *objective, []objectiveFlag{
		{"max-cost", maxCost.String(), maxCost.set, []optimize.Goal{optimize.LowestLatency, optimize.MostAnswered}, "p95, p99, answered or checked"},
		{"sla", sla.String(), sla.set, []optimize.Goal{optimize.LowestCost}, "cost"},
		{"target", target.String(), target.set, []optimize.Goal{optimize.MostAnswered}, "answered or checked"},
	}); err != nil {
		return nil, err
	}
	if err := s.Validate(&cfg); err != nil {
		return nil, usageError{err: err}
	}
	most, limit := traceLimit(&cfg, s.Only)
	if most < sim.MaxRequests {
		prec.arrivals = most
	}
	if err := prec.checkAtMost(s.Requests, most, limit); err != nil {
		return nil, err
	}
	if prec.p.set && (shard != nil || *resume != "") {
		return nil, usageError{err: fmt.Errorf("--precision: cannot be combined with --shard or --resume (each part would double on its own)")}
	}

	if err := checkMemory(optimize.EstimateMemory(&cfg, s, int(workers.v)), maxMemory,
		fmt.Sprintf("optimizing with %d requests per candidate", s.Requests), "--requests, --workers or --check-requests"); err != nil {
		return nil, err
	}
	job := &optimizeJob{
		args: args, sc: sc, cfg: cfg, s: s, workers: int(workers.v), out: *out,
		asJSON: *asJSON, wide: *wide, all: *all, noPlots: *noPlots, quiet: *quiet, ws: ws, writeScenario: *writeScenario,
		shard: shard, resume: *resume, scenarioArgs: pos, prec: prec,
	}
	if shard != nil {
		job.partial = newPartArgs(fs, args)
	}
	job.settings = resultSettings(fs)
	return job, nil
}

// exportScenarioFlag returns " --scenario FILE" for the export command
// that finish prints, FILE the scenario file as given, when export would
// not find the scenario by the report's scenario name: a file other than
// the built-in scenario of that name (its own file name or directory
// aside). It returns "" for a built-in scenario, named or the default, and
// for a file identical to the built-in of its name.
func (job *optimizeJob) exportScenarioFlag() string {
	if len(job.scenarioArgs) != 1 {
		return "" // the built-in default
	}
	arg := job.scenarioArgs[0]
	if st, err := os.Stat(arg); err != nil || st.IsDir() {
		return "" // a built-in scenario, named (loadScenarioWith)
	}
	if b, err := scenario.LoadFS(scenarios.FS, job.sc.Config.Name+".toml"); err == nil && b.SHA256 == job.sc.SHA256 {
		return ""
	}
	return " --scenario " + shellQuote(arg)
}

// finish writes the report rep of job: to --out DIR when set, to
// --write-scenario when set, and to stdout.
func (job *optimizeJob) finish(ctx context.Context, rep *optimize.Report, stdout io.Writer) error {
	rep.ScenarioSHA256 = job.sc.SHA256
	rep.Overrides = job.sc.Overrides
	formats := strings.Join(export.Formats, "|")
	switch {
	case job.out != "":
		rep.ExportCommand = fmt.Sprintf("hedgesim export --format %s%s %s", formats, job.exportScenarioFlag(), shellQuote(filepath.Join(job.out, "report.json")))
	case job.ws != nil:
		rep.ExportCommand = fmt.Sprintf("hedgesim export --format %s %s", formats, shellQuote(job.ws.out.path))
	default:
		rep.ExportCommand = fmt.Sprintf("rerun with --out DIR, then hedgesim export --format %s%s DIR/report.json", formats, job.exportScenarioFlag())
	}

	var text, js bytes.Buffer
	if err := rep.WriteText(&text, job.all); err != nil {
		return err
	}
	if err := rep.WriteJSON(&js); err != nil {
		return err
	}
	if job.out != "" {
		if err := writeReport(ctx, job.out, rep, text.Bytes(), js.Bytes(), !job.noPlots, job.args, job.writeScenario); err != nil {
			return err
		}
	}
	var err error
	if job.asJSON {
		_, err = stdout.Write(js.Bytes())
	} else {
		var b []byte
		if b, err = fittedText(stdout, job.wide, func(w io.Writer) error { return rep.WriteText(w, job.all) }); err == nil {
			_, err = stdout.Write(b)
		}
	}
	if err != nil {
		return err
	}
	if job.ws != nil {
		// After the report, so that a failure here does not lose it.
		return job.ws.write(&job.cfg, rep)
	}
	return nil
}

// writeReport renders every file of the report in memory, then writes them
// as the report directory dir (writeFiles: built beside it and swapped in
// whole, so dir holds one complete report or the previous one); args are
// the command's arguments, writeScenario its --write-scenario file ("" when
// none), for index.html's commands.
func writeReport(ctx context.Context, dir string, rep *optimize.Report, text, js []byte, withPlots bool, args []string, writeScenario string) error {
	files := []outFile{{"report.txt", text}, {"report.json", js}}
	page, err := htmlIndex(rep, args, writeScenario, withPlots)
	if err != nil {
		return err
	}
	files = append(files, outFile{"index.html", page})
	var csv bytes.Buffer
	if err := rep.WriteCSV(&csv); err != nil {
		return err
	}
	files = append(files, outFile{"candidates.csv", csv.Bytes()})
	if withPlots {
		used := map[string]bool{}
		for i := range rep.Classes {
			cr := &rep.Classes[i]
			stem := fileStem(cr.Class, fmt.Sprintf("class-%d", i+1), used)
			for _, f := range plots.ClassFigures(cr, rep.Level) {
				for _, format := range plots.Formats {
					data, err := f.Render(format)
					if err != nil {
						return fmt.Errorf("class %q: %w", cr.Class, err)
					}
					files = append(files, outFile{fmt.Sprintf("%s-%s.%s", stem, f.Name, format), data})
				}
			}
		}
	}
	return writeFiles(ctx, dir, "optimize", files)
}

// maxStem bounds a class's part of a figure's file name.
const maxStem = 200

// fileStem turns a class name into a file-name stem of ASCII letters,
// digits, '-', '_' and '.' (each other character '_'), unique among those
// in used (then "-2", "-3", …). A name with no ASCII letter or digit
// (聊天, ..) would say nothing: its stem is fallback, the class's place
// in the scenario ("class-3").
func fileStem(class, fallback string, used map[string]bool) string {
	var b strings.Builder
	for _, r := range class {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	stem := strings.TrimLeft(b.String(), ".")
	if !strings.ContainsFunc(stem, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' }) {
		stem = fallback
	}
	// File names are at most 255 bytes on most file systems: room for the
	// figure's suffix ("-2-adaptive-delay.png") is kept.
	if len(stem) > maxStem {
		stem = stem[:maxStem]
	}
	for i, s := 2, stem; ; i++ {
		if !used[strings.ToLower(s)] {
			used[strings.ToLower(s)] = true
			return s
		}
		s = fmt.Sprintf("%s-%d", stem, i)
	}
}

// rolloutWriter writes the scenario with every pick applied
// (--write-scenario).
type rolloutWriter struct {
	out      *outputFile
	name     string // the input scenario's file name, for errors
	src      []byte
	traceDir string // where the input's relative paths are rooted
	// notes, when set, is where write says what it did not take from
	// the report (an undecided class keeps its configured policy), each
	// note prefixed with cmd ("hedgesim optimize" or "hedgesim merge").
	notes io.Writer
	cmd   string
}

// newRolloutWriter checks, before any simulation, that the scenario named
// by arg can be rewritten and that path can be written: the hedge tables
// are [classes.hedge] tables, path passes checkOutput (it is not the
// input scenario, nor any of inputs), and a replayed trace can be found
// from path.
func newRolloutWriter(path, arg string, cfg *sim.Config, inputs ...input) (*rolloutWriter, error) {
	bad := func(format string, a ...any) error {
		return usageError{err: fmt.Errorf("--write-scenario %s: "+format, append([]any{path}, a...)...)}
	}
	name, src, err := scenarioSource(arg)
	if err != nil {
		return nil, err
	}
	var file input
	if arg != "" {
		file = scenarioInput([]string{arg})
	}
	out, err := checkOutput("write-scenario", path, append(inputs, file)...)
	if err != nil {
		return nil, err
	}
	w := &rolloutWriter{out: out, name: name, src: src}
	if file.path != "" {
		if abs, err := filepath.Abs(filepath.Dir(name)); err == nil {
			w.traceDir = abs
		}
	} else if cfg.Arrivals.Process == sim.Replay {
		return nil, bad("the built-in scenario %s replays a trace stored in the binary; pass the scenario's file path instead", name)
	}
	// Every class's table must be one that can be rewritten: try it now.
	var edits []scenario.HedgeEdit
	for _, cl := range cfg.Classes {
		if cl.Pipeline == nil {
			edits = append(edits, scenario.HedgeEdit{Class: cl.Name, NoHedging: true})
			continue
		}
		for _, st := range cl.Pipeline.Steps {
			edits = append(edits, scenario.HedgeEdit{Class: cl.Name, Step: st.Name, NoHedging: true})
		}
	}
	if _, err := scenario.WithPolicies(name, src, scenario.Top{Requests: max(cfg.Requests, 1)}, edits, w.traceDir); err != nil {
		return nil, bad("%v", err)
	}
	return w, nil
}

// write writes the scenario with every class's pick of rep applied, the
// requests of the rollout check (the scenario's own without one) and the
// seed it ran with (a --seed, or the check's own, RolloutCheck.Seed),
// atomically.
func (w *rolloutWriter) write(cfg *sim.Config, rep *optimize.Report) error {
	requests, seed := cfg.Requests, cfg.Seed
	if rep.Rollout != nil {
		requests = rep.Rollout.Requests
		if rep.Rollout.Seed != nil {
			seed = *rep.Rollout.Seed // the check's own draws
		}
	}
	var edits []scenario.HedgeEdit
	for i := range rep.Classes {
		cr := &rep.Classes[i]
		pick := cr.Picked()
		if cr.Verdict.Undecided {
			// Too few requests to tell: what runs today stays.
			if w.notes != nil {
				fmt.Fprintf(w.notes, "%s: --write-scenario %s: class %s keeps its configured policy: its verdict is undecided (%s)\n", w.cmd, w.out.path, cr.Class, cr.Verdict.Reason)
			}
			if cr.Picked().Steps != nil {
				for _, sp := range cr.Picked().Steps {
					edits = append(edits, scenario.HedgeEdit{Class: cr.Class, Step: sp.Step, Keep: true})
				}
			} else {
				edits = append(edits, scenario.HedgeEdit{Class: cr.Class, Keep: true})
			}
			continue
		}
		if pick.Steps != nil { // a pipeline: each step's pick
			for _, sp := range pick.Steps {
				edits = append(edits, scenario.HedgeEdit{Class: cr.Class, Step: sp.Step, NoHedging: !sp.Hedging, Delay: sp.Delay, Copies: sp.Copies})
			}
			continue
		}
		ed := scenario.HedgeEdit{Class: cr.Class, NoHedging: !pick.Hedging, Delay: pick.Delay, Copies: pick.Copies, Keep: pick.Configured}
		if pick.SetsTargets() {
			ed.Targets = strings.Split(pick.Target, ",")
		}
		edits = append(edits, ed)
	}
	data, err := scenario.WithPolicies(w.name, w.src, scenario.Top{Requests: requests, Seed: &seed}, edits, w.traceDir)
	if err != nil {
		return fmt.Errorf("--write-scenario: %w", err)
	}
	if err := w.out.write(data); err != nil {
		return fmt.Errorf("--write-scenario %s: %w", w.out.path, err)
	}
	return nil
}

// optimizeKeys names the [optimize] key each optimize flag overrides.
var optimizeKeys = map[string][]string{
	"requests": {"requests"}, "delays": {"delays", "from", "to", "step"},
	"from": {"delays", "from"}, "to": {"delays", "to"}, "step": {"delays", "step"},
	"copies": {"copies"}, "targets": {"targets"}, "objective": {"objective"}, "target": {"target"},
	"allow-fewer-answers": {"allow_fewer_answers"}, "exclude-overload": {"exclude_overload"}, "group-objective": {"group_objective"}, "max-cost": {"max_added_cost_pct"},
	"max-hedged": {"max_hedged_pct"}, "sla": {"sla"}, "min-gain": {"min_gain_pct"},
	"min-gain-per-cost": {"min_gain_per_cost"}, "min-unanswered-cut-per-cost": {"min_unanswered_cut_per_cost"},
	"require-significant": {"require_significant"}, "confidence": {"confidence"},
	"classes": {"classes"}, "alone": {"alone"}, "check-requests": {"check_requests"},
}

// optimizeFlagsAgreeWithSet returns a usage error when an optimize flag
// and a --set override both give an [optimize] setting, for every class
// (optimize.KEY) or for one (optimize.class.NAME.KEY): the flag applies to
// every class and would win while the report listed the override.
func optimizeFlagsAgreeWithSet(fs *flag.FlagSet, set []string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		for _, kv := range set {
			k, _, _ := strings.Cut(kv, "=")
			k = strings.TrimSpace(k)
			if err != nil || !strings.HasPrefix(k, "optimize.") {
				continue
			}
			last := k[strings.LastIndexByte(k, '.')+1:]
			if slices.Contains(optimizeKeys[f.Name], last) {
				err = usageError{err: fmt.Errorf("--%s %s and --set %s both set %s; give one of them (the flag applies to every class)", f.Name, f.Value, kv, last)}
			}
		}
	})
	return err
}

// objectiveFlag is a flag that only some objectives read: --max-cost
// (p95, p99, answered), --sla (cost), --target (answered).
type objectiveFlag struct {
	name, value string
	set         bool
	goals       []optimize.Goal
	objectives  string // the names of the objectives that read it, the first to suggest
}

// objectiveFlagsApply returns a usage error naming the first flag of
// flags that is set although no class's objective (after --objective,
// named by objective when given) reads it: it would be ignored.
func objectiveFlagsApply(s *optimize.Settings, objective string, flags []objectiveFlag) error {
	for _, f := range flags {
		if !f.set {
			continue
		}
		used := false
		var names []string
		s.Each(func(se *optimize.Search) {
			used = used || slices.Contains(f.goals, se.Objective.Goal)
			if n := se.Objective.Name(); !slices.Contains(names, n) {
				names = append(names, n)
			}
		})
		if used {
			continue
		}
		if objective != "" {
			return usageError{err: fmt.Errorf("--%s %s applies to --objective %s only, not --objective %s; drop it or change the objective", f.name, f.value, f.objectives, objective)}
		}
		return usageError{err: fmt.Errorf("--%s %s applies to --objective %s only, and the objective is %s (from the scenario's [optimize] table, a --set of it, or the default); add --objective %s or drop --%s",
			f.name, f.value, f.objectives, strings.Join(names, ", "), strings.TrimRight(strings.SplitN(f.objectives, " ", 2)[0], ","), f.name)}
	}
	return nil
}

// balancerNames returns the names of the pools' balancers.
func balancerNames() []string {
	var names []string
	for _, b := range sim.Balancers {
		names = append(names, b.String())
	}
	return names
}

// balancerNamed returns the balancer called name.
func balancerNamed(name string) (sim.Balancer, bool) {
	for _, b := range sim.Balancers {
		if b.String() == name {
			return b, true
		}
	}
	return 0, false
}

// didYouMean returns " (did you mean "NAME"?)" for the balancer nearest
// to name, or "".
func didYouMean(name string) string {
	if best := scenario.Closest(name, balancerNames()); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// traceLimit returns the most requests a candidate of optimize runs on
// cfg, and what sets it: for a replayed trace, its arrivals, or with a
// class column those of its largest class optimized (only: the classes
// of --only, all when empty), each class running on its own; else the
// simulator's limit.
func traceLimit(cfg *sim.Config, only []string) (int64, string) {
	tr := cfg.Arrivals.Trace
	if cfg.Arrivals.Process != sim.Replay || tr == nil {
		return sim.MaxRequests, "the simulator's limit"
	}
	if tr.Class == nil {
		return int64(len(tr.Arrivals)), fmt.Sprintf("the %d arrivals of the replayed trace", len(tr.Arrivals))
	}
	counts := make([]int64, len(cfg.Classes))
	for _, k := range tr.Class {
		if k >= 0 && k < len(counts) {
			counts[k]++
		}
	}
	most, name := int64(0), ""
	for i, n := range counts {
		if c := cfg.Classes[i].Name; n > most && (len(only) == 0 || slices.Contains(only, c)) {
			most, name = n, c
		}
	}
	return most, fmt.Sprintf("the %d arrivals of class %s in the replayed trace, its largest", most, name)
}
