//go:build !linux

package main

import "errors"

// exchange is atomic on Linux only; elsewhere swapDir falls back to two
// renames.
func exchange(a, b string) error { return errors.ErrUnsupported }

// isMountPoint is known on Linux only; elsewhere a mount point given as a
// report directory fails when it is swapped in, with its path.
func isMountPoint(path string) bool { return false }
