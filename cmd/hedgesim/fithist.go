package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/readers"
)

// histogramFormats are the fit formats that are latency histograms.
var histogramFormats = map[string]bool{"prometheus": true, "prometheus-api": true, "otlp": true}

// labelFlag collects repeated --label KEY=VALUE arguments.
type labelFlag map[string]string

func (f labelFlag) String() string {
	var parts []string
	for k, v := range f {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

// Set adds KEY=VALUE; the same key with another value is refused,
// naming both: a series cannot match both.
func (f labelFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q: want KEY=VALUE", s)
	}
	if prev, dup := f[k]; dup && prev != v {
		return fmt.Errorf("label %s given twice (%s=%s, then %s=%s); a series has one value of it", k, k, prev, k, v)
	}
	f[k] = v
	return nil
}

func (labelFlag) checksRepeats() {}

// fitHistogramFile reads the histogram at path in format and fits it,
// returning the TOML (or JSON) output. Bad input is a usageError; it
// stops with ctx's error when ctx is done.
func fitHistogramFile(ctx context.Context, path, format string, q readers.HistogramQuery, opt fit.Options, block fit.BlockOptions, asJSON bool) ([]byte, error) {
	r, format, closeFile, err := openLog(ctx, path, format)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	var h *readers.Histogram
	switch format {
	case "prometheus":
		h, err = readers.ReadPrometheusText(r, path, q)
	case "prometheus-api":
		h, err = readers.ReadPrometheusAPI(r, path, q)
	case "otlp":
		h, err = readers.ReadOTLP(r, path, q)
	}
	if err != nil {
		return nil, usageError{err: err}
	}
	hf, err := fit.FitHistogramContext(ctx, h, opt)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, usageError{err: fmt.Errorf("%s: %w", path, err)}
	}
	var b bytes.Buffer
	if asJSON {
		err = hf.WriteJSON(&b, block)
	} else {
		err = hf.WriteTOML(&b, block)
	}
	return b.Bytes(), err
}

// promAPIError matches the status of a Prometheus HTTP API error
// response.
var promAPIError = regexp.MustCompile(`"status"\s*:\s*"error"`)

// guessHistogramFormat names a histogram format from a file's first bytes,
// or "" when it looks like none.
func guessHistogramFormat(data []byte) string {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(t, []byte("{")) && bytes.Contains(data, []byte(`"resourceMetrics"`)):
		return "otlp"
	case bytes.HasPrefix(t, []byte("{")) && (bytes.Contains(data, []byte(`"resultType"`)) || promAPIError.Match(data) && bytes.Contains(data, []byte(`"errorType"`))):
		// A query's result, or its envelope alone: an error response
		// ({"status":"error","errorType":…}) says why the query failed.
		return "prometheus-api"
	case bytes.HasPrefix(t, []byte("# TYPE")) || bytes.HasPrefix(t, []byte("# HELP")) || bytes.Contains(data, []byte(`_bucket{`)):
		return "prometheus"
	}
	return ""
}
