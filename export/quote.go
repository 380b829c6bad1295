package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Names (the scenario's, its classes', models' and providers') and the
// reasons of an optimize report are text from the input: each reaches an
// output only through one of the quoting functions below, the one for the
// place it goes to. A name is never written raw into a format's syntax.
//
//	place                                   function
//	a JSON, Python or JavaScript string      jsonQuote
//	a YAML scalar                            yamlQuote
//	a Go string                              goQuote
//	a line comment (#, //) of any format     commentText

// jsonQuote returns s as a JSON string literal. It is also a valid string
// literal of Python 3 and of JavaScript/TypeScript: json.Marshal escapes
// the control characters below U+0020, the line separators U+2028 and
// U+2029 (line terminators in JavaScript before ES2019) and <, > and & (so
// "</script>" cannot end an HTML script element), and jsonEscape every
// other character that is not printable. Invalid UTF-8 becomes U+FFFD.
func jsonQuote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic("export: jsonQuote: " + err.Error()) // a string always marshals
	}
	return string(jsonEscape(b))
}

// jsonEscape rewrites, in the JSON text js (encoding/json's output), every
// character that is not printable (unicode.IsPrint: DEL, the C1 controls,
// spaces other than U+0020, format characters such as the byte order mark
// and the bidirectional overrides) as a \uXXXX escape, so that no JSON
// output carries one raw to a terminal or an editor. Outside strings JSON
// text is ASCII punctuation, digits, letters and the space and line feed
// of indentation, which are left alone; inside strings the escape means
// the same character. js is returned as it is when there is nothing to do.
func jsonEscape(js []byte) []byte {
	if !bytes.ContainsFunc(js, needsEscape) {
		return js
	}
	var b bytes.Buffer
	b.Grow(len(js) + 16)
	for _, r := range string(js) {
		if !needsEscape(r) {
			b.WriteRune(r)
			continue
		}
		if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.Bytes()
}

// needsEscape reports whether a character of encoding/json's output must
// be escaped by jsonEscape: it is not printable, and not the line feed or
// tab of indentation.
func needsEscape(r rune) bool {
	return !unicode.IsPrint(r) && r != '\n' && r != '\t'
}

// goQuote returns s as a Go interpreted string literal (strconv.Quote).
func goQuote(s string) string { return strconv.Quote(s) }

// yamlQuote returns s as a YAML double-quoted scalar (YAML 1.1 and 1.2):
// the quote and the backslash are escaped, and so is every character
// that is not printable (yamlPrintable: every line break YAML knows, LF,
// CR, NEL U+0085, LS U+2028 and PS U+2029, the tab, the byte order mark),
// as \xXX, \uXXXX or \UXXXXXXXX. What is left is printable on one line, so the
// scalar cannot end early nor fold. For the ASCII names YAML needs no
// escape for, it is what jsonQuote writes.
func yamlQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s { // invalid UTF-8 reads as U+FFFD
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case yamlPrintable(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02X`, r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			fmt.Fprintf(&b, `\U%08X`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// yamlPrintable reports whether r may stand unescaped in a one-line YAML
// double-quoted scalar: a printable character (unicode.IsPrint, which
// leaves out every control, line and paragraph separator, space other than
// U+0020 and format character such as the byte order mark) in YAML's
// c-printable set (x20–x7E, xA0–xD7FF, xE000–xFFFD, x10000–x10FFFF).
func yamlPrintable(r rune) bool {
	switch {
	case !unicode.IsPrint(r):
		return false
	case r >= 0x20 && r <= 0x7E:
		return true
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// commentText returns s for a line comment (# in YAML and Python, // in Go,
// JSON with comments and JavaScript): every character that is not
// printable (unicode.IsPrint; a space other than U+0020, a control
// character, a line or paragraph separator, a bidirectional or other
// format character) is written as its Go escape (\n, \x1b, \u2028), so the
// comment stays on its line and shows what the name holds. Other
// characters, quotes and backslashes included, are left as they are: a
// line comment ends only at a line break. Not for block comments (/* */).
func commentText(s string) string {
	clean := true
	for _, r := range s {
		if !unicode.IsPrint(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsPrint(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRuneToASCII(r) // '\n', '\x1b', '\u2028'
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// commentList is commentText of each name, joined by ", ".
func commentList(names []string) string {
	out := make([]string, len(names))
	for i, s := range names {
		out[i] = commentText(s)
	}
	return strings.Join(out, ", ")
}
