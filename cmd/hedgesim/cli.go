package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
	"github.com/hedgesim/hedgesim/textfit"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitAction      = 3   // retune: drift or a better pick found
	exitInterrupted = 130 // 128 + SIGINT, as shells report it
)

// usage is the text of hedgesim --help, the export entry's description
// made from the table of formats (exportUsageLines); %q is the default
// scenario.
var usage = strings.Replace(usageTemplate, "{{EXPORT}}", exportUsageLines(), 1)

const usageTemplate = `hedgesim simulates hedged requests to inference APIs: for each traffic class,
what a hedge policy does to p50/p95/p99 latency, how often it fires and what it costs.

Usage:
  hedgesim run [flags] [SCENARIO]   simulate a scenario and print a report
  hedgesim optimize [flags] [SCENARIO]
                                    choose a hedge delay per class: frontier,
                                    verdict, plots (hedgesim help optimize);
                                    --shard i/n sweeps one shard of n
  hedgesim merge PART… --out DIR    combine the shards' parts into the report
                                    a single optimize run writes
  hedgesim fit [flags] LOG          fit latency models to a log; print a TOML
                                    model block and how well it fits
  hedgesim retune SCENARIO --from SOURCE
                                    judge live latency histograms against the
                                    scenario's models; re-check and re-pick
  hedgesim validate SCENARIO…       check scenario files without simulating
  hedgesim compare A.json B.json    compare two run or optimize reports
  hedgesim export --format FORMAT INPUT
{{EXPORT}}  hedgesim list                     list the built-in scenarios and what each models
  hedgesim version                  print the version and VCS revision
  hedgesim help [COMMAND]           show help for a command

SCENARIO is a TOML scenario file or the name of a built-in scenario
(see 'hedgesim list'), the file first; without one, the built-in
default %q is used, never a file of that name here.

Exit status: 0 success, 1 failure while running, 2 bad input or usage,
3 retune found drift or a better pick, 130 interrupted (SIGINT or SIGTERM).
`

// commandNames lists the commands for error messages.
const commandNames = "run, optimize, merge, fit, retune, export, validate, compare, list, version, help"

// usageError marks errors that exit with status 2. A quiet one has been
// printed already (the flag package reports its own parse errors).
type usageError struct {
	err   error
	quiet bool
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// run is the whole program behind main, testable with in-memory streams.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is run that stops when ctx is done (main cancels it on SIGINT
// and SIGTERM): files being written are removed and the status is 130.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, scenarios.Default)
		return exitUsage
	}
	var err error
	defer func() {
		// A panic is a bug, not bad input: exit 1 (Go's own status for an
		// unrecovered panic is 2, which the table gives to bad input).
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "hedgesim %s: internal error: %v\n%s", args[0], r, debug.Stack())
			code = exitFailure
		}
	}()
	if isCommand(args[0]) && args[0] != "help" && asksHelp(args[1:]) {
		// Asked-for help goes to stdout, so it can be paged, as with
		// "hedgesim help CMD"; a failure to write it is reported on
		// stderr, exit 1, as any other output's.
		args = []string{args[0], "--help"}
		help, errOut := &helpWriter{w: stdout}, stderr
		defer func() {
			if help.err != nil && code == exitOK {
				printMessage(errOut, "hedgesim %s: %v\n", args[0], help.err)
				code = exitFailure
			}
		}()
		stdout, stderr = help, help
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		err = cmdRun(ctx, rest, stdout, stderr)
	case "optimize":
		err = cmdOptimize(ctx, rest, stdout, stderr)
	case "merge":
		err = cmdMerge(ctx, rest, stdout, stderr)
	case "fit":
		err = cmdFit(ctx, rest, stdout, stderr)
	case "retune":
		err = cmdRetune(ctx, rest, stdout, stderr)
	case "export":
		err = cmdExport(rest, stdout, stderr)
	case "list":
		err = cmdList(rest, stdout)
	case "validate":
		err = cmdValidate(rest, stdout, stderr)
	case "compare":
		err = cmdCompare(rest, stdout, stderr)
	case "version", "--version", "-version", "-v":
		err = cmdVersion(rest, stdout)
	case "help", "-h", "-help", "--help":
		if len(rest) > 1 {
			printMessage(stderr, "hedgesim help: takes at most one command, got %q\n", rest)
			return exitUsage
		}
		if len(rest) == 1 && rest[0] != "help" && !asksHelp(rest) {
			if isCommand(rest[0]) {
				// Asked-for help goes to stdout, so it can be paged.
				return runContext(ctx, []string{rest[0], "--help"}, stdout, stderr)
			}
			printMessage(stderr, "hedgesim help: unknown command %q; commands: %s\n", rest[0], commandNames)
			return exitUsage
		}
		if _, err := fmt.Fprintf(stdout, usage, scenarios.Default); err != nil {
			printMessage(stderr, "hedgesim %s: %v\n", cmd, err)
			return exitFailure
		}
		return exitOK
	default:
		hint := ""
		for _, c := range strings.Split(commandNames, ", ") {
			if scenario.EditDistance(c, strings.ToLower(cmd)) <= 2 {
				hint = fmt.Sprintf(" (did you mean %s?)", c)
				break
			}
		}
		printMessage(stderr, "hedgesim: unknown command %q%s; commands: %s\n", cmd, hint, commandNames)
		return exitUsage
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		printMessage(stderr, "hedgesim %s: interrupted; no output written\n", args[0])
		return exitInterrupted
	case errors.Is(err, sim.ErrInvalidConfig):
		// Only input can make a configuration invalid: bad input.
		printMessage(stderr, "hedgesim %s: %v\n", args[0], err)
		return exitUsage
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errRetuneAction):
		return exitAction
	case isUsage(err):
		if ue, ok := err.(usageError); !ok || !ue.quiet {
			printMessage(stderr, "hedgesim %s: %v\n", args[0], err)
		}
		return exitUsage
	default:
		printMessage(stderr, "hedgesim %s: %v\n", args[0], err)
		return exitFailure
	}
}

// helpWriter passes asked-for help to w and keeps the first error of a
// write, which runContext reports: help is written by flag's Usage and
// the commands' own help, which cannot return one.
type helpWriter struct {
	w   io.Writer
	err error
}

func (h *helpWriter) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	if err != nil && h.err == nil {
		h.err = err
	}
	return n, err
}

// helpTextWidth is the width the help written to w wraps to: that of the
// terminal under a helpWriter, as textfit.TerminalWidth gives it.
func helpTextWidth(w io.Writer) int {
	if h, ok := w.(*helpWriter); ok {
		w = h.w
	}
	return textfit.TerminalWidth(w)
}

// isCommand reports whether name is one of commandNames.
func isCommand(name string) bool {
	for _, c := range strings.Split(commandNames, ", ") {
		if c == name {
			return true
		}
	}
	return false
}

// asksHelp reports whether a command's arguments ask for its help: -h,
// -help or --help before any "--", as the flag package reads them.
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

func isUsage(err error) bool {
	var ue usageError
	var se *scenario.Error
	return errors.As(err, &ue) || errors.As(err, &se)
}

// newFlagSet returns a flag set that prints its usage to w on -h.
func newFlagSet(name, synopsis string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		// Written whole, then wrapped to the terminal (textfit.Wrap).
		var b strings.Builder
		fmt.Fprintf(&b, "Usage: hedgesim %s\n\nFlags:\n", synopsis)
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(w)
		io.WriteString(w, textfit.Wrap(b.String(), helpTextWidth(w)))
	}
	return fs
}

// parseFlags parses args, allowing flags after positional arguments, and
// returns the positional arguments. A flag given twice with different
// values is a usage error naming both (onceValue), every command's flags
// alike, but for those that judge a repeat themselves (checksRepeats).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	full, out := fs.Usage, fs.Output()
	restore := onceValues(fs)
	defer func() { restore(); fs.Usage = full; fs.SetOutput(out) }()
	// A bad flag is said in one line, as every other error is; the flags
	// are listed on --help only, so that the error is not buried under them.
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				restore() // the help reads the flags' own values
				fs.SetOutput(out)
				full()
				return nil, err
			}
			msg := strings.Replace(strings.Replace(err.Error(), "for flag -", "for flag --", 1), "not defined: -", "not defined: --", 1)
			msg = boolFlagName.ReplaceAllString(msg, "${1}--")
			if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
				if s := suggestFlag(fs, name); s != "" {
					msg += " (did you mean --" + s + "?)"
				}
			}
			fmt.Fprintf(out, "hedgesim %s: %s\nrun 'hedgesim %s --help' for the flags\n", fs.Name(), msg, fs.Name())
			return nil, usageError{err: err, quiet: true}
		}
		args = fs.Args()
		if len(args) == 0 {
			restore()
			if err := emptyPath(fs); err != nil {
				return nil, err
			}
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// boolFlagName finds the flag's name in the flag package's error for a
// bad boolean value ("invalid boolean value "x" for -json: …"), to be
// written --json as the other errors write it.
var boolFlagName = regexp.MustCompile(`^(invalid boolean value "(?:[^"\\]|\\.)*" for )-`)

// checksRepeats is a flag value that judges a second use itself: one
// that takes one item per use (--label KEY=VALUE, --set KEY=VALUE) and
// refuses a contradiction, or one that refuses any second use with its
// own advice (a list flag: "give every value in one comma-separated
// list").
type checksRepeats interface{ checksRepeats() }

// onceValue wraps a flag's value while the flags are parsed: the first
// Set passes, and a later one with the same value passes on to it — the
// same text, or other text the value reads as the same (its valueKey, else
// its String, is unchanged: 100ms and 0.1s for a duration, --json and
// --json=1); a later
// one with another value is refused, naming both, rather than the last
// silently winning, and the first value is put back.
type onceValue struct {
	flag.Value
	first string
	set   bool
}

func (v *onceValue) Set(s string) error {
	if v.set && s != v.first {
		before := v.key()
		if err := v.Value.Set(s); err == nil && v.key() == before {
			return nil // the same value, written otherwise
		}
		_ = v.Value.Set(v.first) // it was accepted before
		return fmt.Errorf("given twice (%q, then %q); give it once", v.first, s)
	}
	v.first, v.set = s, true
	return v.Value.Set(s)
}

// keyed is a flag value whose String rounds (a size printed "8.0 GB"):
// valueKey gives the value exactly, for onceValue to compare.
type keyed interface{ valueKey() string }

// key is the wrapped value's valueKey, else its String.
func (v *onceValue) key() string {
	if k, ok := v.Value.(keyed); ok {
		return k.valueKey()
	}
	return v.Value.String()
}

// IsBoolFlag passes on the wrapped value's, so that --json still takes no
// argument.
func (v *onceValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// onceValues wraps every flag of fs but those that judge a repeat
// themselves (checksRepeats) in a onceValue, and returns the function
// that puts the values back (safe to call more than once): after
// parsing, the commands and the help read the flags' own values.
func onceValues(fs *flag.FlagSet) (restore func()) {
	orig := map[*flag.Flag]flag.Value{}
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(checksRepeats); !ok {
			orig[f] = f.Value
			f.Value = &onceValue{Value: f.Value}
		}
	})
	return func() {
		for f, v := range orig {
			f.Value = v
		}
		clear(orig)
	}
}

// scenarioArg loads the scenario named by the positional arguments (at
// most one; none is the built-in default) with the what-if changes o
// (may be nil) and applies the --seed and --requests overrides, requests
// in [1, maxRequests].
func scenarioArg(pos []string, seed, requests intFlag, maxRequests int64, o *scenario.Options) (*scenario.Scenario, error) {
	if len(pos) > 1 {
		return nil, usageError{err: fmt.Errorf("takes at most one scenario, got %d: %q", len(pos), pos)}
	}
	arg := ""
	if len(pos) == 1 {
		arg = pos[0]
	}
	sc, err := loadScenarioWith(arg, o)
	if err != nil {
		return nil, err
	}
	if seed.set {
		if seed.v < 0 {
			return nil, usageError{err: fmt.Errorf("--seed %d: must be ≥ 0", seed.v)}
		}
		if err := flagAgreesWithSet(o, "seed", "--seed", seed.v, int64(sc.Config.Seed)); err != nil {
			return nil, err
		}
		sc.Config.Seed = uint64(seed.v)
	}
	if requests.set && (requests.v < 1 || requests.v > maxRequests) {
		return nil, usageError{err: fmt.Errorf("--requests %d: must be in [1, %d]", requests.v, maxRequests)}
	}
	return sc, nil
}

// flagAgreesWithSet returns a usage error when the what-if overrides o set
// key (to set, the value the scenario now holds) and the flag named flag
// gives it another value v: the report would list the override while the
// flag's value ran. Equal values agree.
func flagAgreesWithSet(o *scenario.Options, key, flag string, v, set int64) error {
	if o == nil || v == set {
		return nil
	}
	for _, kv := range o.Set {
		if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == key {
			return usageError{err: fmt.Errorf("%s %d and --set %s contradict each other; give one of them", flag, v, kv)}
		}
	}
	return nil
}

// loadScenario reads the scenario named by arg: a file path, or the name of
// a built-in scenario (with or without .toml), a file taken before a
// built-in of the same name; "" is the built-in default, never a file.
// The limits come from scenario.DefaultLimits and the environment
// (inputLimits).
func loadScenario(arg string) (*scenario.Scenario, error) { return loadScenarioWith(arg, nil) }

// loadScenarioWith is loadScenario with what-if changes (o may be nil).
func loadScenarioWith(arg string, o *scenario.Options) (*scenario.Scenario, error) {
	lim, err := inputLimits()
	if err != nil {
		return nil, err
	}
	if arg == "" {
		// Always the built-in: a file of the same name in the working
		// directory is read only when named.
		return lim.LoadFSWith(scenarios.FS, scenarios.Default, o)
	}
	if _, err := os.Stat(arg); err == nil || !errors.Is(err, fs.ErrNotExist) {
		// There, or there but unreadable (a loop of symbolic links, no
		// permission): the loader says why.
		return lim.LoadWith(arg, o)
	}
	name := strings.TrimSuffix(filepath.Base(arg), ".toml") + ".toml"
	if _, err := fs.Stat(scenarios.FS, name); err == nil && !strings.ContainsRune(arg, os.PathSeparator) {
		return lim.LoadFSWith(scenarios.FS, name, o) // LoadFS: a replayed trace is read from the FS too
	}
	return nil, unknownScenario(arg)
}

// scenarioSource returns the file name and text of the scenario named by
// arg, as loadScenario finds it.
func scenarioSource(arg string) (string, []byte, error) {
	if arg == "" {
		data, err := fs.ReadFile(scenarios.FS, scenarios.Default)
		return scenarios.Default, data, err
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		lim, err := inputLimits()
		if err != nil {
			return "", nil, err
		}
		data, err := readers.ReadFile(arg, lim.MaxBytes)
		if err != nil {
			return "", nil, usageError{err: err}
		}
		return arg, data, nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", nil, usageError{err: err} // a loop of symbolic links, no permission
	}
	name := strings.TrimSuffix(filepath.Base(arg), ".toml") + ".toml"
	data, err := fs.ReadFile(scenarios.FS, name)
	if err != nil {
		return "", nil, unknownScenario(arg)
	}
	return name, data, nil
}

// inputLimits returns scenario.DefaultLimits with the sizes overridden by
// the environment: scenario.MaxBytesEnv for scenario files and
// readers.MaxBytesEnv for the logs and traces they name or fit reads.
func inputLimits() (scenario.Limits, error) {
	lim := scenario.DefaultLimits
	for _, v := range []struct {
		name string
		dst  *int64
	}{{scenario.MaxBytesEnv, &lim.MaxBytes}, {readers.MaxBytesEnv, &lim.MaxDataBytes}} {
		s, ok := os.LookupEnv(v.name)
		if !ok || s == "" {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n < 1 {
			return lim, usageError{err: fmt.Errorf("environment %s=%q: want a whole number of bytes ≥ 1", v.name, s)}
		}
		*v.dst = n
	}
	return lim, nil
}

func cmdList(args []string, stdout io.Writer) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprintln(stdout, "Usage: hedgesim list [--wide]\n\nLists the scenarios built into the binary, each with what it models (the\ntable of scenarios/README.md) on one line, shortened with \"…\" to fit the\nterminal (120 columns when standard output is not one); --wide prints the\ndescriptions whole. Run one with 'hedgesim run NAME'.")
		return nil
	}
	wide := len(args) == 1 && (args[0] == "--wide" || args[0] == "-wide")
	if len(args) > 0 && !wide {
		return usageError{err: fmt.Errorf("takes no arguments but --wide, got %q", args)}
	}
	width := 0
	if !wide {
		width = textfit.TerminalWidth(stdout)
	}
	desc := scenarios.Descriptions()
	names := scenarios.Names()
	labels := make([]string, len(names))
	col := 0
	for i, n := range names {
		labels[i] = n
		if n == scenarios.Default {
			labels[i] += " (default)"
		}
		col = max(col, utf8.RuneCountInString(labels[i])+2)
	}
	var b bytes.Buffer
	for i, n := range names {
		d := strings.ReplaceAll(desc[n], "`", "")
		if width > 0 {
			d = shorten(d, max(width-col, 20))
		}
		fmt.Fprintf(&b, "%-*s%s\n", col+len(labels[i])-utf8.RuneCountInString(labels[i]), labels[i], d)
	}
	_, err := stdout.Write(b.Bytes())
	return err
}

// shorten returns s when it has at most n runes, else its words that fit
// in n-1 runes followed by "…".
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := ""
	for _, w := range strings.Fields(s) {
		next := w
		if cut != "" {
			next = cut + " " + w
		}
		if utf8.RuneCountInString(next) > n-1 {
			break
		}
		cut = next
	}
	return strings.TrimRight(cut, ",;:") + "…"
}
