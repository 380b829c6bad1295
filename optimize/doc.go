// Package optimize chooses a hedge delay per traffic class: it simulates a
// grid of candidate policies on common random numbers, draws the frontier of
// added cost versus p95 (or p99), picks one candidate under a stated
// objective, and says whether the pick is worth shipping — including "don't
// hedge". `hedgesim optimize` is its command-line front end; package plots
// draws its figures.
//
// # Candidates
//
// A candidate is a (delay, max copies, hedge target) for one class; "no
// hedging" is always candidate 0. The grid comes from Settings (the
// scenario's "optimize" table, see scenarios/README.md, overridden by
// flags): a list of delays or a from/to/step range; copy counts; target
// models. Without delays each class gets a default grid derived from its own
// no-hedging latency: delay 0, p10/4, p10/2, 3·p10/4 and 40 delays spaced
// geometrically from its p10 to its p99 (three significant digits) — the
// search always reaches well below the percentile it tries to improve.
// Delays, copy counts and targets are each tried once (duplicates are
// dropped; copy counts in ascending order). A candidate the simulator
// rejects — say, copies and targets whose correlation matrix is not
// positive semidefinite — is left out with a warning naming it and why;
// when no hedged candidate of a class is left, the sweep fails.
//
// A class that shares nothing limited with another class is simulated
// alone (share 1, its share of the arrival rate) with Settings.Requests
// requests per candidate (default 200 000) — or, for a replayed trace, on
// the class's own requests of the trace when they are fewer (the report's
// first line then gives the count per class) — and the scenario's seed for
// every candidate; alone is exact for such a class. Classes coupled by a
// shared limited resource — a model with a rate limit, or a provider with
// a rate limit, a concurrency limit or degraded periods, reachable through
// a class's primary, targets or the search's targets — are optimized
// together on their shared traffic (Settings.Requests × the group's size
// per simulation): coordinate descent over the classes, each class's grid
// swept with the others at their current pick (at first their configured
// policy), until a round changes no pick or MaxJointRounds rounds have run
// (JointGroup; Settings.Alone turns this off).
//
// After choosing, the rollout check (Check) simulates the whole scenario
// once with every pick applied (Settings.CheckRequests requests, default
// 10⁶ or 5 × Requests when less), next to no hedging and to what the sweep
// predicted; a class is flagged when its p95 interval in the check is
// disjoint from the sweep's, when it answers significantly fewer requests
// than no hedging in the check, or when its answered share in the check lies outside
// the sweep's Wilson interval (RolloutClass.Flag says which).
//
// The class's configured policy is candidate "configured" when the grid
// of fixed delays cannot express it (fallback copies, an adaptive delay, a
// list of different delays); when every other pick would answer
// significantly fewer requests than it, it is kept (verdict decided_by
// "configured"). A grid never holds a delay at or past the class's
// deadline; when the no-hedging p99 is a miss, the default grid spans
// from p10 to the deadline. RolloutConfig is that scenario; `hedgesim optimize
// --write-scenario FILE` writes it as a scenario file that `hedgesim run`
// reproduces exactly.
// The simulator's draws for request i and attempt k depend only on (seed, i,
// k), so every candidate sees the same arrivals, token counts and attempt
// latencies (common random numbers): the p95-versus-delay curve is smooth
// and two candidates differ by policy, not by noise. A candidate keeps the
// rest of the class's policy (winner rule, error rules, cancellation and its
// billing, budgets) but uses its fixed delay: an adaptive delay is switched
// off. Candidates run in parallel on GOMAXPROCS goroutines (Options.Workers)
// and write their results by index, so the report is the same whatever the
// number of cores.
//
// # Measurements and statistics
//
// Percentiles are nearest-rank (R type 1, gonum's stat.Empirical) over the
// time to a usable answer: a request without one by its deadline (error,
// 429, invalid answer, timeout, fail-open included) is a miss, +Inf (JSON
// null, printed "miss"), so a policy cannot look faster by failing
// requests sooner. A candidate whose answered share is significantly lower
// than no hedging's (Candidate.FewerAnswers) is never picked nor judged
// "hedge" unless Rule.AllowFewerAnswers (allow_fewer_answers). Each p95
// and p99 has a distribution-free order-statistic confidence interval at
// Settings.Level (default 95 %, sim's ClassResult.QuantileCI). Added cost is
// 100·(cost − cost without hedging)/cost without hedging on the same draws;
// a class whose traffic costs nothing (no prices) is measured in calls per
// request instead (cost basis "calls"). A candidate whose interval of the
// objective's percentile overlaps the pick's is marked "~" (not
// significantly different), as benchstat does; with common random numbers
// this test is conservative. A percentile that is a miss is never "~"
// against a pick whose percentile is an answer (two misses are). Under
// objective answered (or checked), "~" compares the objective's own
// figure: the Wilson intervals of the share within the target overlap —
// or, when the class's requests interact (objective answered), the paired
// difference of the two candidates' shares over their batches holds 0
// (intervals.go), since Wilson's intervals assume independent requests.
// In a class with no candidate picked (ClassReport.Unpicked), "~" means
// not known to differ from what rolls out, and the report's closing legend
// names such classes (TestClosingLegendWithoutPick).
// An order-statistic interval exists only when
// its ranks fall inside the sample: at 95 %, from 110 requests for p95 and
// 563 for p99 (MinRequestsForCI). Without one, the table prints "n/a" for
// that interval and JSON has p95_ci95_ok or p99_ci95_ok false. When the
// objective's percentile has none, every candidate is marked "~", no
// difference counts as significant and a warning says so; the verdict is
// "hedge" only when the unanswered share falls significantly (Wilson
// intervals, which need no percentile interval), else undecided
// (verdict.undecided, label "undecided"; reason: too few requests, how
// many are needed — batched candidates need 30 batches of 10/(1 − p)
// requests, 6000 for p95 — and what to rerun with), never "don't
// hedge"; when
// only p99 lacks one under a p95 objective, a warning says to treat p99 as
// rough.
//
// # Frontier
//
// The frontier is the Pareto set of (added cost, percentile): candidates
// that no other candidate beats on both, lower being better. At an equal
// percentile — typically p95 sitting at the deadline — the candidate that
// answers more requests in time is better. See Frontier.
//
// # Objectives
//
// Objective names, in files and flags:
//
//	p95   the trade-off (tradeoff.go): within added cost ≤
//	      max_added_cost_pct (default inf: no cap) and hedged share ≤
//	      max_hedged_pct (default 100 %), the point of the added-cost
//	      versus p95 frontier past which more cost no longer passes the
//	      verdict rule's marginal test — ≥ min_gain_per_cost % of p95 or
//	      ≥ min_unanswered_cut_per_cost % of the unanswered share per 1 %
//	      of added cost (a move that passes on the unanswered share alone
//	      must cut it significantly, by the verdict's test of that share
//	      between its two points, when require_significant); with both 0,
//	      the lowest p95 within the caps (ties
//	      to the higher answered share, then the lower cost). When p95 is a
//	      miss without hedging and for every candidate, the frontier orders
//	      them by answered share, and the note and verdict say so and
//	      suggest objective answered
//	p99   the same on p99
//	cost  lowest added cost with p95 ≤ sla (and the hedged-share cap);
//	      when no candidate meets the SLA, the fastest, with a warning
//	answered  the share of requests answered within target (a latency,
//	      required) on the same trade-off: each move must cut the share
//	      not answered within target by ≥ min_unanswered_cut_per_cost %
//	      (of no hedging's) per 1 % of added cost; within
//	      max_added_cost_pct and the hedged-share cap; ties go to the lower
//	      p95, then the lower cost; judged by JudgeWithin
//	checked  as answered, for a pipeline class only, counting the turns
//	      checked within target: gone through with every fail-open step
//	      answered in time (sim.PipelineResult.CheckedWithin); the verdict
//	      judges the share not checked within target. On a one-call class
//	      it is an error (CanCheck)
//	knee  the knee of the frontier (within the hedged-share cap): the point
//	      farthest above the chord from its cheapest to its fastest point,
//	      both axes scaled to [0, 1] (Kneedle); the fastest point when the
//	      frontier has fewer than 3 points or none at least 0.02 above
//	      the chord in those units (MinKneeDistance: closer is rounding
//	      noise, not a knee; no diminishing returns)
//
// See Pick.
//
// The limits take 0 literally; none of them means "off" (unlike the
// class's own hedging budgets, whose zero fields are off):
// max_added_cost_pct = 0 admits only candidates that cost no more than no
// hedging, and max_hedged_pct = 0 only candidates that send no copy, which
// in effect forbids hedging. "No cap" is max_added_cost_pct = inf and
// max_hedged_pct = 100, the defaults. Likewise a verdict threshold of 0
// (min_gain_pct, min_gain_per_cost, min_unanswered_cut_per_cost) is a
// threshold of 0: any fall passes that test, but it must still be a fall
// (of at least 0.05 %).
//
// # Verdict
//
// The verdict applies a Rule to the pick against no hedging: hedge when the
// objective's percentile falls by at least min_gain_pct (default 10 %), by
// at least min_gain_per_cost percent per percent of added cost (default 1;
// a pick that is also cheaper always passes), and significantly (the
// intervals before and after are disjoint; require_significant, default
// true). A class with a deadline may also hedge when the share of requests
// without a usable answer in time falls by at least min_gain_pct, by at
// least min_unanswered_cut_per_cost percent per percent of added cost
// (default 0.5), and significantly (disjoint Wilson intervals). The
// defaults encode field report 2's rule of thumb (README, Background):
// −25 % p95 for +8 % cost (3.1 % per %) is worth it, −10 % for +20 %
// (0.5 % per %) is not; field report 1 (unanswered 50 % → 12.5 % for +75 %
// calls, scenario guard-check) passes the rule.
//
// The rule judges the objective's pick first. When that pick fails the
// rule but a hedged candidate within the objective's limits passes it,
// that candidate becomes the pick — for a trade-off pick (objectives p95,
// p99 and answered) the last point of the walk before it that the rule
// accepts ("recommend X: the trade-off pick (Y) fails the rule (…); X, the
// last point of the walk to it that the rule accepts, passes: …"), else,
// and for objective cost, the cheapest such candidate (the least step
// past where the trade-off ended), else the fastest — and the verdict is
// "hedge": the reason says so ("recommend X: the trade-off pick (Y) fails
// the rule (…); X passes: …"), and the
// objective's own choice stays in JSON
// "objective_pick" (and is marked "o" in the table). So "don't hedge" means
// that no candidate within the objective's limits passes the rule. The
// limits are kept, though: under a cost cap of the user's that excludes
// every hedge of guard-check (+50 % at least), `hedgesim optimize
// --max-cost 10 guard-check` says "don't hedge", adding that beyond the
// objective's limits the rule would accept that trade (JSON "alternative"): of the
// candidates beyond the limits that the rule accepts, the one closest to
// them — the least excess over the caps it breaks, summed in percentage
// points of added cost and hedged share (for objective cost, p95 above the
// SLA in percent of the SLA); ties go to the faster. Without the cap the pick is
// that trade and the verdict "hedge". The reason states the numbers. When
// the pick answers fewer
// requests in time than no hedging, the reason says so ("but the answered
// share falls 98.5% → 97.9%"), whatever the verdict. A class whose
// slowness is request-inherent (every copy as slow as the original) gets
// "don't hedge": no candidate lowers its p95.
//
// # Command
//
//	hedgesim optimize [flags] [SCENARIO]
//
// Flags (each overrides the scenario's "optimize" table for every class):
//
//	--requests N           requests per candidate (default 200000)
//	--seed N               random seed
//	--delays LIST          delays to try, such as 100ms,250ms,1s
//	--from D --to D --step D
//	                       a delay range (from defaults to 0s)
//	--copies LIST          copies beyond the primary to try, such as 1,2
//	--targets LIST         models to send copies to
//	--objective NAME       p95, p99, cost, knee or answered
//	--target D             answered objective: the latency target
//	--max-cost PCT         cost cap of p95/p99/answered, in % (default inf: none)
//	--max-hedged PCT       cap on the share of requests that hedge, in %
//	--sla D                cost objective: p95 must be ≤ D
//	--min-gain PCT, --min-gain-per-cost X, --min-unanswered-cut-per-cost X,
//	--require-significant=BOOL
//	                       the verdict rule
//	--allow-fewer-answers  let the pick answer significantly fewer requests
//	--exclude-overload     exclude candidates that overload a rate limit
//	                       even when the sweep measured it (fate.go)
//	--group-objective NAME weighted, worst or each (group.go)
//	--alone                sweep coupled classes alone too
//	--check-requests N     requests of the rollout check (0: skip)
//	--write-scenario FILE  the scenario with every pick applied
//	--confidence L         level of the intervals (default 0.95)
//	--classes LIST         optimise only these classes
//	--workers N            parallel simulations (default: CPUs)
//	--max-memory SIZE      refuse a sweep estimated to need more (default:
//	                       the memory available)
//	--all                  list every candidate, not only the frontier
//	--json                 print the JSON report instead of tables
//	--out DIR              write the files below to DIR
//	--no-plots             with --out, skip the figures
//	--shard i/n            simulate shard i of n (0 ≤ i < n) and write a
//	                       part to --out FILE (see Sharded sweeps)
//	--resume STATE         with --shard: the next stage, from merge's state
//
//	hedgesim merge [--state FILE] PART… --out DIR
//
// Bad flags or "optimize" table values exit with status 2 (with file:line
// for the table). Without --out nothing is written. A progress line goes to
// stderr only when stderr is a terminal.
//
// # Sharded sweeps
//
// RunShard simulates a deterministic share of a sweep: shard i of n
// (Shard, 0-based) the hedged candidates at positions ≡ i (mod n) among
// all candidates of the classes swept alone, and among the candidates of
// each step of a coupled group's coordinate descent; every shard simulates
// every no-hedging baseline, from which the default grids derive. It
// returns Measurements: the statistics of each simulation the report needs,
// with an exact JSON form. Assemble builds the report from the union of
// every shard's measurements (Union) and runs the rollout check; the
// report is Run's, field for field, whatever n.
//
// A coupled group's step (one class in one round) sweeps with the other
// classes at the picks of the steps before, which need every shard's
// measurements: a stage does the first open step of each group, and
// Assemble returns no report but the next steps; the next stage runs
// RunShard with every measurement so far as known. Classes swept alone are
// done in the first stage; with one shard, everything is.
//
// `hedgesim optimize --shard i/n --out FILE` writes a shard's measurements
// as a part (a versioned JSON file that also holds the build, the
// scenario's sha256 and the command line); `hedgesim merge PART… --out DIR`
// checks that the parts are shards 0…n−1 of one stage of one sweep and
// writes the report directory optimize --out DIR writes, byte for byte, or
// with --state FILE the state the next stage resumes from (--resume).
//
// # Output
//
// Standard output starts with the scenario, seed and requests per
// candidate, then has a summary line per class (verdict, delay, copies,
// target, p95, p99 and answered share before → after, hedged share, calls
// per request, added cost), then per class the objective, the pick and why, the verdict
// and its reason, and the frontier (every candidate with --all) with p95,
// p99 and their intervals, answered share, hedged share, calls per request,
// cost per 1000 requests and added cost; "*" marks the pick — what to roll
// out: no hedging when the verdict is "don't hedge" — "o" the objective's
// pick when the verdict rule moved the pick (see Verdict and
// ClassReport.Pick), and "~" the candidates not significantly different
// from the pick. The summary line, the plots and CSV's "pick" column all
// show the pick. With
// --out DIR:
//
//	report.txt              the tables, as printed
//	report.json             Report as JSON (below)
//	candidates.csv          every candidate of every class, one row each
//	CLASS-cost.png/.svg     added cost vs p95, candidates labelled by delay,
//	                        frontier, no hedging and the pick highlighted
//	CLASS-survival.png/.svg P(latency > t) on a log axis, no hedging vs the
//	                        pick (when the verdict is "don't hedge", vs the
//	                        fastest candidate, for reference; no hedging
//	                        alone when none is faster; not written for a
//	                        class without an answered request)
//	CLASS-delay.png/.svg    p95 and p99 with confidence bands, hedged and
//	                        answered share, vs the delay
//	                        (no CLASS-* plot for a class without requests)
//
// CLASS is the class's name in ASCII letters, digits, '-', '_' and '.'
// (each other character '_'), or class-N, its place in the scenario, for
// a name with no ASCII letter or digit (聊天).
//
// Every file is written to a temporary file in DIR and renamed into place,
// so an interrupted run leaves each file complete or absent.
//
// JSON (Report): scenario, seed, requests_per_candidate, confidence_level,
// quantile_rule, verdict_rule {min_gain_pct, min_gain_per_cost,
// min_unanswered_cut_per_cost, require_significant}, verdict_rule_text, and
// classes[]: class, deadline_s, slo_s (0 = none), objective {name, text, percentile,
// max_added_cost_pct (null = no cap; always null for objectives cost and
// knee, which do not apply it), max_hedged_pct, sla_s (null = unset)}, cost_basis ("usd" or "calls"), candidates[] (Candidate),
// frontier (candidate indices by cost), pick (index of the recommended
// candidate, which the verdict judges; for an undecided class, its
// configured policy's candidate, or 0 with no candidate marked picked
// when the sweep did not simulate that policy), rolls_out ("configured"
// for an undecided class, whose configured policy rolls out; absent
// otherwise, and for a class whose configured policy answers significantly
// fewer requests than no hedging, which is "don't hedge"), pick_note (why), objective_pick
// (index of the objective's own choice: equal to pick unless that choice
// failed the verdict rule and pick is a candidate within the objective's
// limits that passes it), verdict {hedge, label ("hedge", "don't hedge",
// "effectively no hedging": copies for under 1 % of requests,
// "fallback", or "undecided": too few requests to tell, or a "don't hedge"
// from a sweep shorter than one slow-period cycle of a provider the class
// uses), undecided (only when true), sla_missed (objective cost: the pick
// is above the SLA; only
// when true), reason, gain_pct (null for a class that got no requests),
// added_cost_pct, significant (the intervals of the objective's
// percentile before and after are disjoint), decided_by ("percentile",
// "unanswered", "configured" or "group": what made the verdict "hedge"; ""
// for "don't hedge"), unanswered_significant (the Wilson intervals of the
// unanswered share before and after are disjoint and, when requests
// interact, the paired difference over the batches clears 0, or, for runs
// that cannot be paired, the runs' own intervals of the answered share
// part), unanswered_share_before,
// unanswered_share_after (null for a class that got no requests; all of
// the pick; a "hedge" decided by the
// unanswered share may have significant false), alternative (when the
// verdict is "don't hedge", the index of the candidate closest to the
// objective's limits beyond them that the rule would accept, named in the
// reason; else −1)}, spend_usd (the pick at the class's arrival rate, as
// hedgesim run reports it: requests_per_s, per_day, per_month,
// no_hedging_per_day, no_hedging_per_month), warnings (those that start
// "unstable baseline: " are printed first), notes (how the candidates
// were judged: an overloaded rate limit measured over enough refills of
// its bucket), optimized_with (the other classes of its joint group;
// empty when swept alone), group (how a group objective chose the pick:
// GroupChoice, its value of the group search's picks, and rolled_out,
// the group objective in the rollout check, when what rolls out is not
// those picks; absent otherwise), requests (per candidate of the class: a replayed trace
// may have fewer than requests_per_candidate, the number asked for). A
// candidate has label, hedging, delay_s, copies, target, requests,
// latency_s {mean, p50, p90, p95, p99, p99_9, p95_ci95, p99_ci95 — the
// intervals are at confidence_level}, p95_ci95_ok, p99_ci95_ok (false: too few
// requests for the interval, which is then meaningless), answered_share,
// hedged_share, attempts_per_request, cost_per_1k_usd, added_cost_pct
// (on the cost basis), added_calls_pct, feasible, frontier, pick,
// objective_pick, indistinguishable_from_pick, fewer_answers,
// answered_within_target_share (null when the objective has no target:
// p95, p99, cost, knee), answered_share_ci95,
// answered_within_target_share_ci95 (with a target), added_cost_pct_ci95
// (on the USD cost basis; absent otherwise) and ci95_method (how those
// three were made: Wilson's score interval for independent requests,
// batch means over the run's fixed grid of 30 arrival-ordered batches
// when they interact, a share at 0 or 1 in every batch getting the Wilson
// interval of its 30 batch shares (sim.BatchShareInterval); the added cost paired with no hedging, over the
// run's 1000 arrival sections for independent requests and batch by
// batch when they interact), added_cost_pct_ci95_method (the added
// cost's method alone: sim.CIMethodAddedCostPaired or
// CIMethodAddedCostGrid), met_share_ci95,
// rescued_share_ci95 and harmed_share_ci95 (Wilson's for independent
// requests; batch means over the same grid when they interact and the
// runs are paired), status ("picked", "eligible" or
// "rejected") and reasons[] (code, detail, name, value, limit, unit, text:
// see fate.go), over_rate_limit, overload_excluded, overloads[] (Load:
// kind, name, offered, limit, utilisation, burst_s, span_s), unstable,
// won_by_primary_share, won_by_copies[] (model, share; both null for a
// pipeline candidate, whose calls are won in its steps), met_share,
// rescued_share, harmed_share (null when the runs cannot be paired; see
// won.go). A percentile or interval bound that is a
// miss is null. The report also has joint[] (JointGroup: classes,
// optimized, shared, rounds, converged, requests, objective, search) and rollout_check
// (RolloutCheck: requests, classes[] with latency_s, no_hedging_latency_s,
// predicted_latency_s — their intervals at confidence_level — the three
// answered shares, rate_limited_attempts, added_cost_pct,
// predicted_added_cost_pct, flagged, flag, note, too_few (only when true:
// too few of the class's requests for a p95 interval, so its p95 is not
// compared; the note and a warning say what --check-requests would do),
// predicted_too_few (only when true: the sweep's prediction has no p95
// interval, so it is not compared; the note says what --requests would
// do); and report, the full `hedgesim
// run` report of the check, whose intervals are at 95 % as run's are;
// null when skipped). Latencies
// are in seconds, shares in [0, 1], costs in USD.
//
// CSV values have at most 12 significant digits. CSV columns (CSVHeader): class, label, hedging, delay_s, copies, target,
// requests, p50_s, p90_s, p95_s, p95_ci_lo_s, p95_ci_hi_s, p99_s,
// p99_ci_lo_s, p99_ci_hi_s, p99_9_s, mean_s, answered_share, hedged_share,
// attempts_per_request, cost_per_1k_usd, added_cost_pct, added_calls_pct,
// cost_basis, feasible, frontier, pick, indistinguishable_from_pick,
// objective_pick, fewer_answers, answered_within_target_share, status,
// reasons (the codes, ";"-separated). A miss is written +Inf; the bounds
// of a p95 or p99 interval too few requests support (P95CIOK, P99CIOK
// false) are empty, and so is answered_within_target_share where the JSON
// has null (an objective without a target), and delay_s for an adaptive
// candidate (label "adaptive pNN"): its delay is the percentile of recent
// latencies, the JSON's adaptive, not a fixed one. delay_s and copies are
// empty for a pipeline candidate (one with steps, no hedging's too): it
// has a policy per step, which its label and the JSON's steps give, not
// one delay and number of copies.
package optimize
