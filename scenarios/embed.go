// Package scenarios holds the scenario files shipped with hedgesim, embedded
// so the binary can run them without a checkout. The file format is
// described in README.md in this directory; package scenario parses it.
package scenarios

import (
	"embed"
	"io/fs"
	"sort"
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
