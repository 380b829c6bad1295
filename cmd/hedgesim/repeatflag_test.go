package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestDelaysCopiesGivenTwice: --delays and --copies, like --adaptive,
// take each value once: the flag given twice (whose second list used to
// replace the first silently) or a value listed twice in one list (which
// used to be merged silently: 1s and 1000ms are one delay) is a usage
// error, exit 2, naming the flag and the values.
func TestDelaysCopiesGivenTwice(t *testing.T) {
	path := writeScenario(t, bimodalScenario)
	for _, tc := range []struct {
		args []string
		flag string
		msg  string
	}{
		{[]string{"optimize", path, "--delays", "1s", "--delays", "2s"}, "-delays", `given twice ("1s", then "2s"); give every value in one comma-separated list`},
		{[]string{"optimize", path, "--delays", "1s,2s,1s"}, "-delays", "1s is listed twice; list each value once"},
		{[]string{"optimize", path, "--delays", "1s,1000ms"}, "-delays", "1s is listed twice (as 1s and 1000ms)"},
		{[]string{"optimize", path, "--copies", "1", "--copies", "2"}, "-copies", `given twice ("1", then "2")`},
		{[]string{"optimize", path, "--copies", "1,2,1"}, "-copies", "1 is listed twice; list each value once"},
		{[]string{"retune", "--copies", "1,1", "--from", "x.txt", path}, "-copies", "1 is listed twice"},
		{[]string{"retune", "--copies", "1", "--copies", "1,2", "--from", "x.txt", path}, "-copies", `given twice ("1", then "1,2")`},
	} {
		code, _, errOut := hedgesim(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.flag) || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: exit %d, stderr %q; want 2 naming %s and %q", tc.args, code, errOut, tc.flag, tc.msg)
		}
	}
}

// TestListFlagsGivenTwice: every list flag, and export's --class, given a
// second time used to keep only the last silently (--classes chat
// --classes batch optimised batch alone); each is now a usage error,
// exit 2, naming the flag and both values.
func TestListFlagsGivenTwice(t *testing.T) {
	path := writeScenario(t, bimodalScenario)
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"optimize", path, "--classes", "a", "--classes", "b"}, "-classes"},
		{[]string{"optimize", path, "--targets", "a", "--targets", "b"}, "-targets"},
		{[]string{"optimize", path, "--adaptive", "90", "--adaptive", "95"}, "-adaptive"},
		{[]string{"optimize", path, "--balancers", "p2c", "--balancers", "random"}, "-balancers"},
		{[]string{"optimize", path, "--min-replicas", "0", "--min-replicas", "1"}, "-min-replicas"},
		{[]string{"retune", "--model", "a", "--model", "b", "--from", "x.txt", path}, "-model"},
		{[]string{"export", "--format", "failsafe-go", "--class", "a", "--class", "b", path}, "-class"},
		{[]string{"fit", "--ok", "ok", "--ok", "200", "x.csv"}, "-ok"},
	} {
		code, _, errOut := hedgesim(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.flag) || !strings.Contains(errOut, "given twice") {
			t.Errorf("%q: exit %d, stderr %q; want 2 naming %s, given twice", tc.args, code, errOut, tc.flag)
		}
	}
}

// TestScalarFlagsGivenTwice: a flag that is not a list, given twice with
// different values, used to run the last silently (run --seed 1 --seed 2
// ran seed 2; retune --histogram-counts all --histogram-counts answered,
// the flag that decides the verdict, ran as answered). parseFlags now
// refuses it for every command's flags alike, exit 2, naming the flag and
// both values; the same value given twice is accepted, and the
// repeatable flags (--label, --set) take many.
func TestScalarFlagsGivenTwice(t *testing.T) {
	path := writeScenario(t, bimodalScenario)
	for _, tc := range []struct {
		args       []string
		flag, a, b string
	}{
		{[]string{"run", path, "--seed", "1", "--seed", "2"}, "--seed", "1", "2"},
		{[]string{"run", path, "--json", "--json=false"}, "--json", "true", "false"},
		{[]string{"optimize", path, "--objective", "p95", "--objective", "p99"}, "--objective", "p95", "p99"},
		{[]string{"optimize", path, "--requests", "1000", "--requests=2000"}, "--requests", "1000", "2000"},
		{[]string{"retune", path, "--from", "x.txt", "--histogram-counts", "all", "--histogram-counts", "answered"}, "--histogram-counts", "all", "answered"},
		{[]string{"retune", path, "--from", "x.txt", "--alpha", "0.01", "--alpha", "0.05"}, "--alpha", "0.01", "0.05"},
		{[]string{"fit", "--model", "lognormal", "--model", "mixture-2", "x.csv"}, "--model", "lognormal", "mixture-2"},
		{[]string{"export", "--format", "grpc", "--format", "envoy", path}, "--format", "grpc", "envoy"},
		{[]string{"compare", "--json=true", "--json=false", "a.json", "b.json"}, "--json", "true", "false"},
		{[]string{"merge", "--all", "--all=false", "p0", "--out", "d"}, "--all", "true", "false"},
		{[]string{"validate", "--strict", "--strict=0", path}, "--strict", "true", "0"},
	} {
		code, _, errOut := hedgesim(t, tc.args...)
		want := fmt.Sprintf("%s: given twice (%q, then %q)", tc.flag, tc.a, tc.b)
		if code != exitUsage || !strings.Contains(errOut, want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, want)
		}
	}
	// The same value twice, and the repeatable flags, run as given once.
	if code, out, errOut := hedgesim(t, "run", path, "--requests", "200", "--seed", "3", "--seed", "3", "--requests=200", "--json", "--json"); code != exitOK || !strings.HasPrefix(out, "{") {
		t.Errorf("run with --seed 3 and --requests 200 twice: exit %d, stderr %q; want 0 and the JSON report", code, errOut)
	}
	if code, _, errOut := hedgesim(t, "run", path, "--requests", "200", "--set", "seed=4", "--set", "arrivals.rate=5"); code != exitOK {
		t.Errorf("run with --set twice (two keys): exit %d, stderr %q; want 0", code, errOut)
	}
	if code, _, errOut := hedgesim(t, "retune", path, "--from", "x.txt", "--label", "job=a", "--label", "job=b"); code != exitUsage || !strings.Contains(errOut, "label job given twice (job=a, then job=b)") {
		t.Errorf("retune --label job=a --label job=b: exit %d, stderr %q; want 2 naming both", code, errOut)
	}
}

// TestListNamesEntryTwice: a list naming an entry twice used to be taken
// silently by every list flag but --delays, --copies and --adaptive
// (retune --model fast,fast retuned fast; optimize --classes a,a); each is
// now refused as --copies is, exit 2, naming the flag and the entry.
func TestListNamesEntryTwice(t *testing.T) {
	path := writeScenario(t, bimodalScenario)
	for _, tc := range []struct {
		args       []string
		flag, item string
	}{
		{[]string{"retune", "--model", "a,b,a", "--from", "x.txt", path}, "--model", "a"},
		{[]string{"optimize", path, "--classes", "c,c"}, "--classes", "c"},
		{[]string{"optimize", path, "--targets", "m,m"}, "--targets", "m"},
		{[]string{"optimize", path, "--balancers", "p2c,p2c"}, "--balancers", "p2c"},
		{[]string{"optimize", path, "--min-replicas", "1,1"}, "--min-replicas", "1"},
	} {
		code, _, errOut := hedgesim(t, tc.args...)
		want := tc.item + " is listed twice; list each value once"
		if code != exitUsage || !strings.Contains(errOut, tc.flag) || !strings.Contains(errOut, want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 naming %s and %q", tc.args, code, errOut, tc.flag, want)
		}
	}
}

// TestSameValueGivenTwiceIsTakenOnce: one rule for every flag — the same
// value given twice is taken once, compared as the value (durations as
// durations, lists element by element). export's --class X --class X,
// a list flag given the same list twice (--copies 1 --copies 1,
// --delays 1s --delays 1000ms) and --set with 100ms then 0.1s were
// refused as if contradictory, while run --seed 1 --seed 1 was taken.
func TestSameValueGivenTwiceIsTakenOnce(t *testing.T) {
	path := writeScenario(t, bimodalScenario)
	for _, args := range [][]string{
		{"export", "--format", "json", "--class", "chat", "--class", "chat", path},
		{"run", path, "--requests", "200", "--set", "classes[0].hedge.delay=100ms", "--set", "classes[0].hedge.delay=0.1s"},
		{"run", path, "--requests", "200", "--seed", "3", "--seed", "3", "--json", "--json=1", "--max-memory", "8GB", "--max-memory", "8000MB"},
		{"optimize", path, "--requests", "300", "--check-requests", "300", "--delays", "1s,2s", "--delays", "1000ms,2s",
			"--copies", "1", "--copies", "1", "--adaptive", "95", "--adaptive", "95.0", "--classes", "chat", "--classes", "chat"},
	} {
		code, _, errOut := hedgesim(t, args...)
		if code != exitOK {
			t.Errorf("%q: exit %d, stderr %q; want 0, each value taken once", args, code, errOut)
		}
	}
	// fit --ok and retune --from: the same value again is no repeat; the
	// missing files are the only errors.
	for _, args := range [][]string{
		{"fit", "--ok", "ok,200", "--ok", "ok,200", "missing.csv"},
		{"retune", path, "--from", "missing.txt", "--from", "missing.txt"},
	} {
		if code, _, errOut := hedgesim(t, args...); strings.Contains(errOut, "given twice") || code == exitOK {
			t.Errorf("%q: exit %d, stderr %q; want the missing file refused, not the flag given twice", args, code, errOut)
		}
	}
	// Other values are still refused, naming both.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--format", "json", "--class", "chat", "--class", "Chat", path}, `given twice ("chat", then "Chat")`},
		{[]string{"optimize", path, "--delays", "1s,2s", "--delays", "2s,1s"}, `given twice ("1s,2s", then "2s,1s")`},
		{[]string{"optimize", path, "--target", "100ms", "--target", "0.2s"}, `given twice ("100ms", then "0.2s")`},
		{[]string{"run", path, "--max-memory", "8GB", "--max-memory", "8.04GB"}, `given twice ("8GB", then "8.04GB")`}, // both print 8.0 GB
		{[]string{"run", path, "--set", "classes[0].hedge.delay=100ms", "--set", "classes[0].hedge.delay=0.2s"}, "contradicts --set classes[0].hedge.delay=100ms"},
	} {
		if code, _, errOut := hedgesim(t, tc.args...); code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
