package scenario

import (
	"sort"
	"strconv"
	"strings"
)

// BurntSushi/toml reports where a syntax error is, but not where a key is:
// MetaData.Undecoded has no positions and drops array indices. keyLines fills
// that gap with a small scanner over the (already parsed, hence valid) TOML
// text that records, for every key path, the line it is written on.
//
// Key paths are the keys from the document root joined with "." with array
// elements as "[i]", for example "classes[1].hedge.delays[0]" or
// "models.guard.latency.components[1].sigma"; a key that is not a bare key
// (letters, digits, "_" and "-") is written as a quoted string. joinKey and
// indexKey build them; the scanner and the binder use the same two functions
// so their paths agree.

// keyLines maps full key paths to 1-based line numbers. Tables and array
// elements are included: a [table] header or an inline table maps to the
// line it starts on, a table first mentioned as the prefix of a dotted key
// or header maps to that line.
type keyLines map[string]int

// lineOf returns the line of key, or when key is not written in the file
// (a missing required key, a default), the line of its longest prefix that
// is; 0 when none is.
func (kl keyLines) lineOf(key string) int {
	for {
		if l, ok := kl[key]; ok {
			return l
		}
		var ok bool
		if key, ok = parentKey(key); !ok {
			return 0
		}
	}
}

// joinKey returns the path of the key name inside the table at parent ("" is
// the root).
func joinKey(parent, name string) string {
	if !isBareKey(name) {
		name = strconv.Quote(name)
	}
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// indexKey returns the path of element i of the array at parent.
func indexKey(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// parentKey strips the last component (".name" or "[i]") from a key path.
func parentKey(key string) (string, bool) {
	cut := -1
	inQuote := false
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"':
			inQuote = !inQuote
		case !inQuote && (c == '.' || c == '['):
			cut = i
		}
	}
	if cut < 0 {
		return "", false
	}
	return key[:cut], true
}

func isBareKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isBareChar(s[i]) {
			return false
		}
	}
	return true
}

func isBareChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// scanLines maps every key path in src to its line. src must be valid TOML
// (parse it first); on invalid input the result is incomplete but scanLines
// still terminates.
func scanLines(src []byte) keyLines {
	return scan(src).lines
}

// keyAt is one occurrence of a key path in the text.
type keyAt struct {
	key  string
	line int
}

// scan runs the scanner over src.
func scan(src []byte) *lineScanner {
	s := &lineScanner{src: src, lines: keyLines{}, arrays: map[string]int{}}
	for i, c := range src {
		if c == '\n' {
			s.newlines = append(s.newlines, i)
		}
	}
	table := ""
	for {
		s.skipBlank(true)
		if s.pos >= len(src) {
			break
		}
		start := s.pos
		if src[s.pos] == '[' {
			table = s.header()
		} else {
			s.keyValue(table, false)
		}
		s.skipLine()
		if s.pos == start {
			s.pos++
		}
	}
	return s
}

type lineScanner struct {
	src      []byte
	pos      int
	newlines []int          // offsets of '\n', for lineAt
	lines    keyLines       // the result: the first line of each key
	all      []keyAt        // every occurrence, in file order (for duplicate-key errors)
	arrays   map[string]int // element count of each array of tables seen so far
}

// lineAt returns the 1-based line of byte offset p.
func (s *lineScanner) lineAt(p int) int {
	return 1 + sort.SearchInts(s.newlines, p)
}

func (s *lineScanner) record(key string, line int) {
	s.all = append(s.all, keyAt{key, line})
	if _, ok := s.lines[key]; !ok {
		s.lines[key] = line
	}
}

func (s *lineScanner) peek(prefix string) bool {
	return strings.HasPrefix(string(s.src[s.pos:min(len(s.src), s.pos+len(prefix))]), prefix)
}

// skipBlank skips spaces and tabs, and also newlines and comments when nl is set.
func (s *lineScanner) skipBlank(nl bool) {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t':
		case '\r', '\n':
			if !nl {
				return
			}
		case '#':
			if !nl {
				return
			}
			s.skipLine()
			continue
		default:
			return
		}
		s.pos++
	}
}

// skipLine moves to the start of the next line.
func (s *lineScanner) skipLine() {
	for s.pos < len(s.src) && s.src[s.pos] != '\n' {
		s.pos++
	}
	if s.pos < len(s.src) {
		s.pos++
	}
}

// header reads a [table] or [[array.of.tables]] header and returns the path
// of the table that the following key/value pairs belong to.
func (s *lineScanner) header() string {
	line := s.lineAt(s.pos)
	array := s.peek("[[")
	if array {
		s.pos += 2
	} else {
		s.pos++
	}
	segs := s.dottedKey()
	if len(segs) == 0 {
		return ""
	}
	// Every prefix that is an array of tables refers to its last element.
	path := ""
	for i, seg := range segs {
		path = joinKey(path, seg)
		s.record(path, line)
		if array && i == len(segs)-1 {
			s.arrays[path]++
		}
		if n := s.arrays[path]; n > 0 {
			path = indexKey(path, n-1)
			s.record(path, line)
		}
	}
	return path
}

// keyValue reads "key = value" (key possibly dotted) inside the table at
// table; inInline says whether newlines may separate the tokens.
func (s *lineScanner) keyValue(table string, inInline bool) {
	line := s.lineAt(s.pos)
	segs := s.dottedKey()
	path := table
	for _, seg := range segs {
		path = joinKey(path, seg)
		s.record(path, line)
	}
	s.skipBlank(inInline)
	if s.pos < len(s.src) && s.src[s.pos] == '=' {
		s.pos++
		s.skipBlank(inInline)
		s.value(path)
	}
}

// dottedKey reads a possibly dotted key of bare and quoted parts.
func (s *lineScanner) dottedKey() []string {
	var segs []string
	for {
		s.skipBlank(false)
		seg, ok := s.simpleKey()
		if !ok {
			return segs
		}
		segs = append(segs, seg)
		s.skipBlank(false)
		if s.pos >= len(s.src) || s.src[s.pos] != '.' {
			return segs
		}
		s.pos++
	}
}

func (s *lineScanner) simpleKey() (string, bool) {
	if s.pos >= len(s.src) {
		return "", false
	}
	switch s.src[s.pos] {
	case '"':
		start := s.pos
		s.skipString()
		raw := string(s.src[start:s.pos])
		if k, err := strconv.Unquote(raw); err == nil {
			return k, true
		}
		return strings.Trim(raw, `"`), true
	case '\'':
		start := s.pos
		s.skipString()
		return strings.Trim(string(s.src[start:s.pos]), "'"), true
	}
	start := s.pos
	for s.pos < len(s.src) && isBareChar(s.src[s.pos]) {
		s.pos++
	}
	return string(s.src[start:s.pos]), s.pos > start
}

// value skips one value, recording the keys of inline tables and the
// elements of arrays under path.
func (s *lineScanner) value(path string) {
	if s.pos >= len(s.src) {
		return
	}
	switch s.src[s.pos] {
	case '"', '\'':
		s.skipString()
	case '{':
		s.pos++
		for s.pos < len(s.src) {
			s.skipBlank(true)
			if s.pos >= len(s.src) {
				return
			}
			switch s.src[s.pos] {
			case '}':
				s.pos++
				return
			case ',':
				s.pos++
				continue
			}
			start := s.pos
			s.keyValue(path, true)
			if s.pos == start {
				s.pos++
			}
		}
	case '[':
		s.pos++
		for i := 0; s.pos < len(s.src); {
			s.skipBlank(true)
			if s.pos >= len(s.src) {
				return
			}
			switch s.src[s.pos] {
			case ']':
				s.pos++
				return
			case ',':
				s.pos++
				continue
			}
			start := s.pos
			elem := indexKey(path, i)
			s.record(elem, s.lineAt(s.pos))
			s.value(elem)
			i++
			if s.pos == start {
				s.pos++
			}
		}
	default: // number, boolean, date-time: up to the next delimiter
		for s.pos < len(s.src) && !strings.ContainsRune(",]}#\r\n", rune(s.src[s.pos])) {
			s.pos++
		}
	}
}

// skipString skips a basic or literal string, single- or multi-line.
func (s *lineScanner) skipString() {
	q := s.src[s.pos]
	delim := strings.Repeat(string(q), 3)
	multi := s.peek(delim)
	if multi {
		s.pos += 3
	} else {
		s.pos++
	}
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '\\' && q == '"':
			s.pos += 2
			continue
		case multi && s.peek(delim):
			s.pos += 3
			// Up to two quotes right before the delimiter belong to the content.
			for extra := 0; extra < 2 && s.pos < len(s.src) && s.src[s.pos] == q; extra++ {
				s.pos++
			}
			return
		case !multi && c == q:
			s.pos++
			return
		case !multi && c == '\n':
			return
		}
		s.pos++
	}
}
