package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hedgesim/hedgesim/export"
	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// stdin is what INPUT "-" reads; tests replace it.
var stdin io.Reader = os.Stdin

var exportSynopsis = `export --format FORMAT [flags] INPUT

Writes hedge policies as the configuration of the runtime that will carry
them. INPUT is an optimize report (report.json of 'optimize --out', or the
output of 'optimize --json'; - reads standard input): each class's pick is
exported, hedging off where the verdict is "don't hedge" and the class's
configured policy, its reason noted, where the verdict is undecided (too
few requests to tell). Or INPUT is a scenario file or built-in scenario
name: each class's configured policy is exported.

` + exportFormatsHelp() + `
What a format cannot express, and what was written instead, is printed on
standard error for every class, and as comments in the output where the
format has them. A class a format's runtime would run differently from
what was simulated is refused, naming what differs, what the runtime
would run instead and the formats that can express the class: copies
whose gaps differ (grpc, envoy, failsafe-go and polly have one delay for
every copy), copies to another model (grpc sends every copy where the
primary goes) or to several models (failsafe-go has one hedge target),
more than 4 copies (grpc), and a deadline on time to first token (grpc
and envoy, whose timeouts cover the whole stream). --approximate writes
what the runtime will run instead, each difference noted. gRPC's
hedgingPolicy is carried out by grpc-java, grpc-dotnet and grpc-js, and
ignored by grpc-go and C-core (C++, Python, Ruby, PHP): see the note the
grpc format prints. Exit status 2: bad input, an unknown class or format,
or a class the format cannot express (faithfully).`

func cmdExport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("export", exportSynopsis, stderr)
	format := fs.String("format", "", "output `format`: "+strings.Join(export.Formats, ", ")+" (required)")
	var classFlag onceFlag
	fs.Var(&classFlag, "class", "export only the class `NAME`")
	class := &classFlag.v
	service := fs.String("service", "", "gRPC `service` the policies apply to (grpc, envoy; default placeholder SERVICE)")
	method := fs.String("method", "", "gRPC `method` (grpc, envoy; needs a single class; default: the class name)")
	approx := fs.Bool("approximate", false, "for a class the format cannot express exactly (gaps that differ, copies to other models, too many copies, a deadline on time to first token: see above), write what its runtime will run, each difference noted on standard error and in the output's comments, instead of exiting with status 2")
	out := pathFlag(fs, "out", "write to `FILE` (atomically; a symbolic link is written through) instead of standard output (- is standard output)")
	scen := pathFlag(fs, "scenario", "for a report: the `SCENARIO` it was made from (default: the scenario the report names, if built in or a file of that name)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *format == "" {
		return usageError{err: fmt.Errorf("--format is required; formats: %s", strings.Join(export.Formats, ", "))}
	}
	if !isFormat(*format) {
		return usageError{err: fmt.Errorf("--format %q: unknown; formats: %s", *format, strings.Join(export.Formats, ", "))}
	}
	if len(pos) != 1 {
		return usageError{err: fmt.Errorf("takes one INPUT (a report, - for standard input, or a scenario), got %d: %q", len(pos), pos)}
	}
	if pos[0] == "" {
		return usageError{err: errors.New("INPUT is empty: give a report, - for standard input, or a scenario")}
	}
	// The configuration is all export writes to standard output, so "-"
	// can mean it.
	if (*service != "" || *method != "") && *format != "grpc" && *format != "envoy" {
		printMessage(stderr, "hedgesim export: %s: --service and --method apply to grpc and envoy only; ignored\n", *format)
	}
	doc, used, err := exportInput(pos[0], *scen)
	if err != nil {
		return err
	}
	var outFile *outputFile
	if *out != "" && *out != "-" {
		// Checked once the inputs are known: a report's scenario may be
		// found beside it or here without --scenario.
		if outFile, err = checkOutput("out", *out, input{"the input", pos[0]}, input{"the --scenario file", *scen}, input{"the scenario the report was made from", used}); err != nil {
			return err
		}
	}
	if *class != "" {
		if err := doc.Select(*class); err != nil {
			return usageError{err: fmt.Errorf("--class: %w", err)}
		}
	}
	if *method != "" && len(doc.Classes) > 1 {
		return usageError{err: fmt.Errorf("--method %s names one method, but %d classes are exported; choose one with --class", *method, len(doc.Classes))}
	}
	data, notes, err := export.Write(doc, *format, export.Options{Service: *service, Method: *method, Approximate: *approx})
	if err != nil {
		return usageError{err: err}
	}
	for _, n := range notes {
		printMessage(stderr, "hedgesim export: %s: %s\n", *format, n)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	if outFile == nil {
		_, err = stdout.Write(data)
		return err
	}
	return outFile.write(data)
}

func isFormat(f string) bool {
	for _, x := range export.Formats {
		if x == f {
			return true
		}
	}
	return false
}

// exportInput reads INPUT: an optimize report (JSON; "-" is standard
// input) with its scenario, or a scenario. It returns the document and,
// for a report, the scenario it read (a file or a built-in name).
func exportInput(arg, scen string) (*export.Document, string, error) {
	var data []byte
	name := arg
	lim, err := inputLimits()
	if err != nil {
		return nil, "", err
	}
	switch st, err := os.Stat(arg); {
	case arg == "-":
		name = "standard input"
		if data, err = readStdin(lim.MaxDataBytes, "an optimize report"); err != nil {
			return nil, "", err
		}
		if !export.IsJSON(data) {
			return nil, "", usageError{err: errors.New("standard input: not a hedgesim optimize report (want the JSON of 'hedgesim optimize --json'); a scenario is read from a file or by name")}
		}
	case err == nil && !st.IsDir():
		// Regular files only, within the size bound.
		if data, err = readers.ReadFile(arg, lim.MaxDataBytes); err != nil {
			return nil, "", usageError{err: err}
		}
	}
	if data == nil || !export.IsJSON(data) {
		if scen != "" {
			// Say what the input is: empty, a scenario, or neither.
			what := "not a hedgesim optimize report (want the JSON of 'hedgesim optimize --json')"
			switch _, err := loadScenario(arg); {
			case data != nil && len(bytes.TrimSpace(data)) == 0:
				what = "empty, not a hedgesim optimize report (want the JSON of 'hedgesim optimize --json')"
			case err == nil:
				what = "a scenario"
			case data == nil:
				return nil, "", err // no such file or built-in scenario: the loader says so
			}
			return nil, "", usageError{err: fmt.Errorf("--scenario applies to a report input; %s is %s", arg, what)}
		}
		sc, err := loadScenario(arg)
		if err != nil {
			if data != nil && !strings.HasSuffix(strings.ToLower(arg), ".toml") {
				return nil, "", usageError{err: fmt.Errorf("%s is neither a hedgesim optimize report (JSON) nor a scenario: %w", arg, err)}
			}
			return nil, "", err
		}
		return export.ScenarioPolicies(&sc.Config), "", nil
	}
	rname, err := export.ReportScenario(data)
	if err != nil {
		return nil, "", usageError{err: fmt.Errorf("%s: %w", name, err)}
	}
	// The report's what-if --set overrides (KEY=VALUE; the others, such as
	// --scale-rate, change the traffic, not a policy) are applied to the
	// scenario, so that what is exported is what was optimized.
	var over struct {
		Overrides []string `json:"overrides"`
	}
	var opts *scenario.Options
	if json.Unmarshal(data, &over) == nil {
		for _, o := range over.Overrides {
			if strings.Contains(o, "=") && !strings.Contains(o, " (--") {
				if opts == nil {
					opts = &scenario.Options{}
				}
				opts.Set = append(opts.Set, o)
			}
		}
	}
	var cfg *sim.Config
	var scenSHA string
	found := scen == "" // the scenario is looked for by the report's name
	if scen == "" {
		// The scenario the report names: NAME.toml beside the report or
		// in the working directory, else a built-in scenario.
		var tries []string
		if arg != "-" {
			tries = append(tries, filepath.Join(filepath.Dir(arg), rname+".toml"))
		}
		tries = append(tries, rname+".toml")
		for _, f := range tries {
			if st, err := os.Stat(f); err == nil && !st.IsDir() {
				scen = f
				break
			}
		}
		if scen == "" {
			scen = rname
		}
		sc, err := loadScenarioWith(scen, opts)
		if err == nil {
			scenSHA = sc.SHA256
		}
		if err != nil {
			return nil, "", usageError{err: fmt.Errorf("%s: a report of scenario %q, which is neither built in nor a file %s.toml beside the report or here: give the scenario with --scenario FILE (each class's primary, error rules, winner, budgets and deadline come from it)", name, rname, rname)}
		}
		cfg = &sc.Config
	} else {
		sc, err := loadScenarioWith(scen, opts)
		if err != nil {
			return nil, "", err
		}
		cfg = &sc.Config
		scenSHA = sc.SHA256
	}
	// The policies' other settings come from the scenario: it must be the
	// one the report was made from.
	var hash struct {
		SHA string `json:"scenario_sha256"`
	}
	if json.Unmarshal(data, &hash) == nil && hash.SHA != "" && scenSHA != "" && hash.SHA != scenSHA {
		which := "the scenario given (--scenario " + scen + ")"
		if found {
			which = "the built-in scenario of that name"
			if _, err := os.Stat(scen); err == nil {
				which = scen + ", found by the report's name,"
			}
		}
		return nil, "", usageError{err: fmt.Errorf("%s was made from another version of scenario %q: the report's scenario has sha256 %.12s…, %s %.12s…, so its error rules, winner, budgets and deadline may differ; pass --scenario FILE with the version the report was made from, re-run optimize on this one, or export the scenario itself", name, rname, hash.SHA, which, scenSHA)}
	}
	doc, err := export.ReportPicks(data, cfg)
	if err != nil {
		return nil, "", usageError{err: fmt.Errorf("%s: %w", name, err)}
	}
	return doc, scen, nil
}

// readStdin reads standard input, at most limit bytes: more is a usage
// error saying it is not what (say, "an optimize report").
func readStdin(limit int64, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(stdin, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading standard input: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, usageError{err: fmt.Errorf("standard input: more than %d bytes; not %s (raise %s if it is one)", limit, what, readers.MaxBytesEnv)}
	}
	return data, nil
}
