package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docExample returns the example of the guide doc (a path from the
// repository's root) that follows its "<!-- marker" comment: the first
// text block after it, whose first line is the command ("$ hedgesim …",
// returned as its words) and the rest what the guide shows it printing.
// It moves the test into testdata/docs, where the examples' files are.
func docExample(t *testing.T, doc, marker string) (words []string, want string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, doc))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- "+marker)
	if !ok {
		t.Fatalf("%s has no %s marker", doc, marker)
	}
	_, rest, _ = strings.Cut(rest, "```text\n")
	block, _, _ := strings.Cut(rest, "```\n")
	cmdLine, want, _ := strings.Cut(block, "\n")
	words, err = shellWords(strings.TrimPrefix(cmdLine, "$ hedgesim "))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs("testdata/docs")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return words, want
}
