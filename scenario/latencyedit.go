package scenario

import (
	"fmt"
	"strings"
)

// LatencyEdit is a new latency distribution for one model, for
// WithLatencies.
type LatencyEdit struct {
	// Model is the model's name and Key the distribution's key, "latency"
	// or "ttft".
	Model, Key string
	// Inline is the distribution as a TOML inline table ("{ kind =
	// "lognormal", mu = 0, sigma = 0.5 }"; it may span lines inside its
	// arrays), written when the file gives the key as key = {…}; Table is
	// the same distribution as the lines of a table's body ("kind =
	// "lognormal"", "mu = 0", …), written when the file gives it as a
	// [models.NAME.KEY] table.
	Inline string
	Table  []string
	// Comment lines (without "# ") are written above the new value.
	Comment []string
}

// WithLatencies returns the scenario src (the text of a scenario file)
// with the latency (or ttft) of each model named in edits replaced, and
// everything else kept, comments included. The key must be written in the
// file as key = {…} in the model's table or as a [models.NAME.KEY] table
// (whose body is replaced up to its last key line; comments after it, which
// belong to what follows, stay). It returns an error when a model or its
// key is missing, written another way (dotted keys), or when the result
// does not parse.
func WithLatencies(filename string, src []byte, edits []LatencyEdit) ([]byte, error) {
	if _, err := Parse(filename, src); err != nil {
		return nil, err
	}
	for _, ed := range edits {
		kl := scanLines(src)
		key := joinKey(joinKey(joinKey("", "models"), ed.Model), ed.Key)
		line, ok := kl[key]
		if !ok {
			return nil, fmt.Errorf("%s: model %q has no %s written in the file to replace", filename, ed.Model, ed.Key)
		}
		lines := strings.Split(string(src), "\n")
		i := line - 1
		first := strings.TrimLeft(lines[i], " \t")
		indent := lines[i][:len(lines[i])-len(first)]
		var comment []string
		for _, c := range ed.Comment {
			comment = append(comment, indent+"# "+c)
		}
		var repl []string
		end := i // last line replaced
		switch {
		case strings.HasPrefix(first, "["):
			// A table: its body runs to the next header at depth 0.
			depth := 0
			for j := i + 1; j < len(lines); j++ {
				t := strings.TrimLeft(lines[j], " \t")
				if depth == 0 && strings.HasPrefix(t, "[") {
					break
				}
				body, _ := splitComment(t)
				depth += bracketDepth(body)
				if strings.TrimSpace(body) != "" || depth > 0 {
					end = j
				}
			}
			repl = append(comment, lines[i])
			repl = append(repl, ed.Table...)
		case strings.HasPrefix(first, ed.Key) && strings.HasPrefix(strings.TrimLeft(first[len(ed.Key):], " \t"), "="):
			depth := 0
			for j := i; j < len(lines); j++ {
				body, _ := splitComment(lines[j])
				depth += bracketDepth(body)
				end = j
				if depth <= 0 {
					break
				}
			}
			repl = append(comment, indent+ed.Key+" = "+ed.Inline)
		default:
			return nil, fmt.Errorf("%s:%d: model %q's %s is written as dotted keys; write it as %s = { … } or a [models.%s.%s] table to have it replaced", filename, line, ed.Model, ed.Key, ed.Key, ed.Model, ed.Key)
		}
		out := append(append(append([]string{}, lines[:i]...), repl...), lines[end+1:]...)
		src = []byte(strings.Join(out, "\n"))
	}
	if _, err := Parse(filename, src); err != nil {
		return nil, fmt.Errorf("the rewritten scenario does not parse (a bug): %w", err)
	}
	return src, nil
}

// bracketDepth returns the change of bracket depth ([ { minus ] }) over s,
// a line without its comment, outside strings.
func bracketDepth(s string) int {
	d := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			d++
		case c == ']' || c == '}':
			d--
		}
	}
	return d
}
