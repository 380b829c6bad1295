package textfit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWidths: a Writer carries its width to the tables written through
// it; other writers have none; text for a pipe or a file fits
// DefaultWidth.
func TestWidths(t *testing.T) {
	var b bytes.Buffer
	if Width(&b) != 0 || Width(NewWriter(&b, 80)) != 80 || Width(NewWriter(&b, -1)) != 0 {
		t.Errorf("Width: buffer %d, Writer(80) %d, Writer(-1) %d", Width(&b), Width(NewWriter(&b, 80)), Width(NewWriter(&b, -1)))
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if w := TerminalWidth(f); w != DefaultWidth {
		t.Errorf("TerminalWidth(a file) = %d, want %d", w, DefaultWidth)
	}
	if w := TerminalWidth(&b); w != DefaultWidth {
		t.Errorf("TerminalWidth(a buffer) = %d, want %d", w, DefaultWidth)
	}
}
