package main

import (
	"strings"
	"testing"
)

// TestWhyNotNamesCopies: with --copies 1,2,3 the sweep's candidates differ
// in their copies too, and the "why not" list names them as the frontier
// table, candidates.csv and the plots do (309ms×1), not by the delay alone,
// which read like the pick (309ms×2).
func TestWhyNotNamesCopies(t *testing.T) {
	code, out, errOut := hedgesim(t, "optimize", "--wide", "--requests", "4000", "--check-requests", "4000", "--copies", "1,2,3", "guard-check")
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	lines := strings.Split(out, "\n")
	n := 0
	for i, l := range lines {
		if !strings.HasPrefix(l, "  why not:") {
			continue
		}
		for _, c := range lines[i+1:] {
			if !strings.HasPrefix(c, "    ") {
				break
			}
			n++
			first := strings.Fields(c)[0]
			if first != "none" && !strings.Contains(first, "×") {
				t.Errorf("why-not entry %q names no copies", c)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no why-not entries in:\n%s", out)
	}
}
