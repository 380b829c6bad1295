package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/textfit"
)

// TestStderrWrapped pins a bug: the did-you-mean error of "run guard-chek"
// (listing every built-in scenario) was one line of 538 columns, export's
// gRPC note one of 488. Messages on stderr wrap to 120 columns (stderr is
// not a terminal) and keep every word.
func TestStderrWrapped(t *testing.T) {
	for _, args := range [][]string{
		{"run", "guard-chek"},
		{"export", "--format", "grpc", "guard-check"},
	} {
		_, _, errOut := hedgesim(t, args...)
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
