package main

import (
	"flag"
	"strings"
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
		if d := editDistance(f, norm); d < bestDist {
			best, bestDist = f, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b:
// single-byte insertions, deletions, substitutions and transpositions of
// adjacent bytes.
func editDistance(a, b string) int {
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
