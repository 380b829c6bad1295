//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// catchSIGPIPE makes a write to a closed pipe on stdout an EPIPE error the
// command reports (exit status 1) instead of the Go runtime's death by
// SIGPIPE (status 141 in a shell).
func catchSIGPIPE() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) }
