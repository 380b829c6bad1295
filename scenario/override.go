package scenario

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Options changes a scenario as it is read: what-if overrides on top of
// the file, validated exactly like the file.
type Options struct {
	// Set are KEY=VALUE overrides, applied in order. KEY is a key path as
	// error messages print it ("arrivals.rate", "classes[1].hedge.delay",
	// "models.b.rate_limit.requests_per_minute"); tables on the way are
	// created when absent, array elements must exist. VALUE is a TOML
	// value ("40", "true", "[1, 2]", `{ kind = "constant", value = 1 }`);
	// anything that is not one is taken as a string, so "800ms" and
	// "fail_closed" need no quotes.
	Set []string
	// RateScale, when not 0, multiplies the traffic by this factor (> 0,
	// finite): the arrival rate of a Poisson or constant process, or, for
	// a replayed trace, the replay speed (time_scale is divided by it). It
	// is applied after Set.
	RateScale float64
	// Requests, when > 0, replaces the top-level requests before the file
	// is checked, as a flag such as `run --requests` does: checks that
	// depend on it (the simulated span at the arrival rate) see this value.
	// It is not listed among the overrides; a --set of requests is applied
	// after it.
	Requests int64
	// SLA and Target, when > 0, are given to every class's optimize
	// objective before the [optimize] table is checked, as the flags
	// `optimize --sla` and `--target` do: an objective "cost" or "answered"
	// named in the file then need not repeat them. They are not listed
	// among the overrides.
	SLA, Target time.Duration
}

// empty reports whether o changes nothing.
func (o *Options) empty() bool {
	return o == nil || len(o.Set) == 0 && o.RateScale == 0 && o.Requests <= 0 && o.SLA <= 0 && o.Target <= 0
}

// applyOptions changes the decoded tree as o says. Problems are *Error
// values naming the override; c.overridden records the key paths that
// were set, so that later problems about them name the override instead
// of a line of the file. It returns the overrides as the report lists them.
func (c *checker) applyOptions(tree map[string]any, o *Options) ([]string, error) {
	if o.empty() {
		return nil, nil
	}
	var applied []string
	c.overridden = map[string]string{}
	if o.Requests > 0 {
		tree["requests"] = o.Requests
		c.overridden["requests"] = fmt.Sprintf("--requests %d", o.Requests)
	}
	given := map[string]string{} // key → the value an earlier --set gave it
	for _, arg := range o.Set {
		key, value, err := c.applySet(tree, arg)
		if err != nil {
			return nil, err
		}
		if prev, ok := given[key]; ok {
			if !sameValue(parseValue(prev), parseValue(value)) {
				return nil, &Error{File: c.file, Set: "--set " + arg, Key: key,
					Msg: fmt.Sprintf("contradicts --set %s=%s; give one value per key", key, prev)}
			}
			continue // the same value again: listed once
		}
		given[key] = value
		c.overridden[key] = "--set " + arg
		applied = append(applied, key+"="+value)
	}
	if o.RateScale != 0 {
		s, err := c.applyRateScale(tree, o.RateScale)
		if err != nil {
			return nil, err
		}
		applied = append(applied, s)
	}
	return applied, nil
}

// applySet applies one KEY=VALUE and returns the key's canonical path and
// the value as written.
func (c *checker) applySet(tree map[string]any, arg string) (string, string, error) {
	raw, value, ok := strings.Cut(arg, "=")
	raw = strings.TrimSpace(raw)
	value = strings.TrimSpace(value)
	bad := func(key, format string, args ...any) error {
		return &Error{File: c.file, Set: "--set " + arg, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if !ok || raw == "" {
		return "", "", bad("", "want KEY=VALUE, such as arrivals.rate=40 or classes[1].hedge.delay=800ms")
	}
	segs, err := parseKeyPath(raw)
	if err != nil {
		return "", "", bad("", "key %q: %v", raw, err)
	}
	v := parseValue(value)
	// Walk to the parent of the last segment, creating tables as needed.
	var cur any = tree
	path := ""
	for i, seg := range segs {
		last := i == len(segs)-1
		if seg.index >= 0 {
			arr, n := arrayOf(cur)
			if arr == nil {
				return "", "", bad(indexKey(path, seg.index), "%s is %s, not an array", orRoot(path), describe(cur))
			}
			if seg.index >= n {
				return "", "", bad(indexKey(path, seg.index), "no such element; %s has %d (indices 0 to %d); --set changes entries, it does not add them", path, n, n-1)
			}
			path = indexKey(path, seg.index)
			if last {
				if !arr(seg.index, v) {
					return "", "", bad(path, "got %s; want a table, as every entry of %s is one", describe(v), segs[i-1].name)
				}
				break
			}
			cur = arrGet(cur, seg.index)
			continue
		}
		m, isTable := cur.(map[string]any)
		if arr, n := arrayOf(cur); arr != nil {
			return "", "", bad(joinKey(path, seg.name), "%s", indexHint(path, cur, n, segs[i:]))
		}
		if !isTable {
			return "", "", bad(joinKey(path, seg.name), "%s is %s, not a table", orRoot(path), describe(cur))
		}
		path = joinKey(path, seg.name)
		if last {
			m[seg.name] = v
			break
		}
		next, ok := m[seg.name]
		if !ok {
			if segs[i+1].index >= 0 {
				return "", "", bad(path, "not in the file; --set changes array entries, it does not add them")
			}
			next = map[string]any{}
			m[seg.name] = next
		}
		cur = next
	}
	return path, value, nil
}

// indexHint says how to name a key inside the array at path (arr, of n
// entries) that a key path reached with a name, rest[0], as if it were a
// table: "classes is an array; index it as classes[0].deadline (indices 0
// to 2)". The name becomes the index when it is one ("classes.0" →
// classes[0]) or names an entry ("classes.p2c" → the index of the class
// named p2c); otherwise the index is taken to be missing before it
// ("classes.hedge.delay" → classes[0].hedge.delay). A name that is none
// of these, in an array whose entries have names, is refused listing them:
// "classes has no entry named \"nosuch\"; its entries are \"x\"
// (classes[0]), \"y\" (classes[1])".
func indexHint(path string, arr any, n int, rest []keySeg) string {
	if n == 0 {
		return path + " is an empty array; --set changes entries, it does not add them"
	}
	k, err := strconv.Atoi(rest[0].name)
	switch {
	case err == nil && k >= 0:
		rest = rest[1:]
	case entryNamed(arr, rest[0].name) >= 0:
		k, rest = entryNamed(arr, rest[0].name), rest[1:]
	case !entryHasKey(arr, rest[0].name) && len(entryNames(path, arr)) > 0:
		return fmt.Sprintf("%s is an array with no entry named %q; its entries are %s", path, rest[0].name, strings.Join(entryNames(path, arr), ", "))
	default:
		k = 0
	}
	key := indexKey(path, k)
	for _, s := range rest {
		if s.index >= 0 {
			key = indexKey(key, s.index)
		} else {
			key = joinKey(key, s.name)
		}
	}
	return fmt.Sprintf("%s is an array; index it as %s (indices 0 to %d)", path, key, n-1)
}

// entryNamed returns the index of the entry of the array of tables arr
// whose name is name, or -1.
func entryNamed(arr any, name string) int {
	if a, ok := arr.([]map[string]any); ok {
		for i, m := range a {
			if m["name"] == name {
				return i
			}
		}
	}
	return -1
}

// entryHasKey reports whether an entry of the array of tables arr has
// the key name.
func entryHasKey(arr any, name string) bool {
	if a, ok := arr.([]map[string]any); ok {
		for _, m := range a {
			if _, ok := m[name]; ok {
				return true
			}
		}
	}
	return false
}

// entryNames lists the names of the entries of the array of tables arr at
// path, each with its indexed key: "x" (classes[0]); nil when an entry has
// no name.
func entryNames(path string, arr any) []string {
	a, ok := arr.([]map[string]any)
	if !ok {
		return nil
	}
	names := make([]string, len(a))
	for i, m := range a {
		name, ok := m["name"].(string)
		if !ok {
			return nil
		}
		names[i] = fmt.Sprintf("%q (%s)", name, indexKey(path, i))
	}
	return names
}

func orRoot(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

// arrayOf returns a setter for the elements of v and their number when v
// is an array (of tables or of values), else nil. The setter reports
// false when x cannot be an element (a non-table in an array of tables).
func arrayOf(v any) (func(i int, x any) bool, int) {
	switch a := v.(type) {
	case []map[string]any:
		return func(i int, x any) bool {
			m, ok := x.(map[string]any)
			if ok {
				a[i] = m
			}
			return ok
		}, len(a)
	case []any:
		return func(i int, x any) bool { a[i] = x; return true }, len(a)
	}
	return nil, 0
}

func arrGet(v any, i int) any {
	switch a := v.(type) {
	case []map[string]any:
		return a[i]
	case []any:
		return a[i]
	}
	return nil
}

// keySeg is one segment of a key path: a name, or an array index (≥ 0).
type keySeg struct {
	name  string
	index int
}

// parseKeyPath splits a key path as joinKey and indexKey write it:
// bare or quoted names separated by ".", and "[i]" indices.
func parseKeyPath(s string) ([]keySeg, error) {
	var segs []keySeg
	i := 0
	expectName := true
	for i < len(s) {
		switch c := s[i]; {
		case c == '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("unclosed [ at byte %d", i)
			}
			n, err := strconv.Atoi(s[i+1 : i+j])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("index %q is not an integer ≥ 0", s[i+1:i+j])
			}
			if len(segs) == 0 {
				return nil, fmt.Errorf("an index needs an array name before it")
			}
			segs = append(segs, keySeg{index: n})
			i += j + 1
			expectName = false
		case c == '.':
			if expectName {
				return nil, fmt.Errorf("empty name at byte %d", i)
			}
			expectName = true
			i++
		case !expectName:
			return nil, fmt.Errorf("want . or [ at byte %d", i)
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unclosed quote at byte %d", i)
			}
			name, err := strconv.Unquote(s[i : j+1])
			if err != nil {
				return nil, fmt.Errorf("bad quoted name %s", s[i:j+1])
			}
			segs = append(segs, keySeg{name: name, index: -1})
			i = j + 1
			expectName = false
		default:
			j := i
			for j < len(s) && isBareChar(s[j]) {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("unexpected %q at byte %d; names are letters, digits, _ and -, or quoted", s[i], i)
			}
			segs = append(segs, keySeg{name: s[i:j], index: -1})
			i = j
			expectName = false
		}
	}
	if expectName {
		return nil, fmt.Errorf("ends with a dot or is empty")
	}
	return segs, nil
}

// parseValue reads s as a TOML value, or as a string when it is not one.
func parseValue(s string) any {
	var doc map[string]any
	if _, err := toml.Decode("v = "+s, &doc); err == nil {
		if v, ok := doc["v"]; ok {
			return v
		}
	}
	return s
}

// sameValue reports whether two --set values are the same value: equal
// as decoded, or two numbers equal as numbers (4 and 4.0), or two
// durations equal as durations (100ms and 0.1s; time.ParseDuration), so
// that a key given the same value twice, however written, is not a
// contradiction.
func sameValue(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	as, aok := a.(string)
	bs, bok := b.(string)
	if !aok || !bok {
		return false
	}
	x, err1 := time.ParseDuration(strings.TrimSpace(as))
	y, err2 := time.ParseDuration(strings.TrimSpace(bs))
	return err1 == nil && err2 == nil && x == y
}

// number returns v as a float64 when it is a decoded TOML number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// applyRateScale multiplies the traffic by f.
func (c *checker) applyRateScale(tree map[string]any, f float64) (string, error) {
	arg := "--scale-rate " + strconv.FormatFloat(f, 'g', -1, 64)
	if !(f > 0) || math.IsInf(f, 1) {
		return "", &Error{File: c.file, Set: arg, Msg: "want a finite factor > 0, such as 2 for twice today's traffic"}
	}
	a, ok := tree["arrivals"].(map[string]any)
	if !ok {
		if cl := closedLoopClasses(tree); cl != "" {
			return "", &Error{File: c.file, Set: arg, Msg: "the scenario has no arrival rate to scale: it has no [arrivals] (its classes are closed-loop: " + cl + "); change their clients or think_time with --set instead"}
		}
		return "", nil // the missing [arrivals] is reported by validation
	}
	if a["process"] == "replay" {
		scale := 1.0
		switch v := a["time_scale"].(type) {
		case float64:
			scale = v
		case int64:
			scale = float64(v)
		case nil:
		default:
			return "", nil // a wrong type is reported by validation
		}
		a["time_scale"] = scale / f
		c.overridden["arrivals.time_scale"] = arg
		return fmt.Sprintf("arrivals.time_scale=%g (%s)", scale/f, arg), nil
	}
	var rate float64
	switch v := a["rate"].(type) {
	case float64:
		rate = v
	case int64:
		rate = float64(v)
	default:
		return "", nil // missing or of the wrong type: reported by validation
	}
	a["rate"] = rate * f
	c.overridden["arrivals.rate"] = arg
	return fmt.Sprintf("arrivals.rate=%g (%s)", rate*f, arg), nil
}

// closedLoopClasses lists the classes of tree that set clients, as
// "clients = 4 in classes[0]", or "" when none does.
func closedLoopClasses(tree map[string]any) string {
	classes, _ := tree["classes"].([]map[string]any)
	var l []string
	for i, cl := range classes {
		if n, ok := cl["clients"]; ok {
			l = append(l, fmt.Sprintf("clients = %v in classes[%d]", n, i))
		}
	}
	return strings.Join(l, ", ")
}

// checkReplaced checks the file's own values at the keys the options
// replaced; orig is the tree before they applied. A bad value in the file
// is an error whatever a flag or --set puts in its place: the file is the
// input (validate reads it as it is), and a report of what-ifs on it names
// it. Only those values themselves are checked, their type and range, not
// how they go with the rest of the file, which the options may change.
func (c *checker) checkReplaced(orig map[string]any) {
	if len(c.overridden) == 0 {
		return
	}
	fc := &checker{file: c.file, lines: c.lines}
	var f fileTable
	fc.keepUndecoded(fc.bind(orig, reflect.ValueOf(&f).Elem(), ""))
	for _, e := range append(fc.errs, fc.ranged...) {
		for k, set := range c.overridden {
			if e.Key != "" && within(e.Key, k) {
				fileErr := *e
				fileErr.Msg += fmt.Sprintf(" (the file's value, which %s replaces: the file must be valid as it is)", set)
				c.keep(&fileErr)
				break
			}
		}
	}
}

// copyTree returns a deep copy of a parsed TOML tree: its tables and
// arrays are new, its scalars shared.
func copyTree(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = copyTree(x)
		}
		return m
	case []map[string]any:
		a := make([]map[string]any, len(v))
		for i, x := range v {
			a[i] = copyTree(x).(map[string]any)
		}
		return a
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = copyTree(x)
		}
		return a
	}
	return v
}
