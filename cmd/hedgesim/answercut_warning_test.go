package main

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOptimizeAnswerCutWarning: testdata/answer-cut.toml's answer step
// ans loses its stage's race to retr in about 8 of 9 turns, which then
// have no answer. run warns; optimize carries the warning of its pick's
// run (no hedging) into the class's warnings: in its text, the class's
// JSON warnings, report.txt and index.html, naming the pick. The step
// advice gives ans's calls' figures as those of the calls that ended, with
// how many of the 5000 were let go of.
func TestOptimizeAnswerCutWarning(t *testing.T) {
	const want = `p: with the pick (no hedging), the answer step ans shares its stage with retr, wait_for "any": in 88.7% of turns (no hedging 88.7%) the stage was done without ans's answer, every call of it let go of; those turns have no answer and count as timeouts open`
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errOut := hedgesim(t, "optimize", "--requests", "5000", "--check-requests", "5000", "--out", dir, filepath.Join("testdata", "answer-cut.toml"))
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	unwrap := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	if !strings.Contains(unwrap(out), "warning: "+want) {
		t.Errorf("optimize's text lacks the warning %q", want)
	}
	if !strings.Contains(unwrap(out), "step ans: not hedged: the search found no delay for it that the objective prefers to leaving it unhedged (its calls without hedging: p50 152ms, p99 199ms of the 567 that ended; the other 4433 of 5000 (88.7%) were let go of before they ended") {
		t.Errorf("optimize's text lacks ans's advice with its calls let go of:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Classes []struct {
			Warnings []string `json:"warnings"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Classes) != 1 || !strings.Contains(strings.Join(rep.Classes[0].Warnings, "\n"), strings.TrimPrefix(want, "p: ")) {
		t.Errorf("report.json's class warnings %q; want one to be %q", rep.Classes, strings.TrimPrefix(want, "p: "))
	}
	b, err = os.ReadFile(filepath.Join(dir, "report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "warning: "+want) {
		t.Errorf("report.txt lacks the warning %q", want)
	}
	b, err = os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.UnescapeString(string(b)), strings.TrimPrefix(want, "p: ")) {
		t.Errorf("index.html lacks the warning %q", want)
	}
}

// TestRunStepTableSaysCutCallsLeftOut: in answer-cut.toml 89 % of ans's
// calls are let go of, and the step table's "answered 100.0%, p50 152ms"
// is of the 11 % that ran to their end; a footnote says so under a table
// with cut calls, and only there (help-chat-turn's steps cut none).
func TestRunStepTableSaysCutCallsLeftOut(t *testing.T) {
	const want = "per step, answered and p50–p99 are of the calls that ran to their own end; cut/req counts the calls let go of (their stage done without them, or the request ended), which are in neither"
	unwrap := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, c := range []struct {
		scenario string
		cut      bool
	}{{filepath.Join("testdata", "answer-cut.toml"), true}, {"help-chat-turn", false}} {
		code, out, errOut := hedgesim(t, "run", "--requests", "2000", c.scenario)
		if code != 0 {
			t.Fatalf("run %s: exit %d: %s", c.scenario, code, errOut)
		}
		if got := strings.Contains(unwrap(out), want); got != c.cut {
			t.Errorf("run %s: footnote on cut calls printed %v, want %v:\n%s", c.scenario, got, c.cut, out)
		}
	}
}
