package scenario

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// poolHead is a scenario whose one model is served by the provider gpu,
// whose tables follow it.
const poolHead = `[arrivals]
rate = 10
[models.m]
provider = "gpu"
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
[providers.gpu]
`

func TestParsePool(t *testing.T) {
	s, err := Parse("p.toml", []byte(poolHead+`[providers.gpu.pool]
replicas = 8
concurrency = 4
queue_limit = 16
balancer = "latency_ewma"
decay = 0.8
copies_to = "any_replica"
[providers.gpu.pool.down]
mean_up = "10m"
mean_down = "30s"
[providers.gpu.pool.cold_start]
keep_warm = "5m"
latency = { kind = "uniform", min = 3, max = 19 }
give_up = "cancel"
[[providers.gpu.pool.replica]]
index = 7
slowdown = 5.0
[[providers.gpu.pool.replica]]
index = 2
[providers.gpu.pool.replica.degraded]
mean_normal = "1m"
mean_degraded = "10s"
slowdown = 3
`))
	if err != nil {
		t.Fatal(err)
	}
	p := s.Config.Providers[0].Pool
	if p == nil {
		t.Fatal("no pool")
	}
	if p.Replicas != 8 || p.Concurrency != 4 || !p.RejectWhenFull || p.QueueLimit != 16 || p.Balancer != sim.LatencyEWMA ||
		p.Decay != 0.8 || !p.AnyReplica || p.Down == nil || p.Down.MeanUp != 10*time.Minute || p.Down.MeanDown != 30*time.Second {
		t.Errorf("pool %+v", p)
	}
	if cs := p.ColdStart; cs == nil || cs.KeepWarm != 5*time.Minute || cs.Latency.Mean() != 11 || cs.GiveUp != sim.GiveUpOnCancel {
		t.Errorf("cold start %+v", cs)
	}
	if len(p.Overrides) != 2 || p.Overrides[0].Replica != 7 || p.Overrides[0].Slowdown != 5 ||
		p.Overrides[1].Replica != 2 || p.Overrides[1].Degraded == nil || p.Overrides[1].Degraded.Slowdown != 3 {
		t.Errorf("overrides %+v", p.Overrides)
	}
	// A cold start is given up at scale to zero unless said otherwise.
	s, err = Parse("p.toml", []byte(poolHead+"[providers.gpu.pool]\nreplicas = 3\n[providers.gpu.pool.cold_start]\nkeep_warm = \"1m\"\nlatency = { kind = \"constant\", value = 5 }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g := s.Config.Providers[0].Pool.ColdStart.GiveUp; g != sim.GiveUpAtScaleToZero {
		t.Errorf("default give_up %v, want scale_to_zero", g)
	}
	// Defaults: random routing, copies to another replica, decay 0.9.
	s, err = Parse("p.toml", []byte(poolHead+"[providers.gpu.pool]\nreplicas = 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Config.Providers[0].Pool; p.Balancer != sim.RandomBalancer || p.AnyReplica || p.Decay != 0.9 || p.Concurrency != 0 {
		t.Errorf("default pool %+v", p)
	}
}

func TestParsePoolBad(t *testing.T) {
	for _, tt := range []struct {
		name, pool string
		line       int
		key, msg   string
	}{
		{"pool of 0", "[providers.gpu.pool]\nreplicas = 0\n", 10, "providers.gpu.pool.replicas", "a pool of 0 replicas serves nothing"},
		{"pool of -3", "[providers.gpu.pool]\nreplicas = -3\n", 10, "providers.gpu.pool.replicas", "-3 is not allowed; want an integer in [1, 65535] (a pool of -3 replicas serves nothing)"},
		// Above the range the lower bound's reason is not given.
		{"pool too large", "[providers.gpu.pool]\nreplicas = 100000000\n", 10, "providers.gpu.pool.replicas", "100000000 is not allowed; want an integer in [1, 65535]$"},
		{"no replicas", "[providers.gpu.pool]\nbalancer = \"p2c\"\n", 9, "providers.gpu.pool", "missing replicas"},
		{"straggler 0", "[providers.gpu.pool]\nreplicas = 2\n[[providers.gpu.pool.replica]]\nindex = 1\nslowdown = 0.0\n", 13, "providers.gpu.pool.replica[0].slowdown", "want a factor in (0, 1e+06]"},
		{"straggler negative", "[providers.gpu.pool]\nreplicas = 2\n[[providers.gpu.pool.replica]]\nindex = 1\nslowdown = -2.0\n", 13, "providers.gpu.pool.replica[0].slowdown", "-2 is not allowed"},
		{"keep-warm without unit", "[providers.gpu.pool]\nreplicas = 2\n[providers.gpu.pool.cold_start]\nkeep_warm = \"300\"\nlatency = { kind = \"constant\", value = 5 }\n", 12, "providers.gpu.pool.cold_start.keep_warm", "with a unit"},
		{"keep-warm a number", "[providers.gpu.pool]\nreplicas = 2\n[providers.gpu.pool.cold_start]\nkeep_warm = 300\nlatency = { kind = \"constant\", value = 5 }\n", 12, "providers.gpu.pool.cold_start.keep_warm", "with a unit"},
		{"cold start without latency", "[providers.gpu.pool]\nreplicas = 2\n[providers.gpu.pool.cold_start]\nkeep_warm = \"5m\"\n", 11, "providers.gpu.pool.cold_start", "missing latency"},
		{"unknown give_up", "[providers.gpu.pool]\nreplicas = 2\n[providers.gpu.pool.cold_start]\nkeep_warm = \"5m\"\nlatency = { kind = \"constant\", value = 5 }\ngive_up = \"on_cancel\"\n", 14, "providers.gpu.pool.cold_start.give_up", `unknown value "on_cancel" (did you mean "cancel"?); allowed: "scale_to_zero", "never", "cancel"`},
		{"give_up ignoring cancels", "cancel = \"none\"\n[providers.gpu.pool]\nreplicas = 2\n[providers.gpu.pool.cold_start]\nkeep_warm = \"5m\"\nlatency = { kind = \"constant\", value = 5 }\ngive_up = \"never\"\n", 15, "providers.gpu.pool.cold_start.give_up", `has no effect while providers.gpu.cancel = "none"`},
		{"decay 1", "[providers.gpu.pool]\nreplicas = 2\nbalancer = \"latency_ewma\"\ndecay = 1.0\n", 12, "providers.gpu.pool.decay", "want a weight in [0, 1)"},
		{"decay negative", "[providers.gpu.pool]\nreplicas = 2\nbalancer = \"latency_ewma\"\ndecay = -0.5\n", 12, "providers.gpu.pool.decay", "-0.5 is not allowed"},
		{"decay without ewma", "[providers.gpu.pool]\nreplicas = 2\ndecay = 0.5\n", 11, "providers.gpu.pool.decay", "only the latency_ewma balancer"},
		{"unknown balancer", "[providers.gpu.pool]\nreplicas = 2\nbalancer = \"p2\"\n", 11, "providers.gpu.pool.balancer", `unknown value "p2" (did you mean "p2c"?); allowed: "random", "round_robin", "least_outstanding", "p2c", "latency_ewma"`},
		{"balancer case", "[providers.gpu.pool]\nreplicas = 2\nbalancer = \"Round_Robin\"\n", 11, "providers.gpu.pool.balancer", `did you mean "round_robin"`},
		{"unknown copies_to", "[providers.gpu.pool]\nreplicas = 2\ncopies_to = \"any\"\n", 11, "providers.gpu.pool.copies_to", `allowed: "other_replica", "any_replica"`},
		{"replica out of range", "[providers.gpu.pool]\nreplicas = 2\n[[providers.gpu.pool.replica]]\nindex = 2\nslowdown = 5.0\n", 12, "providers.gpu.pool.replica[0].index", "not a replica of this pool of 2"},
		{"replica twice", "[providers.gpu.pool]\nreplicas = 2\n[[providers.gpu.pool.replica]]\nindex = 1\nslowdown = 5.0\n[[providers.gpu.pool.replica]]\nindex = 1\nslowdown = 2.0\n", 15, "providers.gpu.pool.replica[1].index", "already set at providers.gpu.pool.replica[0]"},
		{"replica set to nothing", "[providers.gpu.pool]\nreplicas = 2\n[[providers.gpu.pool.replica]]\nindex = 1\n", 11, "providers.gpu.pool.replica[0]", "set to nothing"},
		{"provider concurrency", "concurrency = 4\n[providers.gpu.pool]\nreplicas = 2\n", 9, "providers.gpu.concurrency", "per replica"},
		{"queue without concurrency", "[providers.gpu.pool]\nreplicas = 2\nqueue_limit = 3\n", 11, "providers.gpu.pool.queue_limit", "needs concurrency ≥ 1"},
		{"down too short", "[providers.gpu.pool]\nreplicas = 2\n[providers.gpu.pool.down]\nmean_up = \"1ms\"\nmean_down = \"1s\"\n", 12, "providers.gpu.pool.down.mean_up", "too short"},
		{"unknown key", "[providers.gpu.pool]\nreplica = 2\n", 10, "providers.gpu.pool.replica", "wrong type"},
		{"misspelt key", "[providers.gpu.pool]\nreplicas = 2\nkeep_wram = \"1m\"\n", 11, "providers.gpu.pool.keep_wram", "unknown key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(poolHead+tt.pool))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T); want a *scenario.Error", err, err)
			}
			// A message ending in $ must end the error's message.
			msg, whole := strings.CutSuffix(tt.msg, "$")
			if e.Line != tt.line || e.Key != tt.key || !strings.Contains(e.Msg, msg) || (whole && !strings.HasSuffix(e.Msg, msg)) {
				t.Errorf("got  %v\nwant bad.toml:%d: %s: …%s…", err, tt.line, tt.key, tt.msg)
			}
		})
	}
}
