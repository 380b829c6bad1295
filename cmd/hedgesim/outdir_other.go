//go:build !linux

package main

import "errors"

// exchange is atomic on Linux only; elsewhere swapDir falls back to two
// renames.
func exchange(a, b string) error { return errors.ErrUnsupported }
