package retune

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/sim"
)

// PromSource is a Prometheus server's HTTP API to query, one instant
// query per model.
type PromSource struct {
	// URL is the server's base URL ("http://prometheus:9090").
	URL string
	// Template, when set, is the PromQL query with {model} standing for
	// the model's name. Empty means
	//
	//	sum by (le) (increase(METRIC_bucket{LABEL="MODEL", K="V"…}[WINDOW]))
	//
	// from the Query's metric, model label and labels.
	Template string
	// Window is the range of increase() (> 0; Prometheus's duration
	// syntax, whole milliseconds).
	Window time.Duration
	// Timeout bounds all of one model's query, retries included; Client
	// is the HTTP client (nil: http.DefaultClient).
	Timeout time.Duration
	Client  *http.Client
	// MaxBytes bounds a response's size.
	MaxBytes int64
}

// PromQuery returns model m's PromQL query for src and q.
func PromQuery(src PromSource, q Query, m string) (string, error) {
	if src.Template != "" {
		return strings.ReplaceAll(src.Template, "{model}", m), nil
	}
	if q.Metric == "" {
		return "", errors.New("a Prometheus query needs --metric NAME (or a query template with {model})")
	}
	if !(src.Window > 0) || src.Window%time.Millisecond != 0 {
		return "", fmt.Errorf("window %s: want a positive whole number of milliseconds", src.Window)
	}
	key := q.ModelLabel
	if key == "" {
		key = DefaultModelLabel
	}
	labels := maps.Clone(q.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	if _, fixed := labels[key]; !fixed && !q.NoModelLabel {
		labels[key] = m
	}
	keys := slices.Collect(maps.Keys(labels))
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		if !model.LabelName(k).IsValid() {
			return "", fmt.Errorf("label name %q is not a valid Prometheus label name", k)
		}
		parts[i] = fmt.Sprintf("%s=%q", k, labels[k])
	}
	metric := strings.TrimSuffix(q.Metric, "_bucket")
	return fmt.Sprintf("sum by (le) (increase(%s_bucket{%s}[%s]))", metric, strings.Join(parts, ", "), model.Duration(src.Window)), nil
}

// ReadPrometheus queries src for every model q names (every model of cfg
// by default) and returns their histograms, as Read does for a file. A
// query is retried with exponential backoff (0.2 s, doubling) after a
// network error, a 429 or a 5xx, each attempt cut after half of
// src.Timeout, until src.Timeout; a 4xx, or a result
// without series, is not retried. Every error names the model and the
// query (an *InputError), or is ctx's error.
func ReadPrometheus(ctx context.Context, src PromSource, cfg *sim.Config, q Query) ([]Live, error) {
	want, err := q.wanted(cfg)
	if err != nil {
		return nil, err
	}
	var out []Live
	for i, m := range cfg.Models {
		if !slices.Contains(want, m.Name) {
			continue
		}
		query, err := PromQuery(src, q, m.Name)
		if err != nil {
			return nil, err
		}
		ie := func(err error) error { return &InputError{Model: m.Name, Query: query, Source: src.URL, Err: err} }
		body, err := fetchQuery(ctx, src, query)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, ie(err)
		}
		var res struct {
			Status string
			Data   struct{ Result []json.RawMessage }
		}
		if json.Unmarshal(body, &res) == nil && res.Status == "success" && len(res.Data.Result) == 0 {
			return nil, ie(errors.New("the query returned no series: no such metric or labels, or no data in the window"))
		}
		h, err := readers.ReadPrometheusAPI(bytes.NewReader(body), "the query's result", readers.HistogramQuery{Metric: q.Metric, Unit: q.Unit})
		if err != nil {
			return nil, ie(err)
		}
		k := "latency"
		if m.Latency == nil {
			k = "ttft"
		}
		out = append(out, Live{Model: m.Name, Index: i, Key: k, Query: query, Hist: h})
	}
	return out, nil
}

// fetchQuery runs one instant query, retrying as ReadPrometheus says.
func fetchQuery(ctx context.Context, src PromSource, query string) ([]byte, error) {
	u := strings.TrimSuffix(src.URL, "/") + "/api/v1/query?" + url.Values{"query": {query}}.Encode()
	return fetch(ctx, src.Client, u, src.Timeout, src.MaxBytes, true)
}

// FetchURL gets the page at u (a /metrics page, a saved query result) for
// --from, as ReadPrometheus gets a query: retried with exponential backoff
// (0.2 s, doubling) after a network error, a 429 or a 5xx until timeout
// runs out, each attempt cut after half the timeout (a server that hangs
// is asked again), any other status than 200 an error at once; a body over
// maxBytes is an error (maxBytes ≤ 0: 1 GiB). client nil is
// http.DefaultClient. Nothing is returned but the whole body or an error:
// ctx's when ctx is done, else one saying what failed last and, when the
// timeout ran out, "gave up after TIMEOUT".
func FetchURL(ctx context.Context, client *http.Client, u string, timeout time.Duration, maxBytes int64) ([]byte, error) {
	return fetch(ctx, client, u, timeout, maxBytes, false)
}

// fetch gets u with retries within timeout; api says whether a 400 or 422
// carries the Prometheus API's own error in its body (returned as a body).
func fetch(ctx context.Context, client *http.Client, u string, timeout time.Duration, maxBytes int64, api bool) ([]byte, error) {
	if client == nil {
		client = http.DefaultClient
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	wait := 200 * time.Millisecond
	var last error
	for {
		// Each attempt has half the timeout at most, so that a server
		// that hangs is asked again.
		actx, acancel := context.WithTimeout(ctx, timeout/2)
		body, retry, err := get(actx, client, u, maxBytes, api)
		acancel()
		if err == nil {
			return body, nil
		}
		if parent.Err() != nil {
			return nil, parent.Err()
		}
		last = err
		if !retry {
			return nil, err
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil {
				return nil, parent.Err()
			}
			return nil, fmt.Errorf("gave up after %s: %w", timeout, last)
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// get fetches u once; retry says whether a failure is worth retrying.
func get(ctx context.Context, client *http.Client, u string, maxBytes int64, api bool) (body []byte, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, true, err
	}
	defer resp.Body.Close()
	if maxBytes <= 0 {
		maxBytes = 1 << 30
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, true, err
	}
	if int64(len(body)) > maxBytes {
		return nil, false, fmt.Errorf("response larger than %d bytes (set %s to raise it)", maxBytes, readers.MaxBytesEnv)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return body, false, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, true, fmt.Errorf("HTTP %s", resp.Status)
	case api && (resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnprocessableEntity):
		// The API's own error in its JSON: readers says it.
		return body, false, nil
	}
	return nil, false, fmt.Errorf("HTTP %s", resp.Status)
}
