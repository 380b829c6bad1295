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
// Parsing runs in three steps: BurntSushi/toml parses the text (syntax
// errors), bind copies the parsed tree into one Go struct per table
// (decode.go; keys and types), and the checker validates values and builds
// the sim.Config (validate.go). A line scanner (lines.go) maps key paths to
// lines for the messages.
package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/hedgesim/hedgesim/optimize"
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
	// Overrides are the what-if changes applied on top of the file (see
	// Options), as reports list them: "classes[1].hedge.delay=800ms",
	// "arrivals.rate=80 (--scale-rate 2)"; nil when there are none.
	Overrides []string
}

// Parse reads a scenario from data. filename is used in error messages and,
// without directory and ".toml" suffix, as the default scenario name. Every
// problem in data is reported as an *Error. Files the scenario names (a
// replayed trace) are read relative to the directory of filename.
func Parse(filename string, data []byte) (*Scenario, error) {
	return parse(filename, data, osOpener(filename), nil)
}

// ParseWith is Parse with what-if changes on top of the file (o may be
// nil). The changes are validated like the file; a problem with one is an
// *Error whose Set names it.
func ParseWith(filename string, data []byte, o *Options) (*Scenario, error) {
	return parse(filename, data, osOpener(filename), o)
}

func parse(filename string, data []byte, open opener, o *Options) (*Scenario, error) {
	var tree map[string]any
	if _, err := toml.Decode(string(data), &tree); err != nil {
		return nil, syntaxError(filename, data, err)
	}
	c := &checker{file: filename, lines: scanLines(data), open: open}
	overrides, err := c.applyOptions(tree, o)
	if err != nil {
		return nil, err
	}
	var f fileTable
	c.keepUndecoded(c.bind(tree, reflect.ValueOf(&f).Elem(), ""))
	name := strings.TrimSuffix(filepath.Base(filename), ".toml")
	if filename == "" {
		name = ""
	}
	cfg := c.config(&f, name)
	opt, err := c.optimizeSettings(f.Optimize, &cfg)
	c.keep(err)
	if err := c.failed(); err != nil {
		return nil, err
	}
	return &Scenario{Config: cfg, File: filename, Optimize: opt, Overrides: overrides}, nil
}

// Load reads and parses the scenario file at path. Errors reading the file
// are returned wrapped (they name the path); problems in its contents are
// *Error values.
func Load(path string) (*Scenario, error) {
	return LoadWith(path, nil)
}

// LoadWith is Load with what-if changes (see ParseWith).
func LoadWith(path string, o *Options) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return ParseWith(path, data, o)
}

// LoadFS is Load for a file in fsys, such as the embedded scenarios.FS;
// files the scenario names are read from fsys too.
func LoadFS(fsys fs.FS, name string) (*Scenario, error) {
	return LoadFSWith(fsys, name, nil)
}

// LoadFSWith is LoadFS with what-if changes (see ParseWith).
func LoadFSWith(fsys fs.FS, name string, o *Options) (*Scenario, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return parse(path.Clean(name), data, fsOpener(fsys, path.Clean(name)), o)
}

// syntaxError converts an error from toml.Decode into an *Error. The
// parser's last key has no array indices; when the scanner finds the key
// written on the error's line, its full path is used instead.
func syntaxError(filename string, data []byte, err error) *Error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return &Error{File: filename, Msg: err.Error()}
	}
	e := &Error{File: filename, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
	duplicate := strings.HasSuffix(pe.Message, "has already been defined.")
	if e.Key == "" && duplicate {
		// A repeated [table] header names the table only in the message.
		if _, rest, ok := strings.Cut(pe.Message, "Key '"); ok {
			e.Key, _, _ = strings.Cut(rest, "' has")
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
	if duplicate {
		for _, k := range all {
			if k.key == best && k.line < e.Line {
				e.Msg = fmt.Sprintf("duplicate key; already defined on line %d", k.line)
				break
			}
		}
	}
	return e
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
