package main

// runSynopsis is the help of `hedgesim run`.
const runSynopsis = `run [flags] [SCENARIO]

Simulates the scenario's traffic twice on the same random draws — with each
class's hedge policy and without hedging — and prints per class and overall:
p50/p90/p95/p99/p99.9 of the time to a usable answer (p95 with a 95%
interval; a request without an answer by its deadline is a miss), outcomes
(answered, timeouts failed open/closed, errors, 429s, invalid answers), the
share of requests that hedged and attempts per request, the cost per 1000
requests and per day and month at the arrival rate, and a table per provider.
A pipeline class (steps) adds its end-to-end view: a turn that went through
with its answer step's answer (the visible step, or the last) is answered,
checked (every fail-open step answered in time) or degraded, at its
end-to-end time; a provider or pool at ≥ 95% utilisation, or whose mean queue
wait is over half its calls' deadline, gets a warning.

SCENARIO is a TOML file (scenarios/README.md) or a built-in name ('hedgesim
list'); without one the built-in default runs. The same seed gives a
byte-identical report. --set and --scale-rate change the scenario for this
run only (what-if), validated like the file and listed in the report.

Examples:
  hedgesim run guard-check
  hedgesim run --json --seed 7 --requests 1e6 my-gateway.toml > report.json
  hedgesim run --set 'classes[0].hedge.delay=800ms' --scale-rate 2 my-gateway.toml`
