package textfit

import (
	"strings"
	"testing"
	"text/tabwriter"
)

// colAt returns the terminal column (cellWidth of what precedes it) at
// which mark starts in line, or -1.
func colAt(line, mark string) int {
	i := strings.Index(line, mark)
	if i < 0 {
		return -1
	}
	return cellWidth(line[:i])
}

// TestWideCellsAlign: a table whose labels hold characters wider than one
// column (an emoji, CJK ideographs, a ZWJ emoji sequence of 5 runes in 2
// columns, a combining accent of none) is aligned by the columns its cells
// take on a terminal, not by their runes: every row's figures start (left
// aligned) or end (right aligned) at the same column, as tabwriter, which
// counts runes, did not; laid out whole and fitted to a narrow width
// alike. A table of ASCII text is what tabwriter prints, byte for byte.
func TestWideCellsAlign(t *testing.T) {
	labels := []string{"chat🚀", "検索", "👨‍👩‍👧", "café", "cafe\u0301", "overall"}
	var text strings.Builder
	text.WriteString("class\tp95\tp99\tanswered share with hedging\t\n")
	for i, l := range labels {
		text.WriteString(l + "\tA" + string(rune('a'+i)) + "\tB" + string(rune('a'+i)) + "\tC" + string(rune('a'+i)) + "\t\n")
	}
	for _, tc := range []struct {
		name  string
		cols  int
		flags uint
	}{
		{"left, whole", 0, 0},
		{"right, whole", 0, tabwriter.AlignRight},
		{"left, fitted to 30 columns", 30, 0},
		{"right, fitted to 30 columns", 30, tabwriter.AlignRight},
	} {
		out := table(text.String(), tc.cols, tc.flags)
		for _, fig := range []string{"A", "B", "C"} {
			want := -1
			for i := range labels {
				mark := fig + string(rune('a'+i))
				var line string
				for l := range strings.Lines(out) {
					if strings.Contains(l, mark) {
						line = l
					}
				}
				at := colAt(line, mark)
				if tc.flags&tabwriter.AlignRight != 0 && at >= 0 {
					at += 2 // where it ends
				}
				if at < 0 {
					t.Fatalf("%s: no %s in\n%s", tc.name, mark, out)
				}
				if want < 0 {
					want = at
				} else if at != want {
					t.Errorf("%s: %s of %q at column %d, the first row's at %d:\n%s", tc.name, mark, labels[i], at, want, out)
				}
			}
		}
		if tc.cols > 0 && maxWidth([]byte(out)) > tc.cols {
			t.Errorf("%s: %d columns wide, more than %d:\n%s", tc.name, maxWidth([]byte(out)), tc.cols, out)
		}
	}
	ascii := "class\tp95\tp99\t\nshort\t1.2s\t3s\t\nlonger-name\t800ms\t1.9s\ttrailing text\n"
	for _, flags := range []uint{0, tabwriter.AlignRight} {
		if got, want := table(ascii, 0, flags), tabwritten(ascii, flags); got != want {
			t.Errorf("ASCII table, flags %d: got\n%s\nwant tabwriter's\n%s", flags, got, want)
		}
	}
	if w := cellWidth("👨‍👩‍👧"); w != 2 {
		t.Errorf("a ZWJ family emoji takes %d columns; want 2", w)
	}
	if w := displayWidth("検\t索"); w != 10 {
		t.Errorf(`displayWidth("検\t索") = %d; want 10 (2, a tab to 8, 2)`, w)
	}
}
