package main

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestOptimizeGroupFigureOfWhatRollsOut is a user's report: `hedgesim
// optimize --requests 5000 --check-requests 5000 shared-rate-limit` ends
// both classes at no hedging after the rollout check, yet each said "the
// weighted percentile … is 5.16s at this pick", the group search's figure
// with batch hedging. The text report, report.json and index.html of
// --out now agree: the search's value is of its picks (group.picks), not
// what rolls out (group.rolled_out.picks: none, none), whose value is the
// rollout check's (group.rolled_out.value), and each gives the same
// figures.
func TestOptimizeGroupFigureOfWhatRollsOut(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := hedgesim(t, "optimize", "--requests", "5000", "--check-requests", "5000", "--out", dir, "--quiet", "shared-rate-limit")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(b)), " ")
	}
	var rep struct {
		Classes []struct {
			Class string `json:"class"`
			Group *struct {
				Value     float64  `json:"value"`
				Picks     []string `json:"picks"`
				RolledOut *struct {
					Picks    []string `json:"picks"`
					Value    *float64 `json:"value"`
					Requests int      `json:"check_requests"`
				} `json:"rolled_out"`
			} `json:"group"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(read("report.json")), &rep); err != nil {
		t.Fatal(err)
	}
	text, page := read("report.txt"), read("index.html")
	if len(rep.Classes) != 2 {
		t.Fatalf("%d classes, want interactive and batch", len(rep.Classes))
	}
	for _, c := range rep.Classes {
		g := c.Group
		if g == nil || len(g.Picks) != 2 || g.Picks[1] == "none" {
			t.Fatalf("not the case: %s's group %+v, want batch hedging in the search", c.Class, g)
		}
		ro := g.RolledOut
		if ro == nil || ro.Value == nil || strings.Join(ro.Picks, ",") != "none,none" || ro.Requests != 5000 {
			t.Fatalf("%s: rolled_out %+v, want none, none with the check's value", c.Class, ro)
		}
		say := fmt.Sprintf("is %s at the group search's picks (interactive %s, batch %s), not what rolls out (interactive none, batch none), which the rollout check of 5000 requests puts at %s;",
			sim.FormatSeconds(g.Value), g.Picks[0], g.Picks[1], sim.FormatSeconds(*ro.Value))
		if !strings.Contains(text, "group: the weighted percentile of interactive (50%) and batch (50%) "+say) {
			t.Errorf("%s: the text report does not say %q", c.Class, say)
		}
		if !strings.Contains(page, "<b>Group:</b> the weighted percentile of interactive (50%) and batch (50%) "+html.EscapeString(say)) {
			t.Errorf("%s: index.html does not say %q", c.Class, say)
		}
	}
	if strings.Contains(text, " at this pick;") || strings.Contains(page, " at this pick;") {
		t.Error("a group figure is still given as at this pick")
	}
}
