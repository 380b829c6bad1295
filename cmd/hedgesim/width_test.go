package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/compare"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/textfit"
)

// checkFits fails t for every line of out wider than width columns.
func checkFits(t *testing.T, what, out string, width int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if n := columns(l); n > width {
			t.Errorf("%s: line %d is %d columns, more than %d:\n%s", what, i+1, n, width, l)
		}
	}
}

// columns returns the columns line takes on a terminal, tab stops every
// 8 columns.
func columns(line string) int {
	n := 0
	for _, r := range line {
		if r == '\t' {
			n += 8 - n%8
		} else {
			n++
		}
	}
	return n
}

// words returns the words of text, split at blanks and after '/' (where a
// fitted header may break), as a set; a word's closing ':' is dropped, as
// a cell moved below its row is labelled "header: value" and a column
// whose every cell moved keeps its header only there.
func words(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(text) {
		if len(w) > 1 {
			w = strings.TrimSuffix(w, ":")
		}
		for w != "" {
			i := strings.IndexByte(w, '/')
			if i < 0 || i == len(w)-1 {
				set[w] = true
				break
			}
			set[w[:i+1]] = true
			w = w[i+1:]
		}
	}
	return set
}

// checkSameWords fails t when a word of the wide text is missing from the
// fitted one: fitting moves and breaks text, it never drops any.
func checkSameWords(t *testing.T, what, fitted, wide string) {
	t.Helper()
	have := words(fitted)
	for w := range words(wide) {
		if !have[w] {
			t.Errorf("%s: the fitted text lacks %q of the wide text", what, w)
		}
	}
}

// TestTextFitsTheWidth: for every shipped scenario, run's, optimize's and
// compare's text fits 120 columns when standard output is not a terminal
// (the tests' buffers), keeps every word of the --wide text, and --wide
// prints the full text that run --out writes to report.txt and that
// compare writes to a plain writer. Under -short optimize runs only on
// three scenarios (a plain gateway, a pipeline, a replica pool).
func TestTextFitsTheWidth(t *testing.T) {
	const width = textfit.DefaultWidth
	dir := t.TempDir()
	optimized := map[string]bool{"two-model-gateway.toml": true, "help-chat-turn.toml": true, "replica-pool.toml": true}
	for _, name := range scenarios.Names() {
		t.Run(strings.TrimSuffix(name, ".toml"), func(t *testing.T) {
			out := filepath.Join(dir, name)
			code, fitted, errOut := hedgesim(t, "run", "--requests", "1500", "--out", out, name)
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, errOut)
			}
			checkFits(t, "run", fitted, width)
			_, wide, _ := hedgesim(t, "run", "--requests", "1500", "--wide", name)
			full, err := os.ReadFile(filepath.Join(out, "report.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if wide != string(full) {
				t.Errorf("run --wide differs from report.txt")
			}
			checkSameWords(t, "run", fitted, wide)

			// compare: this run against another seed's.
			a, _ := os.ReadFile(filepath.Join(out, "report.json"))
			_, b, _ := hedgesim(t, "run", "--requests", "1500", "--seed", "2", "--json", name)
			pa := writeTestFile(t, out, "a.json", string(a))
			pb := writeTestFile(t, out, "b.json", b)
			code, fitted, errOut = hedgesim(t, "compare", pa, pb)
			if code != 0 {
				t.Fatalf("compare: exit %d: %s", code, errOut)
			}
			checkFits(t, "compare", fitted, width)
			_, wide, _ = hedgesim(t, "compare", "--wide", pa, pb)
			ra, err1 := compare.Parse(a)
			rb, err2 := compare.Parse([]byte(b))
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			var plain bytes.Buffer
			compare.Compare(ra, rb).WriteText(&plain, pa, pb)
			if wide != plain.String() {
				t.Errorf("compare --wide differs from the comparison's full text")
			}
			checkSameWords(t, "compare", fitted, wide)

			if testing.Short() && !optimized[name] {
				return
			}
			code, fitted, errOut = hedgesim(t, "optimize", "--requests", "300", "--no-plots", name)
			if code != 0 {
				t.Fatalf("optimize: exit %d: %s", code, errOut)
			}
			checkFits(t, "optimize", fitted, width)
			_, wide, _ = hedgesim(t, "optimize", "--requests", "300", "--no-plots", "--wide", name)
			checkSameWords(t, "optimize", fitted, wide)
		})
	}
}

// TestListAndHelpFit: list is one line per scenario and help is wrapped,
// both within 120 columns; list --wide gives each description whole.
func TestListAndHelpFit(t *testing.T) {
	_, out, _ := hedgesim(t, "list")
	checkFits(t, "list", out, textfit.DefaultWidth)
	_, wide, _ := hedgesim(t, "list", "--wide")
	if n := strings.Count(out, "\n"); n != len(scenarios.Names()) || strings.Count(wide, "\n") != n {
		t.Errorf("list: %d lines, --wide %d, want one per scenario (%d)", n, strings.Count(wide, "\n"), len(scenarios.Names()))
	}
	shortened := false
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		w := strings.Split(wide, "\n")[i]
		if cut, ok := strings.CutSuffix(l, "…"); ok {
			shortened = true
			if !strings.HasPrefix(w, cut) {
				t.Errorf("list line %q is not the start of %q", l, w)
			}
		} else if l != w {
			t.Errorf("list line %q, --wide %q", l, w)
		}
	}
	if !shortened {
		t.Error("no description shortened: is the test's width still below the list's?")
	}
	for _, cmd := range []string{"run", "optimize", "merge", "fit", "validate", "compare", "export", "list", "version"} {
		_, help, _ := hedgesim(t, cmd, "--help")
		checkFits(t, cmd+" --help", help, textfit.DefaultWidth)
	}
	_, help, _ := hedgesim(t, "--help")
	checkFits(t, "--help", help, textfit.DefaultWidth)
}
