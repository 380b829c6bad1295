package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoArgumentIsTheBuiltInDefault: without a SCENARIO argument run and
// optimize use the built-in default even when the working directory holds
// a changed file of the same name; naming that file still reads it.
func TestNoArgumentIsTheBuiltInDefault(t *testing.T) {
	dir := t.TempDir()
	_, src := shippedCopy(t, "two-model-gateway.toml", dir, "two-model-gateway.toml")
	changed := strings.Replace(string(src), `on_error = "nonfatal"`, `on_error = "fatal"`, 1)
	if changed == string(src) {
		t.Fatal("the shipped default has no on_error = \"nonfatal\" to change")
	}
	if err := os.WriteFile(filepath.Join(dir, "two-model-gateway.toml"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	sha := func(args ...string) string {
		t.Helper()
		code, out, errOut := hedgesim(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		var rep struct {
			SHA string `json:"scenario_sha256"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.SHA == "" {
			t.Fatalf("%q: no scenario_sha256 (%v)", args, err)
		}
		return rep.SHA
	}
	builtin := sha("run", "--json", "--requests", "100", "two-model-gateway")
	local := sha("run", "--json", "--requests", "100", "./two-model-gateway.toml")
	if builtin == local {
		t.Fatal("the changed file has the built-in's sha256")
	}
	if got := sha("run", "--json", "--requests", "100"); got != builtin {
		t.Errorf("run without a scenario used sha256 %.12s, the built-in default is %.12s (the local file %.12s)", got, builtin, local)
	}
	if got := sha("optimize", "--json", "--requests", "200", "--check-requests", "200"); got != builtin {
		t.Errorf("optimize without a scenario used sha256 %.12s, the built-in default is %.12s (the local file %.12s)", got, builtin, local)
	}
}
