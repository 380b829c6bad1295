package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// validateResult is one file of `hedgesim validate --json`.
type validateResult struct {
	File     string            `json:"file"`
	OK       bool              `json:"ok"`
	Problems []validateProblem `json:"problems"`
	// Warnings are what a run of the file would warn about from its
	// configuration alone (scenario.Scenario.Warnings); a file with
	// warnings is still ok, but fails --strict.
	Warnings []validateProblem `json:"warnings"`
}

// validateProblem is one scenario.Error; line is 0 when none applies.
type validateProblem struct {
	Line    int    `json:"line"`
	Key     string `json:"key"`
	Message string `json:"message"`
}

// cmdValidate checks scenario files without simulating them: every file
// is checked, every problem of a file is reported, and the status is 2 if
// any file has one.
func cmdValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", "validate [--json] [--strict] SCENARIO…\n       hedgesim validate --schema > scenario.schema.json\n\nChecks scenario files (paths or built-in names) without simulating them, as\na CI step: every problem of every file is reported as file:line: key: what is\nwrong, at most 20 per file. Prints \"FILE: ok\" for a valid file. Every warning\na run would give from the configuration alone (a step deadline longer than\nthe end-to-end deadline, a latency in milliseconds where seconds are meant)\nis printed as file:line: key: warning: CLASS: what, and counted after ok.\nExit status 0 when every file is valid, 2 otherwise; with --strict, 2 also\nwhen a file has a warning.\n\n--schema prints the JSON Schema of a scenario file instead, for editors:\nwith \"#:schema PATH\" as the first line of a scenario, Taplo and Even Better\nTOML complete its keys and flag typos (the shipped scenarios name\ndocs/scenario.schema.json).", stderr)
	asJSON := fs.Bool("json", false, "write one JSON object per file: {file, ok, problems: [{line, key, message}]}, as an array")
	strict := fs.Bool("strict", false, "exit with status 2 when a file has warnings, as when it has problems (for CI)")
	schema := fs.Bool("schema", false, "print the JSON Schema (draft-07) of a scenario file and exit")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *schema {
		if len(pos) > 0 || *asJSON {
			return usageError{err: errors.New("--schema takes no scenario and no --json: it prints the schema of every scenario file")}
		}
		b, err := scenario.JSONSchema(scenarios.Reference)
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	if len(pos) == 0 {
		return usageError{err: errors.New("no scenario given; want at least one SCENARIO file or built-in name")}
	}
	var out, problems bytes.Buffer
	results := make([]validateResult, 0, len(pos))
	bad, warned := 0, 0
	for _, arg := range pos {
		r := validateResult{File: arg, OK: true, Problems: []validateProblem{}, Warnings: []validateProblem{}}
		sc, err := loadScenario(arg)
		if err != nil {
			r.OK = false
			bad++
			r.Problems = problemList(err)
			fmt.Fprintln(&problems, err)
		} else {
			for _, w := range sc.Warnings {
				r.Warnings = append(r.Warnings, validateProblem{Line: w.Line, Key: w.Key, Message: w.Msg})
				shown := *w
				shown.Msg = "warning: " + w.Msg
				fmt.Fprintln(&problems, shown.Error())
			}
			switch n := len(sc.Warnings); n {
			case 0:
				fmt.Fprintf(&out, "%s: ok\n", arg)
			default:
				warned++
				fmt.Fprintf(&out, "%s: ok, %d warning%s\n", arg, n, map[bool]string{true: "", false: "s"}[n == 1])
			}
		}
		results = append(results, r)
	}
	if *asJSON {
		out.Reset()
		b, err := json.MarshalIndent(results, "", "  ")
		if err != nil {
			return err
		}
		out.Write(append(b, '\n'))
	}
	if _, err := stdout.Write(out.Bytes()); err != nil {
		return err
	}
	if !*asJSON {
		stderr.Write(problems.Bytes())
	}
	switch {
	case bad > 0:
		return usageError{err: fmt.Errorf("%d of %d scenarios have problems", bad, len(pos))}
	case *strict && warned > 0:
		return usageError{err: fmt.Errorf("%d of %d scenarios have warnings (--strict)", warned, len(pos))}
	}
	return nil
}

// problemList flattens err (an Errors, an *Error or any other error, such
// as a file that cannot be read) into problems.
func problemList(err error) []validateProblem {
	var list scenario.Errors
	if errors.As(err, &list) {
		out := make([]validateProblem, len(list))
		for i, e := range list {
			out[i] = validateProblem{Line: e.Line, Key: e.Key, Message: e.Msg}
		}
		return out
	}
	var e *scenario.Error
	if errors.As(err, &e) {
		return []validateProblem{{Line: e.Line, Key: e.Key, Message: e.Msg}}
	}
	return []validateProblem{{Message: err.Error()}}
}
