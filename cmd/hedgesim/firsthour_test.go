package main

import (
	"os"
	"strings"
	"testing"
)

// TestValidateSchema: `validate --schema` prints the committed
// docs/scenario.schema.json, which the shipped scenarios name; it takes no
// scenario.
func TestValidateSchema(t *testing.T) {
	code, out, errOut := hedgesim(t, "validate", "--schema")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, err := os.ReadFile("../../docs/scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("validate --schema differs from docs/scenario.schema.json")
	}
	if code, _, errOut := hedgesim(t, "validate", "--schema", "guard-check"); code != 2 || !strings.Contains(errOut, "--schema takes no scenario") {
		t.Errorf("--schema with a scenario: exit %d, %s", code, errOut)
	}
}
