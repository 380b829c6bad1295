package retune

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestFetchURLRetries: a page that answers 503 twice, then 200, is read
// on the third request (after 0.2 s and 0.4 s of backoff).
func TestFetchURLRetries(t *testing.T) {
	t.Parallel() // waits on a local server, idle: overlaps with the other waits
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("the page"))
	}))
	defer srv.Close()
	body, err := FetchURL(context.Background(), nil, srv.URL, 5*time.Second, 0)
	if err != nil || string(body) != "the page" || n.Load() != 3 {
		t.Errorf("body %q, error %v, %d requests; want the page on the 3rd", body, err, n.Load())
	}
}

// TestFetchURLHangs: a server whose first answer never comes is asked
// again once half the timeout has passed, and the second answer is read
// within the timeout.
func TestFetchURLHangs(t *testing.T) {
	t.Parallel() // waits on a local server, idle: overlaps with the other waits
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			<-r.Context().Done() // hangs until the client gives up
			return
		}
		w.Write([]byte("the page"))
	}))
	defer srv.Close()
	start := time.Now()
	body, err := FetchURL(context.Background(), nil, srv.URL, 2*time.Second, 0)
	took := time.Since(start)
	if err != nil || string(body) != "the page" || n.Load() != 2 {
		t.Errorf("body %q, error %v, %d requests; want the page on the 2nd", body, err, n.Load())
	}
	if took < time.Second || took > 2*time.Second {
		t.Errorf("took %s; want the first attempt cut at 1 s and the answer within the 2 s timeout", took)
	}
}

// TestFetchURLGivesUp: a server that always answers 503 is asked at least
// 3 times (at 0, 0.2 and 0.6 s) within a 1 s timeout, then the error says
// so; a 404 is not asked again; a cancelled context returns its error.
func TestFetchURLGivesUp(t *testing.T) {
	t.Parallel() // waits on a local server, idle: overlaps with the other waits
	var n atomic.Int32
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	start := time.Now()
	_, err := FetchURL(context.Background(), nil, busy.URL, time.Second, 0)
	if err == nil || !strings.Contains(err.Error(), "gave up after 1s") || !strings.Contains(err.Error(), "HTTP 503") || n.Load() < 3 || time.Since(start) > 1500*time.Millisecond {
		t.Errorf("error %v after %d requests in %s; want ≥ 3 and a give-up naming the 503 within 1 s", err, n.Load(), time.Since(start))
	}

	var m atomic.Int32
	missing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.Add(1)
		http.NotFound(w, r)
	}))
	defer missing.Close()
	if _, err := FetchURL(context.Background(), nil, missing.URL, 5*time.Second, 0); err == nil || !strings.Contains(err.Error(), "HTTP 404") || m.Load() != 1 {
		t.Errorf("404: error %v after %d requests; want one request", err, m.Load())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FetchURL(ctx, nil, busy.URL, 5*time.Second, 0); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("12345")) }))
	defer big.Close()
	if _, err := FetchURL(context.Background(), nil, big.URL, 5*time.Second, 4); err == nil || !strings.Contains(err.Error(), "larger than 4 bytes (set HEDGESIM_MAX_DATA_BYTES to raise it)") {
		t.Errorf("a body of 5 bytes over a limit of 4: %v", err)
	}
}
