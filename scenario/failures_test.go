package scenario

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

const failuresModel = `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
`

func TestParseFailures(t *testing.T) {
	s, err := Parse("f.toml", []byte(failuresModel+`
[models.m.failures]
server_error = { rate = 0.02, latency = { kind = "constant", value = 0.2 } }
client_error = { rate = 0.01 }
timeout = { rate = 0.03, latency = { kind = "constant", value = 30 } }
rate_limited = { rate = 0.05, latency = { kind = "constant", value = 0.05 }, retry_after = "2s" }
[[classes]]
name = "c"
[classes.hedge]
delay = "1s"
on_error = "nonfatal"
on_client_error = "ignore"
`))
	if err != nil {
		t.Fatal(err)
	}
	f := s.Config.Models[0].Failures
	if f.ServerError.Rate != 0.02 || f.ClientError.Rate != 0.01 || f.Timeout.Rate != 0.03 || f.RateLimited.Rate != 0.05 ||
		f.RateLimited.RetryAfter != 2*time.Second || f.ClientError.Latency != nil || f.Timeout.Latency == nil {
		t.Errorf("failures %+v", f)
	}
	p := s.Config.Classes[0].Policy
	// on_upstream_timeout and on_rate_limited default to on_error.
	if p.OnClientError != sim.Ignore || p.OnUpstreamTimeout != sim.NonFatal || p.OnRateLimited != sim.NonFatal {
		t.Errorf("rules: client %v, upstream timeout %v, 429 %v", p.OnClientError, p.OnUpstreamTimeout, p.OnRateLimited)
	}
	// Without the keys a 4xx is fatal whatever on_error says.
	s, err = Parse("f.toml", []byte(minimal+"[classes.hedge]\ndelay = \"1s\"\non_error = \"nonfatal\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Config.Classes[0].Policy; p.OnClientError != sim.Fatal {
		t.Errorf("default on_client_error %v; want fatal", p.OnClientError)
	}
}

func TestParseFailuresBad(t *testing.T) {
	tail := "[[classes]]\nname = \"c\"\n"
	for _, tt := range []struct {
		name, toml string
		line       int
		key, msg   string
	}{
		{"rates above 1", failuresModel + "[models.m.failures]\nserver_error = { rate = 0.6 }\ntimeout = { rate = 0.5 }\n" + tail, 6, "models.m.failures", "sum to 1.1"},
		{"missing rate", failuresModel + "[models.m.failures]\ntimeout = { latency = { kind = \"constant\", value = 1 } }\n" + tail, 7, "models.m.failures.timeout.rate", "missing"},
		{"rate out of range", failuresModel + "[models.m.failures]\ntimeout = { rate = 1.5 }\n" + tail, 7, "models.m.failures.timeout.rate", "not a probability"},
		{"retry_after on a 5xx", failuresModel + "[models.m.failures]\nserver_error = { rate = 0.1, retry_after = \"1s\" }\n" + tail, 7, "models.m.failures.server_error.retry_after", "applies only to rate_limited"},
		{"shorthand and server_error", failuresModel + "error_rate = 0.1\n[models.m.failures]\nserver_error = { rate = 0.1 }\n" + tail, 8, "models.m.failures.server_error", "shorthand"},
		{"unknown kind", failuresModel + "[models.m.failures]\nserver_eror = { rate = 0.1 }\n" + tail, 7, "models.m.failures.server_eror", `did you mean "server_error"`},
		{"bad rule", minimal + "[classes.hedge]\ndelay = \"1s\"\non_client_error = \"retry\"\n", 10, "classes[0].hedge.on_client_error", "unknown value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(tt.toml))
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

func TestParseBreaker(t *testing.T) {
	s, err := Parse("b.toml", []byte(failuresModel+"breaker = { failures = 5, cooldown = \"30s\" }\n[[classes]]\nname = \"c\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Config.Models[0].Breaker; b == nil || *b != (sim.Breaker{Failures: 5, Cooldown: 30 * time.Second, Probes: 1}) {
		t.Errorf("breaker %+v", b)
	}
	for _, tt := range []struct{ breaker, key, msg string }{
		{`{ failures = 0, cooldown = "30s" }`, "models.m.breaker.failures", "out of range"},
		{`{ cooldown = "30s" }`, "models.m.breaker.failures", "missing"},
		{`{ failures = 3, cooldown = "0s" }`, "models.m.breaker.cooldown", "want a duration > 0"},
		{`{ failures = 3, cooldown = 30 }`, "models.m.breaker.cooldown", "with a unit"},
		{`{ failures = 3, cooldown = "1s", probes = 0 }`, "models.m.breaker.probes", "out of range"},
	} {
		_, err := Parse("bad.toml", []byte(failuresModel+"breaker = "+tt.breaker+"\n[[classes]]\nname = \"c\"\n"))
		var e *Error
		if !errors.As(err, &e) || e.Line != 6 || e.Key != tt.key || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("breaker = %s: got %v; want bad.toml:6: %s: …%s…", tt.breaker, err, tt.key, tt.msg)
		}
	}
}

// TestParseBreakerRatio: the failure-ratio keys, their defaults, and a
// provider's breaker; every bad value is reported on its line with its
// key and what is allowed — all of a table's problems at once.
func TestParseBreakerRatio(t *testing.T) {
	for _, tt := range []struct {
		breaker string
		want    sim.Breaker
	}{
		{`{ failure_ratio = 0.5, window = 20, cooldown = "10s" }`,
			sim.Breaker{FailureRatio: 0.5, Window: 20, MinCalls: 20, Cooldown: 10 * time.Second, Probes: 1}},
		{`{ failure_ratio = 1, window_time = "30s", cooldown = "10s" }`,
			sim.Breaker{FailureRatio: 1, WindowTime: 30 * time.Second, MinCalls: 100, Cooldown: 10 * time.Second, Probes: 1}},
		{`{ failures = 5, failure_ratio = 0.2, window_time = "1m", min_calls = 10, cooldown = "5s", probes = 2 }`,
			sim.Breaker{Failures: 5, FailureRatio: 0.2, WindowTime: time.Minute, MinCalls: 10, Cooldown: 5 * time.Second, Probes: 2}},
	} {
		s, err := Parse("b.toml", []byte(failuresModel+"breaker = "+tt.breaker+"\n[[classes]]\nname = \"c\"\n"))
		if err != nil {
			t.Fatalf("%s: %v", tt.breaker, err)
		}
		if b := s.Config.Models[0].Breaker; b == nil || *b != tt.want {
			t.Errorf("%s: breaker %+v; want %+v", tt.breaker, b, tt.want)
		}
	}
	for _, tt := range []struct{ breaker, key, msg string }{
		{`{ failure_ratio = 0, window = 10, cooldown = "1s" }`, "models.m.breaker.failure_ratio", "0 is out of range; want a share of failed calls in (0, 1]"},
		{`{ failure_ratio = 1.5, window = 10, cooldown = "1s" }`, "models.m.breaker.failure_ratio", "1.5 is out of range"},
		{`{ failure_ratio = -0.2, window = 10, cooldown = "1s" }`, "models.m.breaker.failure_ratio", "out of range"},
		{`{ failure_ratio = 0.5, cooldown = "1s" }`, "models.m.breaker.failure_ratio", "needs a window"},
		{`{ failure_ratio = 0.5, window = 0, cooldown = "1s" }`, "models.m.breaker.window", "0 is out of range; want 1 to"},
		{`{ failure_ratio = 0.5, window_time = "0s", cooldown = "1s" }`, "models.m.breaker.window_time", "want a duration > 0"},
		{`{ failure_ratio = 0.5, window_time = 30, cooldown = "1s" }`, "models.m.breaker.window_time", "with a unit"},
		{`{ failure_ratio = 0.5, window = 10, window_time = "1s", cooldown = "1s" }`, "models.m.breaker.window_time", "exclusive"},
		{`{ failure_ratio = 0.5, window = 10, min_calls = 11, cooldown = "1s" }`, "models.m.breaker.min_calls", "exceeds the window of 10 calls"},
		{`{ failure_ratio = 0.5, window = 10, min_calls = 0, cooldown = "1s" }`, "models.m.breaker.min_calls", "out of range"},
		{`{ failures = 3, window = 10, cooldown = "1s" }`, "models.m.breaker.window", "needs failure_ratio"},
		{`{ failures = 3, min_calls = 10, cooldown = "1s" }`, "models.m.breaker.min_calls", "needs failure_ratio"},
		{`{ failure_ratio = "half", window = 10, cooldown = "1s" }`, "models.m.breaker.failure_ratio", "string"},
	} {
		_, err := Parse("bad.toml", []byte(failuresModel+"breaker = "+tt.breaker+"\n[[classes]]\nname = \"c\"\n"))
		var e *Error
		if !errors.As(err, &e) || e.Line != 6 || e.Key != tt.key || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("breaker = %s: got %v; want bad.toml:6: %s: …%s…", tt.breaker, err, tt.key, tt.msg)
		}
	}
	// Every problem of the table at once.
	_, err := Parse("bad.toml", []byte(failuresModel+"breaker = { failure_ratio = 2, window = 0, cooldown = \"0s\" }\n[[classes]]\nname = \"c\"\n"))
	for _, k := range []string{"failure_ratio", "window", "cooldown"} {
		if err == nil || !strings.Contains(err.Error(), "models.m.breaker."+k+":") {
			t.Errorf("all problems at once: %v; want one on %s", err, k)
		}
	}
	// A provider's breaker.
	src := `
[arrivals]
rate = 1
[providers.p]
breaker = { failure_ratio = 0.5, window = 20, cooldown = "10s" }
[models.a]
provider = "p"
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`
	s, err := Parse("p.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Config.Providers[0].Breaker; b == nil || *b != (sim.Breaker{FailureRatio: 0.5, Window: 20, MinCalls: 20, Cooldown: 10 * time.Second, Probes: 1}) {
		t.Errorf("provider breaker %+v", b)
	}
	_, err = Parse("bad.toml", []byte(strings.Replace(src, "window = 20", "window = 20, min_calls = 30", 1)))
	var e *Error
	if !errors.As(err, &e) || e.Line != 5 || e.Key != "providers.p.breaker.min_calls" || !strings.Contains(e.Msg, "exceeds the window") {
		t.Errorf("provider breaker min_calls > window: %v", err)
	}
}
