package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hedgesim/hedgesim/optimize"
)

const mergeSynopsis = `merge [--state FILE] PART… --out DIR

Combines the parts of a sharded sweep (hedgesim optimize --shard i/n --out
PART, once for each i in 0…n−1) into the report directory DIR, exactly as
hedgesim optimize with the shards' command line and --out DIR writes it
(report.txt, report.json, index.html, candidates.csv, plots), and prints
the report as that command would. The rollout check runs here.

The parts must come from one stage of one sweep: the same build, the same
scenario (by sha256; the scenario is read again from the shards' command
line) and the same command line, shards 0…n−1 each exactly once.

Coupled classes, optimized jointly by coordinate descent, take one stage
per step when split: when another stage is needed, merge writes the state
to --state FILE instead of the report and says so; run every shard again
with --resume FILE, then merge the new parts.`

func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", mergeSynopsis, stderr)
	out := fs.String("out", "", "write the report to `DIR` (as optimize --out DIR does)")
	state := fs.String("state", "", "when coupled classes need another stage, write the state the next stage's shards resume from to `FILE`")
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
	if *state != "" {
		if err := checkPartFile("state", *state); err != nil {
			return err
		}
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
	job, err := parseOptimize(first.Command.with(*out), stderr)
	if err != nil {
		return fmt.Errorf("the shards' command line (hedgesim optimize %s): %w", first.Command, err)
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
	rep, next, err := optimize.Assemble(&job.cfg, job.s, ms, optimize.Options{Workers: job.workers, Context: ctx})
	switch {
	case errors.Is(err, optimize.ErrMissingMeasurement):
		return usageError{err: err}
	case err != nil:
		return err
	case len(next) > 0:
		return writeState(first, ms, next, *state, stdout)
	}
	return job.finish(ctx, rep, stdout)
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
