package scenario

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// twoModels is a valid scenario with two models and two classes.
const twoModels = `
[arrivals]
rate = 20
[models.a]
latency = { kind = "constant", value = 1 }
[models.b]
latency = { kind = "constant", value = 2 }
[[classes]]
name = "x"
share = 0.5
hedge = { primary = "a", targets = ["b"], delay = "1s" }
[[classes]]
name = "y"
share = 0.5
[classes.hedge]
primary = "b"
delay = "300ms"
`

func TestOverrides(t *testing.T) {
	o := &Options{Set: []string{
		"arrivals.rate=40",
		"classes[1].hedge.delay=800ms",
		"models.b.rate_limit.requests_per_minute=600",
		`classes[0].on_timeout="fail_closed"`,
	}}
	s, err := ParseWith("w.toml", []byte(twoModels), o)
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.Config
	if cfg.Arrivals.Rate != 40 {
		t.Errorf("rate %g; want 40", cfg.Arrivals.Rate)
	}
	if d := cfg.Classes[1].Policy.Delays; len(d) != 1 || d[0] != 800*time.Millisecond {
		t.Errorf("classes[1] delays %v; want [800ms]", d)
	}
	if rl := cfg.Models[1].RateLimit; rl.RequestsPerMinute != 600 || rl.Burst != time.Minute {
		t.Errorf("models.b rate limit %+v; want 600/min with the default burst", rl)
	}
	if got := cfg.Classes[0].OnTimeout.String(); got != "fail_closed" {
		t.Errorf("on_timeout %s", got)
	}
	want := []string{"arrivals.rate=40", "classes[1].hedge.delay=800ms", "models.b.rate_limit.requests_per_minute=600", `classes[0].on_timeout="fail_closed"`}
	if !reflect.DeepEqual(s.Overrides, want) {
		t.Errorf("Overrides %q; want %q", s.Overrides, want)
	}
	// No overrides: nil, and a value equal to the file's changes nothing.
	plain, err := Parse("w.toml", []byte(twoModels))
	if err != nil {
		t.Fatal(err)
	}
	same, err := ParseWith("w.toml", []byte(twoModels), &Options{Set: []string{"arrivals.rate=20"}})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Overrides != nil || !reflect.DeepEqual(plain.Config, same.Config) {
		t.Errorf("setting the file's own value changed the config")
	}
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		set, key, msg string
	}{
		{"classes[0].hedge.delay=fast", "classes[0].hedge.delay", "invalid delay"},
		{"arrivals.rate=-1", "arrivals.rate", "not a valid rate"},
		{"classes[0].hedge.delya=1s", "classes[0].hedge.delya", `did you mean "delay"`},
		{"classes[0].hedge.primary=gpt", "classes[0].hedge.primary", `model "gpt" is not defined`},
		{"classes[2].name=z", "classes[2]", "has 2"},
		{"arrivals.rate.x=1", "arrivals.rate.x", "not a table"},
		{"models.a[0]=1", "models.a[0]", "not an array"},
		// An array reached with a name, as if a table: the message names
		// the indexed key that works, the name taken as the index, as an
		// entry's name, or as a key inside an entry.
		{"classes.0.deadline=1s", "classes.0", "classes is an array; index it as classes[0].deadline (indices 0 to 1)"},
		{"classes.y.hedge.delay=1s", "classes.y", "index it as classes[1].hedge.delay"},
		{"classes.hedge.delay=1s", "classes.hedge", "index it as classes[0].hedge.delay"},
		// A name that is neither an index, an entry's name nor a key of an
		// entry: no such entry, the entries' names listed.
		{"classes.nosuch.deadline=1s", "classes.nosuch", `classes is an array with no entry named "nosuch"; its entries are "x" (classes[0]), "y" (classes[1])`},
		{"classes[0].hedge.targets.0=a", "classes[0].hedge.targets.0", "index it as classes[0].hedge.targets[0] (indices 0 to 0)"},
		{"noequals", "", "KEY=VALUE"},
		{"a..b=1", "", "empty name"},
		{"classes[x].name=1", "", "not an integer"},
		{"classes[0]=3", "classes[0]", "want a table"},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			_, err := ParseWith("w.toml", []byte(twoModels), &Options{Set: []string{tt.set}})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %T %v; want *Error", err, err)
			}
			if e.Set != "--set "+tt.set || e.Line != 0 || e.Key != tt.key || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got %v (set %q, line %d, key %q); want --set %s: %s: …%s…", err, e.Set, e.Line, e.Key, tt.set, tt.key, tt.msg)
			}
		})
	}
	// A problem the override did not cause keeps its file line.
	_, err := ParseWith("w.toml", []byte("seed = -2"+twoModels), &Options{Set: []string{"arrivals.rate=-1"}})
	var list Errors
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("got %v; want two problems", err)
	}
	if list[0].Key != "seed" || list[0].Line != 1 || list[1].Set == "" {
		t.Errorf("got %v", err)
	}
}

func TestScaleRate(t *testing.T) {
	s, err := ParseWith("w.toml", []byte(twoModels), &Options{Set: []string{"arrivals.rate=10"}, RateScale: 2.5})
	if err != nil {
		t.Fatal(err)
	}
	if s.Config.Arrivals.Rate != 25 {
		t.Errorf("rate %g; want 10 × 2.5", s.Config.Arrivals.Rate)
	}
	if got := s.Overrides[len(s.Overrides)-1]; got != "arrivals.rate=25 (--scale-rate 2.5)" {
		t.Errorf("override listed as %q", got)
	}
	for _, f := range []float64{-1, math.Inf(1), math.NaN()} {
		_, err := ParseWith("w.toml", []byte(twoModels), &Options{RateScale: f})
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Set, "--scale-rate") {
			t.Errorf("scale %g: got %v", f, err)
		}
	}
}

// TestScaleRateReplay: a replayed trace is sped up by dividing its
// time_scale, so arrival offsets shrink by the factor.
func TestScaleRateReplay(t *testing.T) {
	base, err := Load("../scenarios/llmperf-azure-chat.toml")
	if err != nil {
		t.Fatal(err)
	}
	fast, err := LoadWith("../scenarios/llmperf-azure-chat.toml", &Options{RateScale: 4})
	if err != nil {
		t.Fatal(err)
	}
	a, b := base.Config.Arrivals.Trace.Arrivals, fast.Config.Arrivals.Trace.Arrivals
	last := len(a) - 1
	if got, want := b[last], a[last]/4; got < want-time.Microsecond || got > want+time.Microsecond {
		t.Errorf("last arrival %v at 4× the rate; want %v", got, want)
	}
	if !strings.Contains(fast.Overrides[0], "arrivals.time_scale=0.25") {
		t.Errorf("override listed as %q", fast.Overrides)
	}
}

// TestRepeatedSet: one key given two values is refused naming both; the
// same value twice is listed once.
func TestRepeatedSet(t *testing.T) {
	_, err := ParseWith("w.toml", []byte(twoModels), &Options{Set: []string{"seed=4", "seed=5"}})
	var e *Error
	if !errors.As(err, &e) || e.Set != "--set seed=5" || e.Key != "seed" || !strings.Contains(e.Msg, "--set seed=4") {
		t.Errorf("got %v; want --set seed=5 refused naming --set seed=4", err)
	}
	s, err := ParseWith("w.toml", []byte(twoModels), &Options{Set: []string{"seed=4", "seed = 4"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"seed=4"}; !reflect.DeepEqual(s.Overrides, want) {
		t.Errorf("Overrides %q; want %q", s.Overrides, want)
	}
}

// TestRepeatedSetComparesValues: a key given the same value twice is
// taken once however the value is written — 100ms and 0.1s (and the
// quoted "0.1s") are one duration, 20 and 20.0 one number; they were
// refused as a contradiction, the values compared as text. Another
// duration is still refused naming both.
func TestRepeatedSetComparesValues(t *testing.T) {
	for _, set := range [][]string{
		{"classes[0].hedge.delay=100ms", "classes[0].hedge.delay=0.1s"},
		{"classes[0].hedge.delay=100ms", `classes[0].hedge.delay="0.1s"`},
		{"arrivals.rate=20", "arrivals.rate=20.0"},
	} {
		s, err := ParseWith("w.toml", []byte(twoModels), &Options{Set: set})
		if err != nil {
			t.Errorf("%q: %v; want the value taken once", set, err)
			continue
		}
		if want := []string{set[0]}; !reflect.DeepEqual(s.Overrides, want) {
			t.Errorf("%q: Overrides %q; want %q", set, s.Overrides, want)
		}
	}
	_, err := ParseWith("w.toml", []byte(twoModels), &Options{Set: []string{"classes[0].hedge.delay=100ms", "classes[0].hedge.delay=0.2s"}})
	var e *Error
	if !errors.As(err, &e) || e.Set != "--set classes[0].hedge.delay=0.2s" || !strings.Contains(e.Msg, "contradicts --set classes[0].hedge.delay=100ms") {
		t.Errorf("100ms then 0.2s: %v; want the second refused naming the first", err)
	}
}

// streamed is a valid scenario with a streamed model, a prefill speed, a
// breaker with a time window and input tokens.
const streamed = `
[arrivals]
rate = 10
[models.m]
ttft = { kind = "constant", value = 0.2 }
tokens_per_s = { kind = "constant", value = 50 }
prefill_tokens_per_s = { kind = "constant", value = 4000 }
breaker = { failure_ratio = 0.5, window_time = "10s", cooldown = "1s" }
[[classes]]
name = "short"
share = 1
input_tokens = { kind = "constant", value = 100 }
hedge = { primary = "m", delay = "1s" }
`

// TestOverrideErrorsNameTheOverride: a problem of a table whose value was
// set by an override, or of a file key that conflicts with an overridden
// key beside it, names the override, not only a line of the file.
func TestOverrideErrorsNameTheOverride(t *testing.T) {
	if _, err := ParseWith("s.toml", []byte(streamed), nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		set, key string
		line     int
		msg      string
	}{
		{"models.m.prefill_tokens_per_s.value=0", "models.m.prefill_tokens_per_s", 0, "> 0 with probability 1"},
		{"classes[0].input_tokens.value=-1", "classes[0].input_tokens", 0, "must stay ≥ 0"},
		{"models.m.ttft.value=-1", "models.m.ttft", 0, "must stay ≥ 0"},
		{"models.m.prefill_tokens_per_s.kind=uniform", "models.m.prefill_tokens_per_s.value", 7, `does not apply to kind "uniform"`},
		{"models.m.breaker.window=10", "models.m.breaker.window_time", 8, "exclusive"},
	} {
		_, err := ParseWith("s.toml", []byte(streamed), &Options{Set: []string{tt.set}})
		var e *Error
		if !errors.As(err, &e) || e.Set != "--set "+tt.set || e.Key != tt.key || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("--set %s: got %v; want s.toml:%d: --set %s: %s: …%s…", tt.set, err, tt.line, tt.set, tt.key, tt.msg)
		}
	}
	// An override at the top level does not claim another top-level key.
	_, err := ParseWith("s.toml", []byte("requests = 0"+streamed), &Options{Set: []string{"seed=3"}})
	var e *Error
	if !errors.As(err, &e) || e.Set != "" || e.Line != 1 {
		t.Errorf("got %v; want s.toml:1 without an override", err)
	}
}

// TestOverrideClientsKeepsArrivals: --set cannot remove a table, so turning
// every class of an open-loop file closed-loop leaves [arrivals] behind; the
// error names the override and says to edit a copy of the file.
func TestOverrideClientsKeepsArrivals(t *testing.T) {
	_, err := ParseWith("w.toml", []byte(twoModels), &Options{Set: []string{"classes[0].clients=5", "classes[1].clients=3"}})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err %v; want a scenario error", err)
	}
	msg := err.Error()
	for _, want := range []string{"classes[0].clients=5", "classes[1].clients=3", "--set cannot remove a table", "remove [arrivals] from a copy of the file"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

// TestOverrideTurnsHedgingOff: --set classes[1].hedge.max_copies=0 on a
// class whose file sets a delay is the what-if of no hedging for that
// class — the file's delay left unused, as in the no-hedging baseline —
// where it was refused ("remove delay (and max_copies)"), which --set
// cannot do. The other class keeps its hedge; a delay given by --set
// beside max_copies = 0 is still refused: it would have no effect.
func TestOverrideTurnsHedgingOff(t *testing.T) {
	s, err := ParseWith("w.toml", []byte(twoModels), &Options{Set: []string{"classes[1].hedge.max_copies=0"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Config.Classes[1].Policy; p.Copies != 0 {
		t.Errorf("classes[1] copies %d; want 0", p.Copies)
	}
	if p := s.Config.Classes[0].Policy; p.Copies != 1 || len(p.Delays) != 1 || p.Delays[0] != time.Second {
		t.Errorf("classes[0] policy %+v; want its 1s ×1 hedge", p)
	}
	_, err = ParseWith("w.toml", []byte(twoModels), &Options{Set: []string{"classes[1].hedge.max_copies=0", "classes[1].hedge.delay=1s"}})
	if err == nil || !strings.Contains(err.Error(), "0 copies, so delay has no effect") {
		t.Errorf("max_copies=0 with a delay set beside it: %v; want the no-effect error", err)
	}
}
