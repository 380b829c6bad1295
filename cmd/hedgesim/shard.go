package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

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
	partVersion = 2
)

// partFile is a part or a state.
type partFile struct {
	Format         string                 `json:"format"`
	Version        int                    `json:"version"`
	Build          string                 `json:"build"`
	Scenario       string                 `json:"scenario"`
	ScenarioSHA256 string                 `json:"scenario_sha256"`
	Command        partArgs               `json:"command"`
	Settings       []string               `json:"settings"`
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
	// Scenario is the index in Args of the scenario argument (−1: none);
	// ScenarioPath is the absolute path of that file, where merge looks
	// for it when the argument is a relative path that does not lead to
	// it from merge's directory.
	Scenario     int    `json:"scenario_arg"`
	ScenarioPath string `json:"scenario_path,omitempty"`
}

// newPartArgs returns the part command line of args, which fs has parsed.
func newPartArgs(fs *flag.FlagSet, args []string) partArgs {
	p := partArgs{Args: []string{}, Out: -1, Scenario: -1}
	positional := func(a string) {
		p.Args = append(p.Args, a)
		p.Scenario = len(p.Args) - 1
		if st, err := os.Stat(a); err == nil && !st.IsDir() {
			if abs, err := filepath.Abs(a); err == nil {
				p.ScenarioPath = abs
			}
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" { // the next argument is positional (see parseFlags)
			p.Args = append(p.Args, a)
			if i+1 < len(args) {
				positional(args[i+1])
			}
			i++
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			positional(a)
			continue
		}
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		takesNext := f != nil && !inline && !isBoolFlag(f) && i+1 < len(args)
		switch name {
		case "shard", "resume", "json", "wide", "all", "no-plots": // merge's own output flags stand for these
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

// noResultFlags are the optimize flags that cannot change a sweep's
// measurements: how it runs (--workers, --quiet, --max-memory) and where
// and how its output goes. Shards may differ in them.
var noResultFlags = map[string]bool{
	"workers": true, "quiet": true, "max-memory": true,
	"shard": true, "resume": true, "out": true, "write-scenario": true,
	"json": true, "wide": true, "all": true, "no-plots": true,
}

// resultSettings returns the flags fs has parsed that can change a sweep's
// results, as "--name=value" with the value as parsed, sorted: the
// settings every shard must share, whatever their spelling and order.
// The scenario is compared by sha256.
func resultSettings(fs *flag.FlagSet) []string {
	out := []string{}
	fs.Visit(func(f *flag.Flag) {
		if !noResultFlags[f.Name] {
			out = append(out, "--"+f.Name+"="+f.Value.String())
		}
	})
	slices.Sort(out)
	return out
}

// settingsDiff describes how the settings a and b differ.
func settingsDiff(a, b []string) string {
	split := func(ss []string) map[string]string {
		m := map[string]string{}
		for _, s := range ss {
			k, v, _ := strings.Cut(s, "=")
			m[k] = v
		}
		return m
	}
	ma, mb := split(a), split(b)
	keys := slices.Sorted(maps.Keys(ma))
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var d []string
	show := func(m map[string]string, k string) string {
		if v, ok := m[k]; ok {
			return k + " " + shellQuote(v)
		}
		return "no " + k
	}
	for _, k := range keys {
		va, oka := ma[k]
		vb, okb := mb[k]
		if oka != okb || va != vb {
			d = append(d, show(ma, k)+" against "+show(mb, k))
		}
	}
	return strings.Join(d, ", ")
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

// scenarioHint explains, when the shards' scenario argument is a file path
// that cannot be found from merge's directory, where it came from.
func (p partArgs) scenarioHint() string {
	if p.Scenario < 0 {
		return ""
	}
	arg := p.Args[p.Scenario]
	if _, err := os.Stat(arg); err == nil || filepath.IsAbs(arg) {
		return ""
	}
	wd, _ := os.Getwd()
	where := ""
	if p.ScenarioPath != "" {
		where = " (it was " + p.ScenarioPath + ")"
	}
	return fmt.Sprintf("; the scenario path %s comes from the shards' command line and is relative to the directory they ran in%s, not to merge's %s: run merge from the shards' directory, or put the scenario back there", arg, where, wd)
}

// located returns the command line with the scenario argument replaced by
// the shards' absolute path to it when the argument does not lead to a
// file from merge's directory but that path does (its sha256 is checked
// against the parts' all the same).
func (p partArgs) located(args []string) []string {
	if p.Scenario < 0 || p.ScenarioPath == "" {
		return args
	}
	if _, err := os.Stat(args[p.Scenario]); err == nil {
		return args
	}
	if st, err := os.Stat(p.ScenarioPath); err != nil || st.IsDir() {
		return args
	}
	args = slices.Clone(args)
	args[p.Scenario] = p.ScenarioPath
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

// buildID names the binary (version, revision, Go version): parts of one
// sweep must come from one build. A build whose source the version and
// revision do not pin down — no VCS revision, or local changes — is named
// by the sha256 of its executable too.
var buildID = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	return buildIDOf(bi, ok, executableSHA256)
})

// buildIDOf is buildID of the build information bi, with exe the sha256 of
// the executable ("" when unknown).
func buildIDOf(bi *debug.BuildInfo, ok bool, exe func() string) string {
	id := strings.ReplaceAll(strings.TrimSpace(versionText(bi, ok)), "\n", "; ")
	pinned := false
	if ok && bi != nil {
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		pinned = settings["vcs.revision"] != "" && settings["vcs.modified"] != "true" ||
			bi.Main.Version != "" && bi.Main.Version != "(devel)"
	}
	if !pinned {
		if h := exe(); h != "" {
			id += "; executable sha256 " + h
		}
	}
	return id
}

// executableSHA256 returns the sha256 of the running executable, or "".
func executableSHA256() string {
	path, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// checkPartOutput checks, before any work, that the part or state file
// path (--flagName) may be written: it passes checkOutput (so it is none
// of inputs) and is absent or a hedgesim file of the same format (a part
// of an earlier run of the shard, a state of an earlier merge), which is
// replaced; never any other existing file, since hedgesim never
// overwrites a file it did not write.
func checkPartOutput(flagName, path, format string, inputs ...input) error {
	out, err := checkOutput(flagName, path, inputs...)
	if err != nil {
		return err
	}
	if _, err := os.Stat(out.target()); err != nil {
		return nil // absent
	}
	if got := partFormatOf(path); got != format {
		what := "not a hedgesim file"
		if got != "" {
			what = "a " + strings.TrimPrefix(got, "hedgesim optimize ") + " file of hedgesim"
		}
		return usageError{err: fmt.Errorf("--%s %s exists and is %s, not a %s; hedgesim overwrites only its own %s files: remove it or write to another file",
			flagName, path, what, strings.TrimPrefix(format, "hedgesim optimize "), strings.TrimPrefix(format, "hedgesim optimize "))}
	}
	return nil
}

// partFormatOf returns the format of the part or state at path, or "" when
// it is not one.
func partFormatOf(path string) string {
	lim, err := inputLimits()
	if err != nil {
		return ""
	}
	data, err := readers.ReadFile(path, lim.MaxDataBytes)
	if err != nil {
		return ""
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if json.Unmarshal(data, &head) != nil || head.Version < 1 {
		return ""
	}
	switch head.Format {
	case partFormat, stateFormat:
		return head.Format
	}
	return ""
}

// writePart writes f to path, which checkPartOutput has checked,
// atomically (a temporary file renamed into place; a symbolic link is
// written through): path holds the whole file or its previous content.
func writePart(path string, f *partFile) error {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(f); err != nil {
		return err
	}
	target, err := resolveOutput(path)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Dir(target), filepath.Base(target), b.Bytes())
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
		var bm *optimize.BadMeasurementError
		if errors.As(err, &bm) {
			return nil, usageError{err: fmt.Errorf("%s: %v", path, err)}
		}
		return nil, usageError{err: fmt.Errorf("%s: not a hedgesim part or state: %v", path, err)}
	}
	f.path = path
	seen := make(map[string]bool, len(f.Measurements))
	for _, m := range f.Measurements {
		if seen[m.Key] {
			return nil, usageError{err: fmt.Errorf("%s: the measurement %q is there twice; keys are unique", path, m.Key)}
		}
		seen[m.Key] = true
	}
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
	case f.Command.Scenario < -1 || f.Command.Scenario >= len(f.Command.Args) || f.Command.Scenario == f.Command.Out:
		return nil, bad("scenario_arg %d is not an argument of its command line", f.Command.Scenario)
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
	case a.Scenario != b.Scenario:
		return fmt.Errorf("%s and %s come from different scenarios (%s; %s)", a.path, b.path, a.Scenario, b.Scenario)
	case !slices.Equal(a.Settings, b.Settings):
		return fmt.Errorf("%s and %s come from different command lines (%s): every shard must run with the same settings (--workers, --quiet, --max-memory and output flags may differ)", a.path, b.path, settingsDiff(a.Settings, b.Settings))
	}
	return nil
}

// runShard runs optimize --shard: the shard's share of the sweep (of the
// next stage, with --resume), written as a part to --out FILE.
func runShard(ctx context.Context, job *optimizeJob, stdout, stderr io.Writer) error {
	f := &partFile{
		Format: partFormat, Version: partVersion, Build: buildID(),
		Scenario: job.cfg.Name, ScenarioSHA256: job.sc.SHA256, Command: job.partial, Settings: job.settings,
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
