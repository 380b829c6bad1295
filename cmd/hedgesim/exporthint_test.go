package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/export"
)

// exportHintScenario is a user's scenario without a name: it is named
// after its file, rlgw, which export looks for as rlgw.toml beside the
// report or in the working directory, not in the directory it came from.
const exportHintScenario = `seed = 11
[arrivals]
rate = 15
[models.gpt]
latency = { kind = "lognormal", median = 0.4, p95 = 2.5 }
price_per_request = 0.002
[models.claude]
latency = { kind = "lognormal", median = 0.6, p95 = 1.2 }
price_per_request = 0.003
[[classes]]
name = "interactive"
deadline = "20s"
[classes.hedge]
primary = "gpt"
targets = ["claude"]
delay = "800ms"
`

// rollOutLine returns the command of the "roll out: " line of an optimize
// text report.
func rollOutLine(t *testing.T, text string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if cmd, ok := strings.CutPrefix(l, "roll out: "); ok {
			return cmd
		}
	}
	t.Fatalf("no \"roll out: \" line in:\n%s", text)
	return ""
}

// TestExportHintRuns pins the export command optimize prints failing for
// a user's scenario in another directory ("a report of scenario "rlgw",
// which is neither built in nor a file rlgw.toml beside the report or
// here", exit 2): the command now names the file with --scenario, and
// run as printed it exits 0. A built-in scenario, which export finds by
// name, is not named.
func TestExportHintRuns(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sc", "rlgw.toml")
	if err := os.Mkdir(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(exportHintScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o4")
	code, stdout, stderr := hedgesim(t, "optimize", "--wide", "--requests", "300", "--check-requests", "0", "--no-plots", "--out", out, src)
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, stderr)
	}
	line := rollOutLine(t, stdout)
	formats := strings.Join(export.Formats, "|")
	want := "hedgesim export --format " + formats + " --scenario " + src + " " + filepath.Join(out, "report.json")
	if line != want {
		t.Fatalf("roll out: %q; want %q", line, want)
	}
	args := strings.Fields(strings.Replace(strings.TrimPrefix(line, "hedgesim "), formats, "json", 1))
	if code, _, stderr := hedgesim(t, args...); code != 0 {
		t.Errorf("hedgesim %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}

	// Without --out, the advice names the file too; a built-in scenario
	// it does not.
	code, stdout, stderr = hedgesim(t, "optimize", "--wide", "--requests", "300", "--check-requests", "0", "--no-plots", src)
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, stderr)
	}
	if line, want := rollOutLine(t, stdout), "rerun with --out DIR, then hedgesim export --format "+formats+" --scenario "+src+" DIR/report.json"; line != want {
		t.Errorf("roll out: %q; want %q", line, want)
	}
	code, stdout, stderr = hedgesim(t, "optimize", "--wide", "--requests", "300", "--check-requests", "0", "--no-plots", "guard-check")
	if code != 0 {
		t.Fatalf("optimize guard-check: exit %d: %s", code, stderr)
	}
	if line, want := rollOutLine(t, stdout), "rerun with --out DIR, then hedgesim export --format "+formats+" DIR/report.json"; line != want {
		t.Errorf("guard-check: roll out: %q; want %q", line, want)
	}
}
