package export

import (
	"fmt"
	"strconv"
	"strings"
)

// The code formats (python, typescript) write a hedging function for the
// application's own code: the runtime part is fixed text, and the
// policies are data (one literal per class), so that every name from the
// scenario reaches the output only through the language's own string
// quoting (pyString, tsString) or an escaped comment (commentText).
//
// What hedged() does, in both languages, is the simulator's request
// (sim.engine.send, fail, settle): the primary goes out at once; each
// timed copy goes out its delay after the previous send while nothing has
// ended the call; a copy with delay 0 goes out with the previous one; a
// fallback copy goes out only when an attempt fails under a "nonfatal"
// rule; the first usable answer (first_valid), first token (first_token)
// or first response (first_response) wins and every other attempt is
// cancelled; a failed attempt follows its kind's rule ("fatal" ends the
// call, "nonfatal" sends the next copy now, "ignore" keeps waiting); with
// nothing in flight and no copy left to send on a timer the call ends with
// the last failure; at the deadline the call fails open (returns the
// caller's default) or closed (raises / rejects).

// codeNotes adds what a code format does not write for class c (runtime
// names the format in the notes), or returns an *UnmappableError for what
// it cannot write at all, or faithful's *UnfaithfulError for what it would
// run differently (without opt.Approximate).
func codeNotes(n *notes, c *Class, format, runtime string, opt Options) error {
	if c.Adaptive != nil {
		return &UnmappableError{format, c.Class, "an adaptive delay (a percentile of recent latencies) is not written by this format; export an optimize report's fixed-delay pick, or use json (or failsafe-go's quantile delay, an approximation, with --approximate)"}
	}
	if err := faithful(format, n, c, opt); err != nil {
		return err
	}
	if !c.Hedge {
		n.add("hedging off: the primary only, with the deadline and error rules%s", reasonSuffix(c.Reason))
	}
	if c.NewProvider {
		n.add("\"a provider not tried yet\" not written: the copies go to their listed targets; pick the target inside call if you need it")
	}
	if c.OnRateLimited == "nonfatal" && c.Winner != "first_response" {
		n.add("a 429's Retry-After hint is not honoured: a non-fatal 429 sends the next copy at once")
	}
	b := &c.Budget
	if b.MaxHedgeShare > 0 || b.RetryThrottling != nil || b.MaxInFlightRatio > 0 || b.MinInFlight > 0 || b.HedgesPerSecond > 0 || b.MaxParallel > 0 {
		n.add("the class's budget (%s) is not written: %s sends every copy its policy allows; bound copies across calls in your own code", budgetText(b), runtime)
	}
	retryNotes(n, c, runtime)
	breakerNotes(n, c, "wrap each attempt to its models in a breaker of your own (call is where the model is chosen)")
	poolNotes(n, c, c, runtime, "call is where each attempt is sent, so route a copy away from the replicas its request's earlier attempts went to there, or through a router that does")
	commonNotes(n, c, runtime)
	return nil
}

// budgetText lists a budget's settings that are on.
func budgetText(b *Budget) string {
	var s []string
	if b.MaxHedgeShare > 0 {
		s = append(s, fmt.Sprintf("max_hedge_share %g", b.MaxHedgeShare))
	}
	if t := b.RetryThrottling; t != nil {
		s = append(s, fmt.Sprintf("retry_throttling %g/%g", t.MaxTokens, t.TokenRatio))
	}
	if b.MaxInFlightRatio > 0 || b.MinInFlight > 0 {
		s = append(s, fmt.Sprintf("max_in_flight_ratio %g, min_in_flight %d", b.MaxInFlightRatio, b.MinInFlight))
	}
	if b.HedgesPerSecond > 0 {
		s = append(s, fmt.Sprintf("hedges_per_second %g, burst %g", b.HedgesPerSecond, b.Burst))
	}
	if b.MaxParallel > 0 {
		s = append(s, fmt.Sprintf("max_parallel %d", b.MaxParallel))
	}
	return strings.Join(s, "; ")
}

// codeRules are a class's rule per kind of failed attempt, in the order
// the code formats write them: the field names of both languages' Policy.
func codeRules(c *Class) [][2]string {
	up := c.OnUpstreamTimeout
	if up == "" {
		up = c.OnError
	}
	return [][2]string{
		{"error", c.OnError}, {"rate_limited", c.OnRateLimited}, {"client_error", clientRule(c)},
		{"upstream_timeout", up}, {"invalid", c.OnInvalid}, {"attempt_timeout", c.OnAttemptTimeout},
	}
}

// codeSeconds writes a duration in seconds as a number literal of Python
// and TypeScript: "1", "0.7", "1.93", "1e-09" — the nanoseconds over 1e9,
// correctly rounded, as MarshalJSON writes them (time.Duration.Seconds
// gives 1.9300000000000002 for 1.93 s).
func codeSeconds(s Seconds) string {
	return strconv.FormatFloat(float64(s)/1e9, 'g', -1, 64)
}

// pyString quotes s as a Python string literal in ASCII: backslash,
// double quote and control characters escaped, every other non-ASCII
// character as \uXXXX or \UXXXXXXXX. (Go strings hold no surrogates: an
// invalid byte reads as U+FFFD.)
func pyString(s string) string { return asciiString(s, `\U%08x`) }

// tsString quotes s as a JavaScript/TypeScript string literal in ASCII:
// backslash, double quote and control characters escaped, every other
// non-ASCII character as \uXXXX or \u{XXXXX} (so U+2028 and U+2029 too).
func tsString(s string) string { return asciiString(s, `\u{%x}`) }

// asciiString is pyString and tsString, which differ only in how a
// character beyond U+FFFF is written (astral, a format of the rune).
func asciiString(s, astral string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, astral, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// codeComments writes the notes as line comments under a header, each
// made safe by commentText.
func codeComments(b *strings.Builder, prefix string, ns []Note) {
	if len(ns) == 0 {
		return
	}
	fmt.Fprintf(b, "%sPer class: what this format leaves to you, and what was written instead:\n", prefix)
	for _, n := range ns {
		fmt.Fprintf(b, "%s  %s\n", prefix, commentText(n.String()))
	}
}

// usageNames returns what the python and typescript formats' usage
// examples name, from d: the first class, and the models its classes
// send to (primaries, then copy targets, each once in that order). An
// empty document gives the placeholders CLASS and MODEL.
func usageNames(d *Document) (class string, models []string) {
	if len(d.Classes) == 0 {
		return "CLASS", []string{"MODEL"}
	}
	seen := map[string]bool{}
	add := func(m string) {
		if m != "" && !seen[m] {
			seen[m] = true
			models = append(models, m)
		}
	}
	for _, c := range d.Classes {
		add(c.Primary)
	}
	for _, c := range d.Classes {
		for _, cp := range c.Copies {
			add(cp.Target)
		}
	}
	return d.Classes[0].Class, models
}

// usageModels writes the MODELS map of a usage example: each model of
// models mapped to itself, quoted by quote, for the user to replace with
// the provider's model id.
func usageModels(models []string, quote func(string) string) string {
	var b strings.Builder
	for i, m := range models {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(m) + ": " + quote(m))
	}
	return b.String()
}
