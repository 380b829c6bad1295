package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareEmptyClasses: reports of runs too short to reach every class
// — 3 requests of two-model-gateway, and 1 request of eval-black-hole run
// to a precision with --max-requests 1 — give the classes without requests null latencies and
// shares; compare
// reads each against itself (exit 0), the empty classes' figures and
// changes printed "-", with no advice to decide their p95.
func TestCompareEmptyClasses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		args  []string
		empty string
	}{
		{"gateway.json", []string{"run", "--json", "--requests", "3", "two-model-gateway"}, "medium"},
		{"black-hole.json", []string{"run", "--json", "--precision", "0.5", "--requests", "1", "--max-requests", "1", "eval-black-hole"}, "adaptive-cap"},
	} {
		code, out, errOut := hedgesim(t, tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		if !strings.Contains(out, `"requests": 0`) {
			t.Fatalf("%v: no class without requests", tc.args)
		}
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		code, text, errOut := hedgesim(t, "compare", "--wide", path, path)
		if code != 0 {
			t.Fatalf("compare %s with itself: exit %d: %s", tc.name, code, errOut)
		}
		found := false
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			if len(f) >= 5 && f[0] == tc.empty && f[1] == "p95" {
				found = true
				if f[2] != "-" || f[3] != "-" || f[4] != "-" {
					t.Errorf("%s: %q; want -, - and no change", tc.name, line)
				}
			}
			if strings.HasPrefix(line, tc.empty+": p95") {
				t.Errorf("%s: advice for a class without requests: %q", tc.name, line)
			}
		}
		if !found {
			t.Errorf("%s: no p95 line of class %s:\n%s", tc.name, tc.empty, text)
		}
	}
}
