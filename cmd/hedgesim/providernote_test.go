package main

import (
	"strings"
	"testing"
)

// TestProviderTableNote: below the provider table, run says what "in
// service" counts and what utilisation divides; the reason utilisation is
// "-" appears when, and only when, a row shows "-" (a provider without a
// concurrency limit).
func TestProviderTableNote(t *testing.T) {
	const unit = "in service: the mean number of attempts in service at once"
	const dash = `"-" for a provider or replica without one (no limit to divide by`
	for _, tc := range []struct {
		scenario string
		dash     bool
	}{
		{"shared-rate-limit", true}, // providers a and b: no concurrency limit
		{"loaded-provider", false},  // gpu-pool: a concurrency limit
	} {
		code, out, errOut := hedgesim(t, "run", "--wide", "--requests", "500", tc.scenario)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.scenario, code, errOut)
		}
		head := strings.Index(out, "\n  provider  sent")
		note := strings.Index(out, unit)
		if head < 0 || note < head {
			t.Fatalf("%s: no note %q below the provider table:\n%s", tc.scenario, unit, out)
		}
		table := out[head:note]
		rowDash := strings.Contains(table, " -\n")
		if rowDash != tc.dash {
			t.Fatalf("%s: a row with utilisation \"-\": %v, want %v:\n%s", tc.scenario, rowDash, tc.dash, table)
		}
		if got := strings.Contains(out, dash); got != tc.dash {
			t.Errorf("%s: the note explains \"-\": %v, want %v:\n%s", tc.scenario, got, tc.dash, out[note:])
		}
	}
}
