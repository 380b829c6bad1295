package scenario

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// The structs below mirror the file format one TOML table each; bind fills
// them from the parsed document, matching keys by their exact toml tag. A
// pointer field is nil when its key is absent, so defaults can be told from
// explicit values. To add a table (say [optimize]), add a struct here, a
// field to fileTable, and a build step in validate.go.

// fileTable is the root of a scenario file.
type fileTable struct {
	Name     *string               `toml:"name"`
	Seed     *int64                `toml:"seed"`
	Requests *int64                `toml:"requests"`
	Arrivals *arrivalsTable        `toml:"arrivals"`
	Models   map[string]modelTable `toml:"models"`
	Classes  []classTable          `toml:"classes"`
	// Providers and Correlation: see providers.go.
	Providers   map[string]providerTable `toml:"providers"`
	Correlation *correlationTable        `toml:"correlation"`
	// Optimize: see optimize.go.
	Optimize *optimizeTable `toml:"optimize"`
}

// arrivalsTable is [arrivals].
type arrivalsTable struct {
	Process *string  `toml:"process"`
	Rate    *float64 `toml:"rate"`
	// Trace, Format and TimeScale: process = "replay", see replay.go.
	Trace     *string  `toml:"trace"`
	Format    *string  `toml:"format"`
	TimeScale *float64 `toml:"time_scale"`
}

// modelTable is one [models.NAME] table.
type modelTable struct {
	Provider           *string         `toml:"provider"`
	Latency            *dist.Spec      `toml:"latency"`
	TTFT               *dist.Spec      `toml:"ttft"`
	TokensPerSecond    *dist.Spec      `toml:"tokens_per_s"`
	PrefillPerSecond   *dist.Spec      `toml:"prefill_tokens_per_s"`
	ErrorLatency       *dist.Spec      `toml:"error_latency"`
	ErrorRate          *float64        `toml:"error_rate"`
	InvalidRate        *float64        `toml:"invalid_rate"`
	PriceInputPerMTok  *float64        `toml:"price_input_per_mtok"`
	PriceOutputPerMTok *float64        `toml:"price_output_per_mtok"`
	PricePerRequest    *float64        `toml:"price_per_request"`
	RateLimit          *rateLimitTable `toml:"rate_limit"`
	// Failures splits failures by kind; see failures.go.
	Failures *failuresTable `toml:"failures"`
	// Breaker is a circuit breaker on the model; see breaker.go.
	Breaker *breakerTable `toml:"breaker"`
	// Stalls pauses some streams; see stalls.go.
	Stalls *stallsTable `toml:"stalls"`
}

// classTable is one [[classes]] entry.
type classTable struct {
	Name         *string     `toml:"name"`
	Share        *float64    `toml:"share"`
	InputTokens  *dist.Spec  `toml:"input_tokens"`
	OutputTokens *dist.Spec  `toml:"output_tokens"`
	Deadline     *Duration   `toml:"deadline"`
	OnTimeout    *string     `toml:"on_timeout"`
	Hedge        *hedgeTable `toml:"hedge"`
	// Match assigns replayed requests to the class; see replay.go.
	Match *matchTable `toml:"match"`
	// Clients and ThinkTime make the class closed-loop; see clients.go.
	Clients   *int64     `toml:"clients"`
	ThinkTime *thinkTime `toml:"think_time"`
	// Retry and AttemptRetry are the retries around and inside hedging;
	// see retry.go.
	Retry        *retryTable `toml:"retry"`
	AttemptRetry *retryTable `toml:"attempt_retry"`
	// Steps make the class a pipeline of calls; see pipeline.go.
	Steps []stepTable `toml:"steps"`
}

// hedgeTable is a class's [classes.hedge] table.
type hedgeTable struct {
	Primary       *string      `toml:"primary"`
	Targets       []string     `toml:"targets"`
	Delay         *HedgeDelay  `toml:"delay"`
	Delays        []HedgeDelay `toml:"delays"`
	MaxCopies     *int64       `toml:"max_copies"`
	Winner        *string      `toml:"winner"`
	OnError       *string      `toml:"on_error"`
	OnInvalid     *string      `toml:"on_invalid"`
	CancelLatency *Duration    `toml:"cancel_latency"`
	CancelBilling *string      `toml:"cancel_billing"`
	// Policy settings beyond delays and targets: see policy.go.
	OnRateLimited     *string        `toml:"on_rate_limited"`
	OnAttemptTimeout  *string        `toml:"on_attempt_timeout"`
	OnClientError     *string        `toml:"on_client_error"`
	OnUpstreamTimeout *string        `toml:"on_upstream_timeout"`
	AttemptTimeout    *Duration      `toml:"attempt_timeout"`
	NewProvider       *bool          `toml:"new_provider"`
	Adaptive          *adaptiveTable `toml:"adaptive"`
	Budget            *budgetTable   `toml:"budget"`
	// Stream cuts: see stalls.go.
	InterTokenTimeout  *Duration `toml:"inter_token_timeout"`
	MinTokensPerSecond *float64  `toml:"min_tokens_per_s"`
	SpeedWindow        *Duration `toml:"speed_window"`
	OnStall            *string   `toml:"on_stall"`
}

// Duration is a non-negative time span written in a scenario file as a
// string that time.ParseDuration accepts, such as "750ms", "1.5s" or "2m".
// A bare number is rejected: BurntSushi/toml would read an integer as
// nanoseconds, which is never what a scenario author means.
type Duration time.Duration

// UnmarshalTOML implements toml.Unmarshaler: v must be a duration string.
func (d *Duration) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("got %s; want a duration string with a unit, such as \"750ms\" or \"3s\"", describe(v))
	}
	return d.UnmarshalText([]byte(s))
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(text []byte) error {
	s := string(text)
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %q; want a number with a unit (ns, us, ms, s, m, h), such as \"750ms\" or \"3s\"", s)
	}
	if v < 0 {
		return fmt.Errorf("negative duration %q; want ≥ 0", s)
	}
	*d = Duration(v)
	return nil
}

// String returns the duration in time.Duration notation.
func (d Duration) String() string { return time.Duration(d).String() }

// Span is a duration that must be > 0 (a window, a cool-down, a bucket's
// depth). It decodes like Duration but lets a negative value through, so
// that the validator gives one message, "want a duration > 0", for "-1s"
// and "0s" alike.
type Span Duration

// UnmarshalTOML implements toml.Unmarshaler: v must be a duration string.
func (d *Span) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("got %s; want a duration string with a unit, such as \"30s\"", describe(v))
	}
	return d.UnmarshalText([]byte(s))
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Span) UnmarshalText(text []byte) error {
	s := string(text)
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %q; want a number with a unit (ns, us, ms, s, m, h), such as \"30s\"", s)
	}
	*d = Span(v)
	return nil
}

// String returns the duration in time.Duration notation.
func (d Span) String() string { return time.Duration(d).String() }

// describe names the TOML type of a decoded value, followed by the value
// itself when it is a scalar, for error messages: `string "fast"`, `integer 3`.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		return "string " + strconv.Quote(v)
	case int64:
		return "integer " + strconv.FormatInt(v, 10)
	case float64:
		return "float " + strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case time.Time:
		return "date-time " + v.Format(time.RFC3339Nano)
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", v)
}
