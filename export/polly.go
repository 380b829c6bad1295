package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// .NET's standard HTTP hedging handler (Microsoft.Extensions.Http.Resilience,
// AddStandardHedgingHandler; HttpStandardHedgingResilienceOptions over Polly
// v8's hedging strategy). Its options validator requires Endpoint.Timeout ≤
// TotalRequestTimeout, CircuitBreaker.SamplingDuration ≥ 2 × Endpoint.Timeout
// and MaxHedgedAttempts × Delay ≤ TotalRequestTimeout; Polly's
// MaxHedgedAttempts counts copies beyond the original, in [1, 10], a Delay of
// 0 sends them at once and InfiniteTimeSpan (−1 ms) hedges only after a
// failure. Timeouts lie in [10 ms, 1 day].

// PollyOptions is one class's section: HttpStandardHedgingResilienceOptions
// with the keys the library documents, plus Routing
// (OrderedGroupsRoutingOptions) when copies go to another model.
type PollyOptions struct {
	TotalRequestTimeout PollyTimeout  `json:"TotalRequestTimeout"`
	Hedging             PollyHedging  `json:"Hedging"`
	Endpoint            PollyEndpoint `json:"Endpoint"`
	Routing             *PollyRouting `json:"Routing,omitempty"`
}

// PollyTimeout is HttpTimeoutStrategyOptions: Timeout as a .NET TimeSpan
// ("00:00:03", "00:00:00.7000000").
type PollyTimeout struct {
	Timeout string `json:"Timeout"`
}

// PollyHedging is HttpHedgingStrategyOptions.
type PollyHedging struct {
	MaxHedgedAttempts int    `json:"MaxHedgedAttempts"`
	Delay             string `json:"Delay"`
}

// PollyEndpoint is HedgingEndpointOptions (the per-endpoint attempt
// timeout, and the circuit breaker's sampling duration when the attempt
// timeout needs a longer one than its 30 s default).
type PollyEndpoint struct {
	Timeout        PollyTimeout         `json:"Timeout"`
	CircuitBreaker *PollyCircuitBreaker `json:"CircuitBreaker,omitempty"`
}

// PollyCircuitBreaker is the part of HttpCircuitBreakerStrategyOptions
// written.
type PollyCircuitBreaker struct {
	FailureRatio      float64 `json:"FailureRatio,omitempty"`
	MinimumThroughput int     `json:"MinimumThroughput,omitempty"`
	SamplingDuration  string  `json:"SamplingDuration"`
	BreakDuration     string  `json:"BreakDuration,omitempty"`
}

// PollyRouting is OrderedGroupsRoutingOptions: attempt k goes to group k.
type PollyRouting struct {
	Groups []PollyGroup `json:"Groups"`
}

// PollyGroup is an endpoint group (UriEndpointGroup).
type PollyGroup struct {
	Endpoints []PollyEndpointURI `json:"Endpoints"`
}

// PollyEndpointURI is a WeightedUriEndpoint.
type PollyEndpointURI struct {
	URI string `json:"Uri"`
}

// Polly's limits.
const (
	pollyMaxTimeout      = 24 * time.Hour
	pollyMinTimeout      = 10 * time.Millisecond
	pollyDefaultSampling = 30 * time.Second
	pollyMaxHedged       = 10
)

// PollySection is the configuration section the polly format writes the
// classes under ("HedgingHandlers:CLASS").
const PollySection = "HedgingHandlers"

func writePolly(d *Document, opt Options) ([]byte, []Note, error) {
	var all []Note
	sections := map[string]PollyOptions{}
	for i := range d.Classes {
		c := &d.Classes[i]
		n := &notes{class: c.Class}
		retryNotes(n, c, "Polly")
		poolNotes(n, c, c, "Polly", "its hedges rotate across Routing's endpoint groups, so list the pool's replicas as endpoints, one per group, for copies to go to other replicas, or send them through a router that does")
		statusRuleNotes(n, c, "Polly", "the default ShouldHandle handles 408 and 5xx (504 included) as it handles errors", "the default ShouldHandle does not handle a 4xx other than 408 and 429: its response ends the call")
		if c.Adaptive != nil {
			return nil, nil, &UnmappableError{"polly", c.Class, "an adaptive delay (a percentile of recent latencies) is a DelayGenerator in code, not a setting; export an optimize report's fixed-delay pick instead"}
		}
		if f := c.fallbacks(); f > 0 && f < len(c.Copies) {
			return nil, nil, &UnmappableError{"polly", c.Class, "Polly's one Delay cannot mix timed copies with copies sent only after a failure"}
		}
		if err := faithful("polly", n, c, opt); err != nil {
			return nil, nil, err
		}
		total := c.Deadline.D()
		if total == 0 {
			total = pollyMaxTimeout
			n.add("no deadline: TotalRequestTimeout is %s, the longest Polly allows", pollyTimeSpan(total))
		}
		if total < pollyMinTimeout {
			return nil, nil, &UnmappableError{"polly", c.Class, fmt.Sprintf("the deadline %s is below Polly's shortest timeout, %s", fdur(total), fdur(pollyMinTimeout))}
		}
		if c.Deadline > 0 && c.OnTimeout == "fail_open" {
			n.add("at the deadline the call throws a TimeoutRejectedException: failing open is the caller's handling of it")
		}
		total = min(total, pollyMaxTimeout)
		attempt := total
		if c.AttemptTimeout > 0 {
			attempt = min(max(c.AttemptTimeout.D(), pollyMinTimeout), total)
		}
		o := PollyOptions{
			TotalRequestTimeout: PollyTimeout{pollyTimeSpan(total)},
			Endpoint:            PollyEndpoint{Timeout: PollyTimeout{pollyTimeSpan(attempt)}},
		}
		if 2*attempt > pollyMaxTimeout {
			was := attempt
			attempt = pollyMaxTimeout / 2
			o.Endpoint.Timeout.Timeout = pollyTimeSpan(attempt)
			if c.AttemptTimeout > 0 {
				n.add("the attempt timeout %s is written as Endpoint.Timeout %s: the circuit breaker's sampling duration (at most 1 day) must be twice the attempt timeout", fdur(was), pollyTimeSpan(attempt))
			} else {
				n.add("no attempt timeout: Polly always has one (Endpoint.Timeout, 10 s by default), so Endpoint.Timeout is written as %s, the longest the circuit breaker allows (its sampling duration, at most 1 day, must be twice the attempt timeout)", pollyTimeSpan(attempt))
			}
		}
		o.Endpoint.CircuitBreaker = pollyBreaker(n, c, attempt)
		copies, delay := len(c.Copies), time.Duration(0)
		switch {
		case !c.Hedge:
			copies, delay = 1, -time.Millisecond
			n.add("the standard hedging handler always hedges (MaxHedgedAttempts ≥ 1): hedging off written as one copy only after a handled failure (Delay -1 ms, fallback mode); use AddStandardResilienceHandler instead to turn it off entirely%s", reasonSuffix(c.Reason))
		case c.fallbacks() > 0:
			delay = -time.Millisecond
		default:
			delay = firstDelay(c)
			if delay > 0 && time.Duration(copies)*delay > total {
				fit := int(total / delay)
				if fit == 0 {
					copies, delay = 1, -time.Millisecond
					n.add("the delay %s is not before the deadline %s, so no copy can go out in time: written as fallback mode (Delay -1 ms)", fdur(delay), fdur(total))
				} else {
					n.add("Polly requires MaxHedgedAttempts × Delay ≤ TotalRequestTimeout: wrote %d copies instead of %d (later ones would go out after the deadline)", fit, copies)
					copies = fit
				}
			}
		}
		if copies > pollyMaxHedged {
			copies = pollyMaxHedged
		}
		o.Hedging = PollyHedging{MaxHedgedAttempts: copies, Delay: pollyTimeSpan(delay)}
		if c.Hedge {
			if ts := c.otherTargets(); len(ts) > 0 {
				o.Routing = &PollyRouting{Groups: []PollyGroup{pollyGroup(c.Primary)}}
				for _, cp := range c.Copies {
					o.Routing.Groups = append(o.Routing.Groups, pollyGroup(cp.Target))
				}
				n.add("copies go to other endpoints through ordered endpoint groups (Routing): the URIs are placeholders, one group per attempt")
			}
			if c.NewProvider {
				n.add("\"a provider not tried yet\" not written: ordered groups send attempt k to group k")
			}
			pollyRuleNotes(n, c)
			b := &c.Budget
			if b.MaxHedgeShare > 0 || b.RetryThrottling != nil || b.MaxInFlightRatio > 0 || b.MinInFlight > 0 || b.HedgesPerSecond > 0 || b.MaxParallel > 0 {
				n.add("Polly's hedging has no hedge budget: the class's budget is not written (the per-endpoint RateLimiter limits every attempt, not copies)")
			}
			commonNotes(n, c, "Polly")
		}
		sections[c.Class] = o
		all = append(all, n.list...)
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	// Classes in document order (a map would sort them).
	var obj bytes.Buffer
	obj.WriteString("{\n  \"" + PollySection + "\": {\n")
	for i := range d.Classes {
		body.Reset()
		if err := enc.Encode(sections[d.Classes[i].Class]); err != nil {
			return nil, nil, err
		}
		key := jsonQuote(d.Classes[i].Class)
		inner := strings.ReplaceAll(strings.TrimSuffix(body.String(), "\n"), "\n", "\n    ")
		fmt.Fprintf(&obj, "    %s: %s", key, inner)
		if i < len(d.Classes)-1 {
			obj.WriteString(",")
		}
		obj.WriteString("\n")
	}
	obj.WriteString("  }\n}\n")

	var out strings.Builder
	fmt.Fprintf(&out, "// appsettings.json section for .NET's standard HTTP hedging handler (Microsoft.Extensions.Http.Resilience):\n")
	fmt.Fprintf(&out, "// hedge policies of %s (%s). Bind one class's section:\n", commentText(d.Scenario), sourceText(d.Source))
	fmt.Fprintf(&out, "//   var section = builder.Configuration.GetSection(\"%s:CLASS\");\n", PollySection)
	out.WriteString("//   var hedging = services.AddHttpClient(\"CLASS\").AddStandardHedgingHandler(r => r.ConfigureOrderedGroups(section.GetSection(\"Routing\")));\n")
	out.WriteString("//   hedging.Configure(section);  // ConfigureOrderedGroups only where a class has Routing\n")
	out.WriteString("// .NET's JSON configuration reader skips these comments; strip them for stricter readers.\n")
	var sb strings.Builder
	writeComments(&sb, "// ", all)
	out.WriteString(sb.String())
	out.Write(jsonEscape(obj.Bytes()))
	return []byte(out.String()), all, nil
}

func pollyGroup(model string) PollyGroup {
	return PollyGroup{Endpoints: []PollyEndpointURI{{URI: "https://" + model + ".example"}}}
}

// pollyRuleNotes says what the handler's default ShouldHandle does with
// the class's error and winner rules: it hedges at once on transient
// failures (5xx, 408, 429, HttpRequestException, attempt timeouts) and
// takes any other response as final.
func pollyRuleNotes(n *notes, c *Class) {
	var fatal []string
	if c.OnError == "fatal" {
		fatal = append(fatal, "errors")
	}
	if c.OnRateLimited == "fatal" {
		fatal = append(fatal, "429s")
	}
	if len(fatal) > 0 && c.Winner != "first_response" {
		n.add("the default ShouldHandle hedges at once on 5xx, 408 and 429: fatal %s need a ShouldHandle predicate in code", strings.Join(fatal, " and "))
	}
	for _, r := range []struct{ rule, what string }{{c.OnError, "errors"}, {c.OnRateLimited, "429s"}} {
		if r.rule == "ignore" {
			n.add("Polly sends the next copy at once after a handled failure: ignored %s behave as non-fatal", r.what)
		}
	}
	switch c.Winner {
	case "first_valid":
		n.add("any response ShouldHandle does not handle wins: checking the body (first valid answer) needs a ShouldHandle predicate in code")
	case "first_response":
		n.add("first_response (any response wins) needs ShouldHandle = _ => false in code; the default hedges on transient failures")
	}
}

// pollyTimeSpan formats d as a .NET TimeSpan in its constant ("c") format,
// [-][d.]hh:mm:ss[.fffffff].
func pollyTimeSpan(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	h, m, s := d/time.Hour, d%time.Hour/time.Minute, d%time.Minute/time.Second
	ticks := d % time.Second / 100 // .NET ticks are 100 ns
	out := sign
	if days > 0 {
		out += fmt.Sprintf("%d.", days)
	}
	out += fmt.Sprintf("%02d:%02d:%02d", h, m, s)
	if ticks > 0 {
		out += fmt.Sprintf(".%07d", ticks)
	}
	return out
}

// Polly's circuit breaker defaults and limits
// (HttpCircuitBreakerStrategyOptions in the standard hedging handler's
// Endpoint options).
const (
	pollyDefaultRatio      = 0.1
	pollyDefaultThroughput = 100
	pollyDefaultBreak      = 5 * time.Second
	pollyMinBreak          = 500 * time.Millisecond
	pollyMinThroughput     = 2
)

// pollyBreaker returns the Endpoint.CircuitBreaker options for c, or nil
// when Polly's defaults stand, noting what does not map. The standard
// hedging handler always has a breaker per endpoint, and its sampling
// duration must be at least twice the attempt timeout.
func pollyBreaker(n *notes, c *Class, attempt time.Duration) *PollyCircuitBreaker {
	var b *Breaker
	for i := range c.Breakers {
		if slices.Contains(c.Breakers[i].Models, c.Primary) && b == nil {
			b = &c.Breakers[i]
			continue
		}
		n.add("%s not written: Polly's standard hedging handler gives every endpoint a breaker with the same options, written from the primary's", &c.Breakers[i])
	}
	minSampling := 2 * attempt
	if b == nil {
		n.add("no circuit breaker in the scenario, but Polly's standard hedging handler always has one per endpoint (it cannot be switched off there): its defaults stand, FailureRatio %g, MinimumThroughput %d, BreakDuration %s, SamplingDuration %s",
			pollyDefaultRatio, pollyDefaultThroughput, pollyTimeSpan(pollyDefaultBreak), pollyTimeSpan(max(pollyDefaultSampling, minSampling)))
		if minSampling > pollyDefaultSampling {
			return &PollyCircuitBreaker{SamplingDuration: pollyTimeSpan(minSampling)}
		}
		return nil
	}
	var bare []string // targets the scenario gives no breaker
	for _, t := range c.otherTargets() {
		if !slices.ContainsFunc(c.Breakers, func(x Breaker) bool { return slices.Contains(x.Models, t) }) {
			bare = append(bare, t)
		}
	}
	if len(bare) > 0 {
		n.add("%s: Polly's standard hedging handler gives every endpoint a breaker with the same options, so %s, which ha%s none in the scenario, get%s one too",
			b, strings.Join(bare, ", "), map[bool]string{true: "s", false: "ve"}[len(bare) == 1], map[bool]string{true: "s", false: ""}[len(bare) == 1])
	}
	cb := &PollyCircuitBreaker{BreakDuration: pollyTimeSpan(max(b.Cooldown.D(), pollyMinBreak))}
	if b.Cooldown.D() < pollyMinBreak {
		n.add("%s: cooldown written as BreakDuration %s, Polly's shortest", b, pollyTimeSpan(pollyMinBreak))
	}
	sampling := pollyDefaultSampling
	switch {
	case b.FailureRatio > 0:
		cb.FailureRatio, cb.MinimumThroughput = b.FailureRatio, max(b.MinCalls, pollyMinThroughput)
		if b.MinCalls < pollyMinThroughput {
			n.add("%s: min_calls written as MinimumThroughput %d, Polly's least", b, pollyMinThroughput)
		}
		if b.WindowTime > 0 {
			sampling = b.WindowTime.D()
		} else {
			n.add("%s: Polly samples over a time span, not the last %d calls: SamplingDuration left at %s", b, b.Window, pollyTimeSpan(max(sampling, minSampling)))
		}
		if b.ConsecutiveFailures > 0 {
			n.add("%s: the consecutive-failure trip is not written: Polly's breaker trips on a failure ratio only", b)
		}
	default:
		// N failures in a row ≈ a window of at least N calls all failed.
		cb.FailureRatio, cb.MinimumThroughput = 1, max(b.ConsecutiveFailures, pollyMinThroughput)
		n.add("%s cannot be expressed exactly: Polly's breaker trips on a failure ratio, so it is written as FailureRatio 1 with MinimumThroughput %d over SamplingDuration %s (every call of the span failed, at least %d of them)",
			b, cb.MinimumThroughput, pollyTimeSpan(max(sampling, minSampling)), cb.MinimumThroughput)
	}
	if sampling < minSampling && b.WindowTime > 0 {
		n.add("%s: SamplingDuration written as %s, not %s: Polly requires twice the attempt timeout", b, pollyTimeSpan(minSampling), pollyTimeSpan(sampling))
	}
	sampling = max(sampling, minSampling)
	cb.SamplingDuration = pollyTimeSpan(sampling)
	if b.Probes > 1 {
		n.add("%s: Polly's half-open breaker lets one call through, not %d", b, b.Probes)
	}
	if b.Provider != "" && len(b.Models) > 1 {
		n.add("%s: Polly's breaker is per endpoint, so each of the models %s gets its own; a breaker shared across them needs one shared instance in code", b, strings.Join(b.Models, ", "))
	}
	return cb
}
