package scenario

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
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
	// Set is the command-line override the value came from, such as
	// "--set arrivals.rate=-1" (see Options); empty for a value of the
	// file. Line is then 0, unless the key is in the file and conflicts
	// with a key the override set beside it.
	Set string
	// Err is the underlying error when the file could not be read (then
	// Line is 0), else nil.
	Err error
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Error formats the problem as "file:line: key: msg", leaving out the line
// when it is 0 and the key when it is empty; a problem of an override reads
// "file: --set key=value: key: msg". A character that is not printable (a
// control character of a file name or of a name listed in the message) is
// written as its Go escape, so that the message cannot drive a terminal.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Set != "" {
		s += ": " + e.Set
	}
	if e.Key != "" {
		s += ": " + e.Key
	}
	return printable(s + ": " + e.Msg)
}

// printable returns s with every character that is not printable
// (unicode.IsPrint; U+0020 is the one space it keeps) written as its Go
// escape, such as \x1b or \u2028.
func printable(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
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
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// errorf returns an *Error for key, on the line where the key (or, when
// the key is absent from the file, its longest present prefix) is written.
//
// A problem caused by an override names it: when the key, a table holding
// it or a key inside it was set by an override, the error names that
// override instead of a line; when the key is in the file but a key beside
// it in the same table was set by an override (a conflicting key, such as
// a kind that no longer takes the file's value), the error keeps the line
// and names the override too.
func (c *checker) errorf(key, format string, args ...any) *Error {
	msg := clipQuoted(fmt.Sprintf(format, args...))
	if set := c.overrideOf(key); set != "" {
		return &Error{File: c.file, Set: set, Key: key, Msg: msg}
	}
	return &Error{File: c.file, Line: c.lines.lineOf(key), Set: c.overrideBeside(key), Key: key, Msg: msg}
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

// overrideOf returns the override that set key, a table holding it or a
// key inside it, or "" (several, sorted and joined by ", ").
func (c *checker) overrideOf(key string) string {
	for k := key; len(c.overridden) > 0; {
		if set, ok := c.overridden[k]; ok {
			return set
		}
		var ok bool
		if k, ok = parentKey(k); !ok {
			break
		}
	}
	return c.overridesWhere(func(k string) bool {
		return strings.HasPrefix(k, key+".") || strings.HasPrefix(k, key+"[")
	})
}

// overrideBeside returns the overrides that set a key in the same table as
// key (not the top level, whose keys are independent), or "".
func (c *checker) overrideBeside(key string) string {
	parent, ok := parentKey(key)
	if !ok {
		return ""
	}
	return c.overridesWhere(func(k string) bool {
		p, ok := parentKey(k)
		return ok && p == parent && k != key
	})
}

// overridesWhere returns the distinct overrides of the keys for which
// match holds, sorted and joined by ", ", or "".
func (c *checker) overridesWhere(match func(k string) bool) string {
	var sets []string
	for k, set := range c.overridden {
		if match(k) && !slices.Contains(sets, set) {
			sets = append(sets, set)
		}
	}
	sort.Strings(sets)
	return strings.Join(sets, ", ")
}

// MaxErrors is how many problems Errors.Error lists before summing up the
// rest as "and N more".
const MaxErrors = 20

// Errors is every problem found in one scenario file, sorted by line (a
// problem without a line last) and then by key. Parse and Load return an
// Errors when a file has more than one problem and the *Error itself when
// it has one, so errors.As(err, &e) with e a *Error finds the first
// problem either way.
type Errors []*Error

// Error lists up to MaxErrors problems, one per line, followed by
// "and N more" when there are more.
func (l Errors) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i == MaxErrors {
			fmt.Fprintf(&b, "\nand %d more", len(l)-MaxErrors)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the problems as errors, for errors.As and errors.Is.
func (l Errors) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// keep records err, an *Error (or an Errors), as a problem of the file and
// lets the check go on. A problem is left out when it repeats one already
// recorded, when its key is, is inside or directly holds a key that could
// not be decoded, or when it is inside a table with an unknown key: such a
// problem is a consequence of the first (a value of the wrong type, or a
// misspelled key, reads as missing). nil is ignored.
func (c *checker) keep(err error) {
	if err == nil {
		return
	}
	var list Errors
	if errors.As(err, &list) {
		for _, e := range list {
			c.keep(e)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{File: c.file, Msg: err.Error()}
	}
	for _, bad := range c.undecoded {
		if e.Key == "" {
			break
		}
		if parent, _ := parentKey(bad); within(e.Key, bad) || e.Key == parent {
			return
		}
	}
	for _, table := range c.misspelledIn {
		if e.Key != "" && within(e.Key, table) {
			return
		}
	}
	for _, old := range c.errs {
		if old.Key == e.Key && old.Msg == e.Msg {
			return
		}
	}
	c.errs = append(c.errs, e)
}

// keepUndecoded records err from decoding the value at its key; later
// problems about that key, inside it or around it are left out.
func (c *checker) keepUndecoded(err error) {
	var e *Error
	if errors.As(err, &e) && e.Key != "" {
		c.keep(err)
		c.undecoded = append(c.undecoded, e.Key)
		return
	}
	c.keep(err)
}

// within reports whether key path a is b or inside b.
func within(a, b string) bool {
	if !strings.HasPrefix(a, b) {
		return false
	}
	return len(a) == len(b) || a[len(b)] == '.' || a[len(b)] == '['
}

// failed returns nil when no problem has been recorded, the one *Error when
// there is one, and the sorted Errors otherwise.
func (c *checker) failed() error {
	switch len(c.errs) {
	case 0:
		return nil
	case 1:
		return c.errs[0]
	}
	list := Errors(slices.Clone(c.errs))
	sort.SliceStable(list, func(i, j int) bool {
		li, lj := list[i].Line, list[j].Line
		if (li == 0) != (lj == 0) {
			return lj == 0
		}
		if li != lj {
			return li < lj
		}
		return list[i].Key < list[j].Key
	})
	return list
}

// hasErrorsWithin reports whether a problem has been recorded at key or
// inside it.
func (c *checker) hasErrorsWithin(key string) bool {
	for _, e := range c.errs {
		if within(e.Key, key) {
			return true
		}
	}
	for _, k := range c.undecoded {
		if within(k, key) {
			return true
		}
	}
	return false
}
