package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// TestWriteScenarioHelpNamesWhatChanges: the scenario optimize
// --write-scenario writes differs from its input only in the keys
// `optimize --help` names for it: the hedge tables, the top-level requests
// and seed, and a relative arrivals.trace. llmperf-azure-chat, read from
// its file, replays a trace by a relative path and hedges two classes;
// --check-requests = --requests runs the check on its own seed, so every
// one of those keys changes here.
func TestWriteScenarioHelpNamesWhatChanges(t *testing.T) {
	code, stdout, stderr := hedgesim(t, "optimize", "--help")
	if code != 0 {
		t.Fatalf("optimize --help: exit %d", code)
	}
	// The flag's own usage: from its line to the next flag's, unwrapped.
	_, after, ok := strings.Cut(stdout+stderr, "\n  -write-scenario FILE\n")
	after, _, _ = strings.Cut(after, "\n  -")
	after = strings.Join(strings.Fields(after), " ")
	if !ok {
		t.Fatalf("optimize --help lists no --write-scenario FILE:\n%s%s", stdout, stderr)
	}
	for _, key := range []string{"[classes.hedge]", "[classes.steps.hedge]", "requests", "seed", "arrivals.trace", "#:schema"} {
		if !strings.Contains(after, key) {
			t.Errorf("optimize --help's --write-scenario names no %s: %s", key, after)
		}
	}

	in := filepath.Join(repoRoot, "scenarios", "llmperf-azure-chat.toml")
	out := filepath.Join(t.TempDir(), "picked.toml")
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "2000", "--check-requests", "2000", "--quiet", "--write-scenario", out, in); code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	var a, b map[string]any
	if _, err := toml.DecodeFile(in, &a); err != nil {
		t.Fatal(err)
	}
	if _, err := toml.DecodeFile(out, &b); err != nil {
		t.Fatal(err)
	}
	// strip removes the keys the help names from m, returning them.
	strip := func(m map[string]any) map[string]any {
		named := map[string]any{"requests": m["requests"], "seed": m["seed"]}
		delete(m, "requests")
		delete(m, "seed")
		if arr, ok := m["arrivals"].(map[string]any); ok {
			named["arrivals.trace"] = arr["trace"]
			delete(arr, "trace")
		}
		classes, _ := m["classes"].([]map[string]any)
		for i, c := range classes {
			named["classes["+strconv.Itoa(i)+"].hedge"] = c["hedge"]
			delete(c, "hedge")
			steps, _ := c["steps"].([]map[string]any)
			for _, st := range steps {
				delete(st, "hedge")
			}
		}
		return named
	}
	na, nb := strip(a), strip(b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the written scenario differs from %s beyond the keys the help names:\ninput:   %v\nwritten: %v", in, a, b)
	}
	// Each named key does change here, so the test reads each.
	for _, key := range []string{"requests", "seed", "arrivals.trace", "classes[0].hedge"} {
		if reflect.DeepEqual(na[key], nb[key]) {
			t.Errorf("%s is %v in both; want the written scenario to change it", key, na[key])
		}
	}
	if tr, _ := nb["arrivals.trace"].(string); !filepath.IsAbs(tr) {
		t.Errorf("written arrivals.trace %q; want an absolute path", tr)
	} else if _, err := os.Stat(tr); err != nil {
		t.Errorf("written arrivals.trace: %v", err)
	}
	// The comments, which the decoding above does not see: the #:schema
	// directive stays the first line, its relative path made absolute
	// like the trace's, and the header comments follow it; requests, which
	// the input lacks, comes after them (and their blank line).
	src, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	inLines, outLines := strings.Split(string(src), "\n"), strings.Split(string(written), "\n")
	if schema, ok := strings.CutPrefix(outLines[0], "#:schema "); !ok || !filepath.IsAbs(schema) {
		t.Errorf("written first line %q; want #:schema and an absolute path", outLines[0])
	} else if _, err := os.Stat(schema); err != nil {
		t.Errorf("written #:schema: %v", err)
	}
	header := slices.IndexFunc(inLines, func(l string) bool { return l != "" && !strings.HasPrefix(l, "#") })
	if !slices.Equal(outLines[1:header], inLines[1:header]) || outLines[header] != "requests = 2000" {
		t.Errorf("written file opens\n%s\nwant the input's header comments, then requests = 2000", strings.Join(outLines[:header+1], "\n"))
	}
}
