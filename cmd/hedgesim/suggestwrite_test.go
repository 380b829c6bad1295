package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// writeSpellings returns the original command's arguments, with its
// --write-scenario file in every spelling the flag parser accepts.
func writeSpellings(head []string, file string) map[string][]string {
	return map[string][]string{
		"--write-scenario X": append(append([]string{}, head...), "--write-scenario", file),
		"--write-scenario=X": append(append([]string{}, head...), "--write-scenario="+file),
		"-write-scenario X":  append(append([]string{}, head...), "-write-scenario", file),
	}
}

// suggestedArgs returns the arguments of the first line of a suggested
// command after "hedgesim CMD ", the paths of t.TempDir() needing no
// quotes.
func suggestedArgs(t *testing.T, line, cmd string) []string {
	t.Helper()
	first, _, _ := strings.Cut(line, "\n")
	rest, ok := strings.CutPrefix(first, "hedgesim "+cmd+" ")
	if !ok || strings.ContainsAny(rest, `'"\`) {
		t.Fatalf("suggested command %q: want hedgesim %s and no quoting", line, cmd)
	}
	return strings.Fields(rest)
}

// TestOptimizeSuggestedWriteParses: index.html's command that writes the
// scenario with the picks applied parses (parseOptimize, the real flags)
// when the report's own command already has --write-scenario, in any
// spelling, and runs the file that command writes; without the flag it
// adds --write-scenario picked.toml.
func TestOptimizeSuggestedWriteParses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.toml")
	head := []string{"guard-check", "--requests", "2000", "--out", filepath.Join(dir, "report")}
	for name, orig := range writeSpellings(head, file) {
		job, err := parseOptimize(orig, io.Discard)
		if err != nil {
			t.Fatalf("%s: the original command: %v", name, err)
		}
		if job.ws == nil || job.writeScenario != file {
			t.Fatalf("%s: the original command writes no scenario to %s", name, file)
		}
		cmds := optimizeCommands(job.args, job.writeScenario)
		for _, c := range cmds {
			if _, err := parseOptimize(suggestedArgs(t, c.Line, "optimize"), io.Discard); err != nil {
				t.Errorf("%s: suggested %q: %v", name, c.Line, err)
			}
		}
		if want := "\nhedgesim run " + file; !strings.HasSuffix(cmds[1].Line, want) {
			t.Errorf("%s: suggested %q, want it to end %q", name, cmds[1].Line, want)
		}
	}
	cmds := optimizeCommands(head, "")
	if !strings.HasSuffix(cmds[1].Line, " --write-scenario picked.toml\nhedgesim run picked.toml") {
		t.Errorf("without --write-scenario, suggested %q", cmds[1].Line)
	}
}

// TestRetuneSuggestedWriteParses: index.html's commands of retune parse
// (cmdRetune's flags) when the report's own command already has
// --write-scenario, in any spelling: the command then goes on to read its
// --from source, missing here, rather than refuse a flag given twice.
func TestRetuneSuggestedWriteParses(t *testing.T) {
	dir := t.TempDir()
	file, from := filepath.Join(dir, "mine.toml"), filepath.Join(dir, "missing.prom")
	head := []string{"guard-check", "--from", from, "--out", filepath.Join(dir, "report")}
	for name, orig := range writeSpellings(head, file) {
		cmds := retuneCommands(orig, file)
		if len(cmds) != 1 || !strings.Contains(cmds[0].Label, file) {
			t.Errorf("%s: commands %+v, want one that says it writes %s", name, cmds, file)
		}
		for _, c := range cmds {
			err := cmdRetune(context.Background(), suggestedArgs(t, c.Line, "retune"), io.Discard, io.Discard)
			if err == nil || strings.Contains(err.Error(), "given twice") || !strings.Contains(err.Error(), "missing.prom") {
				t.Errorf("%s: suggested %q: %v, want the missing --from source", name, c.Line, err)
			}
		}
	}
	cmds := retuneCommands(head, "")
	if len(cmds) != 2 || !strings.HasSuffix(cmds[1].Line, " --write-scenario retuned.toml") {
		t.Errorf("without --write-scenario, commands %+v", cmds)
	}
}
