package sim_test

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// coldStartPipeline is a pipeline class whose steps call "hosted" (a
// hosted API) and STEP2 (LOCAL on an autoscaled pool without a
// cold_start, or "hosted" too). Named "alocal", LOCAL is model 0, where a
// pipeline class's unused class policy points; named "zlocal", model 1.
const coldStartPipeline = `seed = 1
requests = 100
[arrivals]
rate = 2.0
[providers.selfhosted.pool]
concurrency = 8
[providers.selfhosted.pool.autoscale]
min_replicas = 1
max_replicas = 4
target_concurrency = 4
price_per_replica_hour = 0.70
[providers.api]
[models.LOCAL]
provider = "selfhosted"
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
[models.hosted]
provider = "api"
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
price_per_request = 0.001
[[classes]]
name = "turn"
[[classes.steps]]
name = "guard"
[classes.steps.hedge]
primary = "hosted"
[[classes.steps]]
name = "chat"
[classes.steps.hedge]
STEP2
`

// TestColdStartWarningSeesSteps: the warning that a pool autoscales
// without a cold_start is earned by every path to the pool: a pipeline
// step's primary or hedge target reaching it earns it, as a one-call
// class's primary does; a pipeline none of whose steps reaches the pool
// earns none, though its class policy (unused) points at the pool's model.
func TestColdStartWarningSeesSteps(t *testing.T) {
	const want = "provider selfhosted's pool autoscales without a cold_start"
	for _, tc := range []struct {
		name, local, step2 string
		want               bool
	}{
		{"a step's primary on the pool", "zlocal", `primary = "zlocal"`, true},
		{"a step's hedge target on the pool", "zlocal", "primary = \"hosted\"\ntargets = [\"zlocal\"]\ndelay = \"1s\"", true},
		{"a step's primary on the pool, model 0", "alocal", `primary = "alocal"`, true},
		{"no step on the pool", "zlocal", `primary = "hosted"`, false},
		{"no step on the pool, model 0", "alocal", `primary = "hosted"`, false},
	} {
		text := strings.NewReplacer("STEP2", tc.step2, "LOCAL", tc.local).Replace(coldStartPipeline)
		sc, err := scenario.Parse("s.toml", []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []sim.ConfigWarning
		for _, w := range sim.ConfigWarnings(&sc.Config) {
			if strings.Contains(w.Text, want) {
				got = append(got, w)
			}
		}
		if tc.want && (len(got) != 1 || got[0].Field != "autoscale" || sc.Config.Providers[got[0].Provider-1].Name != "selfhosted") {
			t.Errorf("%s: warnings %+v; want one at provider selfhosted's autoscale: %q", tc.name, got, want)
		}
		if !tc.want && len(got) != 0 {
			t.Errorf("%s: warnings %+v; want none (no step reaches the pool)", tc.name, got)
		}
	}
}
