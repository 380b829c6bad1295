package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestComparePairedRuns: run --json of a queue writes each class's batch
// figures (per_batch), the text report does not need them and stays as
// it was, and compare of two such reports — the M/M/1 at ρ = 0.9 served at
// 1/s and at 1.25/s on one seed (p95 29.96 s → ln 20/0.35 = 8.56 s) — marks
// the p95 by its paired difference, listed under the table and in JSON.
func TestComparePairedRuns(t *testing.T) {
	path := writeMM1(t)
	dir := t.TempDir()
	files := map[string][]string{
		"a.json": {"run", "--json", path},
		"b.json": {"run", "--json", "--set", "models.m.latency.rate=1.25", path},
	}
	for name, args := range files {
		code, out, errOut := hedgesim(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if !strings.Contains(out, `"per_batch"`) {
			t.Fatalf("%v: no per_batch in the JSON report", args)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, text, errOut := hedgesim(t, "run", path)
	if code != 0 || strings.Contains(text, "per_batch") {
		t.Fatalf("text report: exit %d: %s", code, errOut)
	}
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	code, out, errOut := hedgesim(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "c: paired B − A over ") || !strings.Contains(out, "p95 [-") || !strings.Contains(out, "marked instead by the paired difference") {
		t.Errorf("compare text lacks the paired test:\n%s", out)
	}
	code, out, errOut = hedgesim(t, "compare", "--json", a, b)
	if code != 0 || !strings.Contains(out, `"test": "paired_batches"`) || !strings.Contains(out, `"difference_ci95"`) {
		t.Errorf("compare --json: exit %d: %s\n%s", code, errOut, out)
	}
}
