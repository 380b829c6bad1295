package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOverridesDoNotHideFileErrors: a bad value in the file is refused
// even when a flag or --set replaces it, with the file's line: the file is
// validated as it is, whatever the command line changes.
func TestOverridesDoNotHideFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		key, bad string
		args     []string
	}{
		{"requests", "nan", []string{"--requests", "300"}},
		{"requests", "-1", []string{"--requests", "300"}},
		{"requests", "inf", []string{"--requests", "300"}},
		{"requests", "1e308", []string{"--requests", "300"}},
		{"requests", "0", []string{"--set", "requests=300"}},
		{"seed", "-3", []string{"--set", "seed=3"}},
	} {
		src := fmt.Sprintf("%s = %s\n[arrivals]\nrate = 5.0\n[models.m]\nlatency = { kind = \"constant\", value = 1.0 }\n[[classes]]\nname = \"c\"\n", tc.key, tc.bad)
		p := filepath.Join(dir, "bad.toml")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append(append([]string{"run"}, tc.args...), p)
		code, _, errOut := hedgesim(t, args...)
		if code != 2 || !strings.Contains(errOut, "bad.toml:1: "+tc.key+":") || !strings.Contains(errOut, "the file's value") {
			t.Errorf("%s = %s with %q: exit %d, %q; want 2 and the file's line", tc.key, tc.bad, tc.args, code, errOut)
		}
	}
}

// TestSetArrayByNameNamesTheIndex: `run --set 'classes.0.deadline=1s'`
// reaches the array of classes with a name, as if it were a table; it
// exits 2 naming the indexed key that works, not only "classes is array,
// not a table".
func TestSetArrayByNameNamesTheIndex(t *testing.T) {
	code, _, errOut := hedgesim(t, "run", "--requests", "300", "--set", "classes.0.deadline=1s", "replica-pool")
	want := "--set classes.0.deadline=1s: classes.0: classes is an array; index it as classes[0].deadline (indices 0 to 2)"
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q; want 2 and %q", code, errOut, want)
	}
}

// TestSetArrayByUnknownNameListsTheNames: `run --set
// 'classes.nosuch.deadline=1s'` names no class and no key of a class; it
// exits 2 saying there is no class of that name and listing the classes'
// names with their indices, not suggesting classes[0].nosuch.deadline,
// which is no key either.
func TestSetArrayByUnknownNameListsTheNames(t *testing.T) {
	code, _, errOut := hedgesim(t, "run", "--requests", "300", "--set", "classes.nosuch.deadline=1s", "replica-pool")
	want := `--set classes.nosuch.deadline=1s: classes.nosuch: classes is an array with no entry named "nosuch"; its entries are "random" (classes[0]), "p2c" (classes[1]), "ewma" (classes[2])`
	if code != 2 || !strings.Contains(errOut, want) || strings.Contains(errOut, "index it as") {
		t.Errorf("exit %d, %q; want 2 and %q", code, errOut, want)
	}
}
