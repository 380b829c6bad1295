package export

import (
	"strings"
	"testing"
)

// TestUsageExampleNamesTheScenario: the python and typescript modules'
// usage examples name the document's own models and first class — for
// two-model-gateway large-a and large-b and "short", not guard-check's
// llama-guard and "check" — and, with hostile names, the typescript doc
// comment is still one comment (no "*/" before its end).
func TestUsageExampleNamesTheScenario(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "two-model-gateway.toml"))
	for _, tc := range []struct{ format, models, class string }{
		{"python", `MODELS = {"large-a": "large-a", "large-b": "large-b"}`, `hedged(call, POLICIES["short"],`},
		{"typescript", `const MODELS: Record<string, string> = { "large-a": "large-a", "large-b": "large-b" };`, `POLICIES["short"],`},
	} {
		out, _, err := Write(d, tc.format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := string(out)
		if !strings.Contains(s, tc.models) || !strings.Contains(s, tc.class) || strings.Contains(s, "llama-guard") || strings.Contains(s, `"check"`) {
			t.Errorf("%s: usage example does not name the scenario's models (%s) and class (%s):\n%.2500s", tc.format, tc.models, tc.class, s)
		}
	}
	g, _, err := Write(ScenarioPolicies(loadShipped(t, "guard-check.toml")), "python", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(g), `MODELS = {"llama-guard": "llama-guard"}`) || !strings.Contains(string(g), `POLICIES["check"]`) {
		t.Errorf("guard-check: usage example does not name llama-guard and check")
	}
	for _, d := range namesDocs(t) {
		out, _, err := Write(d, "typescript", namesOptions)
		if err != nil {
			t.Fatalf("%q: %v", d.Scenario, err)
		}
		start := strings.Index(string(out), "/**")
		doc := string(out)[start:]
		doc = doc[:strings.Index(doc, "*/")]
		if !strings.Contains(doc, "A copy to another provider needs its own client") {
			t.Errorf("%q: the doc comment ends early:\n%s", d.Scenario, doc)
		}
	}
}

// TestFailsafeDocNamesAVariable: the failsafe-go file's package doc uses
// a variable the file declares (the first class's XPolicies), for every
// shipped scenario's policies.
func TestFailsafeDocNamesAVariable(t *testing.T) {
	for _, d := range shippedDocs(t) {
		out, _, err := Write(d, "failsafe-go", Options{Approximate: true})
		if err != nil {
			continue // a class failsafe-go cannot express at all
		}
		s := string(out)
		_, after, ok := strings.Cut(s, "failsafehttp.NewRoundTripper(nil, ")
		name, _, _ := strings.Cut(after, "...)")
		if !ok || !strings.HasSuffix(name, "Policies") || !strings.Contains(s, "\nvar "+name+" = ") || !strings.Contains(s, "failsafe.With("+name+"...).GetWithExecution") {
			t.Errorf("%q: the package doc names %q, which the file does not declare:\n%.1500s", d.Scenario, name, s)
		}
	}
}
