//go:build unix

package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hedgesim/hedgesim/readers"
)

// TestSpecialFiles: a scenario or trace that is a FIFO, a device or a
// directory is an *Error at once, never a hang or an endless read.
func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.toml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for _, path := range []string{fifo, "/dev/zero", dir} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		_, err := Load(path)
		var se *Error
		if !errors.As(err, &se) || !errors.Is(err, readers.ErrNotRegular) {
			t.Errorf("Load(%s): got %v, want an *Error wrapping ErrNotRegular", path, err)
		}
	}
	for _, trace := range []string{fifo, "/dev/zero"} {
		src := "[arrivals]\nprocess = \"replay\"\ntrace = \"" + trace + "\"\nformat = \"azure\"\n" +
			"[models.m]\nlatency = { kind = \"constant\", value = 1.0 }\n" +
			"[[classes]]\nname = \"c\"\ndeadline = \"10s\"\n[classes.hedge]\nprimary = \"m\"\n"
		_, err := Parse(filepath.Join(dir, "s.toml"), []byte(src))
		var se *Error
		if !errors.As(err, &se) || se.Key != "arrivals.trace" || !strings.Contains(se.Msg, "not a regular file") {
			t.Errorf("trace %s: got %v, want arrivals.trace: not a regular file", trace, err)
		}
	}
}
