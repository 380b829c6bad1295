package scenario

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// bind stores the parsed TOML value v, found at key, into dst, which must
// be settable. It is a strict subset of BurntSushi/toml's struct decoding:
// keys match toml tags exactly (toml.Decode also accepts keys that differ
// in case), every key must have a field, and a value of the wrong type is
// reported with its full key path and line rather than as a position-less
// error. Keys are visited in file order. A problem with the value at key
// itself is returned; problems inside it are recorded (checker.keep) and
// the other keys are still bound, so one pass finds every problem. Types
// implementing toml.Unmarshaler decode themselves.
//
// Supported destinations: pointers, structs (fields tagged `toml:"name"`),
// maps with string keys, slices, string, bool, int, int64 and float64. Any
// other type is a programming error and panics.
//
// Each number, duration and list of them bound to a struct field is checked
// against the range of its key (ranges.go); bind records the key's pattern
// (c.patterns), by which the checker finds the range of a distribution.
func (c *checker) bind(v any, dst reflect.Value, key string) error {
	pat, ok := c.patterns[key]
	if !ok {
		pat = key
	}
	return c.bindAt(v, dst, key, pat)
}

// bindAt is bind with the pattern of key: its path with "*" for a table's
// name and "[]" for an array element.
func (c *checker) bindAt(v any, dst reflect.Value, key, pat string) error {
	if dst.CanAddr() {
		if u, ok := dst.Addr().Interface().(toml.Unmarshaler); ok {
			if err := u.UnmarshalTOML(v); err != nil {
				return c.errorf(key, "%v", err)
			}
			return nil
		}
	}
	switch dst.Kind() {
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if err := c.bindAt(v, p.Elem(), key, pat); err != nil {
			return err
		}
		dst.Set(p)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return c.wrongType(key, v, "a table")
		}
		fields := tomlFields(dst.Type())
		for _, k := range c.keysInFileOrder(key, m) {
			sub := joinKey(key, k)
			i, ok := fields[k]
			if !ok {
				// Later problems inside this table (a "missing" key that
				// is the misspelled one) are consequences: keep leaves
				// them out.
				e := c.unknownKey(sub, k, fields)
				c.errs = append(c.errs, e)
				c.misspelledIn = append(c.misspelledIn, key)
				continue
			}
			subPat := joinKey(pat, k)
			if c.patterns == nil {
				c.patterns = map[string]string{}
			}
			c.patterns[sub] = subPat
			c.keepUndecoded(c.bindAt(m[k], dst.Field(i), sub, subPat))
			c.checkValue(sub, subPat, dst.Field(i).Interface())
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return c.wrongType(key, v, "a table")
		}
		t := dst.Type()
		out := reflect.MakeMapWithSize(t, len(m))
		for _, k := range c.keysInFileOrder(key, m) {
			e := reflect.New(t.Elem()).Elem()
			// A table that did not decode still names an entry (a model
			// that others refer to), so it is kept, partly filled.
			c.keepUndecoded(c.bindAt(m[k], e, joinKey(key, k), pat+".*"))
			out.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), e)
		}
		dst.Set(out)
	case reflect.Slice:
		a := reflect.ValueOf(v)
		if v == nil || a.Kind() != reflect.Slice {
			return c.wrongType(key, v, "an array")
		}
		out := reflect.MakeSlice(dst.Type(), a.Len(), a.Len())
		for i := range a.Len() {
			c.keepUndecoded(c.bindAt(a.Index(i).Interface(), out.Index(i), indexKey(key, i), pat+"[]"))
		}
		dst.Set(out)
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return c.wrongType(key, v, "a string")
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return c.wrongType(key, v, "true or false")
		}
		dst.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, ok := v.(int64)
		if !ok {
			return c.wrongType(key, v, "an integer")
		}
		dst.SetInt(n)
	case reflect.Float64:
		switch x := v.(type) {
		case float64:
			dst.SetFloat(x)
		case int64:
			dst.SetFloat(float64(x))
		default:
			return c.wrongType(key, v, "a number")
		}
	default:
		panic(fmt.Sprintf("scenario: bind: unsupported destination type %s at %q", dst.Type(), key))
	}
	return nil
}

// tomlFields maps the toml tag names of t's fields to field indices.
func tomlFields(t reflect.Type) map[string]int {
	fields := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if name != "" && name != "-" {
			fields[name] = i
		}
	}
	return fields
}

// keysInFileOrder returns the keys of the table at key sorted by the line
// they are written on, then by name.
func (c *checker) keysInFileOrder(key string, m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	line := func(k string) int { return c.lines.lineOf(joinKey(key, k)) }
	sort.Slice(keys, func(i, j int) bool {
		li, lj := line(keys[i]), line(keys[j])
		if li != lj {
			return li < lj
		}
		return keys[i] < keys[j]
	})
	return keys
}

func (c *checker) wrongType(key string, v any, want string) *Error {
	e := c.errorf(key, "wrong type: got %s; want %s", describe(v), want)
	// p99.9 = 2.0 unquoted is a table p99 holding 9 = 2.0.
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for k := range m {
			if k != "" && strings.Trim(k, "0123456789") == "" {
				last := key[strings.LastIndexAny(key, ".]")+1:]
				e.Msg += fmt.Sprintf(`; an unquoted key with a dot, %s.%s, is a table %s holding %s: quote it, "%s.%s" = …`, last, k, last, k, last, k)
			}
		}
	}
	return e
}

// unknownKey reports key, whose last part k is not one of the allowed
// names, suggesting the closest allowed name when there is one.
func (c *checker) unknownKey(key, k string, allowed map[string]int) *Error {
	names := make([]string, 0, len(allowed))
	for name := range allowed {
		names = append(names, name)
	}
	sort.Strings(names)
	hint := ""
	best, bestDist := "", len(k)/3+1 // suggest only names within about a third of k's length
	for _, name := range names {
		if strings.EqualFold(name, k) {
			best, bestDist = name, 0
			hint = fmt.Sprintf(" (keys are case-sensitive: did you mean %q?)", name)
			break
		}
		if d := EditDistance(name, k); d < bestDist {
			best, bestDist = name, d
		}
	}
	if hint == "" && best != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", best)
	}
	if _, pool := allowed["pool"]; pool && k == "batching" {
		prov := strings.TrimSuffix(key, ".batching")
		hint = fmt.Sprintf(" (continuous batching is a replica pool's: set it in [%s.pool.batching]; a provider without a pool is one replica: give it a pool with replicas = 1)", prov)
	}
	return c.errorf(key, "unknown key %q%s; allowed keys here: %s", k, hint, strings.Join(names, ", "))
}

// EditDistance returns the optimal-string-alignment distance between a
// and b: the number of single-byte insertions, deletions, substitutions and
// transpositions of adjacent bytes that turn a into b. The "did you mean"
// hints of the loader and of the command line use it.
func EditDistance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j].
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
