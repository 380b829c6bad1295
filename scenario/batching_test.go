package scenario

import (
	"errors"
	"strings"
	"testing"
)

func TestParseBatching(t *testing.T) {
	s, err := Parse("b.toml", []byte(poolHead+`[providers.gpu.pool]
replicas = 2
[providers.gpu.pool.batching]
max_batch = 3
tokens_per_second = [60, 50, 40, 30]
`))
	if err != nil {
		t.Fatal(err)
	}
	p := s.Config.Providers[0].Pool
	if b := p.Batching; p.Concurrency != 3 || b == nil || len(b.TokensPerSecond) != 4 || b.TokensPerSecond[3] != 30 {
		t.Errorf("pool %+v, batching %+v: want a batch limit of 3 and the table", p, p.Batching)
	}
	s, err = Parse("b.toml", []byte(poolHead+`[providers.gpu.pool]
replicas = 2
[providers.gpu.pool.batching]
base_tokens_per_second = 40
contention = 0.5
`))
	if err != nil {
		t.Fatal(err)
	}
	p = s.Config.Providers[0].Pool
	if b := p.Batching; p.Concurrency != 0 || b == nil || b.Base != 40 || b.Contention != 0.5 {
		t.Errorf("pool %+v, batching %+v: want no batch limit, base 40 and contention 0.5", p, p.Batching)
	}
}

// TestParseBatchingBad: each bad batching setting is an error at its
// file's line and key.
func TestParseBatchingBad(t *testing.T) {
	const pool = "[providers.gpu.pool]\nreplicas = 2\n[providers.gpu.pool.batching]\n"
	for _, tt := range []struct {
		name, pool string
		line       int
		key, msg   string
	}{
		{"growing table", pool + "max_batch = 3\ntokens_per_second = [60, 50, 55]\n", 13, "providers.gpu.pool.batching.tokens_per_second[2]",
			"55 tokens/s at batch size 3 is above 50 at batch size 2; the per-sequence speed must not grow"},
		{"zero in table", pool + "max_batch = 2\ntokens_per_second = [60, 0]\n", 13, "providers.gpu.pool.batching.tokens_per_second[1]", "want a speed > 0"},
		{"negative in table", pool + "max_batch = 2\ntokens_per_second = [-1.0, -2.0]\n", 13, "providers.gpu.pool.batching.tokens_per_second[0]", "-1 is not allowed"},
		{"max_batch 0", pool + "max_batch = 0\nbase_tokens_per_second = 40\ncontention = 1\n", 12, "providers.gpu.pool.batching.max_batch", "0 is not allowed; want an integer ≥ 1"},
		{"table without max_batch", pool + "tokens_per_second = [60, 50]\n", 11, "providers.gpu.pool.batching", "missing max_batch"},
		{"table too short", pool + "max_batch = 4\ntokens_per_second = [60, 50]\n", 12, "providers.gpu.pool.batching.max_batch", "larger than the table"},
		{"both forms", pool + "max_batch = 2\ntokens_per_second = [60, 50]\nbase_tokens_per_second = 40\n", 11, "providers.gpu.pool.batching", "not both"},
		{"no base", pool + "contention = 1\n", 11, "providers.gpu.pool.batching", "missing base_tokens_per_second"},
		{"negative contention", pool + "base_tokens_per_second = 40\ncontention = -1.0\n", 13, "providers.gpu.pool.batching.contention", "-1 is not allowed; want a value in [0, 1e6]"},
		{"contention nan", pool + "base_tokens_per_second = 40\ncontention = nan\n", 13, "providers.gpu.pool.batching.contention", "NaN is not allowed; want a value in [0, 1e6] (slowdown per added sequence)"},
		{"concurrency too", "[providers.gpu.pool]\nreplicas = 2\nconcurrency = 4\n[providers.gpu.pool.batching]\nmax_batch = 4\nbase_tokens_per_second = 40\ncontention = 1\n", 11,
			"providers.gpu.pool.concurrency", "set max_batch"},
		{"cold start", pool + "base_tokens_per_second = 40\ncontention = 1\n[providers.gpu.pool.cold_start]\nkeep_warm = \"1m\"\nlatency = { kind = \"constant\", value = 5 }\n", 14,
			"providers.gpu.pool.cold_start", "not modelled"},
		{"provider slow periods", "[providers.gpu.degraded]\nmean_normal = \"1m\"\nmean_degraded = \"10s\"\nslowdown = 3\n" + pool + "base_tokens_per_second = 40\ncontention = 1\n", 12,
			"providers.gpu.degraded.slowdown", "not modelled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(poolHead+tt.pool))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T); want a *scenario.Error", err, err)
			}
			if e.Line != tt.line || e.Key != tt.key || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got  %v\nwant bad.toml:%d: %s: …%s…", err, tt.line, tt.key, tt.msg)
			}
		})
	}
}

// TestParseBatchingFirstToken: a class deciding at the first token on a
// batching pool is an error at its hedge table.
func TestParseBatchingFirstToken(t *testing.T) {
	_, err := Parse("bad.toml", []byte(`[arrivals]
rate = 10
[models.m]
provider = "gpu"
ttft = { kind = "constant", value = 0.2 }
tokens_per_s = { kind = "constant", value = 50 }
[[classes]]
name = "c"
[classes.hedge]
winner = "first_token"
[providers.gpu.pool]
replicas = 2
[providers.gpu.pool.batching]
base_tokens_per_second = 40
contention = 1
`))
	var e *Error
	if !errors.As(err, &e) || e.Key != "classes[0].hedge" || e.Line != 9 || !strings.Contains(e.Msg, "first_token") {
		t.Errorf("error %v: want one at bad.toml:9: classes[0].hedge about first_token", err)
	}
}

// TestParseBatchingStepFirstToken: so is a pipeline step's, at its own
// hedge table.
func TestParseBatchingStepFirstToken(t *testing.T) {
	src := pipelineHead + step("a", "[classes.steps.hedge]", `winner = "first_token"`) +
		"[providers.m.pool]\nreplicas = 2\n[providers.m.pool.batching]\nbase_tokens_per_second = 40\ncontention = 1\n"
	_, err := Parse("bad.toml", []byte(src))
	var e *Error
	if !errors.As(err, &e) || e.Key != "classes[0].steps[0].hedge" || !strings.Contains(e.Msg, "first_token") {
		t.Errorf("error %v: want one at classes[0].steps[0].hedge about first_token", err)
	}
}

// TestParseBatchingStalls: stalls of a model at a batching pool are an
// error at the model's stalls table.
func TestParseBatchingStalls(t *testing.T) {
	_, err := Parse("bad.toml", []byte(`[arrivals]
rate = 10
[models.m]
provider = "gpu"
ttft = { kind = "constant", value = 0.2 }
tokens_per_s = { kind = "constant", value = 50 }
[models.m.stalls]
rate = 0.1
duration = { kind = "constant", value = 2 }
[[classes]]
name = "c"
[providers.gpu.pool]
replicas = 2
[providers.gpu.pool.batching]
base_tokens_per_second = 40
contention = 1
`))
	var e *Error
	if !errors.As(err, &e) || e.Key != "models.m.stalls" || e.Line != 7 || !strings.Contains(e.Msg, "not modelled") {
		t.Errorf("error %v: want one at bad.toml:7: models.m.stalls", err)
	}
}

// TestParseBatchingWithoutPool: batching on a provider without a pool is
// an error at its line that says where batching goes.
func TestParseBatchingWithoutPool(t *testing.T) {
	_, err := Parse("bad.toml", []byte(poolHead+"concurrency = 4\n[providers.gpu.batching]\nmax_batch = 4\n"))
	var e *Error
	if !errors.As(err, &e) || e.Line != 10 || e.Key != "providers.gpu.batching" || !strings.Contains(e.Msg, "set it in [providers.gpu.pool.batching]") {
		t.Errorf("error %v: want one at bad.toml:10: providers.gpu.batching saying to set it in [providers.gpu.pool.batching]", err)
	}
}
