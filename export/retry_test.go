package export

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRetryDocumentRoundTrip: the retries of stacked-retries.toml are in
// its policy document, which reads back as it was written; a document
// without retries has no retry fields at all.
func TestRetryDocumentRoundTrip(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "stacked-retries.toml"))
	var b bytes.Buffer
	if err := d.Encode(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, d) {
		t.Errorf("read back %+v; wrote %+v", back, d)
	}
	st := d.Classes[1]
	want := &Retry{MaxAttempts: 3, InitialBackoff: Seconds(time.Second), MaxBackoff: Seconds(4 * time.Second), Multiplier: 2,
		Jitter: "equal", RetryOn: []string{"5xx", "429", "upstream_timeout", "attempt_timeout"}}
	if !reflect.DeepEqual(st.Retry, want) || st.AttemptRetry == nil || st.AttemptRetry.MaxAttempts != 4 {
		t.Errorf("class stacked: retry %+v, attempt retry %+v; want %+v and 4 tries", st.Retry, st.AttemptRetry, want)
	}
	plain, err := json.Marshal(ScenarioPolicies(loadShipped(t, "guard-check.toml")))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain, []byte("retry\"")) {
		t.Errorf("a document without retries has retry fields: %s", plain)
	}
}

func TestRetryDocumentBadValues(t *testing.T) {
	for _, tc := range []struct{ edit, msg string }{
		{`"multiplier": 2`, "retry.multiplier: got 0.5"},
		{`"max_attempts": 3`, "retry.max_attempts: got 0"},
		{`"jitter": "equal"`, `retry.jitter: got "decorrelated"`},
	} {
		d := ScenarioPolicies(loadShipped(t, "stacked-retries.toml"))
		var b bytes.Buffer
		if err := d.Encode(&b); err != nil {
			t.Fatal(err)
		}
		bad := map[string]string{`"multiplier": 2`: `"multiplier": 0.5`, `"max_attempts": 3`: `"max_attempts": 0`, `"jitter": "equal"`: `"jitter": "decorrelated"`}[tc.edit]
		src := strings.Replace(b.String(), tc.edit, bad, 1)
		if _, err := Decode(strings.NewReader(src)); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: got %v; want …%s…", bad, err, tc.msg)
		}
	}
}

// TestRetryGRPC: a class that does not hedge writes its retry as a
// retryPolicy (gRPC's back-off is always fully jittered: a note says so);
// a hedging class cannot have one and says what is not written.
func TestRetryGRPC(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "stacked-retries.toml"))
	d.Classes[1].Hedge, d.Classes[1].Copies = false, []Copy{}
	var sc GRPCServiceConfig
	out, notes, err := Write(d, "grpc", Options{Approximate: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &sc); err != nil {
		t.Fatal(err)
	}
	want := &GRPCRetryPolicy{MaxAttempts: 3, InitialBackoff: "1s", MaxBackoff: "4s", BackoffMultiplier: 2,
		RetryableStatusCodes: []string{"UNAVAILABLE", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"}}
	if got := sc.MethodConfig[1].RetryPolicy; !reflect.DeepEqual(got, want) {
		t.Errorf("retryPolicy %+v; want %+v", got, want)
	}
	text := ""
	for _, n := range notes {
		text += n.String() + "\n"
	}
	for _, w := range []string{
		"stacked: gRPC's back-off is always fully jittered",
		"stacked: gRPC's retryPolicy retries status codes only: retry retries of attempt_timeout not written",
		"stacked: gRPC has one retryPolicy per method: the class's attempt retry",
		"sdk: gRPC allows a hedgingPolicy or a retryPolicy per method, not both",
		"sdk: the class's attempt retry (up to 3 tries",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("no note %q in\n%s", w, text)
		}
	}
}

// TestStatusRuleNotes: a per-status rule (on_client_error,
// on_upstream_timeout) that differs from its default is in the policy
// document, and every format that cannot write it says so.
func TestStatusRuleNotes(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "status-rules.toml"))
	if c := d.Classes[2]; c.OnClientError != "nonfatal" || c.OnUpstreamTimeout != "" {
		t.Errorf("retry-all: on_client_error %q, on_upstream_timeout %q; want nonfatal and the default (absent)", c.OnClientError, c.OnUpstreamTimeout)
	}
	d.Classes[0].OnUpstreamTimeout = "ignore"
	for _, f := range []string{"grpc", "envoy", "failsafe-go", "polly"} {
		_, notes, err := Write(d, f, Options{Approximate: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range notes {
			if strings.Contains(n.Text, "on_client_error") || strings.Contains(n.Text, "on_upstream_timeout") {
				got = append(got, n.String())
			}
		}
		if len(got) != 2 || !strings.HasPrefix(got[0], `fatal: `) || !strings.Contains(got[0], `on_upstream_timeout "ignore" not written`) ||
			!strings.HasPrefix(got[1], `retry-all: `) || !strings.Contains(got[1], `on_client_error "nonfatal" not written`) {
			t.Errorf("%s: per-status notes %q; want one for fatal's upstream timeouts and one for retry-all's 4xx", f, got)
		}
	}
}

// TestGRPCThrottleNotes: stacked-retries.toml's throttle (class throttled)
// is written as the server's retryThrottling, which covers the sdk and
// stacked methods too; each of them gets a note saying so.
func TestGRPCThrottleNotes(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "stacked-retries.toml"))
	out, notes, err := Write(d, "grpc", Options{Approximate: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"retryThrottling"`)) {
		t.Fatalf("no retryThrottling written:\n%s", out)
	}
	for _, c := range d.Classes {
		found := false
		for _, n := range notes {
			found = found || n.Class == c.Class && strings.Contains(n.Text, "throttled by class throttled's")
		}
		if found != (c.Budget.RetryThrottling == nil) {
			t.Errorf("class %s (throttle %v): note of the server's throttle %v; notes %v", c.Class, c.Budget.RetryThrottling, found, notes)
		}
	}
}

// TestJSONDocumentKeysDocumented: docs/export.md's description of the json
// document names every key of export.Document, and the keys that may be
// omitted (omitempty) are exactly those it says are omitted.
func TestJSONDocumentKeysDocumented(t *testing.T) {
	src, err := os.ReadFile("../docs/export.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	start := strings.Index(text, "The `json` document (`export.Document`")
	if start < 0 {
		t.Fatal("docs/export.md: no description of the json document")
	}
	text = text[start:]
	intro, table, _ := strings.Cut(text, "| key | meaning |")
	table, _, _ = strings.Cut(table, "\n\n")
	for _, typ := range []reflect.Type{reflect.TypeFor[Document](), reflect.TypeFor[Class](), reflect.TypeFor[Copy](),
		reflect.TypeFor[Adaptive](), reflect.TypeFor[Budget](), reflect.TypeFor[Throttle](), reflect.TypeFor[Retry](), reflect.TypeFor[StreamCuts](), reflect.TypeFor[Breaker](), reflect.TypeFor[ReplicaPool]()} {
		for i := range typ.NumField() {
			tag := typ.Field(i).Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" || name == "-" || name == "classes" {
				continue
			}
			if !regexp.MustCompile("[`{, ]"+regexp.QuoteMeta(name)+"(\\[\\])?[`}, ]").MatchString(table) && !strings.Contains(table, "`classes[]."+name+"`") {
				t.Errorf("docs/export.md's json key table lacks %s.%s", typ.Name(), name)
			}
			if omitted := strings.Contains(intro, "`"+name+"`"); omitted != (opts == "omitempty") {
				t.Errorf("docs/export.md says %s.%s may be omitted: %v; the document omits it: %v", typ.Name(), name, omitted, opts == "omitempty")
			}
		}
	}
}

// TestDecodeRetryStrict: a retry table of the json document with a key it
// does not have is rejected; one given as null is no retry.
func TestDecodeRetryStrict(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "stacked-retries.toml"))
	var b bytes.Buffer
	if err := d.Encode(&b); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(b.String(), `"counts_against_budget": false`, `"counts_against_budget": false, "budget": 3`, 1)
	if _, err := Decode(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), `"budget"`) {
		t.Errorf("an unknown key in a retry table: got %v; want it rejected", err)
	}
	plain := ScenarioPolicies(loadShipped(t, "guard-check.toml"))
	b.Reset()
	if err := plain.Encode(&b); err != nil {
		t.Fatal(err)
	}
	withNull := strings.Replace(b.String(), `"on_timeout": `, `"retry": null, "attempt_retry": null, "on_timeout": `, 1)
	back, err := Decode(strings.NewReader(withNull))
	if err != nil || back.Classes[0].Retry != nil || back.Classes[0].AttemptRetry != nil {
		t.Errorf("retry null: got %v, %+v", err, back)
	}
}
