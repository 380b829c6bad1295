package sim_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// statusConfig sends n requests to model "a" (constant 1 s when it
// answers, failing as f says), with one copy to a healthy model "b"
// (constant 500 ms) after delay; no deadline.
func statusConfig(n int, f sim.Failures, delay time.Duration, p sim.Policy) *sim.Config {
	p.Primary, p.Targets, p.Copies, p.Delays = 0, []int{1}, 1, []time.Duration{delay}
	return &sim.Config{
		Name: "status", Seed: 11, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models: []sim.Model{
			{Name: "a", Provider: "pa", Latency: dist.Constant{Value: 1}, Failures: f},
			{Name: "b", Provider: "pb", Latency: dist.Constant{Value: 0.5}},
		},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}, Policy: p}},
	}
}

// latencyShares returns the share of requests answered at each latency
// (seconds, rounded to the microsecond).
func latencyShares(c *sim.ClassResult) map[float64]float64 {
	out := map[float64]float64{}
	for _, x := range c.Latencies() {
		if !math.IsInf(x, 1) {
			out[math.Round(x*1e6)/1e6] += 1 / float64(c.Requests)
		}
	}
	return out
}

// TestStatusRules: model "a" rejects 30 % of requests (prompts) with a
// 4xx after 100 ms, and fails 20 % of the other attempts with a 5xx after
// 200 ms, else answers at 1 s; a copy goes to a healthy model "b" (500 ms)
// only after a failure (delay 5 s). By hand: with 4xx fatal and 5xx
// nonfatal, 30 % end with the 4xx, 0.7·0.2 = 14 % are answered at
// 0.2 + 0.5 = 0.7 s, 56 % at 1 s: 1.14 attempts per request. With 4xx
// nonfatal too, the 30 % are answered by b at 0.1 + 0.5 = 0.6 s (1.44
// attempts). A copy to a itself gets the same 4xx: with 4xx nonfatal and
// both attempts to a, the 30 % still end with the error, at 0.2 s, after
// two attempts (the copy is wasted); a copy after a 5xx is answered at
// 0.2 + 1 s w.p. 0.14·0.8 = 11.2 % and fails again w.p. 0.14·0.2 = 2.8 %,
// so 32.8 % end with an error; 1.44 attempts again. Tolerances: 5
// binomial standard errors for n requests.
func TestStatusRules(t *testing.T) {
	const n = 50_000
	f := sim.Failures{
		ClientError: sim.Failure{Rate: 0.3, Latency: dist.Constant{Value: 0.1}},
		ServerError: sim.Failure{Rate: 0.2, Latency: dist.Constant{Value: 0.2}},
	}
	for _, tt := range []struct {
		name     string
		onClient sim.ErrorRule
		target   int
		shares   map[float64]float64
		errors   float64
		attempts float64
	}{
		{"4xx fatal", sim.Fatal, 1, map[float64]float64{0.7: 0.14, 1: 0.56}, 0.3, 1.14},
		{"4xx nonfatal", sim.NonFatal, 1, map[float64]float64{0.6: 0.3, 0.7: 0.14, 1: 0.56}, 0, 1.44},
		{"4xx nonfatal, copy to the same model", sim.NonFatal, 0, map[float64]float64{0.2 + 1: 0.112, 1: 0.56}, 0.328, 1.44},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := statusConfig(n, f, 5*time.Second, sim.Policy{OnError: sim.NonFatal, OnClientError: tt.onClient})
			cfg.Classes[0].Policy.Targets = []int{tt.target}
			res := mustRun(t, cfg)
			c := &res.Classes[0]
			got := latencyShares(c)
			if len(got) != len(tt.shares) {
				t.Errorf("answered at %v; want only at %v", got, tt.shares)
			}
			for lat, p := range tt.shares {
				if math.Abs(got[lat]-p) > binomialTol(p, n) {
					t.Errorf("share answered at %v s: %.4f; want %v", lat, got[lat], p)
				}
			}
			if e := float64(c.Errors) / n; math.Abs(e-tt.errors) > binomialTol(tt.errors, n) {
				t.Errorf("error share %.4f; want %v", e, tt.errors)
			}
			// Attempts per request = 1 + P(copy): the same binomial share.
			if a := float64(c.Attempts.Sent) / n; math.Abs(a-tt.attempts) > binomialTol(tt.attempts-1, n) {
				t.Errorf("attempts per request %.4f; want %v", a, tt.attempts)
			}
			if tt.target == 0 && tt.errors > 0 && endQuantile(c, 0) != 0.2 {
				t.Errorf("first request end at %v s; want the second 4xx at 0.2 s", endQuantile(c, 0))
			}
		})
	}
}

// TestStatusRetryAfter: a model that always answers 429 after 50 ms with
// Retry-After 1 s; under a nonfatal rule the copy goes 1 s after the 429
// and is answered 500 ms later: every request takes exactly 1.55 s. Under
// the fatal rule every request ends with the 429.
func TestStatusRetryAfter(t *testing.T) {
	f := sim.Failures{RateLimited: sim.Failure{Rate: 1, Latency: dist.Constant{Value: 0.05}, RetryAfter: time.Second}}
	res := mustRun(t, statusConfig(1000, f, 5*time.Second, sim.Policy{OnRateLimited: sim.NonFatal}))
	c := &res.Classes[0]
	if got := latencyShares(c); len(got) != 1 || math.Abs(got[1.55]-1) > 1e-9 {
		t.Errorf("answered at %v; want every request at 1.55 s", got)
	}
	if c.Attempts.RateLimited != 1000 {
		t.Errorf("%d attempts rate-limited; want 1000", c.Attempts.RateLimited)
	}
	res = mustRun(t, statusConfig(1000, f, 5*time.Second, sim.Policy{OnRateLimited: sim.Fatal}))
	if c := &res.Classes[0]; c.RateLimited != 1000 || c.Answered != 0 {
		t.Errorf("fatal 429: %d requests ended by a 429, %d answered; want 1000, 0", c.RateLimited, c.Answered)
	}
}

// TestStatusUpstreamTimeout: a model that always times out upstream after
// 1 s, a copy timer of 5 s. Fatal: every request ends with the error at
// 1 s. Nonfatal: the copy goes at 1 s, answered at 1.5 s. Ignore: the copy
// waits for its timer and is answered at 5.5 s.
func TestStatusUpstreamTimeout(t *testing.T) {
	f := sim.Failures{Timeout: sim.Failure{Rate: 1, Latency: dist.Constant{Value: 1}}}
	for _, tt := range []struct {
		rule sim.ErrorRule
		at   float64 // 0: not answered
	}{{sim.Fatal, 0}, {sim.NonFatal, 1.5}, {sim.Ignore, 5.5}} {
		res := mustRun(t, statusConfig(1000, f, 5*time.Second, sim.Policy{OnUpstreamTimeout: tt.rule}))
		c := &res.Classes[0]
		got := latencyShares(c)
		switch {
		case tt.at == 0 && (c.Errors != 1000 || endQuantile(c, 1) != 1):
			t.Errorf("%v: %d errors, last end at %v s; want 1000 errors at 1 s", tt.rule, c.Errors, endQuantile(c, 1))
		case tt.at > 0 && (len(got) != 1 || math.Abs(got[tt.at]-1) > 1e-9):
			t.Errorf("%v: answered at %v; want every request at %v s", tt.rule, got, tt.at)
		}
	}
}

// TestStatusShorthand: error_rate with error_latency is the shorthand for
// a server error: the same rate and latency as Failures.ServerError give
// the same run, draw for draw.
func TestStatusShorthand(t *testing.T) {
	lat := dist.Uniform{Min: 0.1, Max: 0.4}
	long := statusConfig(5000, sim.Failures{ServerError: sim.Failure{Rate: 0.25, Latency: lat}}, 700*time.Millisecond, sim.Policy{OnError: sim.NonFatal})
	short := statusConfig(5000, sim.Failures{}, 700*time.Millisecond, sim.Policy{OnError: sim.NonFatal})
	short.Models[0].ErrorRate, short.Models[0].ErrorLatency = 0.25, lat
	a, b := mustRun(t, long), mustRun(t, short)
	if !reflect.DeepEqual(a.Classes[0].Latencies(), b.Classes[0].Latencies()) || a.Classes[0].Attempts != b.Classes[0].Attempts {
		t.Errorf("server-error failures differ from the error_rate shorthand: attempts %+v vs %+v", a.Classes[0].Attempts, b.Classes[0].Attempts)
	}
}

// TestStatusRatesSumAtMostOne: the per-attempt failure kinds and the
// error rate are disjoint shares of one draw.
func TestStatusRatesSumAtMostOne(t *testing.T) {
	cfg := statusConfig(10, sim.Failures{ServerError: sim.Failure{Rate: 0.6}, Timeout: sim.Failure{Rate: 0.5}}, time.Second, sim.Policy{})
	if _, err := sim.Run(cfg); err == nil {
		t.Error("failure rates summing to 1.1 were accepted")
	}
}

// TestFailedByKind: the report counts failed attempts by kind. Model "a"
// fails 10 % of calls with a 5xx, rejects 5 % of prompts with a 4xx and
// times out upstream on 5 % (each after 100 ms, before any copy at 5 s),
// so of n primaries about 0.1·n, 0.05·n and 0.05·n fail that way; the
// kinds sum to the failed attempts, and the text report shows them.
func TestFailedByKind(t *testing.T) {
	const n = 20000
	fast := sim.Failure{Latency: dist.Constant{Value: 0.1}}
	f := sim.Failures{ServerError: fast, ClientError: fast, Timeout: fast}
	f.ServerError.Rate, f.ClientError.Rate, f.Timeout.Rate = 0.10, 0.05, 0.05
	cfg := statusConfig(n, f, 5*time.Second, sim.Policy{})
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Classes[0].Attempts
	k := a.FailedByKind
	if k.ServerError+k.ClientError+k.UpstreamTimeout != a.Failed {
		t.Fatalf("kinds %+v do not sum to the %d failed attempts", k, a.Failed)
	}
	// The 4xx is drawn first and takes its 5 %; 5xx and upstream timeouts
	// split the rest at 10 % and 5 % of all draws.
	for _, c := range []struct {
		name string
		got  int64
		p    float64
	}{{"5xx", k.ServerError, 0.95 * 0.10}, {"4xx", k.ClientError, 0.05}, {"upstream timeout", k.UpstreamTimeout, 0.95 * 0.05}} {
		if tol := 5 * math.Sqrt(n*c.p*(1-c.p)); math.Abs(float64(c.got)-n*c.p) > tol {
			t.Errorf("%s: %d failed attempts, want %.0f ± %.0f", c.name, c.got, n*c.p, tol)
		}
	}
	rep := sim.NewReport(cfg, res, res)
	var text, js strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf("c  %d  %d  %d  %d  %d  %d", a.RateLimited, k.ServerError, k.ClientError, k.UpstreamTimeout, a.Rejected, a.Sent)
	if !strings.Contains(text.String(), "failed attempts") || !strings.Contains(strings.Join(strings.Fields(text.String()), "  "), row) {
		t.Errorf("text report lacks the failures by kind (%q):\n%s", row, text.String())
	}
	if want := fmt.Sprintf(`"failed_by_kind": {
        "server_error": %d,
        "client_error": %d,
        "upstream_timeout": %d
      }`, k.ServerError, k.ClientError, k.UpstreamTimeout); !strings.Contains(js.String(), want) {
		t.Errorf("JSON lacks %s:\n%.3000s", want, js.String())
	}
}
