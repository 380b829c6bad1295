// Package scenario reads hedgesim scenario files: TOML documents that
// describe the models, the traffic and the hedge policy of each traffic
// class, and turns them into a validated sim.Config.
//
// The file format, with every key, unit and default, is documented in
// scenarios/README.md. Parsing is strict: an unknown or misspelled key
// (keys are case-sensitive), a value of the wrong type, a number out of
// range, an unknown choice or a reference to an undefined model is an
// error. Every such problem is an *Error that names the file, the line, the
// full key path (such as "classes[1].hedge.delay") and what is allowed:
//
//	gateway.toml:31: classes[0].hedge.primary: model "gpt" is not defined; defined models: guard, judge
//
// A file is checked in one pass: every independent problem is reported,
// as Errors sorted by line, and a problem that only follows from another
// (a value of the wrong type, or a misspelled key, then reported missing)
// is left out. Options apply what-if changes (--set KEY=VALUE,
// --scale-rate) to the parsed tree before it is checked, so they are
// checked like the file and their problems name them.
//
// Parsing runs in four steps: a pre-scan bounds the file's size, nesting
// depth, key length and number of keys (Limits, limits.go) before any
// parser runs; BurntSushi/toml parses the text (syntax errors); bind
// copies the parsed tree into one Go struct per table (decode.go; keys and
// types) and checks every number against its key's finite range
// (ranges.go); and the checker validates values and builds the sim.Config
// (validate.go). Names may hold no character that is not printable
// (names.go). A line scanner (lines.go) maps key paths to lines for the
// messages.
package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/sim"
)

// Scenario is a parsed and validated scenario file.
type Scenario struct {
	// Config is the simulation input the file describes. Models are in
	// name order; policies refer to them by index.
	Config sim.Config
	// File is the file name the scenario was read from, as given.
	File string
	// Optimize is what the [optimize] table says, on top of
	// optimize.DefaultSettings (the defaults when the table is absent).
	Optimize optimize.Settings
	// SHA256 identifies the input: the hex SHA-256 of the scenario file's
	// bytes, followed, when it replays a trace, by the trace file's bytes.
	// Two runs with the same SHA256, seed and overrides are the same run.
	SHA256 string
	// Overrides are the what-if changes applied on top of the file (see
	// Options), as reports list them: "classes[1].hedge.delay=800ms",
	// "arrivals.rate=80 (--scale-rate 2)"; nil when there are none.
	Overrides []string
	// Warnings are what the configuration alone earns a warning for
	// (sim.ConfigWarnings: a setting that never takes effect, a latency in
	// the wrong unit), each at the line of the setting at fault; Msg is
	// "CLASS: TEXT", as a run's report words it; Ignored first. Nil when
	// there are none.
	Warnings []*Error
	// Ignored are the file's settings a --set made of no effect and that
	// are accepted so: a pool's decay or unmeasured, which only the
	// latency_ewma balancer reads, under a balancer --set gives it, as
	// optimize --balancers switches it. Msg starts "ignored: " and names
	// the override. Nil when there are none.
	Ignored []*Error
}

// Parse reads a scenario from data under DefaultLimits. filename is used
// in error messages and, without directory and ".toml" suffix, as the
// default scenario name. Every problem in data is an *Error; a file with
// several problems gives them all at once as Errors, sorted by line. Files
// the scenario names (a replayed trace) are read relative to the directory
// of filename.
func Parse(filename string, data []byte) (*Scenario, error) {
	return DefaultLimits.Parse(filename, data)
}

// ParseWith is Parse with what-if changes on top of the file (o may be
// nil). The changes are validated like the file; a problem with one is an
// *Error whose Set names it.
func ParseWith(filename string, data []byte, o *Options) (*Scenario, error) {
	return DefaultLimits.ParseWith(filename, data, o)
}

// Parse is the package's Parse under the limits l (zero fields take
// DefaultLimits' values).
func (l Limits) Parse(filename string, data []byte) (*Scenario, error) {
	return l.ParseWith(filename, data, nil)
}

// ParseWith is the package's ParseWith under the limits l.
func (l Limits) ParseWith(filename string, data []byte, o *Options) (*Scenario, error) {
	l = l.withDefaults()
	return parse(filename, data, osOpener(filename, l.MaxDataBytes), l, o)
}

func parse(filename string, data []byte, open opener, lim Limits, o *Options) (*Scenario, error) {
	if err := prescan(filename, data, lim); err != nil {
		return nil, err
	}
	var tree map[string]any
	if _, err := toml.Decode(string(data), &tree); err != nil {
		return nil, syntaxError(filename, data, err)
	}
	h := sha256.New()
	h.Write(data)
	c := &checker{file: filename, lines: scanLines(data), open: open, hash: h, flagged: o}
	var orig map[string]any
	if !o.empty() {
		orig = copyTree(tree).(map[string]any)
	}
	overrides, err := c.applyOptions(tree, o)
	if err != nil {
		return nil, err
	}
	var f fileTable
	c.keepUndecoded(c.bind(tree, reflect.ValueOf(&f).Elem(), ""))
	c.checkReplaced(orig)
	name := strings.TrimSuffix(filepath.Base(filename), ".toml")
	if filename == "" {
		name = ""
	}
	cfg := c.config(&f, name)
	opt, err := c.optimizeSettings(f.Optimize, &cfg)
	c.keep(err)
	c.keepRanges()
	if err := c.failed(); err != nil {
		return nil, err
	}
	return &Scenario{Config: cfg, File: filename, Optimize: opt, SHA256: hex.EncodeToString(h.Sum(nil)), Overrides: overrides, Warnings: append(slices.Clone(c.ignored), c.warnings(&cfg)...), Ignored: c.ignored}, nil
}

// Load reads and parses the scenario file at path under DefaultLimits.
// Every error is an *Error: one that comes from reading the file (missing,
// unreadable, not a regular file, larger than the limit) has no line and
// wraps the underlying error.
func Load(path string) (*Scenario, error) {
	return DefaultLimits.Load(path)
}

// LoadWith is Load with what-if changes (see ParseWith).
func LoadWith(path string, o *Options) (*Scenario, error) {
	return DefaultLimits.LoadWith(path, o)
}

// Load is the package's Load under the limits l.
func (l Limits) Load(path string) (*Scenario, error) {
	return l.LoadWith(path, nil)
}

// LoadWith is the package's LoadWith under the limits l.
func (l Limits) LoadWith(path string, o *Options) (*Scenario, error) {
	l = l.withDefaults()
	data, err := readers.ReadFile(path, l.MaxBytes)
	if err != nil {
		return nil, readError(path, err, MaxBytesEnv)
	}
	return parse(path, data, osOpener(path, l.MaxDataBytes), l, o)
}

// LoadFS is Load for a file in fsys, such as the embedded scenarios.FS;
// files the scenario names are read from fsys too.
func LoadFS(fsys fs.FS, name string) (*Scenario, error) {
	return DefaultLimits.LoadFS(fsys, name)
}

// LoadFSWith is LoadFS with what-if changes (see ParseWith).
func LoadFSWith(fsys fs.FS, name string, o *Options) (*Scenario, error) {
	return DefaultLimits.LoadFSWith(fsys, name, o)
}

// LoadFS is the package's LoadFS under the limits l.
func (l Limits) LoadFS(fsys fs.FS, name string) (*Scenario, error) {
	return l.LoadFSWith(fsys, name, nil)
}

// LoadFSWith is the package's LoadFSWith under the limits l.
func (l Limits) LoadFSWith(fsys fs.FS, name string, o *Options) (*Scenario, error) {
	l = l.withDefaults()
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, readError(name, err, "")
	}
	return parse(path.Clean(name), data, fsOpener(fsys, path.Clean(name)), l, o)
}

// readError turns an error reading file into an *Error wrapping it; env
// names the variable that raises the size limit.
func readError(file string, err error, env string) *Error {
	var pe *fs.PathError
	msg := err
	if errors.As(err, &pe) {
		msg = pe.Err
	}
	e := &Error{File: file, Msg: "cannot read: " + msg.Error(), Err: err}
	if errors.Is(err, readers.ErrTooLarge) && env != "" {
		e.Msg += " (set " + env + " to raise it)"
	}
	return e
}

// syntaxError converts an error from toml.Decode into an *Error. The
// parser's last key has no array indices; when the scanner finds the key
// written on the error's line, its full path is used instead.
func syntaxError(filename string, data []byte, err error) *Error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return &Error{File: filename, Msg: err.Error()}
	}
	e := &Error{File: filename, Line: pe.Position.Line, Key: pe.LastKey, Msg: clipQuoted(pe.Message)}
	duplicate := strings.HasSuffix(pe.Message, "has already been defined.")
	notTable := strings.HasSuffix(pe.Message, "was already created as a hash.")
	if duplicate || notTable {
		// The message names the key at fault; LastKey may be the last
		// key parsed before it (a parent, or another table's).
		if _, rest, ok := strings.Cut(pe.Message, "Key '"); ok {
			if i := strings.LastIndex(rest, "' "); i >= 0 {
				e.Key = rest[:i]
			}
		}
	}
	if notTable {
		e.Msg = "already defined as a value; it cannot also be a table"
	}
	if array, ok := strings.CutSuffix(pe.Message, "' was already created and cannot be used as an array."); ok {
		if array, ok = strings.CutPrefix(array, "Key '"); ok {
			if sub := firstSubTable(data, array, e.Line); sub != nil {
				// [classes.hedge] before any [[classes]]: the header
				// made classes a table, which [[classes]] then cannot
				// extend. The fault is the earlier header.
				return &Error{File: filename, Line: sub.line, Key: sub.key,
					Msg: fmt.Sprintf("comes before any [[%s]]: a table of an entry, such as [%s], belongs to the [[%s]] above it; move it below its [[%s]] (the first is on line %d)", array, sub.key, array, array, e.Line)}
			}
		}
	}
	if e.Key == "" {
		return e
	}
	all := scan(data).all
	best := ""
	for _, k := range all {
		if k.line == e.Line && stripIndices(k.key) == e.Key && len(k.key) > len(best) {
			best = k.key
		}
	}
	if best == "" {
		return e
	}
	e.Key = best
	for _, k := range all {
		if k.key == best && k.line < e.Line {
			switch {
			case duplicate:
				e.Msg = fmt.Sprintf("duplicate key; already defined on line %d", k.line)
			case notTable:
				e.Msg = fmt.Sprintf("already defined as a value on line %d; it cannot also be a table", k.line)
			}
			break
		}
	}
	return e
}

// firstSubTable returns the first key written inside the table array
// before line — a [array.sub] header or an array.sub = … key before the
// first [[array]] — or nil.
func firstSubTable(data []byte, array string, line int) *keyAt {
	var first *keyAt
	for _, k := range scan(data).all {
		if k.line < line && strings.HasPrefix(stripIndices(k.key), array+".") && (first == nil || k.line < first.line) {
			first = &k
		}
	}
	return first
}

// stripIndices removes the "[i]" parts from a key path.
func stripIndices(key string) string {
	var b strings.Builder
	inQuote, inIndex := false, false
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case inIndex:
			inIndex = c != ']'
			continue
		case inQuote && c == '\\':
			b.WriteByte(c)
			i++
			if i < len(key) {
				b.WriteByte(key[i])
			}
			continue
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == '[':
			inIndex = true
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
