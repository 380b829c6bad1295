package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenarios"
)

// TestOptimizeTooFewIsUndecided: replica-pool's classes share a pool, so
// their p95 intervals come from 30 batches of at least 10/(1 − 0.95) = 200
// requests: 6000 requests per candidate. At 5000 the verdict is undecided
// — not "don't hedge" — and says how many are needed; every candidate's
// too-few reason names the same 6000; --write-scenario leaves each class's
// configured hedge table as it is, and says so on stderr.
func TestOptimizeTooFewIsUndecided(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.toml")
	code, stdout, stderr := hedgesim(t, "optimize", "--json", "--requests", "5000", "--check-requests", "0", "--write-scenario", ws, "replica-pool")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Classes []struct {
			Class   string `json:"class"`
			Verdict struct {
				Hedge     bool   `json:"hedge"`
				Undecided bool   `json:"undecided"`
				Label     string `json:"label"`
				Reason    string `json:"reason"`
			} `json:"verdict"`
			Candidates []struct {
				Reasons []struct {
					Code  string  `json:"code"`
					Value float64 `json:"value"`
					Limit float64 `json:"limit"`
					Text  string  `json:"text"`
				} `json:"reasons"`
			} `json:"candidates"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Classes) != 3 {
		t.Fatalf("%d classes; want replica-pool's 3", len(rep.Classes))
	}
	for _, cr := range rep.Classes {
		v := cr.Verdict
		if v.Hedge || !v.Undecided || v.Label != "undecided" ||
			!strings.HasPrefix(v.Reason, "cannot tell at 5000 requests: too few for a 95% interval on p95 (5000 simulated per candidate, at least 6000 needed): rerun with --requests ≥ 6000") {
			t.Errorf("class %s: verdict %+v; want undecided, 6000 requests needed", cr.Class, v)
		}
		tooFew := 0
		for _, c := range cr.Candidates {
			for _, r := range c.Reasons {
				if r.Code != "too_few_requests" {
					continue
				}
				tooFew++
				if r.Value != 5000 || r.Limit != 6000 || !strings.Contains(r.Text, "(5000 simulated, 6000 needed)") {
					t.Errorf("class %s: reason %+v; want 5000 simulated, 6000 needed, as the verdict says", cr.Class, r)
				}
			}
		}
		if tooFew == 0 {
			t.Errorf("class %s: no candidate rejected for too few requests", cr.Class)
		}
		if !strings.Contains(stderr, "class "+cr.Class+" keeps its configured policy: its verdict is undecided") {
			t.Errorf("class %s: stderr does not say its configured policy is kept:\n%s", cr.Class, stderr)
		}
	}
	src, err := scenarios.FS.ReadFile("replica-pool.toml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(ws)
	if err != nil {
		t.Fatal(err)
	}
	hedges := func(b []byte) []string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if k, _, _ := strings.Cut(strings.TrimSpace(l), "="); strings.TrimSpace(k) == "max_copies" || strings.TrimSpace(k) == "delay" {
				out = append(out, strings.TrimSpace(l))
			}
		}
		return out
	}
	if g, w := hedges(got), hedges(src); strings.Join(g, "\n") != strings.Join(w, "\n") || len(w) == 0 {
		t.Errorf("--write-scenario rewrote the hedges of undecided classes: %q; want the configured %q", g, w)
	}
}
