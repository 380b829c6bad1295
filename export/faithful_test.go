package export

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// shortWith is two-model-gateway's class short (first_valid, a 5 s
// deadline, primary large-a) with copies.
func shortWith(t *testing.T, copies ...Copy) *Document {
	t.Helper()
	d := ScenarioPolicies(loadShipped(t, "two-model-gateway.toml"))
	d.Classes = d.Classes[:1]
	d.Classes[0].Copies = copies
	return d
}

func timed(target string, d time.Duration) Copy { return Copy{Target: target, Delay: Seconds(d)} }

// TestUnfaithfulEveryFormat: every format refuses a class it cannot write
// exactly — gaps that differ (every format but python, typescript and
// json has one delay), copies to several models (failsafe-go's one hedge
// target) or to another model (gRPC's one service), more copies than the
// runtime sends (gRPC 4), an attempt timeout before the deadline under
// hedging (gRPC and Envoy have none) — naming each difference and exactly
// the formats that can express the class; and every format it names
// writes the class without an approximation. An attempt timeout at the
// deadline never acts, and is no difference.
func TestUnfaithfulEveryFormat(t *testing.T) {
	const (
		composite = "envoy (a composite cluster, Envoy 1.40 or later)"
		routing   = "polly (Routing's ordered endpoint groups)"
		oneTarget = "failsafe-go (one hedge target, chosen by exec.IsHedge())"
	)
	gaps := "its copies' gaps differ (1s, 3s after each previous send), and %s has one delay for every copy: it would send the copies 1s, 2s after the primary, not 1s, 4s"
	// fb.toml's class many, of a user's report: 6 copies 500ms apart,
	// attempt_timeout 3s, within a 20s deadline (here short's 5s).
	many := func(attemptTimeout time.Duration) *Document {
		var cs []Copy
		for range 6 {
			cs = append(cs, timed("large-a", 500*time.Millisecond))
		}
		d := shortWith(t, cs...)
		d.Classes[0].AttemptTimeout = Seconds(attemptTimeout)
		return d
	}
	attempt := "its attempts time out after 3s (attempt_timeout, on_attempt_timeout %q), and in %s "
	rule := many(3 * time.Second).Classes[0].OnAttemptTimeout
	for _, c := range []struct {
		name    string
		doc     *Document
		refused map[string][]string // format → the differences it names
		formats string              // the formats a refusal names
	}{
		{"6 copies, attempt timeout 3s", many(3 * time.Second), map[string][]string{
			"grpc": {"it sends up to 6 copies, and gRPC sends at most 4",
				fmt.Sprintf(attempt, rule, "gRPC") + "a hedged attempt runs until it answers or the call's timeout ends it (hedgingPolicy has no per-attempt timeout): it would not end an attempt at 3s"},
			"envoy": {fmt.Sprintf(attempt, rule, "Envoy") + "per_try_timeout is the hedge delay, and a hedged attempt runs until it answers or the route timeout ends the request (hedge_on_per_try_timeout does not cancel it): it would not end an attempt at 3s"},
		}, "python, typescript, polly, failsafe-go, json"},
		{"6 copies, attempt timeout at the deadline", many(5 * time.Second), map[string][]string{
			"grpc": {"it sends up to 6 copies, and gRPC sends at most 4"},
		}, "python, typescript, envoy, polly, failsafe-go, json"},
		{"two models, gaps 1s 3s", shortWith(t, timed("large-a", time.Second), timed("large-b", 3*time.Second)), map[string][]string{
			"grpc":        {`its copies go to "large-b", another model than the primary "large-a", and gRPC sends every copy where the primary goes`, strings.ReplaceAll(gaps, "%s", "gRPC")},
			"envoy":       {strings.ReplaceAll(gaps, "%s", "Envoy")},
			"failsafe-go": {`its copies go to "large-a", "large-b" in turn, and failsafe-go sends every copy to one hedge target (exec.IsHedge() tells a copy from the original, not one copy from another): it would send copy 2 to "large-a", not "large-b"`, strings.ReplaceAll(gaps, "%s", "failsafe-go")},
			"polly":       {strings.ReplaceAll(gaps, "%s", "Polly")},
		}, "python, typescript, json"},
		{"two models, one gap", shortWith(t, timed("large-a", time.Second), timed("large-b", time.Second)), map[string][]string{
			"grpc":        {`its copies go to "large-b", another model than the primary`},
			"failsafe-go": {`it would send copy 2 to "large-a", not "large-b"`},
		}, "python, typescript, " + composite + ", " + routing + ", json"},
		{"one other model", shortWith(t, timed("large-b", time.Second), timed("large-b", time.Second)), map[string][]string{
			"grpc": {`its copies go to "large-b", another model than the primary`},
		}, "python, typescript, " + composite + ", " + routing + ", " + oneTarget + ", json"},
		{"7 copies", shortWith(t, func() []Copy {
			var cs []Copy
			for range 7 {
				cs = append(cs, timed("large-a", 250*time.Millisecond))
			}
			return cs
		}()...), map[string][]string{
			"grpc": {"it sends up to 7 copies, and gRPC sends at most 4 (maxAttempts, which counts the original, is capped at 5): it would send 4"},
		}, "python, typescript, envoy, polly, failsafe-go, json"},
	} {
		for _, f := range Formats {
			_, notes, err := Write(c.doc, f, Options{})
			want, refused := c.refused[f]
			if !refused {
				if err != nil {
					t.Errorf("%s, %s: %v; want it written", c.name, f, err)
				}
				for _, n := range notes {
					if strings.HasPrefix(n.Text, "approximate:") {
						t.Errorf("%s, %s: note %q without --approximate", c.name, f, n)
					}
				}
				continue
			}
			var ue *UnfaithfulError
			if !errors.As(err, &ue) || ue.Format != f || ue.Class != "short" {
				t.Errorf("%s, %s: error %v; want an UnfaithfulError for class short", c.name, f, err)
				continue
			}
			for _, w := range want {
				if !strings.Contains(ue.Limitation, w) {
					t.Errorf("%s, %s: limitation %q lacks %q", c.name, f, ue.Limitation, w)
				}
			}
			if got := strings.Count(ue.Limitation, "; ") + 1; got != len(want) {
				t.Errorf("%s, %s: %d differences named; want %d: %s", c.name, f, got, len(want), ue.Limitation)
			}
			if ue.Formats != c.formats {
				t.Errorf("%s, %s: formats that can express it %q; want %q", c.name, f, ue.Formats, c.formats)
			}
			if !strings.Contains(err.Error(), "--approximate writes what "+f+" will run") {
				t.Errorf("%s, %s: %v; want it to offer --approximate", c.name, f, err)
			}
			// Each format named writes the class as simulated.
			for _, named := range formatNamesIn(ue.Formats) {
				if _, ns, err := Write(c.doc, named, Options{}); err != nil {
					t.Errorf("%s: %s names %s, which refuses it: %v", c.name, f, named, err)
				} else {
					for _, n := range ns {
						if strings.HasPrefix(n.Text, "approximate:") {
							t.Errorf("%s: %s names %s, which approximates it: %s", c.name, f, named, n)
						}
					}
				}
			}
		}
	}
}

// TestApproximateWritesWhatRuns: under Approximate each format writes the
// policy its runtime will run — the first gap for every copy, the first
// copy's target as failsafe-go's one hedge target — says in a note what
// differs from the simulated policy, and its comment describes the policy
// written, not the simulated one.
func TestApproximateWritesWhatRuns(t *testing.T) {
	d := shortWith(t, timed("large-a", time.Second), timed("large-b", 3*time.Second))
	gaps := "approximate: the copies' gaps are 1s, 3s, but %s has one delay for every copy: wrote the first, 1s, so the copies go out 1s, 2s after the primary, not 1s, 4s"
	for _, c := range []struct {
		format  string
		writes  []string // in the output
		notes   []string
		without []string // not in the output
	}{
		{"grpc", []string{`"maxAttempts": 3`, `"hedgingDelay": "1s"`}, []string{
			`approximate: copies to "large-b" written as copies to where the primary ("large-a") goes`, strings.ReplaceAll(gaps, "%s", "gRPC"),
		}, nil},
		{"envoy", []string{"num_retries: 2", "per_try_timeout: 1s", `- name: "large-b"`}, []string{strings.ReplaceAll(gaps, "%s", "Envoy")}, nil},
		{"failsafe-go", []string{
			"NewBuilderWithDelay[*http.Response](time.Second)", "WithMaxHedges(2)", `ShortHedgeTarget = "large-a"`,
			"// ShortHedge is the hedge policy of class short: up to 2 copies to large-a, 1s apart.",
		}, []string{
			`approximate: the copies go to "large-a", "large-b" in turn, but failsafe-go sends every copy to one hedge target: wrote "large-a", so it sends copy 2 to "large-a", not "large-b"`,
			strings.ReplaceAll(gaps, "%s", "failsafe-go"),
		}, []string{"large-a, large-b", "cannot tell one copy from another"}},
		{"polly", []string{`"MaxHedgedAttempts": 2`, `"Delay": "00:00:01"`, "https://large-b.example"}, []string{strings.ReplaceAll(gaps, "%s", "Polly")}, nil},
	} {
		out, notes, err := Write(d, c.format, Options{Approximate: true})
		if err != nil {
			t.Errorf("%s: %v", c.format, err)
			continue
		}
		for _, w := range c.writes {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s: output lacks %q:\n%s", c.format, w, out)
			}
		}
		for _, w := range c.without {
			if strings.Contains(string(out), w) {
				t.Errorf("%s: output has %q:\n%s", c.format, w, out)
			}
		}
		for _, w := range c.notes {
			wantNote(t, notes, "short", w)
			if c.format != "grpc" && !strings.Contains(string(out), w) { // gRPC's JSON has no comments
				t.Errorf("%s: the output's comments lack %q", c.format, w)
			}
		}
	}
}

// formatNamesIn returns the format names of a list of formats that can
// express a class, each "NAME" or "NAME (what it needs, …)".
func formatNamesIn(list string) []string {
	var names []string
	depth, start := 0, 0
	for i, r := range list + ", " {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			name, _, _ := strings.Cut(list[start:i], " (")
			names = append(names, name)
			start = i + 2
		}
	}
	return names
}
