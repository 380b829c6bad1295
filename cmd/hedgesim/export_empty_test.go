package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportScenarioFlagSaysWhatTheInputIs: export --scenario X INPUT with
// an INPUT that is not a report says what it is — empty, a scenario, or
// neither — with exit 2 (an empty file was called "a scenario").
func TestExportScenarioFlagSaysWhatTheInputIs(t *testing.T) {
	dir := t.TempDir()
	empty, text := filepath.Join(dir, "e.json"), filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(text, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ input, want string }{
		{empty, "e.json is empty, not a hedgesim optimize report"},
		{text, "notes.txt is not a hedgesim optimize report"},
		{"guard-check", "guard-check is a scenario"},
	} {
		code, _, errOut := hedgesim(t, "export", "--format", "json", "--scenario", "guard-check", tt.input)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("export --scenario guard-check %s: exit %d, %s; want 2 and %q", filepath.Base(tt.input), code, errOut, tt.want)
		}
	}
}
