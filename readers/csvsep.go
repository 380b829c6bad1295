package readers

import (
	"bufio"
	"bytes"
	"io"
)

// csvSeparator guesses the field separator of a CSV file from its header
// line (the first line of r, looked at up to 64 KiB without consuming
// it): a comma when the line has one outside quotes, else a semicolon or
// a tab, whichever occurs more often (spreadsheets in many locales write
// semicolon-separated files, database tools tab-separated ones); a comma
// when neither occurs. The returned reader yields all of r.
func csvSeparator(r io.Reader) (rune, io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(64 << 10)
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	var commas, semis, tabs int
	inQuote := false
	for _, c := range head {
		switch {
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case c == ',':
			commas++
		case c == ';':
			semis++
		case c == '\t':
			tabs++
		}
	}
	switch {
	case commas > 0 || semis == 0 && tabs == 0:
		return ',', br
	case semis >= tabs:
		return ';', br
	}
	return '\t', br
}

// separatorName names a CSV separator for messages.
func separatorName(sep rune) string {
	switch sep {
	case ';':
		return "semicolon"
	case '\t':
		return "tab"
	}
	return "comma"
}
