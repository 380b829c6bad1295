package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScaleRateClosedLoopOnly: --scale-rate on a scenario whose classes
// are all closed-loop (no [arrivals]) has no rate to scale: run and
// optimize exit 2 naming the flag and the clients, rather than running
// with an empty override.
func TestScaleRateClosedLoopOnly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cl.toml")
	scen := `requests = 200
[models.a]
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
[[classes]]
name = "c"
clients = 4
deadline = "10s"
[classes.hedge]
delay = "1s"
`
	if err := os.WriteFile(p, []byte(scen), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"run", "optimize"} {
		code, out, errOut := hedgesim(t, cmd, "--scale-rate", "2", p)
		if code != 2 {
			t.Errorf("%s: exit %d; want 2 (stdout %q)", cmd, code, out)
		}
		for _, want := range []string{"--scale-rate 2", "no arrival rate to scale", "clients = 4 in classes[0]"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%s: error lacks %q: %s", cmd, want, errOut)
			}
		}
	}
	// The same scenario without the flag runs.
	if code, _, errOut := hedgesim(t, "run", p); code != 0 {
		t.Errorf("run without --scale-rate: exit %d: %s", code, errOut)
	}
}
