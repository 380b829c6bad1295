package scenario

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// retryClass is minimal with a class's two retry tables appended, and the
// hedge budget its retries count against.
const retryClass = minimal + `[classes.retry]
max_attempts = 3
initial_backoff = "1s"
multiplier = 3
max_backoff = "5s"
jitter = "equal"
retry_on = ["5xx", "invalid", "attempt_timeout"]
counts_against_budget = true
[classes.attempt_retry]
max_attempts = 4
[classes.hedge]
primary = "m"
delay = "1s"
[classes.hedge.budget]
max_hedge_share = 0.1
`

func TestRetryTables(t *testing.T) {
	s, err := Parse("r.toml", []byte(retryClass))
	if err != nil {
		t.Fatal(err)
	}
	cl := s.Config.Classes[0]
	want := sim.Retry{MaxAttempts: 3, InitialBackoff: time.Second, MaxBackoff: 5 * time.Second, Multiplier: 3,
		Jitter: sim.JitterEqual, On: sim.RetryServerError | sim.RetryInvalid | sim.RetryAttemptTimeout, CountsAgainstBudget: true}
	if cl.Retry == nil || *cl.Retry != want {
		t.Errorf("retry %+v; want %+v", cl.Retry, want)
	}
	// Defaults: the OpenAI SDK's backoff, full jitter, 5xx/429/upstream timeouts.
	inner := sim.Retry{MaxAttempts: 4, InitialBackoff: 500 * time.Millisecond, MaxBackoff: 8 * time.Second, Multiplier: 2,
		Jitter: sim.JitterFull, On: sim.DefaultRetryOn}
	if cl.AttemptRetry == nil || *cl.AttemptRetry != inner {
		t.Errorf("attempt retry %+v; want %+v", cl.AttemptRetry, inner)
	}
}

// TestRetryUnknownKey: a key a retry table does not have is named with
// the ones it does.
func TestRetryUnknownKey(t *testing.T) {
	_, err := Parse("bad.toml", []byte(minimal+"[classes.attempt_retry]\nmax_attempts = 2\nbudget = 3\n"))
	var e *Error
	if !errors.As(err, &e) || e.Line != 10 || e.Key != "classes[0].attempt_retry.budget" || !strings.Contains(e.Msg, "counts_against_budget, initial_backoff, jitter, max_attempts, max_backoff, multiplier, retry_on") {
		t.Errorf("got %v; want bad.toml:10: classes[0].attempt_retry.budget: unknown key …", err)
	}
}

// TestRetryBadValues: each bad value is an error at its file:line naming
// the key, the value and what is allowed — all of them at once.
func TestRetryBadValues(t *testing.T) {
	src := minimal + `[classes.retry]
max_attempts = 0
multiplier = 0.5
initial_backoff = "2s"
max_backoff = "1s"
jitter = "decorrelated"
retry_on = ["5xx", "teapot"]
[classes.attempt_retry]
max_attempts = 11
retry_on = ["invalid", "stall"]
`
	_, err := Parse("bad.toml", []byte(src))
	var list Errors
	if !errors.As(err, &list) {
		t.Fatalf("got %v (%T); want every problem listed", err, err)
	}
	for _, w := range []struct {
		line     int
		key, msg string
	}{
		{9, "classes[0].retry.max_attempts", "0 is out of range; want 1 to 10"},
		{10, "classes[0].retry.multiplier", "0.5 is out of range; want a backoff multiplier in [1, 1e6]"},
		{12, "classes[0].retry.max_backoff", "1s is below initial_backoff 2s"},
		{13, "classes[0].retry.jitter", `unknown value "decorrelated"; allowed: "full", "equal", "none"`},
		{14, "classes[0].retry.retry_on", `unknown failure "teapot"; allowed: "5xx", "429", "4xx", "upstream_timeout", "attempt_timeout", "invalid", "stall"`},
		{16, "classes[0].attempt_retry.max_attempts", "11 is out of range"},
		{17, "classes[0].attempt_retry.retry_on", `"invalid" cannot be retried inside an attempt`},
		{17, "classes[0].attempt_retry.retry_on", `"stall" cannot be retried inside an attempt`},
	} {
		found := false
		for _, e := range list {
			if e.Line == w.line && e.Key == w.key && strings.Contains(e.Msg, w.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("no error at bad.toml:%d: %s: …%s…; got\n%v", w.line, w.key, w.msg, err)
		}
	}
	if len(list) != 8 {
		t.Errorf("%d problems; want 8:\n%v", len(list), err)
	}
}

// TestRetryNeverActs: retry settings that can never take effect are
// errors at their file:line — a retryable failure listed twice, retries
// counted against the budgets of a class without any — each reported, with
// every other problem, at once. max_attempts = 1 (no retry) is allowed.
func TestRetryNeverActs(t *testing.T) {
	src := minimal + `[classes.retry]
max_attempts = 3
retry_on = ["5xx", "5xx", "429", "5xx"]
counts_against_budget = true
jitter = "decorrelated"
[classes.attempt_retry]
max_attempts = 1
retry_on = ["429", "429", "teapot"]
counts_against_budget = true
`
	_, err := Parse("bad.toml", []byte(src))
	var list Errors
	if !errors.As(err, &list) {
		t.Fatalf("got %v (%T); want every problem listed", err, err)
	}
	want := []struct {
		line     int
		key, msg string
	}{
		{10, "classes[0].retry.retry_on", `"5xx" is listed 3 times; name each retryable failure once`},
		{11, "classes[0].retry.counts_against_budget", "true, but the class has no hedge budget"},
		{12, "classes[0].retry.jitter", `unknown value "decorrelated"`},
		{15, "classes[0].attempt_retry.retry_on", `"429" is listed 2 times`},
		{15, "classes[0].attempt_retry.retry_on", `unknown failure "teapot"`},
		{16, "classes[0].attempt_retry.counts_against_budget", "true, but the class has no hedge budget"},
	}
	for _, w := range want {
		found := false
		for _, e := range list {
			if e.Line == w.line && e.Key == w.key && strings.Contains(e.Msg, w.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("no error at bad.toml:%d: %s: …%s…; got\n%v", w.line, w.key, w.msg, err)
		}
	}
	if len(list) != len(want) {
		t.Errorf("%d problems; want %d:\n%v", len(list), len(want), err)
	}
	// An explicit no-retry is a setting, not a mistake: with a budget to
	// count against, the table parses.
	ok := minimal + `[classes.attempt_retry]
max_attempts = 1
`
	s, err := Parse("ok.toml", []byte(ok))
	if err != nil || s.Config.Classes[0].AttemptRetry == nil || s.Config.Classes[0].AttemptRetry.MaxAttempts != 1 {
		t.Errorf("max_attempts = 1: got %v", err)
	}
}
