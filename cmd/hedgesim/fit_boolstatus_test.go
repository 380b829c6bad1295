package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitBooleanErrorFlag: fit --status on an error flag ("is_error":
// false on a success) without --ok stops with exit 2, naming the column,
// the counts of true and false and --ok false; with --ok false it fits
// the true rows as the errors.
func TestFitBooleanErrorFlag(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "{\"latency_ms\": %d, \"is_error\": %t}\n", 200+i, i%10 == 0)
	}
	path := filepath.Join(t.TempDir(), "loge.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"fit", "--quiet", "--latency", "latency_ms", "--status", "is_error", "--model", "lognormal", "--name", "m", path}
	code, _, errOut := hedgesim(t, args...)
	if code != 2 {
		t.Fatalf("without --ok: exit %d, want 2; stderr %q", code, errOut)
	}
	for _, want := range []string{"is_error", "true ×10, false ×90", "--ok false"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("without --ok: stderr %q does not say %q", errOut, want)
		}
	}
	code, out, errOut := hedgesim(t, append(args[:len(args)-1:len(args)-1], "--ok", "false", path)...)
	if code != 0 {
		t.Fatalf("--ok false: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "error_rate = 0.1 ") {
		t.Errorf("--ok false: want error_rate = 0.1 (10 of 100), got:\n%s", out)
	}
}
