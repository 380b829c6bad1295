package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/readers"
)

// A sharded sweep (optimize --shard i/n) writes a part: a JSON file with
// the format and version below, the build that made it, the scenario's
// name and sha256, the command line (without --shard, --resume and the
// value of --out), the shard, the stage, and every measurement the shard
// knows (optimize.Measurement: the full statistics of each candidate it
// simulated, and of those it resumed from). hedgesim merge reads the
// parts of one stage and writes either the report or, when coupled classes
// need another stage, a state: the same file with format stateFormat, no
// shard, and the steps the next stage does.
const (
	partFormat  = "hedgesim optimize part"
	stateFormat = "hedgesim optimize state"
	partVersion = 1
)

// partFile is a part or a state.
type partFile struct {
	Format         string                 `json:"format"`
	Version        int                    `json:"version"`
	Build          string                 `json:"build"`
	Scenario       string                 `json:"scenario"`
	ScenarioSHA256 string                 `json:"scenario_sha256"`
	Command        partArgs               `json:"command"`
	Shard          *shardJSON             `json:"shard,omitempty"`
	Stage          int                    `json:"stage"`
	Next           []string               `json:"next,omitempty"`
	Measurements   []optimize.Measurement `json:"measurements"`

	path string // where it was read from
}

// shardJSON is a part's shard.
type shardJSON struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// partArgs is an optimize command line without --shard and --resume and
// without the value of --out: Args[Out] is "--out=", or "" after "--out";
// the merge's report directory goes there, so that the merged report's
// index.html names the single run it reproduces.
type partArgs struct {
	Args []string `json:"args"`
	Out  int      `json:"out_arg"`
}

// newPartArgs returns the part command line of args, which fs has parsed.
func newPartArgs(fs *flag.FlagSet, args []string) partArgs {
	p := partArgs{Args: []string{}, Out: -1}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" { // the next argument is positional (see parseFlags)
			p.Args = append(p.Args, args[i:min(i+2, len(args))]...)
			i++
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			p.Args = append(p.Args, a)
			continue
		}
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		takesNext := f != nil && !inline && !isBoolFlag(f) && i+1 < len(args)
		switch name {
		case "shard", "resume":
		case "out":
			if takesNext {
				p.Args = append(p.Args, a, "")
			} else {
				p.Args = append(p.Args, a[:strings.IndexByte(a, '=')+1])
			}
			p.Out = len(p.Args) - 1
		default:
			p.Args = append(p.Args, a)
			if takesNext {
				p.Args = append(p.Args, args[i+1])
			}
		}
		if takesNext {
			i++
		}
	}
	return p
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// with returns the command line with dir as --out's value.
func (p partArgs) with(dir string) []string {
	args := slices.Clone(p.Args)
	args[p.Out] += dir
	return args
}

func (p partArgs) String() string {
	q := make([]string, len(p.Args))
	for i, a := range p.Args {
		q[i] = shellQuote(a)
		if i == p.Out {
			q[i] = shellQuote(a + "…")
		}
	}
	return strings.Join(q, " ")
}

func (p partArgs) equal(o partArgs) bool { return p.Out == o.Out && slices.Equal(p.Args, o.Args) }

// buildID names the binary (version, revision, Go version): parts of one
// sweep must come from one build.
func buildID() string {
	return strings.ReplaceAll(strings.TrimSpace(versionText(debug.ReadBuildInfo())), "\n", "; ")
}

// checkPartFile checks, before any work, that a part or state can be
// written to path: absent or a regular file, in an existing directory.
func checkPartFile(flagName, path string) error {
	if err := checkOutputFile(flagName, path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usageError{err: fmt.Errorf("--%s %s: directory %s does not exist; create it first", flagName, path, dir)}
	}
	return nil
}

// writePart writes f to path atomically (a temporary file renamed into
// place): path holds the whole file or its previous content.
func writePart(path string, f *partFile) error {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(f); err != nil {
		return err
	}
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	return writeFileAtomic(dir, name, b.Bytes())
}

// readPart reads the part or state at path, of the given format.
func readPart(path, format string) (*partFile, error) {
	lim, err := inputLimits()
	if err != nil {
		return nil, err
	}
	data, err := readers.ReadFile(path, lim.MaxDataBytes)
	if err != nil {
		return nil, usageError{err: err}
	}
	var f partFile
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return nil, usageError{err: fmt.Errorf("%s: not a hedgesim part or state: %v", path, err)}
	}
	f.path = path
	bad := func(format string, a ...any) error {
		return usageError{err: fmt.Errorf("%s: "+format, append([]any{path}, a...)...)}
	}
	switch {
	case f.Format == stateFormat && format == partFormat:
		return nil, bad("is a state, the input of the next stage's shards (optimize --shard i/n --resume %s); merge takes the parts the shards write", path)
	case f.Format == partFormat && format == stateFormat:
		return nil, bad("is a shard's part; --resume takes the state file hedgesim merge --state writes")
	case f.Format != format:
		return nil, bad("format %q; want %q", f.Format, format)
	case f.Version != partVersion:
		return nil, bad("version %d; this hedgesim reads version %d", f.Version, partVersion)
	case f.Command.Out < 0 || f.Command.Out >= len(f.Command.Args):
		return nil, bad("its command line has no --out")
	case f.Stage < 1:
		return nil, bad("stage %d; want ≥ 1", f.Stage)
	case format == partFormat && (f.Shard == nil || f.Shard.Count < 1 || f.Shard.Index < 0 || f.Shard.Index >= f.Shard.Count):
		return nil, bad("no valid shard i/n with 0 ≤ i < n")
	}
	return &f, nil
}

// sameSweep checks that b comes from the sweep of a: the same build,
// scenario and command line.
func sameSweep(a, b *partFile) error {
	switch {
	case a.Build != b.Build:
		return fmt.Errorf("%s and %s come from different builds (%s; %s): their numbers may differ", a.path, b.path, a.Build, b.Build)
	case a.ScenarioSHA256 != b.ScenarioSHA256:
		return fmt.Errorf("%s and %s come from different scenarios (%s sha256 %s; %s sha256 %s)", a.path, b.path, a.Scenario, a.ScenarioSHA256, b.Scenario, b.ScenarioSHA256)
	case !a.Command.equal(b.Command):
		return fmt.Errorf("%s and %s come from different command lines (%s; %s): every shard must run the same one", a.path, b.path, a.Command, b.Command)
	}
	return nil
}

// runShard runs optimize --shard: the shard's share of the sweep (of the
// next stage, with --resume), written as a part to --out FILE.
func runShard(ctx context.Context, job *optimizeJob, stdout, stderr io.Writer) error {
	f := &partFile{
		Format: partFormat, Version: partVersion, Build: buildID(),
		Scenario: job.cfg.Name, ScenarioSHA256: job.sc.SHA256, Command: job.partial,
		Shard: &shardJSON{job.shard.Index, job.shard.Count}, Stage: 1, path: "this command",
	}
	var known []optimize.Measurement
	if job.resume != "" {
		st, err := readPart(job.resume, stateFormat)
		if err != nil {
			return err
		}
		if err := sameSweep(st, f); err != nil {
			return usageError{err: fmt.Errorf("--resume: %v", err)}
		}
		known, f.Stage = st.Measurements, st.Stage+1
	}
	opt := optimize.Options{Workers: job.workers, Context: ctx}
	bar := newProgress(stderr, "optimize --shard "+job.shard.String(), job.quiet)
	if bar != nil {
		opt.Progress = bar.set
		bar.live()
	}
	ms, err := optimize.RunShard(&job.cfg, job.s, *job.shard, known, opt)
	bar.finish()
	if err != nil {
		return err
	}
	f.Measurements = ms
	if err := writePart(job.out, f); err != nil {
		return fmt.Errorf("--out %s: %w", job.out, err)
	}
	_, err = fmt.Fprintf(stdout, "shard %s, stage %d: %d simulations, %d measurements in all; wrote %s\nwhen every shard of this stage has written its part: hedgesim merge PART… --out DIR\n",
		job.shard, f.Stage, len(ms)-len(known), len(ms), job.out)
	return err
}
