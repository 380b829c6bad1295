package textfit

import "strings"

// tabStop is where a terminal's tab stops are, in columns.
const tabStop = 8

// Wrap returns text with every line wider than width columns broken at
// spaces into lines of at most width columns: each continuation line
// starts with the line's own leading blanks and, when those hold no tab,
// two spaces more (a hanging indent). A word wider than the room left
// stays whole on a line of its own. Lines that fit, and all text when
// width is 0, are unchanged. Tabs count to the next multiple of 8 columns.
func Wrap(text string, width int) string {
	if width <= 0 {
		return text
	}
	var b strings.Builder
	for line := range strings.Lines(text) {
		body, nl := strings.CutSuffix(line, "\n")
		if displayWidth(body) <= width {
			b.WriteString(line)
			continue
		}
		for i, l := range wrapLine(body, width) {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(l)
		}
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// wrapLine breaks one line wider than width (see Wrap).
func wrapLine(line string, width int) []string {
	rest := strings.TrimLeft(line, " \t")
	lead := line[:len(line)-len(rest)]
	cont := lead
	if !strings.Contains(lead, "\t") {
		cont += "  "
	}
	words := strings.Fields(rest)
	var out []string
	cur, empty := lead, true
	for _, word := range words {
		next := cur + word
		if !empty {
			next = cur + " " + word
		}
		if empty || displayWidth(next) <= width {
			cur, empty = next, false
			continue
		}
		out = append(out, cur)
		cur = cont + word
	}
	if !empty {
		out = append(out, cur)
	}
	return out
}

// displayWidth returns the columns s takes on a terminal, tabs to the next
// multiple of tabStop.
func displayWidth(s string) int {
	if !strings.Contains(s, "\t") {
		return cellWidth(s)
	}
	col := 0
	for i, seg := range strings.Split(s, "\t") {
		if i > 0 {
			col += tabStop - col%tabStop
		}
		col += cellWidth(seg)
	}
	return col
}
