package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUndecidedConfiguredCostFlagged: an undecided class (100 requests,
// too few for a p95 interval) whose configured policy copies to a model
// 30 times dearer after 1 s rolls it out; the rollout check flags the
// figure the sweep never supported: +606.0 % added cost while the class's
// own objective picks no hedging, or, under --max-cost 20, above the
// objective's cap. Before, the check only noted that the configured
// policy ran, with no flag.
func TestUndecidedConfiguredCostFlagged(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		flag  string
	}{
		{"own pick none", nil, "the verdict is undecided, so the configured policy rolls out, at +606.0% added cost in the check, while the class's own objective picks no hedging"},
		{"over cap", []string{"--max-cost", "20"}, "the verdict is undecided, so the configured policy rolls out, at +606.0% added cost in the check, above the objective's cap of +20%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sc := filepath.Join(dir, "dear.toml")
			if err := os.WriteFile(sc, []byte(strings.Replace(cheapCostSLA, "price_input_per_mtok = 3.0", "price_input_per_mtok = 30.0", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			args := append([]string{"optimize", "--quiet", "--requests", "100", "--check-requests", "1000", "--out", out}, tc.flags...)
			code, stdout, stderr := hedgesim(t, append(args, sc)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if text := strings.Join(strings.Fields(stdout), " "); !strings.Contains(text, "c: FLAGGED: "+tc.flag) {
				t.Errorf("rollout check does not flag the configured policy's cost (%q):\n%s", tc.flag, stdout)
			}
			b, err := os.ReadFile(filepath.Join(out, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Classes []struct {
					RollsOut string `json:"rolls_out"`
				} `json:"classes"`
				Rollout struct {
					Classes []struct {
						Flagged bool   `json:"flagged"`
						Flag    string `json:"flag"`
					} `json:"classes"`
				} `json:"rollout_check"`
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			if rc := rep.Rollout.Classes[0]; rep.Classes[0].RollsOut != "configured" || !rc.Flagged || !strings.Contains(rc.Flag, tc.flag) {
				t.Errorf("JSON: rolls_out %q, rollout check flagged %v %q; want configured, flagged %q", rep.Classes[0].RollsOut, rc.Flagged, rc.Flag, tc.flag)
			}
		})
	}
}
