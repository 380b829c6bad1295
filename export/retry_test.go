package export

import (
	"bytes"
	"encoding/json"
	"reflect"
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
	out, notes, err := Write(d, "grpc", Options{})
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
		_, notes, err := Write(d, f, Options{})
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
