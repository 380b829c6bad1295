package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

// TestFitSplitHalfWideNamesAlign: fit's split-half table aligns its
// columns by the width their text takes on a terminal, as the rest of the
// CLI does (textfit), so a log named with CJK characters and an emoji
// (two columns each) keeps the table straight: every row's second column
// starts at the same terminal column. Before, it aligned by runes, and
// that row's columns stood 3 to the right of the others'.
func TestFitSplitHalfWideNamesAlign(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(togetherLog)
	if err != nil {
		t.Fatal(err)
	}
	wide := filepath.Join(dir, "模型-🚀.json")
	if err := os.WriteFile(wide, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := hedgesim(t, "fit", "--split-half", wide, anyscaleLog)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var starts []int
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "model predictions") {
			break
		}
		i := strings.Index(line, "  ")
		if i < 0 {
			continue
		}
		j := i + len(line[i:]) - len(strings.TrimLeft(line[i:], " "))
		starts = append(starts, uniseg.StringWidth(line[:j]))
		if strings.HasPrefix(line, "模型-🚀.json") {
			rows++
		}
	}
	if rows == 0 || len(starts) < 3 {
		t.Fatalf("no table rows of the wide-named log:\n%s", out)
	}
	for i, s := range starts {
		if s != starts[0] {
			t.Errorf("line %d's second column starts at terminal column %d, the header's at %d:\n%s", i+1, s, starts[0], out)
			break
		}
	}
}
