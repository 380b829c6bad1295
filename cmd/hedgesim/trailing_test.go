package main

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenarios"
)

// TestReportsHaveNoTrailingSpaces: no line of the run and optimize text
// reports (with --all, and the rollout check) of any shipped scenario ends
// in a space. Regression: the rollout check's table padded its last
// column.
func TestReportsHaveNoTrailingSpaces(t *testing.T) {
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory
	sweep, check := "500", "2000"
	if testing.Short() {
		sweep, check = "200", "500" // the lines' shapes, not their figures, are checked
	}
	for _, name := range scenarios.Names() {
		for _, args := range [][]string{
			{"run", "--requests", "2000", "--quiet", name},
			{"optimize", "--requests", sweep, "--check-requests", check, "--all", "--quiet", name},
		} {
			code, out, errOut := hedgesim(t, args...)
			if code != 0 {
				t.Errorf("%q: exit %d: %s", args, code, errOut)
				continue
			}
			for i, line := range strings.Split(out, "\n") {
				if strings.HasSuffix(line, " ") {
					t.Errorf("%q: line %d ends in a space: %q", args, i+1, line)
				}
			}
		}
	}
}
