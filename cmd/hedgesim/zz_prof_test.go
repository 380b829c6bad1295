package main

import (
	"io"
	"os"
	"testing"
)

func TestZZProf(t *testing.T) {
	args := os.Getenv("ZZARGS")
	if args == "" {
		t.Skip()
	}
	for range 5 {
		run([]string{"run", "--json", "--requests", args, "guard-check"}, io.Discard, io.Discard)
	}
}
