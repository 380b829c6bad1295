package scenario

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// HedgeEdit is a new hedge policy for one class, for WithPolicies.
type HedgeEdit struct {
	// Class is the class's name; Step, for a pipeline class, the step's
	// (its [classes.steps.hedge] table is rewritten; a step without one
	// takes a NoHedging edit as it is).
	Class, Step string
	// Keep leaves the class's hedge table as it is (its configured policy
	// was picked); the table must still be one WithPolicies can rewrite.
	Keep bool
	// NoHedging writes a class that sends no copies and has no per-attempt
	// timeout: max_copies = 0, without delay, delays, adaptive delay,
	// attempt_timeout or stream cuts (inter_token_timeout,
	// min_tokens_per_s, speed_window, and on_stall with them) — sim.NoHedging.
	NoHedging bool
	// Delay is the fixed delay before each copy (≥ 0) and Copies the
	// maximum number of copies beyond the primary (≥ 1); an adaptive delay
	// is removed.
	Delay  time.Duration
	Copies int
	// Targets, when not nil, replace the class's targets (and its
	// new_provider rule).
	Targets []string
}

// Top holds the top-level keys WithPolicies sets: the number of requests
// (> 0) and, when not nil, the seed.
type Top struct {
	Requests int
	Seed     *uint64
}

// WithPolicies returns the scenario src (the text of a scenario file) with
// the hedge table of each class named in edits rewritten, and the
// top-level requests and seed set as top says. Only the lines of the keys it
// changes are rewritten, removed or added — everything else, comments
// included, is kept (a line given the value it has is kept as it is; a
// changed line loses its trailing comment with its old value). It returns
// an error when a class is missing or its hedge policy is not a
// [classes.hedge] table with single-line values, or when the result does
// not parse back to the edited policies.
//
// A top-level key the file lacks is added after the file's header: after
// a first line "#:schema PATH" (editors read that directive only from the
// first line) and after the leading comments up to their last blank line
// (a comment that runs into the first key or table without a blank line
// is taken as that key's or table's, and the key goes above it).
//
// When traceDir is not empty, a relative arrivals.trace path and a
// relative #:schema path (not a URL) are rewritten as that path joined to
// traceDir (the directory the original file's relative paths were
// relative to), so that the new file can live elsewhere.
func WithPolicies(filename string, src []byte, top Top, edits []HedgeEdit, traceDir string) ([]byte, error) {
	sc, err := Parse(filename, src)
	if err != nil {
		return nil, err
	}
	kl := scanLines(src)
	lines := strings.Split(string(src), "\n")
	drop := map[int]bool{}            // 0-based lines to remove
	set := map[int]string{}           // 0-based line → new text
	insertAfter := map[int][]string{} // 0-based line → lines added after it
	for _, ed := range edits {
		ci := slices.IndexFunc(sc.Config.Classes, func(c sim.Class) bool { return c.Name == ed.Class })
		if ci < 0 {
			return nil, fmt.Errorf("%s: no class %q", filename, ed.Class)
		}
		table := fmt.Sprintf("classes[%d].hedge", ci)
		if ed.Step != "" {
			pl := sc.Config.Classes[ci].Pipeline
			si := -1
			if pl != nil {
				si = slices.IndexFunc(pl.Steps, func(s sim.Step) bool { return s.Name == ed.Step })
			}
			if si < 0 {
				return nil, fmt.Errorf("%s: class %q has no step %q", filename, ed.Class, ed.Step)
			}
			table = fmt.Sprintf("classes[%d].steps[%d].hedge", ci, si)
		}
		hl, ok := kl[table]
		switch {
		case !ok && ed.Step != "" && ed.NoHedging:
			continue // a step without a hedge table does not hedge
		case !ok && ed.Step != "":
			return nil, fmt.Errorf("%s: step %q of class %q has no hedge table to rewrite; add a [classes.steps.hedge] table naming its primary", filename, ed.Step, ed.Class)
		case !ok:
			return nil, fmt.Errorf("%s: class %q has no hedge table to rewrite", filename, ed.Class)
		}
		head := hl - 1
		if !strings.HasPrefix(strings.TrimSpace(lines[head]), "[") {
			return nil, fmt.Errorf("%s:%d: class %q: the hedge policy is written as an inline table or dotted keys; write it as a [classes.hedge] (or [classes.steps.hedge]) table for it to be rewritten", filename, hl, ed.Class)
		}
		if ed.Keep {
			continue
		}
		// line returns the 0-based line of "key = value" in the table, when
		// the value is on that line; not a sub-table's header.
		line := func(key string) (int, bool) {
			l, ok := kl[table+"."+key]
			if !ok || l == hl {
				return 0, false
			}
			v := strings.TrimSpace(lines[l-1])
			if strings.HasPrefix(v, "[") || strings.Count(v, "[") != strings.Count(v, "]") || strings.Count(v, "{") != strings.Count(v, "}") {
				return 0, false
			}
			return l - 1, true
		}
		put := func(key, value string) {
			if l, ok := line(key); ok {
				set[l] = key + " = " + value
				return
			}
			insertAfter[head] = append(insertAfter[head], key+" = "+value)
		}
		remove := func(key string) {
			if l, ok := line(key); ok {
				drop[l] = true
			}
		}
		// An adaptive delay as a sub-table: drop its header and keys.
		removeTable := func(sub string) {
			sl, ok := kl[table+"."+sub]
			if !ok {
				return
			}
			if l, ok := line(sub); ok {
				drop[l] = true // an inline table on one line
				return
			}
			if !strings.HasPrefix(strings.TrimSpace(lines[sl-1]), "[") {
				return
			}
			drop[sl-1] = true
			for l := sl; l < len(lines); l++ {
				if strings.HasPrefix(strings.TrimSpace(lines[l]), "[") {
					break
				}
				drop[l] = true
			}
		}
		if ed.NoHedging {
			put("max_copies", "0")
			remove("delay")
			remove("delays")
			remove("attempt_timeout")
			remove("inter_token_timeout")
			remove("min_tokens_per_s")
			remove("speed_window")
			remove("on_stall")
			removeTable("adaptive")
			continue
		}
		put("delay", strconv.Quote(ed.Delay.String()))
		remove("delays")
		put("max_copies", strconv.Itoa(ed.Copies))
		removeTable("adaptive")
		if ed.Targets != nil {
			q := make([]string, len(ed.Targets))
			for i, t := range ed.Targets {
				q[i] = strconv.Quote(t)
			}
			put("targets", "["+strings.Join(q, ", ")+"]")
			remove("new_provider")
		}
	}
	if l, ok := kl["arrivals.trace"]; ok && traceDir != "" {
		v := strings.TrimSpace(lines[l-1])
		if k, val, found := strings.Cut(v, "="); found && strings.TrimSpace(k) == "trace" {
			val = strings.TrimSpace(val)
			if i := strings.Index(val, "#"); i > 0 && strings.HasPrefix(val, "\"") {
				if j := strings.Index(val[1:], "\""); j >= 0 {
					val = val[:j+2]
				}
			}
			if p, err := strconv.Unquote(val); err == nil && !filepath.IsAbs(p) {
				set[l-1] = "trace = " + strconv.Quote(filepath.Join(traceDir, p))
			}
		}
	}
	if schema, ok := schemaDirective(lines[0]); ok && traceDir != "" && !filepath.IsAbs(schema) && !strings.Contains(schema, "://") {
		set[0] = "#:schema " + filepath.Join(traceDir, schema)
	}
	var out bytes.Buffer
	// The top-level keys: each line rewritten when its value changes, or
	// written after the header (headerEnd) when the file lacks it and its
	// value differs.
	type topKey struct {
		key  string
		same bool   // the file has this value already
		kv   string // the line to write
		line int    // the key's line in the file, when has
		has  bool
	}
	tops := []topKey{{key: "requests", same: sc.Config.Requests == top.Requests, kv: "requests = " + strconv.Itoa(top.Requests)}}
	if top.Seed != nil {
		tops = append(tops, topKey{key: "seed", same: sc.Config.Seed == *top.Seed, kv: "seed = " + strconv.FormatUint(*top.Seed, 10)})
	}
	var added []string
	for i := range tops {
		t := &tops[i]
		t.line, t.has = kl[t.key]
		if !t.has && (t.key == "requests" || !t.same) {
			added = append(added, t.kv)
		}
	}
	at := headerEnd(lines)
	topAt := func(i int) int {
		for j, t := range tops {
			if t.has && i == t.line-1 {
				return j
			}
		}
		return -1
	}
	for i, l := range lines {
		if i == at {
			for _, add := range added {
				out.WriteString(add + "\n")
			}
		}
		switch j := topAt(i); {
		case j >= 0 && tops[j].same:
			out.WriteString(l) // unchanged, however written: kept with its comment
		case j >= 0:
			out.WriteString(rewriteLine(l, tops[j].kv))
		case drop[i]:
			continue
		case i == 0 && strings.HasPrefix(set[0], "#:schema "):
			out.WriteString(set[0])
		case set[i] != "":
			out.WriteString(rewriteLine(l, set[i]))
		default:
			out.WriteString(l)
		}
		if i < len(lines)-1 {
			out.WriteByte('\n')
		}
		for _, add := range insertAfter[i] {
			out.WriteString(add + "\n")
		}
	}
	b := out.Bytes()
	if _, err := Parse(filename, b); err != nil {
		return nil, fmt.Errorf("rewriting the hedge tables of %s gave an invalid scenario: %w", filename, err)
	}
	return b, nil
}

// schemaDirective returns the path or URL of a "#:schema PATH" line.
func schemaDirective(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "#:schema")
	if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	p := strings.TrimSpace(rest)
	return p, p != ""
}

// headerEnd returns the 0-based line before which top-level keys are
// added: after a #:schema first line, and after the last blank line
// among the comments and blank lines that open the file (0 when there is
// neither).
func headerEnd(lines []string) int {
	at := 0
	if _, ok := schemaDirective(lines[0]); ok {
		at = 1
	}
	for i := at; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			at = i + 1
		} else if !strings.HasPrefix(l, "#") {
			break
		}
	}
	return min(at, len(lines)-1) // before the empty line after a final newline
}

// rewriteLine returns line (a "key = value" line, perhaps indented and with
// a trailing comment) as kv ("key = value"): the line itself, comment
// included, when its key and value are kv's already; else kv with the
// line's indentation (a comment on the old value is dropped with it).
func rewriteLine(line, kv string) string {
	indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
	body, _ := splitComment(line[len(indent):])
	k, v, _ := strings.Cut(body, "=")
	nk, nv, _ := strings.Cut(kv, "=")
	if strings.TrimSpace(k) == strings.TrimSpace(nk) && strings.TrimSpace(v) == strings.TrimSpace(nv) {
		return line
	}
	return indent + kv
}

// splitComment splits a one-line TOML "key = value" at its trailing
// comment: the first # outside a string.
func splitComment(s string) (body, comment string) {
	var quote byte // the open string's quote, 0 outside one
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '"' && c == '\\':
			i++ // an escape in a basic string
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return s[:i], s[i:]
		}
	}
	return s, ""
}
