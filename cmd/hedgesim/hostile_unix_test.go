//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCompareExportRefuseFIFO: a named pipe as a report would block
// forever; compare and export refuse it at once (exit 2).
func TestCompareExportRefuseFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, args := range [][]string{{"compare", fifo, fifo}, {"export", "--format", "grpc", fifo}} {
		code, _, errOut := hedgesim(t, args...)
		if code != 2 || !strings.Contains(errOut, "not a regular file") {
			t.Errorf("%q: exit %d, %q; want 2, not a regular file", args, code, errOut)
		}
	}
}

// TestManifestCannotReachOutside: a report list naming a path outside the
// report directory ("../victim") deletes nothing there.
func TestManifestCannotReachOutside(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "rep")
	victim := filepath.Join(parent, "victim.txt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifestName), []byte(`{"written_by": "hedgesim", "files": ["../victim.txt"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	hedgesim(t, "run", "--requests", "1000", "--out", dir, "guard-check")
	if data, err := os.ReadFile(victim); err != nil || string(data) != "precious" {
		t.Errorf("file outside the report directory: %q, %v", data, err)
	}
}

// TestSymlinkLoopMessage: a scenario argument that is a loop of symbolic
// links is reported as one, as compare, merge and fit do, not as a missing
// file.
func TestSymlinkLoopMessage(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.toml"), filepath.Join(dir, "b.toml")
	if err := os.Symlink(b, a); err != nil {
		t.Skipf("symlink: %v", err)
	}
	if err := os.Symlink(a, b); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"validate", a}, {"run", a}, {"optimize", a}, {"export", "--format", "json", a}} {
		code, _, errOut := hedgesim(t, args...)
		if code != 2 || !strings.Contains(errOut, "too many levels of symbolic links") || strings.Contains(errOut, "no such file") {
			t.Errorf("%q: exit %d, %q; want 2, too many levels of symbolic links", args, code, errOut)
		}
	}
}
