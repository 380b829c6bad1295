package export

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Options set what a format leaves to the user.
type Options struct {
	// Service and Method name the gRPC method a class's config applies to
	// (grpc: methodConfig name; envoy: the route's path /Service/Method).
	// Empty Service writes the placeholder "SERVICE"; empty Method the
	// class name. Method with several classes is an error (one method
	// cannot carry several policies).
	Service, Method string
	// Approximate writes what a format cannot express faithfully (see
	// UnfaithfulError) in its nearest form, the difference stated in a
	// note, instead of refusing the class.
	Approximate bool
}

// Note is something a format cannot express for a class, and what was
// written instead; a note with Class empty is about the whole output.
type Note struct {
	Class string
	Text  string
}

// String returns "CLASS: TEXT", or TEXT for a note on the whole output
// (Class empty).
func (n Note) String() string {
	if n.Class == "" {
		return n.Text
	}
	return n.Class + ": " + n.Text
}

// UnmappableError says that a class's policy cannot be written in a format
// at all.
type UnmappableError struct {
	Format, Class, Reason string
}

func (e *UnmappableError) Error() string {
	return fmt.Sprintf("%s: class %s cannot be written in this format: %s", e.Format, e.Class, e.Reason)
}

// UnfaithfulError says that a format would do something other than what
// was simulated for a class, and names the formats that can express it;
// Options.Approximate writes the nearest form instead.
type UnfaithfulError struct {
	Format, Class string
	// Limitation says what the format cannot express and what it would do
	// instead, each difference separated by "; ".
	Limitation string
	// Formats can express the class as it was simulated, each with what
	// it needs ("envoy (a composite cluster, Envoy 1.40 or later)").
	Formats string
}

func (e *UnfaithfulError) Error() string {
	return fmt.Sprintf("%s: class %s cannot be written faithfully: %s; formats that can express it: %s; or --approximate writes what %s will run, each difference noted on standard error and in the output's comments where the format has them",
		e.Format, e.Class, e.Limitation, e.Formats, e.Format)
}

// Write renders d in format (one of Formats) and returns the output and,
// per class, what the format cannot express. The notes are also in the
// output as comments where the format has them (envoy, failsafe-go,
// polly). Errors: an unknown format, Options.Method with several classes,
// or an *UnmappableError.
func Write(d *Document, format string, opt Options) ([]byte, []Note, error) {
	if err := d.Validate(); err != nil {
		return nil, nil, err
	}
	if opt.Method != "" && len(d.Classes) > 1 {
		return nil, nil, fmt.Errorf("a method name applies to one class; %d classes are exported (choose one)", len(d.Classes))
	}
	out, ns, err := write(d, format, opt)
	for _, c := range d.Classes {
		if c.Pipeline != "" {
			e2e := "it has no end-to-end deadline"
			if c.EndToEndDeadline > 0 {
				e2e = fmt.Sprintf("its end-to-end deadline of %s is not in this policy: enforce it in the caller", c.EndToEndDeadline.D())
			}
			open := ""
			if c.OnTimeout == "fail_open" {
				open = "; the step fails open: a call without an answer lets the turn through degraded — answered, not checked — so log it to count the checked share"
			}
			ns = append(ns, Note{Class: c.Class, Text: fmt.Sprintf("step %s of pipeline %s, exported as a policy of its own: running the steps — their order, fan-out, wait-for and repeats — is the caller's, and %s%s", c.Step, c.Pipeline, e2e, open)})
		}
	}
	return out, ns, err
}

// write is Write without the notes on pipeline steps.
func write(d *Document, format string, opt Options) ([]byte, []Note, error) {
	switch format {
	case "grpc":
		return writeGRPC(d, opt)
	case "envoy":
		return writeEnvoy(d, opt)
	case "failsafe-go":
		return writeFailsafe(d, opt)
	case "polly":
		return writePolly(d, opt)
	case "python":
		return writePython(d, opt)
	case "typescript":
		return writeTypeScript(d, opt)
	case "json":
		var b strings.Builder
		if err := d.Encode(&b); err != nil {
			return nil, nil, err
		}
		var ns []Note
		for _, c := range d.Classes {
			if !c.Hedge {
				ns = append(ns, Note{Class: c.Class, Text: "hedging off (hedge: false)" + reasonSuffix(c.Reason)})
			} else if c.undecided() {
				ns = append(ns, Note{Class: c.Class, Text: c.Reason})
			}
		}
		return []byte(b.String()), ns, nil
	}
	return nil, nil, fmt.Errorf("unknown format %q; formats: %s", format, strings.Join(Formats, ", "))
}

// notes collects the notes of one class.
type notes struct {
	class string
	list  []Note
}

func (n *notes) add(format string, args ...any) {
	n.list = append(n.list, Note{Class: n.class, Text: fmt.Sprintf(format, args...)})
}

// commonNotes adds what no format of a runtime can say (ROLLOUT.md, "What
// none of them can say").
func commonNotes(n *notes, c *Class, runtime string) {
	if c.undecided() {
		n.add("%s", c.Reason)
	}
	if c.Hedge && c.CancelBilling != "none" && c.CancelLatency > 0 {
		// Cancellation billing and latency are facts about the provider;
		// nothing to configure, but worth saying once.
		n.add("cancel billing %q after %s is the provider's, not configurable in %s", c.CancelBilling, fdur(c.CancelLatency.D()), runtime)
	}
	if s := c.StreamCuts; s != nil {
		// A stream's body is read by the application, after the runtime
		// has committed to an attempt.
		n.add("%s does not watch a response body as it streams: the inter-token timeout %s / speed floor %g tokens/s over %s are not written; implement them where the stream is read (an idle timeout between chunks, a tokens/s check)",
			runtime, fdur(s.InterTokenTimeout.D()), s.MinTokensPerSecond, fdur(s.SpeedWindow.D()))
	}
}

// fdur formats a duration as Go does ("1.5s", "700ms"), "0s" for zero.
func fdur(d time.Duration) string { return d.String() }

func fdurs(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = fdur(d)
	}
	return strings.Join(s, ", ")
}

// protoDuration formats d as a proto3 JSON duration: seconds with up to 9
// fractional digits and an "s" suffix ("1s", "0.7s").
func protoDuration(d time.Duration) string {
	s := strconv.FormatInt(int64(d/time.Second), 10)
	if ns := d % time.Second; ns != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%09d", ns), "0")
	}
	return s + "s"
}

// ident turns a class name into an exported Go identifier part: "strict-sla"
// → "StrictSla", "búsqueda" → "Búsqueda". Letters and digits are kept (Go
// identifiers take any Unicode letter and decimal digit), every other
// character dropped and the letter after it upper-cased; a name that would
// start with a digit or a letter without an upper case ("中") starts "C".
func ident(name string) string {
	var b strings.Builder
	up := true
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
		}
		if b.Len() == 0 && !unicode.IsUpper(r) {
			b.WriteString("C")
		}
		b.WriteRune(r)
		up = false
	}
	if b.Len() == 0 {
		return "Class"
	}
	return b.String()
}

// reasonSuffix appends an optimize verdict's reason, if any.
func reasonSuffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}
