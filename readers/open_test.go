//go:build unix

package readers

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpenRegular(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.csv")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := ReadFile(path, 10)
	if err != nil || string(data) != "0123456789" {
		t.Fatalf("ReadFile at the bound: %q, %v", data, err)
	}
	if _, err := ReadFile(path, 9); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "limit of 9 bytes") {
		t.Errorf("over the bound: %v, want ErrTooLarge", err)
	}
	// A file that grows after Open is cut off at the bound with an error,
	// not read to its end.
	f, err := Open(path, 12)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := io.ReadAll(f); !errors.Is(err, ErrTooLarge) || len(data) != 12 {
		t.Errorf("grown file: read %d bytes, %v; want 12 and ErrTooLarge", len(data), err)
	}
}

// TestOpenSpecial: a FIFO without a writer, /dev/zero and a directory are
// rejected at once (a FIFO once hung, /dev/zero exhausted memory).
func TestOpenSpecial(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	paths := []string{dir, "/dev/zero"}
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		paths = append(paths, fifo)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		f, err := Open(p, 0)
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("Open(%s) = %v, want ErrNotRegular naming the path", p, err)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing"), 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1 GiB", 64 << 20: "64 MiB", 1536: "1536 bytes", 2048: "2 KiB", 7: "7 bytes"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
