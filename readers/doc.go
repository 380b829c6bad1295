// Package readers reads the recorded data hedgesim is built from: latency
// logs and summaries, which package fit turns into models, and traffic
// traces, which package scenario replays.
//
// # Logs
//
// A log is one record per request (a Log of Request values, times in
// seconds). Loaders: ReadLLMPerf (llmperf per-request JSON), ReadCSV and
// ReadJSONL (columns named by Columns, unit stated or implied by the
// column name, optional status column), and ReadLLMPerfSummary for
// llmperf's published percentiles. Requests that failed are counted for
// the error, rate-limit (429) and invalid-answer rates and not fitted.
// Every loader reports bad input as an *InputError with the file, the line
// and what is wrong, and never panics (each has a fuzz target).
//
// # Histograms
//
// ReadPrometheusText (the text exposition format, via expfmt),
// ReadPrometheusAPI (the JSON of a Prometheus HTTP API query) and ReadOTLP
// (OpenTelemetry explicit and exponential histograms in OTLP JSON) return
// a Histogram of bucket counts in seconds, one series chosen by a
// HistogramQuery; package fit fits it by interval-censored likelihood.
//
// # Traces
//
// ReadAzureTrace (Azure LLM inference trace 2023, CSV) and
// ReadMooncakeTrace (Mooncake FAST'25, JSON Lines) return a Trace of
// arrival offsets and token counts, exact to the trace's resolution; the
// scenario package replays it ([arrivals] process = "replay").
package readers
