package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// gRPC service config (gRFC A6, "gRPC Retry Design"; the service config
// JSON of https://github.com/grpc/grpc/blob/master/doc/service_config.md).

// GRPCRuntimes says which gRPC runtimes carry out a hedgingPolicy, as
// checked in their source and docs: grpc-java, grpc-dotnet and grpc-js
// hedge (gRFC A6's "Implemented in"; Grpc.Net.Client's retries and
// hedging need 2.36.0 or later; grpc-js implements A6 from 1.8.0, and the
// tests run this format's output in @grpc/grpc-js 1.14.7); grpc-go
// (v1.85.0: its service-config parser has no hedgingPolicy field) and
// gRPC C-core, under C++, Python, Ruby and PHP (its retry service-config
// parser reads retryPolicy only), accept the config and never send a
// copy. failsafe-go's gRPC client interceptor hedges for grpc-go.
const GRPCRuntimes = "hedgingPolicy is carried out by grpc-java, grpc-dotnet (Grpc.Net.Client 2.36.0 or later) and grpc-js (@grpc/grpc-js 1.8.0 or later; tested with 1.14.7). " +
	"grpc-go (checked: v1.85.0) and gRPC C-core (C++, Python, Ruby, PHP) accept it and ignore it: no copy is ever sent, and nothing says so. " +
	"On grpc-go, hedge in the client instead: --format failsafe-go, with the response type in place of *http.Response, in failsafegrpc.NewUnaryClientInterceptor (failsafe-go " + FailsafeGoVersion + ")"

// GRPCMaxAttempts is the cap gRPC clients put on maxAttempts, which counts
// the original call: at most 4 copies.
const GRPCMaxAttempts = 5

// GRPCServiceConfig is the part of a gRPC service config the grpc format
// writes.
type GRPCServiceConfig struct {
	MethodConfig    []GRPCMethodConfig   `json:"methodConfig"`
	RetryThrottling *GRPCRetryThrottling `json:"retryThrottling,omitempty"`
}

// GRPCMethodConfig is one methodConfig entry: a class's policy for the
// methods it names.
type GRPCMethodConfig struct {
	Name []GRPCName `json:"name"`
	// Timeout is the call's deadline, covering every attempt (proto3 JSON
	// duration, "3s").
	Timeout       string             `json:"timeout,omitempty"`
	HedgingPolicy *GRPCHedgingPolicy `json:"hedgingPolicy,omitempty"`
	RetryPolicy   *GRPCRetryPolicy   `json:"retryPolicy,omitempty"`
}

// GRPCRetryPolicy is gRPC's retryPolicy, for copies sent only after a
// failure: MaxAttempts counts the original, in [2, 5]; an attempt failing
// with a code in RetryableStatusCodes (not empty) is retried after a
// random back-off in [0, min(InitialBackoff·BackoffMultiplier^(n−1),
// MaxBackoff)].
type GRPCRetryPolicy struct {
	MaxAttempts          int      `json:"maxAttempts"`
	InitialBackoff       string   `json:"initialBackoff"`
	MaxBackoff           string   `json:"maxBackoff"`
	BackoffMultiplier    float64  `json:"backoffMultiplier"`
	RetryableStatusCodes []string `json:"retryableStatusCodes"`
}

// GRPCName names a method (or, with Method empty, every method of a
// service).
type GRPCName struct {
	Service string `json:"service"`
	Method  string `json:"method,omitempty"`
}

// GRPCHedgingPolicy is gRPC's hedgingPolicy. MaxAttempts counts the
// original call, in [2, 5]; HedgingDelay is the gap between attempts
// ("0s" sends them at once); an attempt failing with a code in
// NonFatalStatusCodes sends the next one at once, any other code ends
// the call.
type GRPCHedgingPolicy struct {
	MaxAttempts         int      `json:"maxAttempts"`
	HedgingDelay        string   `json:"hedgingDelay"`
	NonFatalStatusCodes []string `json:"nonFatalStatusCodes"`
}

// GRPCRetryThrottling is gRPC's retryThrottling, per server name:
// MaxTokens in (0, 1000], TokenRatio > 0 (three decimals are used).
type GRPCRetryThrottling struct {
	MaxTokens  float64 `json:"maxTokens"`
	TokenRatio float64 `json:"tokenRatio"`
}

// gRPC status codes standing for hedgesim's failures: an error (5xx,
// outage) is UNAVAILABLE, a 429 RESOURCE_EXHAUSTED.
const (
	grpcErrorCode     = "UNAVAILABLE"
	grpcRateLimitCode = "RESOURCE_EXHAUSTED"
)

func writeGRPC(d *Document, opt Options) ([]byte, []Note, error) {
	var sc GRPCServiceConfig
	var throttleFrom string
	per := make([]*notes, len(d.Classes))
	for i := range d.Classes {
		c := &d.Classes[i]
		n := &notes{class: c.Class}
		per[i] = n
		if c.Adaptive != nil {
			return nil, nil, &UnmappableError{"grpc", c.Class, "an adaptive delay (a percentile of recent latencies) has no gRPC form; export an optimize report's fixed-delay pick instead"}
		}
		if f := c.fallbacks(); f > 0 && f < len(c.Copies) {
			return nil, nil, &UnmappableError{"grpc", c.Class, "a method has a hedgingPolicy or a retryPolicy, not both: timed copies cannot be mixed with copies sent only after a failure"}
		}
		if err := faithful("grpc", n, c, opt); err != nil {
			return nil, nil, err
		}
		mc := GRPCMethodConfig{Name: []GRPCName{grpcName(c, opt)}}
		if opt.Method == "" && !protoIdent(c.Class) {
			n.add("method %q is the class's name standing in for the method, a placeholder like SERVICE: a gRPC method name is a proto identifier (a letter, then letters, digits and _), so replace it with the method the class calls", c.Class)
		}
		breakerNotes(n, c, "a gRPC service config has no circuit breaker; put one in the client's interceptor or the gateway")
		pc := c
		if opt.Approximate && c.Hedge && len(c.otherTargets()) > 0 {
			// The copies are written to where the primary goes (faithful's
			// approximation): its pool's copies_to is then theirs.
			cc := *c
			cc.Copies = slices.Clone(c.Copies)
			for k := range cc.Copies {
				cc.Copies[k].Target = c.Primary
			}
			pc = &cc
		}
		poolNotes(n, pc, c, "a gRPC service config", "the channel's load-balancing policy, not the service config, picks each attempt's backend")
		statusRuleNotes(n, c, "gRPC", "an upstream 504 reaches the client as UNAVAILABLE, handled as on_error", "a 4xx reaches the client as a status (INTERNAL, INVALID_ARGUMENT, …) that is not retried: fatal")
		if c.Deadline > 0 {
			mc.Timeout = grpcTimeout(c.Deadline.D())
			if c.OnTimeout == "fail_open" {
				n.add("at the deadline gRPC ends the call with DEADLINE_EXCEEDED; failing open is the caller's handling of that status")
			}
		}
		if c.Hedge && (c.Retry != nil || c.AttemptRetry != nil) {
			n.add("gRPC allows a hedgingPolicy or a retryPolicy per method, not both, and has no retry inside a hedged attempt")
			retryNotes(n, c, "gRPC")
		}
		if !c.Hedge {
			n.add("hedging off: no hedgingPolicy written%s", reasonSuffix(c.Reason))
			mc.RetryPolicy = grpcRetryLayer(n, c)
		} else if c.fallbacks() > 0 {
			mc.RetryPolicy = grpcRetry(n, c)
		} else {
			hp := &GRPCHedgingPolicy{MaxAttempts: len(c.Copies) + 1, HedgingDelay: protoDuration(firstDelay(c)), NonFatalStatusCodes: []string{}}
			hp.MaxAttempts = min(hp.MaxAttempts, GRPCMaxAttempts) // more: refused, or noted under --approximate (faithful)
			if c.Winner != "first_response" {
				for _, r := range []struct{ rule, code, what string }{
					{c.OnError, grpcErrorCode, "errors"}, {c.OnRateLimited, grpcRateLimitCode, "429s"},
				} {
					switch r.rule {
					case "nonfatal":
						hp.NonFatalStatusCodes = append(hp.NonFatalStatusCodes, r.code)
					case "ignore":
						hp.NonFatalStatusCodes = append(hp.NonFatalStatusCodes, r.code)
						n.add("gRPC cannot ignore a failed attempt while others run: %s (%s) written as non-fatal, so the next copy goes out at once", r.what, r.code)
					}
				}
			}
			mc.HedgingPolicy = hp
			if c.NewProvider {
				n.add("gRPC's balancer, not the policy, chooses the backend of each copy: \"a provider not tried yet\" not written")
			}
			switch c.Winner {
			case "first_valid":
				n.add("gRPC takes the first OK response: an unusable answer with status OK wins (on_invalid %q is not applied); return an error status for one instead", c.OnInvalid)
			case "first_token":
				n.add("gRPC commits a streaming call to the attempt whose response headers arrive first: first_token holds if the server sends headers with the first token")
			}
			if c.AttemptTimeout > 0 && len(attemptTimeoutDifferences(formatLimits["grpc"], c)) == 0 {
				n.add("gRPC has no per-attempt timeout under hedging: attempt_timeout %s not written, and at or after the deadline (%s) it never ends an attempt", fdur(c.AttemptTimeout.D()), fdur(c.Deadline.D()))
			}
			grpcBudgetNotes(n, c)
			if t := c.Budget.RetryThrottling; t != nil {
				switch {
				case sc.RetryThrottling == nil:
					sc.RetryThrottling = &GRPCRetryThrottling{MaxTokens: min(t.MaxTokens, 1000), TokenRatio: t.TokenRatio}
					throttleFrom = c.Class
					if t.MaxTokens > 1000 {
						n.add("gRPC caps retryThrottling maxTokens at 1000: wrote 1000 instead of %g", t.MaxTokens)
					}
				case *t != (Throttle{MaxTokens: sc.RetryThrottling.MaxTokens, TokenRatio: sc.RetryThrottling.TokenRatio}):
					n.add("gRPC has one retryThrottling per server, shared by every method: kept class %s's, not this class's max_tokens %g, token_ratio %g",
						throttleFrom, t.MaxTokens, t.TokenRatio)
				}
			}
			commonNotes(n, c, "gRPC")
		}
		sc.MethodConfig = append(sc.MethodConfig, mc)
	}
	var all []Note
	for _, mc := range sc.MethodConfig {
		if mc.HedgingPolicy != nil {
			all = append(all, Note{Text: GRPCRuntimes})
			break
		}
	}
	for i, n := range per {
		if t := sc.RetryThrottling; t != nil && d.Classes[i].Budget.RetryThrottling == nil {
			n.add("gRPC's retryThrottling covers every method of the server: this class, which has none, is throttled by class %s's (maxTokens %g, tokenRatio %g) too",
				throttleFrom, t.MaxTokens, t.TokenRatio)
		}
		all = append(all, n.list...)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&sc); err != nil {
		return nil, nil, err
	}
	return jsonEscape(b.Bytes()), all, nil
}

// grpcTimeout writes a methodConfig timeout as a proto3 JSON duration
// with all nine fractional digits when it has a fraction ("0.060000000s",
// "3s"): grpc-js (1.14.7, service-config.ts) reads the digits after the
// point as nanoseconds without padding them, so "0.06s" would be a 6 ns
// timeout and "1.5s" one of 1 s; every parser reads nine digits right.
func grpcTimeout(d time.Duration) string {
	if d%time.Second == 0 {
		return protoDuration(d)
	}
	return fmt.Sprintf("%d.%09ds", d/time.Second, d%time.Second)
}

// protoIdent reports whether s is a proto identifier: a letter, then
// letters, digits and underscores (ASCII).
func protoIdent(s string) bool {
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || r != '_' && (r < '0' || r > '9')) {
			return false
		}
	}
	return s != ""
}

func grpcName(c *Class, opt Options) GRPCName {
	s, m := opt.Service, opt.Method
	if s == "" {
		s = "SERVICE"
	}
	if m == "" {
		m = c.Class
	}
	return GRPCName{Service: s, Method: m}
}

// grpcBudgetNotes names the budgets gRPC has no form for (throttling has
// one).
func grpcBudgetNotes(n *notes, c *Class) {
	b := &c.Budget
	if b.MaxHedgeShare > 0 {
		n.add("gRPC has no cap on the share of calls that hedge: max_hedge_share %g not written", b.MaxHedgeShare)
	}
	if b.MaxInFlightRatio > 0 || b.MinInFlight > 0 {
		n.add("gRPC has no in-flight hedge budget: max_in_flight_ratio %g / min_in_flight %d not written", b.MaxInFlightRatio, b.MinInFlight)
	}
	if b.HedgesPerSecond > 0 {
		n.add("gRPC has no rate limit on copies: hedges_per_second %g not written", b.HedgesPerSecond)
	}
	if b.MaxParallel > 0 {
		n.add("gRPC has no cap on parallel copies across calls: max_parallel %d not written", b.MaxParallel)
	}
}

func joinq(ss []string) string {
	var b bytes.Buffer
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", s)
	}
	return b.String()
}

// grpcRetry writes a class whose copies all go out only after a failure
// as a retryPolicy with a 1 ms back-off (gRPC requires one > 0), retrying
// the codes of its non-fatal failures; nil, with a note, when no failure
// is non-fatal (the copies could never be sent).
func grpcRetry(n *notes, c *Class) *GRPCRetryPolicy {
	var codes []string
	if c.Winner != "first_response" {
		if c.OnError == "nonfatal" {
			codes = append(codes, grpcErrorCode)
		}
		if c.OnRateLimited == "nonfatal" {
			codes = append(codes, grpcRateLimitCode)
		}
	}
	if c.AttemptTimeout > 0 && c.OnAttemptTimeout == "nonfatal" {
		n.add("gRPC has no per-attempt timeout: the copy sent when an attempt passes attempt_timeout %s cannot be expressed", fdur(c.AttemptTimeout.D()))
	}
	if len(codes) == 0 {
		n.add("copies go out only after a non-fatal failure, and no failure gRPC can see is non-fatal: no retryPolicy written")
		return nil
	}
	rp := &GRPCRetryPolicy{MaxAttempts: min(len(c.Copies)+1, GRPCMaxAttempts), InitialBackoff: "0.001s", MaxBackoff: "0.001s", BackoffMultiplier: 1, RetryableStatusCodes: codes}
	n.add("copies sent only after a failure are a gRPC retryPolicy: a retry goes out after a random back-off of up to 1 ms (gRPC requires one)")
	grpcBudgetNotes(n, c)
	if c.Budget.RetryThrottling != nil {
		n.add("retryThrottling is written only for hedging classes: this class's is not")
	}
	commonNotes(n, c, "gRPC")
	return rp
}
