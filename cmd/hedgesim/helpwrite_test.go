package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// fullWriter fails every write, as /dev/full does.
type fullWriter struct{}

var errFull = errors.New("no space left on device")

func (fullWriter) Write([]byte) (int, error) { return 0, errFull }

// TestHelpWriteErrorFails pins help exiting 0 when its text could not be
// written (hedgesim --help >/dev/full), where every other output's write
// error exits 1: each way of asking for help — hedgesim --help, -h,
// help, help CMD, CMD --help for every command — now exits 1 and says why
// on stderr; written, it still exits 0.
func TestHelpWriteErrorFails(t *testing.T) {
	asks := [][]string{{"--help"}, {"-h"}, {"help"}}
	for _, c := range strings.Split(commandNames, ", ") {
		asks = append(asks, []string{"help", c}, []string{c, "--help"})
	}
	for _, args := range asks {
		var stderr bytes.Buffer
		if code := run(args, fullWriter{}, &stderr); code != exitFailure || !strings.Contains(stderr.String(), errFull.Error()) {
			t.Errorf("hedgesim %s >/dev/full: exit %d, stderr %q; want 1 and the write error", strings.Join(args, " "), code, stderr.String())
		}
		var stdout bytes.Buffer
		stderr.Reset()
		if code := run(args, &stdout, &stderr); code != exitOK || stdout.Len() == 0 || stderr.Len() != 0 {
			t.Errorf("hedgesim %s: exit %d, %d bytes of help, stderr %q; want 0 and the help on stdout", strings.Join(args, " "), code, stdout.Len(), stderr.String())
		}
	}
}
