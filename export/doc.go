// Package export writes a hedgesim hedge policy as the configuration of
// the runtime that will carry it: a gRPC service config, an Envoy route, a
// failsafe-go snippet, .NET's standard HTTP hedging handler options
// (Polly), a hedged() function for the application's own code in Python
// (asyncio, standard library only) or TypeScript (AbortController), or a
// neutral JSON document for custom gateways.
//
// The input is a Document, one Class per traffic class, built from a
// scenario (ScenarioPolicies: each class's configured policy) or from an
// optimize report and its scenario (ReportPicks: each class's pick; a
// "don't hedge" verdict exports hedging off). Document is also the json
// format itself; Decode reads one strictly.
//
// Runtimes count and spell things differently, and none can say all that
// hedgesim can. Write converts (gRPC's maxAttempts counts the original and
// is capped at 5; Polly's MaxHedgedAttempts and failsafe-go's
// WithMaxHedges do not count it; Envoy's num_retries is the copies and
// per_try_timeout the delay) and returns, per class, a Note for each thing
// the format cannot express and what it wrote instead — a copy to another
// model, a per-copy delay, a budget, a check of the answer's body. Copies
// sent only after a failure (fallback) become a retry policy (gRPC's
// retryPolicy, Envoy's plain retries, failsafe-go's retrypolicy) or
// Polly's fallback mode. A class's retries (a retry of the whole request
// around hedging, and one inside each attempt) are failsafe-go
// retrypolicies composed outside and inside its hedgepolicy, and a gRPC
// retryPolicy for a class that does not hedge (a method has a
// hedgingPolicy or a retryPolicy, not both); the other formats note them
// as not written. A class that cannot be written at all (an
// adaptive delay outside failsafe-go; timed and fallback copies in one
// class) is an *UnmappableError. A class a format's runtime would run
// differently from what was simulated (faithful.go) — copies whose gaps
// differ in a format with one delay (gRPC, Envoy, failsafe-go, Polly),
// copies to another model (gRPC) or to several (failsafe-go's one hedge
// target), more copies than gRPC sends (4), a deadline on time to first
// token under a timeout that covers the whole stream (gRPC, Envoy), an
// attempt timeout under hedging (gRPC, Envoy), an adaptive delay
// (failsafe-go's quantile delay is another estimate), copies_to =
// "other_replica" (all but Envoy and json: differences.go) — is an
// *UnfaithfulError naming each difference, what the runtime would run
// instead and the formats that can express the class, unless
// Options.Approximate writes what the runtime will run, each difference
// in a note.
//
// A provider that is a pool of replicas (sim.Pool) is in the json document
// (ReplicaPool); its balancer is the serving side's router, which every
// other format notes as not written. A copy that must go to another
// replica than its request's other attempts (copies_to = "other_replica")
// becomes Envoy's previous_hosts retry host predicate; the other formats
// note that they cannot say it (pool.go).
//
// The python and typescript formats carry the simulator's request as it
// is (code.go): timed, zero-delay and fallback copies to any target, the
// winner rule, a rule per kind of failure, the attempt timeout, the
// deadline failing open or closed, and losers cancelled; they leave
// budgets, retries, breakers and stream cuts to the caller, noted.
//
// gRPC's hedgingPolicy is carried out by grpc-java, grpc-dotnet and
// grpc-js, and ignored by grpc-go and C-core (GRPCRuntimes); the grpc
// format says so on every output that hedges.
//
// The semantics of each target are those of its public documentation and
// source as of late 2026: gRFC A6 (gRPC), Envoy's route.v3 RetryPolicy and
// HedgePolicy, failsafe-go v0.9.8's hedgepolicy and budget, and
// Microsoft.Extensions.Http.Resilience's HttpStandardHedgingResilienceOptions.
package export
