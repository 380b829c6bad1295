package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hedgesim/hedgesim/readers"
)

// Limits bound a scenario file before any parser reads it, so that a small
// hostile file cannot exhaust memory or time: the TOML parser and the key
// line scanner both use memory that grows with the product of a key's
// depth and the number of keys under it.
type Limits struct {
	// MaxBytes is the largest scenario file, in bytes.
	MaxBytes int64
	// MaxDepth is the deepest nesting of a value: every table header part,
	// dotted key part, inline table and array it is inside counts one.
	MaxDepth int
	// MaxKeyBytes is the longest key path, in bytes: the table header and
	// the key parts joined, inline tables and array elements included.
	MaxKeyBytes int
	// MaxKeys is the most keys a file may write, table headers included
	// (array elements are not keys). The TOML parser's time and memory
	// grow with the number of keys times their depth.
	MaxKeys int
	// MaxArrayElements is the most array elements a file may hold, all
	// arrays together (an element of a nested array counts in both). The
	// TOML parser holds about 250 bytes per element: a file of tens of
	// millions of them took gigabytes within MaxBytes.
	MaxArrayElements int
	// MaxDataBytes is the largest file the scenario may name (a replayed
	// trace), in bytes.
	MaxDataBytes int64
}

// DefaultLimits are the limits Load, LoadFS and Parse apply. The deepest
// key of a shipped scenario is 8 levels deep and the longest 65 bytes.
var DefaultLimits = Limits{
	MaxBytes:         64 << 20,
	MaxDepth:         64,
	MaxKeyBytes:      512,
	MaxKeys:          10000,
	MaxArrayElements: 1_000_000,
	MaxDataBytes:     readers.DefaultMaxBytes,
}

// MaxBytesEnv names the environment variable that overrides
// DefaultLimits.MaxBytes for the hedgesim command: a whole number of bytes.
const MaxBytesEnv = "HEDGESIM_MAX_SCENARIO_BYTES"

// withDefaults fills zero fields from DefaultLimits.
func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	if l.MaxKeyBytes <= 0 {
		l.MaxKeyBytes = DefaultLimits.MaxKeyBytes
	}
	if l.MaxKeys <= 0 {
		l.MaxKeys = DefaultLimits.MaxKeys
	}
	if l.MaxArrayElements <= 0 {
		l.MaxArrayElements = DefaultLimits.MaxArrayElements
	}
	if l.MaxDataBytes <= 0 {
		l.MaxDataBytes = DefaultLimits.MaxDataBytes
	}
	return l
}

// keyName is a key path as the pre-scan sees it, built only for an error
// message: the raw text src[from:to] of one key (dotted parts included)
// under up, or, for a table header, its path with the indices of the
// array-of-tables elements it is in (text).
type keyName struct {
	up       *keyName
	from, to int
	text     string
}

// path returns the key path of k in src, parts joined by dots.
func (k *keyName) path(src []byte) string {
	if k == nil {
		return ""
	}
	s := k.text
	if s == "" {
		s = strings.TrimSpace(string(src[k.from:k.to]))
	}
	if up := k.up.path(src); up != "" {
		return up + "." + s
	}
	return s
}

// headerPath returns the path of table header h given the elements of
// each array of tables so far (tables; the element a header adds to is
// the last one): "classes.hedge" after two [[classes]] is
// "classes[1].hedge".
func headerPath(h string, tables map[string]int) string {
	for i := len(h); i > 0; i-- {
		if i < len(h) && h[i] != '.' {
			continue
		}
		if n := tables[h[:i]]; n > 0 {
			return h[:i] + "[" + strconv.Itoa(n-1) + "]" + h[i:]
		}
	}
	return h
}

// prescan checks src against lim in one pass of O(len(src)) time and
// O(MaxDepth) memory, without building any key: it follows TOML's lexical
// structure (strings, comments, table headers, keys, inline tables and
// arrays) far enough to know each key's depth and length, and counts array
// elements. It returns an
// *Error on the line of the first key or bracket over a limit, or nil.
// Malformed TOML is left to the parser: prescan only has to terminate.
func prescan(file string, src []byte, lim Limits) *Error {
	if int64(len(src)) > lim.MaxBytes {
		return &Error{File: file, Msg: fmt.Sprintf("%d bytes, more than the limit of %s (set %s to raise it)",
			len(src), readers.FormatBytes(lim.MaxBytes), MaxBytesEnv)}
	}
	type level struct {
		depth, bytes int
		inline       bool     // an inline table (keys follow), else an array
		name         *keyName // the key the value is under
	}
	var (
		stack      []level
		table      level // the current [table] header
		cur        level // the context a value is in
		line       = 1
		atLineHead = true // expecting a key or header at the top level
		expectKey  = false
		keys       = 0
		elements   = 0     // array elements so far
		needValue  = false // an array element may start here
		tables     map[string]int
	)
	tooDeep := func(d level, key bool) *Error {
		if key {
			keys++
		}
		switch {
		case keys > lim.MaxKeys:
			return &Error{File: file, Line: line, Msg: fmt.Sprintf("more than %d keys; a scenario needs a few hundred", lim.MaxKeys)}
		case d.depth > lim.MaxDepth:
			return &Error{File: file, Line: line, Msg: fmt.Sprintf("nested more than %d levels deep (tables, dotted keys, inline tables and arrays all count); a scenario needs fewer than 10", lim.MaxDepth)}
		case d.bytes > lim.MaxKeyBytes:
			return &Error{File: file, Line: line, Msg: fmt.Sprintf("key path longer than %d bytes", lim.MaxKeyBytes)}
		}
		return nil
	}
	// key reads a possibly dotted key at i and returns the index after it,
	// its parts and its length.
	key := func(i int) (int, int, int) {
		parts, n := 0, 0
		for i < len(src) {
			switch c := src[i]; {
			case c == ' ' || c == '\t':
				i++
			case c == '"' || c == '\'':
				j, nl := skipString(src, i)
				n += j - i
				line += nl
				parts++
				i = j
			case isBareChar(c):
				j := i
				for j < len(src) && isBareChar(src[j]) {
					j++
				}
				n += j - i
				parts++
				i = j
			case c == '.':
				n++
				i++
			default:
				return i, parts, n
			}
		}
		return i, parts, n
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
			if len(stack) == 0 {
				atLineHead, expectKey = true, false
			}
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		}
		switch {
		case atLineHead && c == '[':
			atLineHead = false
			i++
			extra := 0
			if i < len(src) && src[i] == '[' {
				i++
				extra = 1 // an array of tables: its element is one more level
			}
			j, parts, n := key(i)
			table = level{depth: parts + extra, bytes: n + 4*extra, name: &keyName{from: i, to: j}}
			if extra == 1 || tables != nil {
				// Array-of-tables elements are named by their index.
				h := strings.TrimSpace(string(src[i:j]))
				if extra == 1 {
					if tables == nil {
						tables = map[string]int{}
					}
					tables[h]++
				}
				table.name.text = headerPath(h, tables)
			}
			if err := tooDeep(table, true); err != nil {
				return err
			}
			i = j
			for i < len(src) && src[i] == ']' {
				i++
			}
			continue
		case atLineHead || expectKey:
			base := table
			if !atLineHead {
				base = stack[len(stack)-1]
			}
			if expectKey && c == '}' {
				break // an empty inline table or a trailing comma: close below
			}
			atLineHead, expectKey = false, false
			j, parts, n := key(i)
			cur = level{depth: base.depth + parts, bytes: base.bytes + 1 + n, name: &keyName{up: base.name, from: i, to: j}}
			if err := tooDeep(cur, true); err != nil {
				return err
			}
			if j == i { // not a key: let the parser say what it is
				j++
			}
			i = j
			continue
		}
		if needValue && c != ',' && c != ']' && len(stack) > 0 && !stack[len(stack)-1].inline {
			needValue = false
			if elements++; elements > lim.MaxArrayElements {
				return &Error{File: file, Line: line, Key: stack[len(stack)-1].name.path(src),
					Msg: fmt.Sprintf("more than %d array elements in the file (all arrays together); a scenario needs a few thousand — refer to a large sample through a trace or fit a distribution to it (hedgesim fit)", lim.MaxArrayElements)}
			}
		}
		switch c {
		case '"', '\'':
			j, nl := skipString(src, i)
			line += nl
			i = j
			continue
		case '[', '{':
			next := level{depth: cur.depth + 1, bytes: cur.bytes + 4, inline: c == '{', name: cur.name}
			if len(stack) > 0 && !stack[len(stack)-1].inline {
				top := stack[len(stack)-1]
				next = level{depth: top.depth + 1, bytes: top.bytes + 8, inline: c == '{', name: top.name}
			}
			if err := tooDeep(next, false); err != nil {
				return err
			}
			stack = append(stack, next)
			cur = next
			expectKey = c == '{'
			needValue = c == '['
		case ',':
			if len(stack) > 0 && stack[len(stack)-1].inline {
				expectKey = true
			} else if len(stack) > 0 {
				needValue = true
			}
		case ']', '}':
			expectKey, needValue = false, false
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 {
				cur = stack[len(stack)-1]
			}
		}
		i++
	}
	return nil
}

// skipString returns the index after the basic or literal string (single-
// or multi-line) that starts at i, and the newlines it holds. An
// unterminated single-line string ends at the end of its line.
func skipString(src []byte, i int) (int, int) {
	q := src[i]
	multi := i+2 < len(src) && src[i+1] == q && src[i+2] == q
	nl := 0
	if multi {
		i += 3
	} else {
		i++
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\\' && q == '"':
			if i+1 < len(src) && src[i+1] == '\n' {
				nl++
			}
			i += 2
			continue
		case multi && c == q && i+2 < len(src) && src[i+1] == q && src[i+2] == q:
			i += 3
			// Up to two quotes right after belong to the content.
			for extra := 0; extra < 2 && i < len(src) && src[i] == q; extra++ {
				i++
			}
			return i, nl
		case !multi && c == q:
			return i + 1, nl
		case c == '\n':
			if !multi {
				return i, nl
			}
			nl++
		}
		i++
	}
	return min(i, len(src)), nl
}
