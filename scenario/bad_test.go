package scenario

import (
	"errors"
	"strings"
	"testing"
)

// minimal is the smallest valid scenario; bad cases below are variations.
const minimal = `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`

// parseBadCases are the inputs of TestParseBad, kept at package level so that
// the fuzz targets start from them too.
var parseBadCases = []struct {
	name string
	toml string
	line int
	key  string
	msg  string // a substring of Msg
}{
	// Syntax errors, located by the TOML parser.
	{"syntax missing value", `
[arrivals]
rate =
`, 3, "arrivals.rate", "expected value"},
	{"syntax duplicate key in second class", `
[[classes]]
name = "a"
[[classes]]
name = "b"
name = "c"
`, 6, "classes[1].name", "already defined on line 5"},
	{"syntax duplicate table", `
[arrivals]
rate = 1
[arrivals]
`, 4, "arrivals", "already defined on line 2"},
	{"syntax duplicate subtable names the subtable", `
[arrivals]
rate = 1
[models.a]
latency = { kind = "constant", value = 1 }
[models.a]
`, 6, "models.a", "already defined on line 4"},
	{"value then table", `
models = 3
[arrivals]
rate = 1
[providers.pb]
concurrency = 2
[models.a]
`, 7, "models", "already defined as a value on line 2; it cannot also be a table"},

	// Unknown and misspelled keys, anywhere.
	{"unknown top-level key", `
seeds = 3
` + minimal, 2, "seeds", `did you mean "seed"`},
	{"key differing only in case", `
[arrivals]
Rate = 1
`, 3, "arrivals.Rate", "case-sensitive"},
	{"unknown key in inline dist table", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", valeu = 1 }
`, 5, "models.m.latency.valeu", "unknown key"},
	{"unknown key in mixture component", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "mixture", weights = [1, 1], components = [
  { kind = "uniform", min = 0.1, max = 0.3 },
  { kind = "lognormal", median = 1, p95 = 4, sigmaa = 2 },
] }
`, 7, "models.m.latency.components[1].sigmaa", `did you mean "sigma"`},
	{"unknown key in second class", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "a"
share = 0.5
[[classes]]
name = "b"
share = 0.5
deadlin = "1s"
`, 12, "classes[1].deadlin", `did you mean "deadline"`},
	{"unknown key in hedge of second class", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "a"
share = 0.5
[classes.hedge]
delay = "1s"
[[classes]]
name = "b"
share = 0.5
[classes.hedge]
dealy = "1s"
`, 15, "classes[1].hedge.dealy", `did you mean "delay"`},
	{"unknown key in dotted key", `
[arrivals]
rate = 1
[models.m]
latency.kind = "constant"
latency.vlaue = 1
`, 6, "models.m.latency.vlaue", "unknown key"},
	{"unknown key in quoted model name", `
[arrivals]
rate = 1
[models."gpt-4.1"]
latency = { kind = "constant", value = 1 }
eror_rate = 0.1
`, 6, `models."gpt-4.1".eror_rate`, `did you mean "error_rate"`},

	// Wrong types.
	{"rate is a string", `
[arrivals]
rate = "fast"
`, 3, "arrivals.rate", `got string "fast"; want a number`},
	{"seed is a float", `
seed = 1.5
`, 2, "seed", "want an integer"},
	{"models is not a table", `
models = 3
`, 2, "models", "want a table"},
	{"classes is a table", `
[classes]
name = "c"
`, 2, "classes", "want an array"},
	{"targets is not an array", minimal + `[classes.hedge]
targets = "m"
`, 9, "classes[0].hedge.targets", "want an array"},
	{"duration as a bare integer", minimal + `deadline = 3
`, 8, "classes[0].deadline", "want a duration string"},
	{"duration without unit", minimal + `deadline = "3"
`, 8, "classes[0].deadline", "invalid duration"},
	{"slo of zero", minimal + `slo = "0s"
`, 8, "classes[0].slo", "want a latency target > 0"},
	{"slo past the deadline", minimal + `deadline = "2s"
slo = "2s"
`, 9, "classes[0].slo", "at or past the class's deadline 2s"},
	{"negative duration", minimal + `[classes.hedge]
delay = "1s"
cancel_latency = "-1s"
`, 10, "classes[0].hedge.cancel_latency", "negative"},
	{"negative deadline", minimal + `deadline = "-3s"
`, 8, "classes[0].deadline", "negative"},
	{"bad hedge delay", minimal + `[classes.hedge]
delays = [
  "1s",
  "soon",
]
`, 11, "classes[0].hedge.delays[1]", "fallback"},
	{"adaptive percentile as percent", minimal + `[classes.hedge]
delay = "1s"
[classes.hedge.adaptive]
percentile = 95
`, 11, "classes[0].hedge.adaptive.percentile", "(0, 1)"},
	{"adaptive source", minimal + `[classes.hedge]
delay = "1s"
adaptive = { percentile = 0.95, source = "everything" }
`, 10, "classes[0].hedge.adaptive.source", "primaries"},
	{"throttle missing ratio", minimal + `[classes.hedge]
delay = "1s"
budget = { retry_throttling = { max_tokens = 10 } }
`, 10, "classes[0].hedge.budget.retry_throttling", "token_ratio"},
	{"hedge share above 1", minimal + `[classes.hedge]
delay = "1s"
[classes.hedge.budget]
max_hedge_share = 1.5
`, 11, "classes[0].hedge.budget.max_hedge_share", "[0, 1]"},
	{"burst without rate", minimal + `[classes.hedge]
delay = "1s"
budget = { burst = 5 }
`, 10, "classes[0].hedge.budget.burst", "hedges_per_second"},
	{"new provider without targets", minimal + `[classes.hedge]
delay = "1s"
new_provider = true
`, 10, "classes[0].hedge.new_provider", "targets"},
	{"on_rate_limited value", minimal + `[classes.hedge]
delay = "1s"
on_rate_limited = "retry"
`, 10, "classes[0].hedge.on_rate_limited", "nonfatal"},

	// Ranges.
	{"seed negative", `
seed = -1
` + minimal, 2, "seed", "negative"},
	{"requests zero", `
requests = 0
` + minimal, 2, "requests", "[1, 50000000]"},
	{"requests too many", `
requests = 99999999999999
` + minimal, 2, "requests", "[1, 50000000]"},
	{"rate too low for the requests", `
requests = 1000000
[arrivals]
rate = 1e-6
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`, 4, "arrivals.rate", "100 years"},
	{"price too high", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
price_per_request = 1e308
[[classes]]
name = "c"
`, 6, "models.m.price_per_request", "[0, 1e+06]"},
	{"class named overall", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "overall"
`, 7, "classes[0].name", "all-classes row"},
	{"blank class name", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "   "
`, 7, "classes[0].name", "blank"},
	{"degraded period too short", `
[arrivals]
rate = 1
[providers.p]
degraded = { mean_normal = "1ns", mean_degraded = "1s", slowdown = 2 }
[models.m]
provider = "p"
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`, 5, "providers.p.degraded.mean_normal", "≥ 10ms"},
	{"slowdown too large", `
[arrivals]
rate = 1
[providers.p]
degraded = { mean_normal = "1m", mean_degraded = "1s", slowdown = 1e10 }
[models.m]
provider = "p"
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`, 5, "providers.p.degraded.slowdown", "[1, 1e+06]"},
	{"adaptive without a timed delay", minimal + `[classes.hedge]
adaptive = { percentile = 0.9 }
`, 9, "classes[0].hedge.adaptive", "delay"},
	{"rate zero", `
[arrivals]
rate = 0.0
`, 3, "arrivals.rate", "> 0"},
	{"error rate above 1", minimal[:len(minimal)-len("[[classes]]\nname = \"c\"\n")] + `error_rate = 1.5
`, 6, "models.m.error_rate", "[0, 1]"},
	{"invalid rate negative", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
invalid_rate = -0.1
`, 6, "models.m.invalid_rate", "probability"},
	{"negative price", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
price_output_per_mtok = -2
`, 6, "models.m.price_output_per_mtok", "[0, 1e+06]"},
	{"share zero", minimal + `share = 0
`, 8, "classes[0].share", "(0, 1]"},
	{"max copies too large", minimal + `[classes.hedge]
delay = "1s"
max_copies = 8
`, 10, "classes[0].hedge.max_copies", "out of range"},
	{"max copies negative", minimal + `[classes.hedge]
delay = "1s"
max_copies = -1
`, 10, "classes[0].hedge.max_copies", "out of range"},

	// Enumerations.
	{"unknown process", `
[arrivals]
process = "burst"
rate = 1
`, 3, "arrivals.process", `"poisson", "constant"`},
	{"unknown on_timeout", minimal + `on_timeout = "fail"
`, 8, "classes[0].on_timeout", `"fail_open", "fail_closed"`},
	{"unknown winner", minimal + `[classes.hedge]
winner = "fastest"
`, 9, "classes[0].hedge.winner", `"first_valid", "first_token", "first_response"`},
	{"unknown on_error", minimal + `[classes.hedge]
on_error = "retry"
`, 9, "classes[0].hedge.on_error", `"fatal", "nonfatal", "ignore"`},
	{"unknown on_invalid", minimal + `[classes.hedge]
on_invalid = "Fatal"
`, 9, "classes[0].hedge.on_invalid", "unknown value"},
	{"unknown cancel_billing", minimal + `[classes.hedge]
cancel_billing = "partial"
`, 9, "classes[0].hedge.cancel_billing", `"none", "input", "generated", "full"`},

	// References and combinations.
	{"undefined primary", `
[arrivals]
rate = 1
[models.guard]
latency = { kind = "constant", value = 1 }
[models.judge]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
[classes.hedge]
primary = "gpt"
`, 11, "classes[0].hedge.primary", `model "gpt" is not defined; defined models: guard, judge`},
	{"undefined target", minimal + `[classes.hedge]
targets = ["m", "n"]
`, 9, "classes[0].hedge.targets[1]", `model "n" is not defined`},
	{"several models and no primary", `
[arrivals]
rate = 1
[models.a]
latency = { kind = "constant", value = 1 }
[models.b]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`, 8, "classes[0].hedge.primary", "must name its primary"},
	{"several models and a step without its primary names the step's table", `
[arrivals]
rate = 1
[models.a]
latency = { kind = "constant", value = 1 }
[models.b]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
[[classes.steps]]
name = "first"
[classes.steps.hedge]
primary = "a"
[[classes.steps]]
name = "second"
[classes.steps.hedge]
delay = "1s"
`, 16, "classes[0].steps[1].hedge.primary", `step "second" must name its primary model in [classes.steps.hedge] primary`},
	{"a step's retry counts against a budget it lacks names the step's table", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
[[classes.steps]]
name = "only"
[classes.steps.retry]
max_attempts = 2
counts_against_budget = true
`, 12, "classes[0].steps[0].retry.counts_against_budget", `step "only" has no hedge budget ([classes.steps.hedge.budget])`},
	{"delay and delays", minimal + `[classes.hedge]
delay = "1s"
delays = ["1s"]
`, 10, "classes[0].hedge.delays", "exclusive"},
	{"empty delays", minimal + `[classes.hedge]
delays = []
`, 9, "classes[0].hedge.delays", "empty"},
	{"copies without delay", minimal + `[classes.hedge]
max_copies = 2
`, 9, "classes[0].hedge.max_copies", "no delay"},
	{"duplicate class name", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
share = 0.5
[[classes]]
name = "c"
share = 0.5
`, 10, "classes[1].name", "duplicate class name"},
	{"missing class name", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
share = 1
`, 6, "classes[0].name", "missing"},
	{"shares do not sum to 1", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "a"
share = 0.5
[[classes]]
name = "b"
share = 0.4
`, 6, "classes", "sum to 0.9 (0.5 + 0.4)"},
	{"share omitted with two classes", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "a"
share = 0.5
[[classes]]
name = "b"
`, 9, "classes[1].share", "single class"},

	// Missing sections; a missing table has no line.
	{"no arrivals", `
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`, 0, "arrivals", "missing"},
	{"no rate", `
[arrivals]
process = "constant"
`, 2, "arrivals.rate", "missing"},
	{"no models", `
[arrivals]
rate = 1
[[classes]]
name = "c"
`, 0, "models", "no models"},
	{"no classes", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
`, 0, "classes", "no classes"},

	// Model latency forms and distributions.
	{"no latency", `
[arrivals]
rate = 1
[models.m]
error_rate = 0.1
`, 4, "models.m", "no latency"},
	{"latency and ttft", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
ttft = { kind = "constant", value = 1 }
tokens_per_s = { kind = "constant", value = 50 }
`, 6, "models.m.ttft", "exclusive"},
	{"ttft without tokens_per_s", `
[arrivals]
rate = 1
[models.m]
ttft = { kind = "constant", value = 1 }
`, 5, "models.m.ttft", "needs tokens_per_s"},
	{"dist spec error", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "lognormal", mu = 0, sigma = -1 }
`, 5, "models.m.latency.sigma", "-1"},
	{"dist spec error in component", `
[arrivals]
rate = 1
[models.m.latency]
kind = "mixture"
weights = [0.5, 0.5]
components = [
  { kind = "uniform", min = 0.1, max = 0.3 },
  { kind = "uniform", min = 19, max = 3 },
]
`, 9, "models.m.latency.components[1].min", "< max"},
	{"dist spec missing kind", `
[arrivals]
rate = 1
[models.m]
latency = { value = 1 }
`, 5, "models.m.latency.kind", "missing"},
	{"latency support below 0", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "uniform", min = -1, max = 1 }
`, 5, "models.m.latency", "≥ 0"},
	{"error latency support below 0", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
error_latency = { kind = "constant", value = -0.5 }
`, 6, "models.m.error_latency", "≥ 0"},
	{"tokens_per_s can be 0", `
[arrivals]
rate = 1
[models.m]
ttft = { kind = "constant", value = 1 }
tokens_per_s = { kind = "mixture", weights = [0.1, 0.9], components = [{ kind = "constant", value = 0 }, { kind = "uniform", min = 10, max = 50 }] }
`, 6, "models.m.tokens_per_s", "> 0"},
	{"prefill_tokens_per_s can be 0", `
[arrivals]
rate = 1
[models.m]
ttft = { kind = "constant", value = 0.2 }
tokens_per_s = { kind = "constant", value = 50 }
prefill_tokens_per_s = { kind = "mixture", weights = [0.1, 0.9], components = [{ kind = "constant", value = 0 }, { kind = "constant", value = 4000 }] }
`, 7, "models.m.prefill_tokens_per_s", "> 0 with probability 1"},
	{"prefill_tokens_per_s uniform from 0", `
[arrivals]
rate = 1
[models.m]
ttft = { kind = "constant", value = 0.2 }
tokens_per_s = { kind = "constant", value = 50 }
prefill_tokens_per_s = { kind = "uniform", min = 0.0, max = 8000.0 }
`, 7, "models.m.prefill_tokens_per_s", "uniform with min = 0 has E[1/speed] = ∞"},
	{"tokens_per_s exponential", `
[arrivals]
rate = 1
[models.m]
ttft = { kind = "constant", value = 0.2 }
tokens_per_s = { kind = "exponential", rate = 0.02 }
`, 6, "models.m.tokens_per_s", "exponential has E[1/speed] = ∞"},
	{"tokens_per_s gamma shape 1", `
[arrivals]
rate = 1
[models.m]
ttft = { kind = "constant", value = 0.2 }
tokens_per_s = { kind = "gamma", alpha = 1.0, rate = 0.02 }
`, 6, "models.m.tokens_per_s", "gamma with shape 1 ≤ 1"},
	{"prefill_tokens_per_s mixture with a weibull part", `
[arrivals]
rate = 1
[models.m]
ttft = { kind = "constant", value = 0.2 }
tokens_per_s = { kind = "constant", value = 50 }
prefill_tokens_per_s = { kind = "mixture", weights = [0.5, 0.5], components = [{ kind = "weibull", k = 0.8, lambda = 4000.0 }, { kind = "lognormal", median = 4000.0, p95 = 8000.0 }] }
`, 7, "models.m.prefill_tokens_per_s", "component 1: weibull with shape 0.8"},
	{"prefill_tokens_per_s negative", `
[arrivals]
rate = 1
[models.m]
ttft = { kind = "constant", value = 0.2 }
tokens_per_s = { kind = "constant", value = 50 }
prefill_tokens_per_s = { kind = "constant", value = -3000 }
`, 7, "models.m.prefill_tokens_per_s", "-3000 tokens/s"},
	{"prefill_tokens_per_s bad spec", `
[arrivals]
rate = 1
[models.m]
ttft = { kind = "constant", value = 0.2 }
tokens_per_s = { kind = "constant", value = 50 }
prefill_tokens_per_s = { kind = "lognormal", median = 3000 }
`, 7, "models.m.prefill_tokens_per_s.p95", "missing"},
	{"prefill_tokens_per_s with latency", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
prefill_tokens_per_s = { kind = "constant", value = 3000 }
`, 6, "models.m.prefill_tokens_per_s", "needs the streamed form"},
	{"token count below 0", minimal + `output_tokens = { kind = "uniform", min = -5, max = 5 }
`, 8, "classes[0].output_tokens", "≥ 0"},
	{"negative delay", minimal + `[classes.hedge]
delay = "-1s"
`, 9, "classes[0].hedge.delay", `write "fallback"`},
	{"delay with no copies", minimal + `[classes.hedge]
delay = "1s"
max_copies = 0
`, 10, "classes[0].hedge.max_copies", "delay has no effect"},
	{"delay at the deadline", minimal + `deadline = "2s"
[classes.hedge]
delay = "2s"
`, 10, "classes[0].hedge.delay", "at or past the class's deadline 2s"},
	{"later gap past the deadline", minimal + `deadline = "2s"
[classes.hedge]
delays = ["500ms", "3s"]
`, 10, "classes[0].hedge.delays[1]", "can never go out"},
	{"rate limit of zero", `
[arrivals]
rate = 1
[providers.p]
rate_limit = { requests_per_minute = 0, tokens_per_minute = 0 }
[models.m]
provider = "p"
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`, 5, "providers.p.rate_limit", "at least one > 0"},
	{"queue limit without concurrency", `
[arrivals]
rate = 1
[providers.p]
queue_limit = 3
[models.m]
provider = "p"
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`, 5, "providers.p.queue_limit", "needs concurrency"},
	{"queue limit negative", `
[arrivals]
rate = 1
[providers.p]
concurrency = 2
queue_limit = -1
[models.m]
provider = "p"
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`, 6, "providers.p.queue_limit", "want an integer in [0, 2147483647]"},
	{"cancel value", `
[arrivals]
rate = 1
[providers.p]
cancel = "ignored"
[models.m]
provider = "p"
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`, 5, "providers.p.cancel", `allowed: "stops_work", "none"`},
	{"empty scenario name", `
name = ""
`, 2, "name", "empty"},
}

// TestParseBad checks that each kind of mistake is reported as an *Error
// on the right line, with the full key path and a message that says what
// is wrong. Lines are 1-based; each file starts with a newline, so the
// first key is on line 2.
func TestParseBad(t *testing.T) {
	tests := parseBadCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(tt.toml))
			if err == nil {
				t.Fatalf("no error; want %d: %s: …%s…", tt.line, tt.key, tt.msg)
			}
			t.Log(err)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, not a *scenario.Error", err, err)
			}
			if e.File != "bad.toml" || e.Line != tt.line || e.Key != tt.key || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got  %v\nwant bad.toml:%d: %s: …%s…", err, tt.line, tt.key, tt.msg)
			}
		})
	}
}
