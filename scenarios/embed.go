// Package scenarios holds the scenario files shipped with hedgesim, embedded
// so the binary can run them without a checkout. The file format is
// described in README.md in this directory; package scenario parses it.
package scenarios

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

// FS holds every *.toml file of this directory, at its base name, and the
// traces that replay scenarios read (data/azure-llm-inference-2023, with
// its SOURCE.md and LICENSE); a new replay scenario whose trace lies in
// another data directory must add that directory here.
//
//go:embed *.toml data/azure-llm-inference-2023
var FS embed.FS

// Reference is README.md of this directory: the reference of the file
// format, from which the JSON Schema of a scenario takes its descriptions
// (scenario.JSONSchema).
//
//go:embed README.md
var Reference []byte

// Default is the scenario run when none is named.
const Default = "two-model-gateway.toml"

// Names returns the file names in FS, sorted.
func Names() []string {
	names, err := fs.Glob(FS, "*.toml")
	if err != nil {
		panic("scenarios: " + err.Error()) // the pattern is constant and valid
	}
	sort.Strings(names)
	return names
}

// Descriptions returns the one-line description of each shipped scenario,
// by file name, from the table of shipped scenarios in Reference (its
// rows "| `NAME.toml` … | what it models |").
func Descriptions() map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(string(Reference), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 2 {
			continue
		}
		name, _, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(cells[0]), "`"), ".toml`")
		if !ok || strings.ContainsAny(name, " `") {
			continue
		}
		out[name+".toml"] = strings.TrimSpace(cells[1])
	}
	return out
}
