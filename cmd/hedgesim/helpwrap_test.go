package main

import (
	"strings"
	"testing"
)

// TestCompareHelpUnbroken: the prose of 'hedgesim help compare' is written
// in lines of at most 80 columns, so the help's wrapping to the terminal
// (120 columns off one) never breaks a line of it in two ("has no\n
// --precision: a\nreport …").
func TestCompareHelpUnbroken(t *testing.T) {
	code, out, errOut := hedgesim(t, "help", "compare")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	prose, _, _ := strings.Cut(out+errOut, "\nFlags:")
	for _, l := range strings.Split(prose, "\n") {
		if strings.HasPrefix(l, "Usage:") {
			continue
		}
		if n := len([]rune(l)); n > 80 || strings.HasPrefix(l, "  ") {
			t.Errorf("line of %d columns, or one the wrapping continued: %q", n, l)
		}
	}
	if !strings.Contains(prose, "has no --precision") {
		t.Errorf("the help lacks \"has no --precision\" on one line:\n%s", prose)
	}
}

// TestRunOutHelpListsFiles: run --help for --out names every file run
// --out writes (writeRunReport; TestRunOut, TestPipelineReports and
// TestRunAutoscaledPool check that they are written).
func TestRunOutHelpListsFiles(t *testing.T) {
	_, out, errOut := hedgesim(t, "run", "--help")
	help := strings.Join(strings.Fields(out+errOut), " ")
	for _, want := range []string{"report.txt", "report.json", ".png and .svg", "CLASS-adaptive-delay", "CLASS-steps", "pool-NAME-replicas"} {
		if !strings.Contains(help, want) {
			t.Errorf("run --help lacks %q", want)
		}
	}
}
