package main

import (
	"strings"
	"testing"
)

// TestPipelinesDocExample: the excerpt of `hedgesim optimize
// help-chat-turn` in docs/pipelines.md (where the pick's hedging goes, and
// how the search found it) is what the command prints, line for line.
func TestPipelinesDocExample(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates the default optimisation of help-chat-turn")
	}
	words, want := docExample(t, "docs/pipelines.md", "pipelines example")
	code, got, errOut := hedgesim(t, words...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(got, want) {
		t.Errorf("docs/pipelines.md's excerpt is not in what the command prints; it prints:\n%s", got)
	}
}
