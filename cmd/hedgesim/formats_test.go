package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/export"
)

// TestFormatListsFromTheTable: every list of export formats the command
// line prints names every format of export.FormatTable — hedgesim --help
// each runtime's title (python and typescript included), export --help
// each name with what it writes, and an unknown --format each name — and
// the README's list of commands and its roll-out step name every runtime.
func TestFormatListsFromTheTable(t *testing.T) {
	if len(export.FormatTable) < 7 {
		t.Fatalf("%d formats in the table", len(export.FormatTable))
	}
	_, top, _ := hedgesim(t, "--help")
	_, exp, _ := hedgesim(t, "export", "--help")
	_, _, unknown := hedgesim(t, "export", "--format", "yaml", "guard-check")
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	topEntry := flat(top[strings.Index(top, "hedgesim export"):strings.Index(top, "hedgesim list")])
	if want := "policies as " + export.FormatTitles() + " configuration"; !strings.Contains(topEntry, want) {
		t.Errorf("hedgesim --help's export entry %q; want %q", topEntry, want)
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var row, step string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| `export` |") {
			row = l
		}
	}
	if i := strings.Index(string(readme), "**3. Roll it out.**"); i >= 0 {
		step, _, _ = strings.Cut(string(readme)[i:], "\n\n")
	}
	for _, f := range export.FormatTable {
		if !strings.Contains(flat(exp), flat("  "+f.Name+" ")+" "+f.Writes) {
			t.Errorf("export --help does not list %s: %s", f.Name, f.Writes)
		}
		if !strings.Contains(unknown, f.Name) {
			t.Errorf("an unknown --format does not list %s: %s", f.Name, unknown)
		}
		if !strings.Contains(row, f.Title) || !strings.Contains(flat(step), f.Title) {
			t.Errorf("the README's export row %q or roll-out step does not name %s", row, f.Title)
		}
	}
	// The generated lines fit helpWidth (the flags' lines are issue 34's
	// width work, not this list's).
	section := exp[strings.Index(exp, "Formats:"):strings.Index(exp, "What a format cannot")]
	for _, l := range strings.Split(top[strings.Index(top, "hedgesim export"):strings.Index(top, "hedgesim list")]+section, "\n") {
		if len(l) > helpWidth {
			t.Errorf("help line of %d bytes: %q", len(l), l)
		}
	}
}
