package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestListFlagsRejectEmptyElements: every comma-list flag refuses an empty
// element (inside, leading or trailing) with a usage error naming the flag
// and the element, as it refuses an empty list. Regression: --delays
// 1s,,2s ran the sweep over 1s and 2s.
func TestListFlagsRejectEmptyElements(t *testing.T) {
	for _, tc := range []struct{ flag, value, want string }{
		{"delays", "1s,,2s", "element 2 is empty"},
		{"delays", "1s,2s,", "element 3 is empty"},
		{"delays", "", "empty list"},
		{"copies", "1, ,2", "element 2 is empty"},
		{"targets", ",llama-guard", "element 1 is empty"},
		{"classes", "check,", "element 2 is empty"},
	} {
		code, _, errOut := hedgesim(t, "optimize", "--requests", "100", "--check-requests", "0", "--"+tc.flag, tc.value, "guard-check")
		if code != 2 || !strings.Contains(errOut, "hedgesim optimize: invalid value") || !strings.Contains(errOut, "flag --"+tc.flag+": "+tc.want) {
			t.Errorf("--%s %q: exit %d, %.200q; want 2 and %q", tc.flag, tc.value, code, errOut, tc.want)
		}
	}
}

// TestObjectiveFlagsNeedTheirObjective: --max-cost (p95, p99, answered), --sla
// (cost) and --target (answered) under an objective that does not read
// them are usage errors naming the flag and the objective it needs;
// under their own objective, given by flag or by the scenario's
// [optimize] table, they are accepted.
func TestObjectiveFlagsNeedTheirObjective(t *testing.T) {
	src := guardWithoutOptimize(t)
	costScenario := filepath.Join(t.TempDir(), "cost.toml")
	if err := os.WriteFile(costScenario, append(src, "\n[optimize]\nobjective = \"cost\"\nsla = \"3s\"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "plain.toml")
	if err := os.WriteFile(plain, src, 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"optimize", "--requests", "200", "--check-requests", "0", "--delays", "0s,1s", "--quiet"}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--sla", "2s"}, 2, "--sla 2s applies to --objective cost only, and the objective is p95"},
		{[]string{"--objective", "p99", "--sla", "2s"}, 2, "--sla 2s applies to --objective cost only, not --objective p99"},
		{[]string{"--target", "2s"}, 2, "--target 2s applies to --objective answered or checked only"},
		{[]string{"--objective", "cost", "--sla", "2s", "--target", "2s"}, 2, "--target 2s applies to --objective answered or checked only, not --objective cost"},
		{[]string{"--objective", "cost", "--sla", "2s", "--max-cost", "5"}, 2, "--max-cost 5 applies to --objective p95, p99, answered or checked only, not --objective cost"},
		{[]string{"--objective", "knee", "--max-cost", "5"}, 2, "--max-cost 5 applies to --objective p95, p99, answered or checked only"},
		{[]string{"--objective", "cost", "--sla", "2s"}, 0, ""},
		// guard-check is one call: it has no fail-open steps to check.
		{[]string{"--objective", "checked", "--target", "2s"}, 2, `--objective checked: class "check": objective "checked" (every fail-open step of a pipeline turn answered in time) needs a pipeline class with steps`},
		{[]string{"--objective", "answered", "--target", "2s"}, 0, ""},
		{[]string{"--objective", "p99", "--max-cost", "5"}, 0, ""},
		{[]string{"--max-cost", "5"}, 0, ""},
		{[]string{"--objective", "answered", "--target", "2s", "--max-cost", "5"}, 0, ""},
		// The objective from the scenario's [optimize] table: --sla is read.
		{[]string{"--sla", "2s", costScenario}, 0, ""},
		{[]string{"--target", "2s", costScenario}, 2, "--target 2s applies to --objective answered or checked only, and the objective is cost"},
	} {
		args := append(append([]string(nil), base...), tc.args...)
		if args[len(args)-1] != costScenario {
			args = append(args, plain)
		}
		code, _, errOut := hedgesim(t, args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// TestObjectiveFlagsCompleteTheFile: --sla and --target give the value an
// objective named by the scenario's [optimize] table (or a --set of it,
// for every class or one) needs, so the file need not repeat it; without
// the flag, the file's missing value is still an error.
func TestObjectiveFlagsCompleteTheFile(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "guard.toml")
	if err := os.WriteFile(plain, guardWithoutOptimize(t), 0o644); err != nil {
		t.Fatal(err)
	}
	quick := []string{"optimize", "--quiet", "--requests", "1000", "--check-requests", "0"}
	for _, args := range [][]string{
		{"--sla", "2s", "--set", "optimize.objective=cost"},
		{"--sla", "2s", "--set", "optimize.class.check.objective=cost"},
		{"--target", "2s", "--set", "optimize.objective=answered"},
	} {
		code, _, errOut := hedgesim(t, append(append(append([]string(nil), quick...), args...), plain)...)
		if code != 0 {
			t.Errorf("%v: exit %d, %s; want 0", args, code, errOut)
		}
		code, _, errOut = hedgesim(t, append(append(append([]string(nil), quick...), args[2:]...), plain)...)
		if code != exitUsage || !strings.Contains(errOut, "needs") {
			t.Errorf("%v without %s: exit %d, %q; want 2 and what it needs", args[2:], args[0], code, errOut)
		}
	}
}

// TestObjectiveEmpty: an explicitly empty --objective is a usage error, not
// the default objective.
func TestObjectiveEmpty(t *testing.T) {
	code, out, errOut := hedgesim(t, "optimize", "--objective", "", "guard-check")
	if code != exitUsage || out != "" || !strings.Contains(errOut, "--objective: empty") {
		t.Errorf("exit %d, %q; want 2 and --objective: empty", code, errOut)
	}
}

// guardWithoutOptimize returns the shipped guard-check.toml without its
// [optimize] table: a scenario whose objective is the default.
func guardWithoutOptimize(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile("../../scenarios/guard-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	head, _, ok := strings.Cut(string(src), "\n[optimize]")
	if !ok {
		t.Fatal("guard-check.toml has no [optimize] table")
	}
	return []byte(head + "\n")
}
