package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/hedgesim/hedgesim/optimize"
)

const mergeSynopsis = `merge [--state FILE] [--write-scenario FILE] [--json] [--wide] [--all] [--no-plots] PART… --out DIR

Combines the parts of a sharded sweep (hedgesim optimize --shard i/n --out
PART, once for each i in 0…n−1) into the report directory DIR, exactly as
hedgesim optimize with the shards' command line and --out DIR writes it
(report.txt, report.json, index.html, candidates.csv, plots), and prints
the report as that command would. The rollout check runs here.

The parts must come from one stage of one sweep: the same build, the same
scenario (by sha256; the scenario is read again from the shards' command
line) and the same settings, shards 0…n−1 each exactly once. Settings are
compared as parsed, whatever the order and spelling of the flags; flags
that cannot change the results (--workers, --quiet, --max-memory) and the
output flags may differ. The output follows merge's own --json, --wide,
--all and --no-plots, not the shards'; --write-scenario FILE writes the scenario with
the picks applied, as optimize --write-scenario does, once the report is.

Coupled classes, optimized jointly by coordinate descent, take one stage
per step when split: when another stage is needed, merge writes the state
to --state FILE instead of the report and says so; run every shard again
with --resume FILE, then merge the new parts. When merge writes the report,
it removes a state an earlier merge left at --state FILE, so that a file
there always means another stage is needed.`

func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", mergeSynopsis, stderr)
	out := pathFlag(fs, "out", "write the report to `DIR` (as optimize --out DIR does)")
	force := fs.Bool("force", false, "let --out replace a report run wrote there (as optimize --force does)")
	state := pathFlag(fs, "state", "when coupled classes need another stage, write the state the next stage's shards resume from to `FILE`")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of tables (as optimize --json)")
	all := fs.Bool("all", false, "list every candidate in the tables, not only the frontier (as optimize --all)")
	noPlots := fs.Bool("no-plots", false, "do not draw plots (as optimize --no-plots)")
	wide := wideFlag(fs)
	writeScenario := pathFlag(fs, "write-scenario", "with the report, write the scenario with every pick applied to `FILE` (as optimize --write-scenario)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *out == "":
		return usageError{err: errors.New("needs --out DIR, the report directory to write")}
	case len(pos) == 0:
		return usageError{err: errors.New("needs the parts to merge: the files optimize --shard i/n --out FILE wrote")}
	}
	// merge's own --out, checked here so that its errors are not taken for
	// the shards' command line's (which gets it next).
	if *state != "" && *writeScenario != "" {
		a, errA := resolveOutput(*state)
		b, errB := resolveOutput(*writeScenario)
		if errA == nil && errB == nil && a == b {
			return usageError{err: fmt.Errorf("--state %s and --write-scenario %s are the same file; give each its own", *state, *writeScenario)}
		}
	}
	if err := prepareOutDir("out", *out, "optimize", *force, flagPath{"state", *state}, flagPath{"write-scenario", *writeScenario}); err != nil {
		return err
	}
	parts := make([]*partFile, len(pos))
	for i, p := range pos {
		if parts[i], err = readPart(p, partFormat); err != nil {
			return err
		}
	}
	if err := checkParts(parts); err != nil {
		return usageError{err: err}
	}
	first := parts[0]
	// The output follows merge's own --json, --wide, --all and
	// --no-plots; the shards' are left out of their command line.
	var outFlags []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"--json", *asJSON}, {"--wide", *wide}, {"--all", *all}, {"--no-plots", *noPlots}} {
		if f.set {
			outFlags = append(outFlags, f.name)
		}
	}
	job, err := parseOptimize(append(outFlags, first.Command.located(first.Command.with(*out))...), stderr)
	if err != nil {
		return fmt.Errorf("the shards' command line (hedgesim optimize %s): %w%s", first.Command, err, first.Command.scenarioHint())
	}
	// The parts are inputs of every output; --write-scenario and --state
	// are outputs of each other's too.
	var inputs []input
	for _, p := range pos {
		inputs = append(inputs, input{"a part of this merge", p})
	}
	if *writeScenario != "" {
		if len(job.sc.Overrides) > 0 {
			return usageError{err: fmt.Errorf("--write-scenario cannot go with shards run with --set or --scale-rate (%s): the file written holds the picks, not the overrides, so running it would not reproduce the rollout check", strings.Join(job.sc.Overrides, ", "))}
		}
		arg := ""
		if len(job.scenarioArgs) == 1 {
			arg = job.scenarioArgs[0]
		}
		if job.ws, err = newRolloutWriter(*writeScenario, arg, &job.cfg, append(inputs, input{"the --state file", *state})...); err != nil {
			return err
		}
	}
	if *state != "" {
		if err := checkPartOutput("state", *state, stateFormat, append(inputs, scenarioInput(job.scenarioArgs), input{"the --write-scenario file", *writeScenario})...); err != nil {
			return err
		}
	}
	if job.sc.SHA256 != first.ScenarioSHA256 {
		return usageError{err: fmt.Errorf("the scenario %s has changed since the shards ran (sha256 %s, the parts' %s)", job.cfg.Name, job.sc.SHA256, first.ScenarioSHA256)}
	}
	sets := make([][]optimize.Measurement, len(parts))
	for i, p := range parts {
		sets[i] = p.Measurements
	}
	ms, err := optimize.Union(sets...)
	if err != nil {
		return usageError{err: err}
	}
	if err := checkMeasurements(ctx, job, parts, ms); err != nil {
		return err
	}
	rep, next, err := optimize.Assemble(&job.cfg, job.s, ms, optimize.Options{Workers: job.workers, Context: ctx})
	switch {
	case errors.Is(err, optimize.ErrMissingMeasurement):
		return usageError{err: err}
	case err != nil:
		return err
	case len(next) > 0:
		return writeState(first, ms, next, *state, stdout)
	}
	if job.ws != nil {
		job.ws.notes, job.ws.cmd = stderr, "hedgesim merge"
	}
	warnNotSimulated(stderr, "hedgesim merge", rep)
	if err := job.finish(ctx, rep, stdout); err != nil {
		return err
	}
	// The sweep is finished: a state left at --state by an earlier merge
	// (checked above to be a hedgesim state) would say another stage is
	// needed.
	if *state != "" && partFormatOf(*state) == stateFormat {
		if err := os.Remove(*state); err != nil {
			return fmt.Errorf("--state %s: the report is written, but the earlier state there could not be removed: %w", *state, err)
		}
		fmt.Fprintf(stderr, "removed %s, the state of an earlier merge: the sweep is finished\n", *state)
	}
	return nil
}

// checkParts checks that parts are the parts of one stage of one sweep,
// shards 0…n−1 each once.
func checkParts(parts []*partFile) error {
	first := parts[0]
	n := first.Shard.Count
	by := make([]*partFile, n)
	for _, p := range parts {
		if err := sameSweep(first, p); err != nil {
			return err
		}
		switch {
		case p.Stage != first.Stage:
			return fmt.Errorf("%s is of stage %d and %s of stage %d: merge the parts of one stage", first.path, first.Stage, p.path, p.Stage)
		case p.Shard.Count != n:
			return fmt.Errorf("%s is shard %d/%d and %s shard %d/%d: the parts disagree on the number of shards", first.path, first.Shard.Index, n, p.path, p.Shard.Index, p.Shard.Count)
		case by[p.Shard.Index] != nil:
			return fmt.Errorf("%s and %s are both shard %d/%d", by[p.Shard.Index].path, p.path, p.Shard.Index, n)
		}
		by[p.Shard.Index] = p
	}
	var missing []string
	for i, p := range by {
		if p == nil {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing shard%s %s of %d (stage %d): every shard 0…%d must be merged", plural(len(missing)), strings.Join(missing, ", "), n, first.Stage, n-1)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// writeState writes the state of a sweep whose coupled classes need
// another stage to path and says how to run it.
func writeState(first *partFile, ms []optimize.Measurement, next []string, path string, stdout io.Writer) error {
	if path == "" {
		return usageError{err: fmt.Errorf("stage %d is merged, but coupled classes need another stage (%s); pass --state FILE to write the state it resumes from",
			first.Stage, strings.Join(next, "; "))}
	}
	st := *first
	st.Format, st.Shard, st.Next, st.Measurements = stateFormat, nil, slices.Clone(next), ms
	if err := writePart(path, &st); err != nil {
		return fmt.Errorf("--state %s: %w", path, err)
	}
	_, err := fmt.Fprintf(stdout, "stage %d merged; coupled classes need stage %d: %s\nwrote %s; no report yet. Run every shard again with --resume %s (the same command line), then merge the new parts.\n",
		first.Stage, first.Stage+1, strings.Join(next, "; "), path, shellQuote(path))
	return err
}

// checkMeasurements checks that the parts, shards 0…n−1 of one stage, hold
// the measurements of their sweep (ms, their union): each one a
// measurement the sweep asks for, in the part of the shard that simulates
// it (or in every part: it comes from the state the stage resumed from),
// and none missing.
func checkMeasurements(ctx context.Context, job *optimizeJob, parts []*partFile, ms []optimize.Measurement) error {
	asked, err := optimize.Expect(&job.cfg, job.s, ms, optimize.Options{Workers: job.workers, Context: ctx})
	n := len(parts)
	by := make([]*partFile, n)
	has := make([]map[string]bool, n)
	for _, p := range parts {
		i := p.Shard.Index
		by[i], has[i] = p, map[string]bool{}
		for _, m := range p.Measurements {
			has[i][m.Key] = true
		}
	}
	inAll := func(key string) bool {
		for i := range has {
			if !has[i][key] {
				return false
			}
		}
		return true
	}
	for _, key := range slices.Sorted(maps.Keys(asked)) {
		pos := asked[key]
		if pos < 0 {
			for i := range has {
				if !has[i][key] && slices.ContainsFunc(has, func(h map[string]bool) bool { return h[key] }) {
					return usageError{err: fmt.Errorf("%s (shard %d/%d) lacks the measurement %q, which every shard makes: the part is damaged or comes from another sweep", by[i].path, i, n, key)}
				}
			}
			continue
		}
		owner := 0
		for j := range n {
			if (optimize.Shard{Index: j, Count: n}).Owns(pos) {
				owner = j
			}
		}
		if !has[owner][key] {
			return usageError{err: fmt.Errorf("%s (shard %d/%d) lacks the measurement %q, which that shard makes: the part is damaged or comes from another sweep", by[owner].path, owner, n, key)}
		}
		if !inAll(key) {
			for i := range has {
				if i != owner && has[i][key] {
					return usageError{err: fmt.Errorf("%s (shard %d/%d) holds the measurement %q, which shard %d/%d makes: the part is damaged or comes from another sweep", by[i].path, i, n, key, owner, n)}
				}
			}
		}
	}
	switch {
	case errors.Is(err, optimize.ErrMissingMeasurement):
		return usageError{err: err}
	case err != nil:
		return err
	}
	for i, p := range by {
		for _, m := range p.Measurements {
			if _, ok := asked[m.Key]; !ok {
				return usageError{err: fmt.Errorf("%s (shard %d/%d): the measurement %q is none of this sweep's candidates (their keys follow the scenario, the command line and the grid): the part is damaged or comes from another sweep", p.path, i, n, m.Key)}
			}
		}
	}
	return nil
}
