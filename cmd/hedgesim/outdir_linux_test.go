package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutMountPoint: a mount point cannot be swapped with the report built
// beside it, so --out refuses one before any work, with exit 2.
func TestOutMountPoint(t *testing.T) {
	if !isMountPoint("/proc") {
		t.Skip("/proc is not a mount point here")
	}
	if isMountPoint(t.TempDir()) {
		t.Fatal("a temporary directory reads as a mount point")
	}
	code, _, errOut := hedgesim(t, "run", "--requests", "1000", "--out", "/proc", "guard-check")
	if code != 2 || !strings.Contains(errOut, "--out /proc: is a mount point") {
		t.Errorf("exit %d, %q; want 2 and the mount point named", code, errOut)
	}
}

// TestOutSwapErrorNamesDir: a swap that fails late (here: EBUSY, as a
// mount point the check could not see gives) names the report directory.
func TestOutSwapErrorNamesDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rep")
	if code, _, errOut := hedgesim(t, "run", "--requests", "1000", "--out", dir, "guard-check"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	exchangeDirs = func(a, b string) error { return syscall.EBUSY }
	t.Cleanup(func() { exchangeDirs = exchange })
	code, _, errOut := hedgesim(t, "run", "--requests", "1000", "--out", dir, "guard-check")
	if code != 1 || !strings.Contains(errOut, dir+": swapping in the new report: device or resource busy") {
		t.Errorf("exit %d, %q; want 1 and the directory named", code, errOut)
	}
}
