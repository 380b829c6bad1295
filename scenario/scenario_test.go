package scenario

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

const gateway = `
name = "round-trip"
seed = 42
requests = 5000

[arrivals]
process = "constant"
rate = 12.5

# Defined out of name order on purpose: indices follow the sorted names.
[models.zeta]
latency = { kind = "uniform", min = 0.1, max = 0.3 }
error_rate = 0.02
price_per_request = 0.001

[models.alpha]
provider = "prov-a"
ttft = { kind = "lognormal", median = 0.45, p95 = 2.5 }
tokens_per_s = { kind = "uniform", min = 40, max = 90 }
error_latency = { kind = "constant", value = 0.05 }
invalid_rate = 0.01
price_input_per_mtok = 3
price_output_per_mtok = 15

[[classes]]
name = "short"
share = 0.6
input_tokens = { kind = "constant", value = 500 }
output_tokens = { kind = "uniform", min = 10, max = 150 }
deadline = "5s"

[classes.hedge]
primary = "alpha"
targets = ["zeta", "alpha"]
delays = ["300ms", "1.5s"]
winner = "first_token"
on_error = "nonfatal"
on_invalid = "ignore"
cancel_latency = "20ms"
cancel_billing = "generated"

[[classes]]
name = "strict"
share = 0.4
on_timeout = "fail_closed"
deadline = "2s"

[classes.hedge]
primary = "zeta"
delay = "0s"
max_copies = 3
winner = "first_response"
on_error = "ignore"
on_invalid = "fatal"
cancel_billing = "none"
`

// TestParseRoundTrip checks every field of the produced sim.Config.
func TestParseRoundTrip(t *testing.T) {
	s, err := Parse("dir/gateway.toml", []byte(gateway))
	if err != nil {
		t.Fatal(err)
	}
	if s.File != "dir/gateway.toml" {
		t.Errorf("File = %q", s.File)
	}
	cfg := s.Config
	want := sim.Config{
		Name:     "round-trip",
		Seed:     42,
		Requests: 5000,
		Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 12.5},
		Models: []sim.Model{
			{Name: "alpha", Provider: "prov-a", InvalidRate: 0.01, PriceInputPerMTok: 3, PriceOutputPerMTok: 15},
			{Name: "zeta", Provider: "zeta", ErrorRate: 0.02, PricePerRequest: 0.001},
		},
		Classes: []sim.Class{
			{
				Name: "short", Share: 0.6, Deadline: 5 * time.Second, OnTimeout: sim.FailOpen,
				Policy: sim.Policy{
					Primary:   0,
					Targets:   []int{1, 0},
					Copies:    2,
					Delays:    []time.Duration{300 * time.Millisecond, 1500 * time.Millisecond},
					Winner:    sim.FirstToken,
					OnError:   sim.NonFatal,
					OnInvalid: sim.Ignore,
					// Defaults: on_rate_limited follows on_error; an attempt
					// timeout sends the next copy.
					OnRateLimited: sim.NonFatal, OnUpstreamTimeout: sim.NonFatal,
					OnAttemptTimeout: sim.NonFatal, StreamCuts: sim.StreamCuts{OnStall: sim.NonFatal},
					CancelLatency: 20 * time.Millisecond,
					CancelBilling: sim.BillGenerated,
				},
			},
			{
				Name: "strict", Share: 0.4, Deadline: 2 * time.Second, OnTimeout: sim.FailClosed,
				Policy: sim.Policy{
					Primary:       1,
					Copies:        3,
					Delays:        []time.Duration{0},
					Winner:        sim.FirstResponse,
					OnError:       sim.Ignore,
					OnInvalid:     sim.Fatal,
					OnRateLimited: sim.Ignore, OnUpstreamTimeout: sim.Ignore,
					OnAttemptTimeout: sim.NonFatal, StreamCuts: sim.StreamCuts{OnStall: sim.NonFatal},
					CancelBilling: sim.BillNone,
				},
			},
		},
	}
	ignoreDists := cmp.Options{
		cmpopts.IgnoreFields(sim.Model{}, "Latency", "TTFT", "TokensPerSecond", "ErrorLatency"),
		cmpopts.IgnoreFields(sim.Class{}, "InputTokens", "OutputTokens"),
	}
	if diff := cmp.Diff(want, cfg, ignoreDists); diff != "" {
		t.Errorf("config mismatch (-want +got):\n%s", diff)
	}

	// The distributions: check the form and a moment or the support.
	alpha, zeta := cfg.Models[0], cfg.Models[1]
	if alpha.Latency != nil || alpha.TTFT == nil || alpha.TokensPerSecond == nil || alpha.ErrorLatency == nil {
		t.Errorf("alpha: want streamed form with error latency, got %+v", alpha)
	}
	if zeta.Latency == nil || zeta.TTFT != nil || zeta.TokensPerSecond != nil || zeta.ErrorLatency != nil {
		t.Errorf("zeta: want latency form without error latency, got %+v", zeta)
	}
	checkSupport(t, "zeta latency", zeta.Latency, 0.1, 0.3)
	checkSupport(t, "alpha tokens/s", alpha.TokensPerSecond, 40, 90)
	if m := alpha.ErrorLatency.Mean(); m != 0.05 {
		t.Errorf("alpha error latency mean = %g, want 0.05", m)
	}
	if med := alpha.TTFT.(dist.Continuous).Quantile(0.5); math.Abs(med-0.45) > 1e-9 {
		t.Errorf("alpha TTFT median = %g, want 0.45", med)
	}
	short, strict := cfg.Classes[0], cfg.Classes[1]
	checkSupport(t, "short input tokens", short.InputTokens, 500, 500)
	checkSupport(t, "short output tokens", short.OutputTokens, 10, 150)
	// Omitted token counts are constant 0.
	checkSupport(t, "strict input tokens", strict.InputTokens, 0, 0)
	checkSupport(t, "strict output tokens", strict.OutputTokens, 0, 0)
}

func checkSupport(t *testing.T, what string, d dist.Dist, lo, hi float64) {
	t.Helper()
	if d == nil {
		t.Errorf("%s: nil distribution", what)
		return
	}
	if gotLo, gotHi := d.Support(); gotLo != lo || gotHi != hi {
		t.Errorf("%s: support [%g, %g], want [%g, %g]", what, gotLo, gotHi, lo, hi)
	}
}

// TestParseDefaults checks the defaults of the smallest valid file.
func TestParseDefaults(t *testing.T) {
	s, err := Parse("some/where/minimal.toml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.Config
	if cfg.Name != "minimal" || cfg.Seed != 1 || cfg.Requests != 100000 || cfg.Arrivals.Process != sim.Poisson {
		t.Errorf("top-level defaults: name %q seed %d requests %d process %v", cfg.Name, cfg.Seed, cfg.Requests, cfg.Arrivals.Process)
	}
	if m := cfg.Models[0]; m.Provider != "m" || m.ErrorRate != 0 || m.InvalidRate != 0 || m.PriceInputPerMTok != 0 {
		t.Errorf("model defaults: %+v", m)
	}
	cl := cfg.Classes[0]
	if cl.Share != 1 || cl.Deadline != 0 || cl.OnTimeout != sim.FailOpen {
		t.Errorf("class defaults: %+v", cl)
	}
	wantPolicy := sim.Policy{Primary: 0, Copies: 0, Winner: sim.FirstValid, OnError: sim.Fatal,
		OnInvalid: sim.NonFatal, OnAttemptTimeout: sim.NonFatal, CancelBilling: sim.BillInput,
		StreamCuts: sim.StreamCuts{OnStall: sim.NonFatal}} // on_stall follows on_attempt_timeout
	if diff := cmp.Diff(wantPolicy, cl.Policy); diff != "" {
		t.Errorf("policy defaults (-want +got):\n%s", diff)
	}
}

// TestParseCopiesDefault checks max_copies' default: 1 with delay,
// len(delays) with delays, and that an explicit value wins.
func TestParseCopiesDefault(t *testing.T) {
	for _, tt := range []struct {
		hedge  string
		copies int
		delays []time.Duration
	}{
		{`delay = "1s"`, 1, []time.Duration{time.Second}},
		{`delays = ["1s", "2s", "250ms"]`, 3, []time.Duration{time.Second, 2 * time.Second, 250 * time.Millisecond}},
		{"delay = \"1s\"\nmax_copies = 2", 2, []time.Duration{time.Second}},
	} {
		s, err := Parse("c.toml", []byte(minimal+"[classes.hedge]\n"+tt.hedge+"\n"))
		if err != nil {
			t.Errorf("%q: %v", tt.hedge, err)
			continue
		}
		p := s.Config.Classes[0].Policy
		if p.Copies != tt.copies || !cmp.Equal(p.Delays, tt.delays) {
			t.Errorf("%q: copies %d delays %v, want %d %v", tt.hedge, p.Copies, p.Delays, tt.copies, tt.delays)
		}
	}
}

func TestErrorString(t *testing.T) {
	for _, tt := range []struct {
		e    Error
		want string
	}{
		{Error{File: "a.toml", Line: 3, Key: "arrivals.rate", Msg: "bad"}, "a.toml:3: arrivals.rate: bad"},
		{Error{File: "a.toml", Key: "models", Msg: "none"}, "a.toml: models: none"},
		{Error{File: "a.toml", Line: 7, Msg: "syntax"}, "a.toml:7: syntax"},
		{Error{File: "a.toml", Set: "--set arrivals.rate=-1", Key: "arrivals.rate", Msg: "bad"}, "a.toml: --set arrivals.rate=-1: arrivals.rate: bad"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	if err := os.WriteFile(good, []byte(minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(good)
	if err != nil {
		t.Fatal(err)
	}
	if s.File != good || s.Config.Name != "good" {
		t.Errorf("File %q Name %q", s.File, s.Config.Name)
	}

	missing := filepath.Join(dir, "missing.toml")
	_, err = Load(missing)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Load(missing) = %v; want a not-exist error naming the path", err)
	}

	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("seed = -1\n"+minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad)
	var e *Error
	if !errors.As(err, &e) || e.File != bad || e.Line != 1 || e.Key != "seed" {
		t.Errorf("Load(bad) = %v; want %s:1: seed: …", err, bad)
	}
}

func TestDurationUnmarshal(t *testing.T) {
	for _, tt := range []struct {
		in   any
		want time.Duration
		err  string
	}{
		{"1.5s", 1500 * time.Millisecond, ""},
		{"0s", 0, ""},
		{"2m", 2 * time.Minute, ""},
		{"-1s", 0, "negative"},
		{"fast", 0, "invalid duration"},
		{int64(3), 0, "got integer 3"},
		{1.5, 0, "got float 1.5"},
	} {
		var d Duration
		err := d.UnmarshalTOML(tt.in)
		switch {
		case tt.err == "" && (err != nil || time.Duration(d) != tt.want):
			t.Errorf("UnmarshalTOML(%v) = %v, %v; want %v", tt.in, d, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("UnmarshalTOML(%v) error = %v; want …%s…", tt.in, err, tt.err)
		}
	}
}
