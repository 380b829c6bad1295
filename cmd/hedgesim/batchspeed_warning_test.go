package main

import (
	"strings"
	"testing"
)

// TestBatchingSpeedWarningPrinted: a user's bat3.toml, a 10 tokens/s
// model at a pool whose batching speed at batch size 1 is 50, passes
// validate with a warning at the model's tokens_per_s naming both speeds,
// and run prints it among the class's warnings and reads the speed decoded
// at, 10 and 5 tokens/s at the replicas (the second 2× slower), 6.667 for
// the pool.
func TestBatchingSpeedWarningPrinted(t *testing.T) {
	src := `name = "bat2"
seed = 1
requests = 3000
[arrivals]
rate = 0.1
[providers.p.pool]
replicas = 2
balancer = "round_robin"
[providers.p.pool.batching]
max_batch = 4
base_tokens_per_second = 50
contention = 0.0
[[providers.p.pool.replica]]
index = 1
slowdown = 2.0
[models.m]
provider = "p"
ttft = { kind = "constant", value = 0.0 }
tokens_per_s = { kind = "constant", value = 10 }
[[classes]]
name = "c"
input_tokens = { kind = "constant", value = 100 }
output_tokens = { kind = "constant", value = 100 }
deadline = "60s"
`
	f := writeTestFile(t, t.TempDir(), "bat3.toml", src)
	text := "c: model m decodes at a median 10 tokens/s alone (its tokens_per_s), and provider p's pool batching gives 50 tokens/s at batch size 1"
	code, out, errOut := hedgesim(t, "validate", f)
	if line := f + ":19: models.m.tokens_per_s: warning: " + text; code != 0 || out != f+": ok, 1 warning\n" || !strings.Contains(errOut, line) {
		t.Errorf("validate: exit %d, stdout %q, stderr %q; want 0, the file ok with 1 warning, and %q", code, out, errOut, line)
	}
	code, runOut, runErr := hedgesim(t, "run", "--wide", f)
	if code != 0 || !strings.Contains(runOut, "warning: "+text) {
		t.Errorf("run: exit %d, no %q:\n%s%s", code, "warning: "+text, runOut, runErr)
	}
	if !strings.Contains(runOut, "mean batch 1.28 at 6.667 tokens/s per sequence") {
		t.Errorf("run: the pool does not read 6.667 tokens/s per sequence:\n%s", runOut)
	}
}
