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

// TestCompareRefusesCorruptPerBatch: a run report of a queue whose batch
// answered share is 7 is refused with exit 2, naming the file, the class,
// the field, the value and what is allowed; and runs of 20 000 and
// 40 000 requests of that queue are compared without pairing, the note
// under the table saying why.
func TestCompareRefusesCorruptPerBatch(t *testing.T) {
	path := writeMM1(t)
	dir := t.TempDir()
	code, out, errOut := hedgesim(t, "run", "--json", path)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	good := filepath.Join(dir, "a.json")
	if err := os.WriteFile(good, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	i := strings.Index(out, `"answered_share": [`)
	if i < 0 {
		t.Fatalf("no per_batch answered_share in the run report:\n%s", out)
	}
	j := i + len(`"answered_share": [`)
	k := j + strings.IndexAny(out[j:], ",]")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(out[:j]+"7.0"+out[k:]), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = hedgesim(t, "compare", good, bad)
	if want := bad + `: classes[0] (class "c"): per_batch.answered_share[0]: 7; want a share in [0, 1]`; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("compare of a batch answered share of 7: exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}

	code, out, errOut = hedgesim(t, "run", "--json", "--set", "requests=40000", path)
	if code != 0 {
		t.Fatalf("run of 40000: exit %d: %s", code, errOut)
	}
	long := filepath.Join(dir, "long.json")
	if err := os.WriteFile(long, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = hedgesim(t, "compare", good, long)
	if code != 0 || strings.Contains(out, "paired B − A") || !strings.Contains(out, "Not paired by batches although requests interact: the runs simulated 20000 and 40000 requests") {
		t.Errorf("compare of 20000 and 40000 requests: exit %d: %s\n%s", code, errOut, out)
	}
}
