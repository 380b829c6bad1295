package optimize_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestRolloutNamesSaturatedPool: a pool of 24 slots serving calls of 1 s
// on average, offered 26 requests/s under a 30 s deadline, is saturated
// whatever the pick; the rollout check's section of the text report says
// so with the pool's utilisation and mean queue wait.
func TestRolloutNamesSaturatedPool(t *testing.T) {
	sc, err := scenario.Parse("pool.toml", []byte(`
seed = 1
requests = 20000
[arrivals]
process = "poisson"
rate = 26.0
[providers.vllm.pool]
replicas = 6
concurrency = 4
balancer = "random"
[models.llama]
provider = "vllm"
latency = { kind = "uniform", min = 0.5, max = 1.5 }
price_per_request = 0.001
[[classes]]
name = "chat"
deadline = "30s"
[classes.hedge]
primary = "llama"
delay = "1.5s"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 5000, 20000
	s.Search.Delays = []time.Duration{1500 * time.Millisecond}
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	var b bytes.Buffer
	if err := rep.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	_, check, ok := strings.Cut(out, "rollout check:")
	if !ok {
		t.Fatalf("no rollout check in\n%s", out)
	}
	for _, want := range []string{"warning: the replica pool of provider vllm is saturated: utilisation 9", "mean queue wait ", "of the 30.0s deadline of its calls"} {
		if !strings.Contains(check, want) {
			t.Errorf("rollout check lacks %q:\n%s", want, check)
		}
	}
}
