package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/textfit"
)

// TestStderrWrapped pins a bug: the did-you-mean error of "run guard-chek"
// (listing every built-in scenario) was one line of 538 columns, export's
// gRPC note one of 488. Messages to a stderr of 120 columns (a
// textfit.Writer, standing for a terminal) wrap to it and keep every word;
// to a plain writer (a log, a pipe) each stays on one line.
func TestStderrWrapped(t *testing.T) {
	for _, args := range [][]string{
		{"run", "guard-chek"},
		{"export", "--format", "grpc", "guard-check"},
	} {
		var o, e bytes.Buffer
		run(args, &o, textfit.NewWriter(&e, textfit.DefaultWidth))
		errOut := e.String()
		_, _, plain := hedgesim(t, args...)
		if plain != strings.ReplaceAll(errOut, "\n  ", " ") || strings.Count(plain, "\n") >= strings.Count(errOut, "\n") {
			t.Errorf("%q: to a plain writer:\n%s\nwant the wrapped text's lines joined:\n%s", args, plain, errOut)
		}
		if errOut == "" {
			t.Fatalf("%q: nothing on stderr", args)
		}
		for l := range strings.Lines(errOut) {
			if n := utf8.RuneCountInString(strings.TrimSuffix(l, "\n")); n > textfit.DefaultWidth {
				t.Errorf("%q: a line of %d columns > %d: %q", args, n, textfit.DefaultWidth, l)
			}
		}
		if args[0] == "run" {
			for _, want := range []string{"did you mean guard-check?", "(built-in:"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("%q: stderr lacks %q:\n%s", args, want, errOut)
				}
			}
			words := strings.Fields(errOut)
			for _, n := range scenarios.Names() {
				if !strings.Contains(strings.Join(words, " "), n) {
					t.Errorf("%q: stderr lacks the built-in %s:\n%s", args, n, errOut)
				}
			}
		}
	}
}
