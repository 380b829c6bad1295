//go:build !unix

package main

// catchSIGPIPE does nothing where there is no SIGPIPE.
func catchSIGPIPE() {}
