package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTargetPastDeadlineWarns: --target 30s for classes whose deadlines
// are 2s and 10s counts a request within the target exactly when it is
// answered at all; each class's warnings say so (before, nothing did).
// A target below both deadlines, or equal to one (a deliberate "answered
// by the deadline", as guard-check's), draws no such warning.
func TestTargetPastDeadlineWarns(t *testing.T) {
	sc := filepath.Join(t.TempDir(), "emb.toml")
	if err := os.WriteFile(sc, []byte(embedScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	warnings := func(target string) map[string]string {
		t.Helper()
		code, stdout, stderr := hedgesim(t, "optimize", "--json", "--quiet", "--requests", "2000", "--check-requests", "0", "--objective", "answered", "--target", target, sc)
		if code != 0 {
			t.Fatalf("--target %s: exit %d: %s", target, code, stderr)
		}
		var rep struct {
			Classes []struct {
				Class    string   `json:"class"`
				Warnings []string `json:"warnings"`
			} `json:"classes"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, c := range rep.Classes {
			out[c.Class] = strings.Join(c.Warnings, "\n")
		}
		return out
	}
	w := warnings("30s")
	for class, dl := range map[string]string{"search": "2.00s", "batch-index": "10.0s"} {
		want := "the objective's target of 30.0s is past the class's deadline of " + dl + ": a request is answered by its deadline or not at all, so answered within the target is answered at all"
		if !strings.Contains(w[class], want) {
			t.Errorf("--target 30s, class %s: warnings %q; want %q", class, w[class], want)
		}
	}
	for _, target := range []string{"1s", "2s"} {
		for class, ws := range warnings(target) {
			if strings.Contains(ws, "past the class's deadline") {
				t.Errorf("--target %s, class %s: warnings %q; want none on the deadline", target, class, ws)
			}
		}
	}
}
