package textfit

import (
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"short line\n", 20, "short line\n"},
		{"warning: one two three four five six\n", 20, "warning: one two\n  three four five\n  six\n"},
		{"  indented one two three four\n", 16, "  indented one\n    two three\n    four\n"},
		{"    \tflag usage words that go on\n", 24, "    \tflag usage words\n    \tthat go on\n"},
		{"a-word-longer-than-the-width and more\n", 10, "a-word-longer-than-the-width\n  and more\n"},
		{"no newline at the end of it\n", 0, "no newline at the end of it\n"},
		{"no newline at the end of it", 12, "no newline\n  at the end\n  of it"},
		{"p95 → 1.2s ≥ 10% ÷ 3\n", 10, "p95 → 1.2s\n  ≥ 10% ÷\n  3\n"},
	} {
		if got := Wrap(c.in, c.width); got != c.want {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
		for l := range strings.Lines(Wrap(c.in, c.width)) {
			l = strings.TrimSuffix(l, "\n")
			if c.width > 0 && displayWidth(l) > c.width && len(strings.Fields(l)) > 1 {
				t.Errorf("Wrap(%q, %d): line %q is wider", c.in, c.width, l)
			}
		}
	}
}
