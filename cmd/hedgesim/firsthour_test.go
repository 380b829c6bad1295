package main

import (
	"os"
	"strings"
	"testing"
)

// TestValidateSchema: `validate --schema` prints the committed
// docs/scenario.schema.json, which the shipped scenarios name; it takes no
// scenario.
func TestValidateSchema(t *testing.T) {
	code, out, errOut := hedgesim(t, "validate", "--schema")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, err := os.ReadFile("../../docs/scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("validate --schema differs from docs/scenario.schema.json")
	}
	if code, _, errOut := hedgesim(t, "validate", "--schema", "guard-check"); code != 2 || !strings.Contains(errOut, "--schema takes no scenario") {
		t.Errorf("--schema with a scenario: exit %d, %s", code, errOut)
	}
}

// TestHelpToStdout: `hedgesim CMD --help` and `-h` (anywhere among the
// flags) print the command's usage on stdout, nothing on stderr, and exit
// 0, as `hedgesim help CMD` does, so that help can be paged or grepped.
func TestHelpToStdout(t *testing.T) {
	for _, cmd := range strings.Split(commandNames, ", ") {
		if cmd == "help" {
			continue
		}
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {cmd, "-help"}, {cmd, "--json", "-h"}} {
			if (cmd == "list" || cmd == "version") && len(args) > 2 {
				continue // they take no other flag
			}
			code, out, errOut := hedgesim(t, args...)
			if code != 0 || errOut != "" || !strings.Contains(out, "Usage: hedgesim "+cmd) {
				t.Errorf("%q: exit %d, stdout %.80q, stderr %.200q; want 0, the usage on stdout, nothing on stderr", args, code, out, errOut)
			}
		}
		_, want, _ := hedgesim(t, "help", cmd)
		if _, out, _ := hedgesim(t, cmd, "--help"); out != want {
			t.Errorf("%s --help differs from help %s", cmd, cmd)
		}
	}
	// After --, -h is an argument, not a request for help.
	if code, out, _ := hedgesim(t, "validate", "--", "-h"); code != 2 || strings.Contains(out, "Usage") {
		t.Errorf("validate -- -h: exit %d, stdout %q; want 2 (no such scenario)", code, out)
	}
}

// TestVersionFlags: --version, -version and -v work as the version command.
func TestVersionFlags(t *testing.T) {
	_, want, _ := hedgesim(t, "version")
	if !strings.HasPrefix(want, "hedgesim ") {
		t.Fatalf("version: %q", want)
	}
	for _, f := range []string{"--version", "-version", "-v"} {
		if code, out, errOut := hedgesim(t, f); code != 0 || out != want || errOut != "" {
			t.Errorf("%s: exit %d, %q, stderr %q; want 0 and %q", f, code, out, errOut, want)
		}
	}
}

// TestDidYouMean: a misspelt flag or command names the one it most likely
// meant; a name close to nothing gets no guess.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"optimize", "--max_cost", "5"}, "flag provided but not defined: --max_cost (did you mean --max-cost?)"},
		{[]string{"run", "--request", "5"}, "--request (did you mean --requests?)"},
		{[]string{"run", "--requests=5", "--Seed=3"}, "--Seed (did you mean --seed?)"},
		{[]string{"run", "--sed", "3"}, "(did you mean --seed?)"},
		{[]string{"fit", "--metrc", "x", "a.txt"}, "(did you mean --metric?)"},
		{[]string{"export", "--fromat", "grpc", "guard-check"}, "(did you mean --format?)"},
		{[]string{"optimise"}, `unknown command "optimise" (did you mean optimize?)`},
		{[]string{"valdiate"}, "(did you mean validate?)"},
	} {
		code, out, errOut := hedgesim(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if _, _, errOut := hedgesim(t, "run", "--zzzzzzzz"); strings.Contains(errOut, "did you mean") {
		t.Errorf("run --zzzzzzzz guesses: %q", errOut)
	}
}
