package retune

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestPromQuery: the default query sums each model's bucket increases
// over the window by le; a template has {model} replaced.
func TestPromQuery(t *testing.T) {
	q := Query{Metric: "guard_request_duration_seconds", Labels: map[string]string{"region": "eu"}}
	got, err := PromQuery(PromSource{Window: 24 * time.Hour}, q, "llama-guard")
	want := `sum by (le) (increase(guard_request_duration_seconds_bucket{model="llama-guard", region="eu"}[1d]))`
	if err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	got, _ = PromQuery(PromSource{Template: `sum by (le) (rate(x_bucket{m="{model}"}[5m]))`}, q, "a")
	if got != `sum by (le) (rate(x_bucket{m="a"}[5m]))` {
		t.Errorf("template: got %q", got)
	}
	if _, err := PromQuery(PromSource{Window: time.Hour}, Query{}, "a"); err == nil {
		t.Error("no metric and no template: no error")
	}
}

// TestReadPrometheusGivesUp: a server that answers 503 is asked again
// with backoff (0.2 s, 0.4 s, …) until the timeout, then the model and
// its query are named. With a 1 s timeout that is at least 3 requests
// (at 0, 0.2 and 0.6 s) and no more than 1 s plus one request.
func TestReadPrometheusGivesUp(t *testing.T) {
	t.Parallel() // waits on a local server, idle: overlaps with the other waits
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	start := time.Now()
	_, err := ReadPrometheus(context.Background(), PromSource{URL: srv.URL, Window: time.Hour, Timeout: time.Second},
		twoModels(), Query{Metric: "req_duration_seconds", Models: []string{"a"}})
	took := time.Since(start)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Model != "a" || !strings.Contains(err.Error(), "HTTP 503") || !strings.Contains(err.Error(), `req_duration_seconds_bucket{model="a"}`) {
		t.Fatalf("error %v; want an *InputError for model a naming its query and the 503", err)
	}
	if n.Load() < 3 || took > 1500*time.Millisecond {
		t.Errorf("%d requests in %s; want ≥ 3 within the 1 s timeout", n.Load(), took)
	}
}
