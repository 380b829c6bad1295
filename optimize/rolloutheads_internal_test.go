package optimize

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/textfit"
)

// TestRolloutHeadersNameTheirFigures pins the rollout check's table under
// objective answered, where three headers read "predicted" and two "no
// hedging" without naming their figure: split to fit the width, the
// second group's header read "… predicted predicted", and the flag
// ("TOO FEW", "FLAGGED") had no header, narrow or --wide. Now every
// header names its figure (a header broken onto two lines is read with
// its upper part), and the flag has the column "flag".
func TestRolloutHeadersNameTheirFigures(t *testing.T) {
	rc := &RolloutCheck{Requests: 10000, Classes: []RolloutClass{
		{Class: "moderation", Pick: "891ms", Within: &RolloutWithin{What: "answered", TargetS: 2, Share: 0.9972, NoHedging: 0.9808}},
		{Class: "rare", Pick: "1s", TooFew: true},
		{Class: "loud", Pick: "2s", Flagged: true, Flag: "its p95 in the check is above the sweep's interval"},
	}}
	for _, width := range []int{120, 0} {
		var b strings.Builder
		writeRollout(textfit.NewWriter(&b, width), rc)
		out := b.String()
		heads := rolloutHeads(out)
		for _, h := range heads {
			if h == "predicted" || h == "no hedging" || h == "" {
				t.Errorf("width %d: header %q names no figure; headers %q:\n%s", width, h, heads, out)
			}
		}
		for _, want := range []string{"p95 predicted", "answered predicted", "added cost predicted", "within target predicted", "answered no hedging", "flag"} {
			if !slices.Contains(heads, want) {
				t.Errorf("width %d: no header %q; headers %q:\n%s", width, want, heads, out)
			}
		}
		if !strings.Contains(out, "TOO FEW") || !strings.Contains(out, "FLAGGED") {
			t.Errorf("width %d: the flags are missing:\n%s", width, out)
		}
	}
}

// rolloutHeads returns the header cells of the rollout check's table in
// out: those of each line starting "  class", each joined with the part of
// it broken onto the line above (which starts where the cell does).
func rolloutHeads(out string) []string {
	lines := strings.Split(out, "\n")
	cell := regexp.MustCompile(`\S+( \S+)*`)
	var heads []string
	for i, line := range lines {
		if !strings.HasPrefix(line, "  class ") {
			continue
		}
		spans := cell.FindAllStringIndex(line, -1)
		for k, sp := range spans {
			h := line[sp[0]:sp[1]]
			if i > 0 && strings.Contains(lines[i-1], "  ") && !strings.HasPrefix(lines[i-1], "rollout") {
				up := lines[i-1]
				end := len(up)
				if k+1 < len(spans) {
					end = min(end, spans[k+1][0])
				}
				if sp[0] < end {
					if u := strings.TrimSpace(up[sp[0]:end]); u != "" {
						h = u + " " + h
					}
				}
			}
			heads = append(heads, h)
		}
	}
	return heads
}
