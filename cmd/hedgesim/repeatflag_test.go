package main

import (
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
		{[]string{"retune", "--copies", "1", "--copies", "1", "--from", "x.txt", path}, "-copies", `given twice ("1", then "1")`},
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
