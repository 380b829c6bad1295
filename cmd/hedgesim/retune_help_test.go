package main

import (
	"strings"
	"testing"
)

// TestRetuneHelpCannotTell: retune --help defined "cannot tell" as fewer
// than 50 observations only, while docs/retune.md, and the verdicts
// (backup's 800 observations in buckets too coarse for the test), also
// give it to buckets that leave the test no degree of freedom; the help
// now says both.
func TestRetuneHelpCannotTell(t *testing.T) {
	code, out, _ := hedgesim(t, "retune", "--help")
	flat := strings.Join(strings.Fields(out), " ")
	if code != exitOK || !strings.Contains(flat, "cannot tell (fewer than 50 observations, or buckets that leave the test no degree of freedom)") {
		t.Errorf("retune --help: exit %d, %q; want cannot tell defined as docs/retune.md does", code, out)
	}
}
