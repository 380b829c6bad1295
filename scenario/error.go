package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a problem found in a scenario file, or in reading it: every
// error that Parse, Load and LoadFS return is an *Error.
type Error struct {
	// File is the file name given to Parse or Load.
	File string
	// Line is the 1-based line the problem is on, 0 when no line applies
	// (for example a required table that is missing altogether).
	Line int
	// Key is the full path of the key, with array indices, as in
	// "models.guard.latency.sigma" or "classes[1].hedge.delay"; empty for
	// syntax errors that are not about one key.
	Key string
	// Msg says what is wrong, the offending value and what is allowed.
	Msg string
	// Err is the underlying error when the file could not be read (then
	// Line is 0), else nil.
	Err error
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Error formats the problem as "file:line: key: msg", leaving out the line
// when it is 0 and the key when it is empty.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		s += ": " + e.Key
	}
	return s + ": " + e.Msg
}

// errorf returns an *Error for key, on the line where the key (or, when
// the key is absent from the file, its longest present prefix) is written.
func (c *checker) errorf(key, format string, args ...any) *Error {
	return &Error{File: c.file, Line: c.lines.lineOf(key), Key: key, Msg: clipQuoted(fmt.Sprintf(format, args...))}
}

// maxQuote is about the most bytes of one value a message quotes.
const maxQuote = 80

// clipQuoted shortens every double-quoted string in msg whose content is
// longer than maxQuote bytes to its first maxQuote bytes (at a rune
// boundary) and "…", so that a message quoting a huge value stays short.
// Values are quoted with %q, so a quote inside one is escaped.
func clipQuoted(msg string) string {
	if len(msg) <= maxQuote {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		if msg[i] != '"' {
			b.WriteByte(msg[i])
			i++
			continue
		}
		j := i + 1
		for j < len(msg) && msg[j] != '"' {
			if msg[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(msg) { // unterminated: leave the rest as it is
			b.WriteString(msg[i:])
			break
		}
		content := msg[i+1 : j]
		if len(content) > maxQuote {
			// Cut after whole escapes (\", \x80, \u00e9) and whole runes.
			k := 0
			for k < maxQuote {
				n := 1
				if content[k] == '\\' && k+1 < len(content) {
					n = map[byte]int{'x': 4, 'u': 6, 'U': 10}[content[k+1]]
					n = max(n, 2)
				}
				k = min(k+n, len(content))
			}
			for k < len(content) && !utf8.RuneStart(content[k]) {
				k++
			}
			if k < len(content) {
				content = content[:k] + "…"
			}
		}
		b.WriteString(`"` + content + `"`)
		i = j + 1
	}
	return b.String()
}
