package main

import (
	"strings"

	"github.com/hedgesim/hedgesim/export"
)

// The command line's lists of export formats (hedgesim --help, export
// --help) are made from export.FormatTable, so that every format appears
// in each.

// helpWidth is the width the help's generated lines are wrapped to.
const helpWidth = 100

// exportFormatsHelp is the "Formats:" section of export --help: each
// format's name and what it writes, wrapped to helpWidth.
func exportFormatsHelp() string {
	const col = 15 // "  failsafe-go  "
	var b strings.Builder
	b.WriteString("Formats:\n")
	for _, f := range export.FormatTable {
		for i, l := range wrapWords(f.Writes, helpWidth-col) {
			lead := strings.Repeat(" ", col)
			if i == 0 {
				lead = "  " + f.Name + strings.Repeat(" ", max(col-2-len(f.Name), 1))
			}
			b.WriteString(lead + l + "\n")
		}
	}
	return b.String()
}

// exportUsageLines are the lines of hedgesim --help's export entry after
// its synopsis, indented as the other entries' descriptions are.
func exportUsageLines() string {
	const col = 36
	var b strings.Builder
	for _, l := range wrapWords("write a report's picks or a scenario's policies as "+export.FormatTitles()+" configuration", 78-col) {
		b.WriteString(strings.Repeat(" ", col) + l + "\n")
	}
	return b.String()
}

// wrapWords breaks s at spaces into lines of at most width bytes (a
// longer word has a line of its own).
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) > width:
			lines = append(lines, line)
			line = w
		default:
			line += " " + w
		}
	}
	return append(lines, line)
}
