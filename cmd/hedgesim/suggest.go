package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// suggestFlag returns the flag of fs that name (as given, without its
// dashes) most likely meant, or "": the same name with '_' for '-' or in
// another case, a flag it is a prefix of when only one is, or else the
// closest flag within about a third of its length in edits.
func suggestFlag(fs *flag.FlagSet, name string) string {
	name, _, _ = strings.Cut(strings.TrimLeft(name, "-"), "=")
	var flags []string
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })
	norm := strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	var prefixed []string
	for _, f := range flags {
		if f == norm {
			return f
		}
		if strings.HasPrefix(f, norm) {
			prefixed = append(prefixed, f)
		}
	}
	if len(prefixed) == 1 && len(norm) >= 3 {
		return prefixed[0]
	}
	best, bestDist := "", len(norm)/3+1
	for _, f := range flags {
		if d := scenario.EditDistance(f, norm); d < bestDist {
			best, bestDist = f, d
		}
	}
	return best
}

// suggestScenario returns the built-in scenario (with .toml) that arg most
// likely meant, or "": the closest name, compared without ".toml" and in
// lower case, within about a third of its length in edits.
func suggestScenario(arg string, names []string) string {
	norm := strings.ToLower(strings.TrimSuffix(filepath.Base(arg), ".toml"))
	best, bestDist := "", len(norm)/3+1
	for _, n := range names {
		if d := scenario.EditDistance(strings.TrimSuffix(n, ".toml"), norm); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// unknownScenario is the error for arg naming neither a file nor a built-in
// scenario: a did-you-mean when a built-in name is close, and the list of
// built-in scenarios.
func unknownScenario(arg string) error {
	hint := ""
	if s := suggestScenario(arg, scenarios.Names()); s != "" {
		hint = fmt.Sprintf("; did you mean %s?", strings.TrimSuffix(s, ".toml"))
	}
	return usageError{err: fmt.Errorf("%s: no such file and no built-in scenario of that name%s (built-in: %s)",
		arg, hint, strings.Join(scenarios.Names(), ", "))}
}
