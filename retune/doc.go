// Package retune closes the loop after rollout: it reads each scenario
// model's live latency histogram (the Prometheus text format, a Prometheus
// API query result or OTLP JSON, through package readers), judges whether
// the latency drifted from the scenario's model (drift.go), and re-checks
// the scenario's current hedge policy on the live models, next to a new
// optimisation on them (recheck.go).
//
// The steps, in order, and what each costs:
//
//   - Read (source.go) parses the source once per model: O(source size).
//   - Judge (drift.go) compares one histogram with one distribution on the
//     histogram's own buckets: O(buckets · components) plus a weights-only
//     EM for a mixture model, O(iterations · buckets · components).
//   - Fit is package fit's interval-censored maximum likelihood fit
//     (fit.FitHistogramContext), unchanged; Assess fits every model's
//     histogram at once.
//   - Recheck simulates: the current policy on the scenario's models and
//     on the live ones (optimize.Check, the rollout check), and a full
//     optimize.Run on the live models, then each class's static policy
//     beside an adaptive delay (adaptive.go). It runs only when a model
//     shifted.
//
// The command `hedgesim retune` is thin over this package.
package retune
