package scenario

import (
	"fmt"
	"unicode"
)

// checkName returns an error at key when the name s (what it names: "class
// name", "model name", …) holds a character that is not printable: a
// control character (ESC, BEL, a line break, DEL, the C1 controls), a line
// or paragraph separator (U+2028, U+2029), a space other than U+0020, or a
// format character (a bidirectional override, the byte order mark, a
// zero-width joiner). A name is an identifier: it is printed in reports
// and on the terminal, and written into exported configuration, where such
// a character could retitle or clear a terminal, end a comment early or
// hide what the name says.
func (c *checker) checkName(key, what, s string) *Error {
	for i, r := range s {
		if !unicode.IsPrint(r) {
			return c.errorf(key, "%s %q holds %s at byte %d; a name is an identifier shown in reports and exported configuration: use letters, digits, punctuation, symbols and the space (U+0020)",
				what, s, describeRune(r), i)
		}
	}
	return nil
}

// describeRune names a character that is not printable: "U+001B (a
// control character)".
func describeRune(r rune) string {
	kind := "a format character"
	switch {
	case unicode.IsControl(r):
		kind = "a control character"
	case r == 0x2028 || r == 0x2029:
		kind = "a line or paragraph separator"
	case unicode.IsSpace(r) || unicode.In(r, unicode.Zs):
		kind = "a space other than U+0020"
	case !unicode.In(r, unicode.Cf):
		kind = "a character that is not printable"
	}
	return fmt.Sprintf("%U (%s)", r, kind)
}
