package main

import (
	"flag"
	"strings"

	"github.com/hedgesim/hedgesim/scenario"
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
