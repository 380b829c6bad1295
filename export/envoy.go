package export

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Envoy route configuration (envoy.config.route.v3.Route, RouteAction,
// RetryPolicy, HedgePolicy; envoy.config.cluster.v3.CircuitBreakers).
// Envoy hedges only on the per-try timeout: hedge_on_per_try_timeout
// with a retry_policy whose per_try_timeout is the delay and num_retries
// the copies; initial_requests (delay 0) is documented but not
// implemented. A hedge goes out after the retry back-off (25 ms base by
// default), so the fragment sets a 1 ms one. Copies to other models go
// through a composite cluster (envoy.extensions.clusters.composite.v3,
// Envoy 1.40: "the composite cluster uses the retry attempt count to
// deterministically select which sub-cluster to route to"), one entry
// per attempt.

// EnvoyMinDelay is what the envoy format writes for a delay of 0, which
// Envoy cannot express: a copy every millisecond.
const EnvoyMinDelay = time.Millisecond

func writeEnvoy(d *Document, opt Options) ([]byte, []Note, error) {
	var all []Note
	var routes strings.Builder
	clusters := map[string]envoyBudget{}
	composites := map[string][]string{} // composite cluster → its clusters, one per attempt
	var clusterOrder []string
	for i := range d.Classes {
		c := &d.Classes[i]
		n := &notes{class: c.Class}
		retryNotes(n, c, "Envoy")
		envoyBreakerNotes(n, c)
		statusRuleNotes(n, c, "Envoy", "retry_on 5xx covers a 504 (and gateway-error), so it follows on_error", "retry_on writes no 4xx other than 429: fatal")
		if c.Adaptive != nil {
			return nil, nil, &UnmappableError{"envoy", c.Class, "an adaptive delay (a percentile of recent latencies) has no Envoy form; export an optimize report's fixed-delay pick instead"}
		}
		if f := c.fallbacks(); f > 0 && f < len(c.Copies) {
			return nil, nil, &UnmappableError{"envoy", c.Class, "one retry policy cannot mix timed copies (hedges on the per-try timeout) with copies sent only after a failure"}
		}
		if err := faithful("envoy", n, c, opt); err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(&routes, "- name: %s\n  match:\n", yamlQuote(c.Class))
		switch {
		case opt.Service != "" && opt.Method != "":
			fmt.Fprintf(&routes, "    path: %s\n", yamlQuote("/"+opt.Service+"/"+opt.Method))
		case opt.Service != "":
			fmt.Fprintf(&routes, "    prefix: %s  # every method of the service\n", yamlQuote("/"+opt.Service+"/"))
		default:
			// Envoy matches the path as it is sent, percent-encoded: a
			// name's spaces, slashes and non-ASCII letters are escaped.
			fmt.Fprintf(&routes, "    prefix: %s  # placeholder: match the requests of class %s\n", yamlQuote("/"+url.PathEscape(c.Class)), commentText(c.Class))
		}
		// The route's cluster: the primary's, or, for copies to other
		// models, a composite cluster that sends attempt n to the n-th
		// model's cluster.
		cluster := c.Primary
		if ts := c.otherTargets(); c.Hedge && len(ts) > 0 {
			cluster = EnvoyCompositeName(c.Class)
			if _, ok := composites[cluster]; ok {
				return nil, nil, &UnmappableError{"envoy", c.Class, fmt.Sprintf("its composite cluster's name %q is another class's too", cluster)}
			}
			attempts := []string{c.Primary}
			for _, cp := range c.Copies {
				attempts = append(attempts, cp.Target)
			}
			composites[cluster] = attempts
			clusterOrder = append(clusterOrder, cluster)
			n.add("copies to %s go through the composite cluster %q (Envoy 1.40 or later: envoy.clusters.composite sends attempt n to its n-th cluster; hedges and retries count as attempts; the extension is not hardened, for trusted upstreams): each model needs a cluster of its name, and every attempt carries the same request, so each model's upstream must accept it (a model name in the body is not rewritten)", joinq(ts), cluster)
			fmt.Fprintf(&routes, "  route:\n    cluster: %s  # attempt n goes to the n-th cluster of the composite\n", yamlQuote(cluster))
		} else {
			fmt.Fprintf(&routes, "  route:\n    cluster: %s  # the primary's upstream\n", yamlQuote(cluster))
		}
		timeout := "0s" // 0 disables Envoy's 15 s default: no deadline
		if c.Deadline > 0 {
			timeout = protoDuration(c.Deadline.D())
			if c.OnTimeout == "fail_open" {
				n.add("at the deadline Envoy answers 504: failing open is the caller's handling of that 504")
			}
		}
		fmt.Fprintf(&routes, "    timeout: %s\n", timeout)
		for _, p := range c.Pools {
			n.add("provider %s is a pool of %d replicas behind a %s balancer: the balancer is the cluster's lb_policy (the serving side's), not written", p.Provider, p.Replicas, p.Balancer)
		}
		if !c.Hedge {
			n.add("hedging off: no retry_policy or hedge_policy written%s", reasonSuffix(c.Reason))
			all = append(all, n.list...)
			continue
		}
		if c.fallbacks() > 0 {
			retryOn, codes := envoyRetryOn(c)
			perTry := ""
			if c.AttemptTimeout > 0 && c.OnAttemptTimeout == "nonfatal" && c.Winner != "first_response" {
				// A per-try timeout is answered 504 and retried under
				// gateway-error (which 5xx includes).
				perTry = fmt.Sprintf("      per_try_timeout: %s\n", protoDuration(c.AttemptTimeout.D()))
				if !slices.Contains(retryOn, "5xx") {
					retryOn = append(retryOn, "gateway-error")
				}
			}
			if len(retryOn) == 0 {
				n.add("copies go out only after a non-fatal failure, and no failure Envoy can see is non-fatal: no retry_policy written")
			} else {
				fmt.Fprintf(&routes, "    retry_policy:  # copies only after a failure: plain retries, no hedging\n      retry_on: %s\n%s%s", yamlQuote(strings.Join(retryOn, ",")), codes, perTry)
				fmt.Fprintf(&routes, "      num_retries: %d\n      retry_back_off:\n        base_interval: 0.001s\n        max_interval: 0.002s\n", len(c.Copies))
				routes.WriteString(envoyOtherHosts(n, c))
				n.add("copies sent only after a failure are plain Envoy retries (no hedge_policy), after a back-off of up to 2 ms")
				clusterOrder = envoyRetryLimit(n, c, cluster, clusters, composites, clusterOrder)
			}
			commonNotes(n, c, "Envoy")
			all = append(all, n.list...)
			continue
		}
		delay := firstDelay(c)
		if delay == 0 {
			n.add("Envoy cannot send copies at once (initial_requests is not implemented): wrote per_try_timeout %s, a copy every %s", protoDuration(EnvoyMinDelay), fdur(EnvoyMinDelay))
			delay = EnvoyMinDelay
		}
		var retryOn, nonfatal []string
		codes := ""
		if c.Winner != "first_response" {
			for _, r := range []struct{ rule, what string }{{c.OnError, "errors"}, {c.OnRateLimited, "429s"}} {
				if r.rule == "fatal" {
					continue
				}
				if r.what == "errors" {
					retryOn = append(retryOn, "5xx")
				} else {
					retryOn = append(retryOn, "retriable-status-codes")
					codes = "      retriable_status_codes: [429]\n"
				}
				switch r.rule {
				case "ignore":
					n.add("Envoy cannot ignore a failed attempt while others run: %s written as retriable, so before the per-try timeout the next copy goes out at once (after it, Envoy discards the error)", r.what)
				case "nonfatal":
					nonfatal = append(nonfatal, r.what)
				}
			}
		}
		if len(nonfatal) > 0 {
			n.add("%s are retried at once only from the newest attempt: once its copy is out, Envoy discards an error from an earlier attempt (ignored, not non-fatal)", strings.Join(nonfatal, " and "))
		}
		if len(retryOn) == 0 {
			// Hedging needs a retry policy with some condition; a
			// status-code condition with no codes retries no error.
			retryOn = []string{"retriable-status-codes"}
			fmt.Fprintf(&routes, "    # errors end the request: retry_on only enables hedging (no status code is listed)\n")
		}
		fmt.Fprintf(&routes, "    retry_policy:\n      retry_on: %s\n%s", yamlQuote(strings.Join(retryOn, ",")), codes)
		fmt.Fprintf(&routes, "      num_retries: %d  # copies beyond the original\n", len(c.Copies))
		fmt.Fprintf(&routes, "      per_try_timeout: %s  # the hedge delay\n", protoDuration(delay))
		fmt.Fprintf(&routes, "      retry_back_off:  # a hedge waits for the back-off after the per-try timeout: keep it short\n        base_interval: 0.001s\n        max_interval: 0.002s\n")
		routes.WriteString(envoyOtherHosts(n, c))
		fmt.Fprintf(&routes, "    hedge_policy:\n      hedge_on_per_try_timeout: true\n")

		if c.NewProvider {
			n.add("\"a provider not tried yet\" not written: Envoy's retry_host_predicate previous_hosts picks another host of the cluster")
		}
		switch c.Winner {
		case "first_valid":
			n.add("Envoy does not read the body: a 2xx with an unusable answer wins (on_invalid %q is not applied)", c.OnInvalid)
		case "first_token":
			n.add("Envoy commits to the first attempt whose response headers arrive: first_token holds if the upstream sends headers with the first token")
		}
		if c.AttemptTimeout > 0 && len(attemptTimeoutDifferences(formatLimits["envoy"], c)) == 0 {
			n.add("per_try_timeout is the hedge delay: attempt_timeout %s not written, and at or after the deadline (%s) it never ends an attempt", fdur(c.AttemptTimeout.D()), fdur(c.Deadline.D()))
		}
		clusterOrder = envoyRetryLimit(n, c, cluster, clusters, composites, clusterOrder)
		b := &c.Budget
		if b.MaxHedgeShare > 0 {
			n.add("Envoy has no cap on the share of requests that hedge: max_hedge_share %g not written", b.MaxHedgeShare)
		}
		if b.RetryThrottling != nil {
			n.add("Envoy has no retry throttling: retry_throttling not written")
		}
		if b.HedgesPerSecond > 0 {
			n.add("Envoy has no rate limit on copies: hedges_per_second %g not written", b.HedgesPerSecond)
		}
		commonNotes(n, c, "Envoy")
		all = append(all, n.list...)
	}

	var out strings.Builder
	fmt.Fprintf(&out, "# Envoy routes (envoy.config.route.v3.Route) for a virtual host's routes list: hedge policy of %s (%s)\n", commentText(d.Scenario), sourceText(d.Source))
	writeComments(&out, "# ", all)
	out.WriteString("routes:\n")
	out.WriteString(routes.String())
	if len(clusterOrder) > 0 {
		out.WriteString("# merge into the clusters (envoy.config.cluster.v3.Cluster) the routes name\nclusters:\n")
		for _, name := range clusterOrder {
			fmt.Fprintf(&out, "- name: %s\n", yamlQuote(name))
			if attempts, ok := composites[name]; ok {
				out.WriteString("  # attempt n (the original, then each copy) goes to the n-th cluster\n  lb_policy: CLUSTER_PROVIDED\n  cluster_type:\n    name: envoy.clusters.composite\n    typed_config:\n")
				out.WriteString("      \"@type\": type.googleapis.com/envoy.extensions.clusters.composite.v3.ClusterConfig\n      clusters:\n")
				for _, a := range attempts {
					fmt.Fprintf(&out, "      - name: %s\n", yamlQuote(a))
				}
			}
			b, ok := clusters[name]
			if !ok {
				continue
			}
			out.WriteString("  circuit_breakers:\n    thresholds:\n    - priority: DEFAULT\n")
			if b.unlimited {
				fmt.Fprintf(&out, "      max_retries: %d  # no cap on requests with retries or hedges out at once, as simulated (Envoy's default is 3)\n", EnvoyNoRetryLimit)
			}
			if b.maxParallel > 0 {
				fmt.Fprintf(&out, "      max_retries: %d  # retries and hedges in flight at once\n", b.maxParallel)
			}
			if b.percent > 0 || b.min > 0 {
				fmt.Fprintf(&out, "      retry_budget:\n        budget_percent:\n          value: %s  # %% of active requests\n        min_retry_concurrency: %d\n",
					trimFloat(b.percent), b.min)
			}
		}
	}
	return []byte(out.String()), all, nil
}

// EnvoyNoRetryLimit is the circuit breaker's max_retries the envoy format
// writes for a class without a budget on copies in flight: the largest
// UInt32Value, so that the cluster never refuses a hedge or retry for
// the number already out, as the simulator never does.
const EnvoyNoRetryLimit = math.MaxUint32

// envoyBudget is what the envoy format writes in a cluster's
// circuit_breakers for the class that set it: a retry_budget (percent of
// active requests, min retry concurrency), max_retries (maxParallel), or,
// for a class without a budget on copies in flight, max_retries
// EnvoyNoRetryLimit (unlimited).
type envoyBudget struct {
	class            string
	percent          float64
	min, maxParallel int
	unlimited        bool
}

// envoyRetryLimit sets the circuit breaker of cluster, the route's, for
// class c and returns clusterOrder with cluster added when it is new.
// Envoy's router takes one unit of the cluster's max_retries (default 3)
// or retry_budget for a request from its first retry or hedge until the
// request ends, however many of its copies are out
// (source/common/router/retry_state_impl.cc: shouldRetry releases the
// request's unit before it takes one, the destructor at the end), and
// sends no retry or hedge when none is left: with the default, a fourth
// request hedging at once gets no copy. A class without a budget on copies
// in flight writes max_retries EnvoyNoRetryLimit, as the simulator caps
// nothing; one with a budget writes it, as requests with copies out,
// which the simulator's max_parallel and max_in_flight_ratio count as
// copies (noted when a request has more than one). The limit is per
// cluster: a second class on the cluster that wants another is noted.
func envoyRetryLimit(n *notes, c *Class, cluster string, clusters map[string]envoyBudget, composites map[string][]string, clusterOrder []string) []string {
	b := &c.Budget
	nb := envoyBudget{class: c.Class, percent: 100 * b.MaxInFlightRatio, min: b.MinInFlight, maxParallel: b.MaxParallel}
	nb.unlimited = nb.percent == 0 && nb.min == 0 && nb.maxParallel == 0
	if old, ok := clusters[cluster]; !ok {
		clusters[cluster] = nb
		if _, ok := composites[cluster]; !ok {
			clusterOrder = append(clusterOrder, cluster)
		}
	} else if old.percent != nb.percent || old.min != nb.min || old.maxParallel != nb.maxParallel {
		n.add("Envoy's retry budget is per cluster: kept class %s's for cluster %s, not this class's", old.class, cluster)
	}
	if nb.unlimited {
		n.add("cluster %s's circuit_breakers max_retries is written as %d: Envoy's default, 3 requests with retries or hedges out at once per cluster, would send no copy for a fourth; the limit is the cluster's, shared by every route to it", cluster, EnvoyNoRetryLimit)
	} else {
		n.add("the cluster's retry budget is shared by every route to %s, and counts retries as well as hedges", cluster)
		if len(c.Copies) > 1 {
			n.add("Envoy's circuit breaker counts a request with retries or hedges out once, however many of its %d copies are out, and the budget counts each copy: up to %d times as many copies go out as the budget lets out in the simulation", len(c.Copies), len(c.Copies))
		}
	}
	return clusterOrder
}

// EnvoyCompositeName is the name of the composite cluster the envoy
// format writes for a class whose copies go to other models.
func EnvoyCompositeName(class string) string { return class + "-attempts" }

func trimFloat(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.6f", x), "0"), ".")
}

func sourceText(src string) string {
	if src == FromReport {
		return "the optimize report's picks"
	}
	return "the scenario's policies"
}

// writeComments writes the notes as comment lines under a header.
func writeComments(b *strings.Builder, prefix string, ns []Note) {
	if len(ns) == 0 {
		return
	}
	fmt.Fprintf(b, "%sPer class: what this format cannot express or leaves to you, and what was written instead:\n", prefix)
	for _, n := range ns {
		fmt.Fprintf(b, "%s  %s\n", prefix, commentText(n.String()))
	}
}

// envoyRetryOn returns the retry_on conditions (and the
// retriable_status_codes line) of a class's non-fatal failures.
func envoyRetryOn(c *Class) ([]string, string) {
	var on []string
	codes := ""
	if c.Winner == "first_response" {
		return nil, ""
	}
	if c.OnError == "nonfatal" {
		on = append(on, "5xx")
	}
	if c.OnRateLimited == "nonfatal" {
		on = append(on, "retriable-status-codes")
		codes = "      retriable_status_codes: [429]\n"
	}
	return on, codes
}

// envoyOtherHosts returns the retry policy's lines that keep a copy (a
// hedge or a retry: both are retries to Envoy's router) off the hosts its
// request's earlier attempts went to, for a class whose pool sends copies
// to another replica (copies_to = "other_replica"): the previous_hosts
// retry host predicate, with host_selection_retry_max_attempts the most
// replicas of such a pool (Envoy re-picks that many times at most, then
// keeps its last pick); "" for a class without such a pool.
func envoyOtherHosts(n *notes, c *Class) string {
	ps := c.otherReplica()
	if len(ps) == 0 {
		return ""
	}
	most := 0
	var names []string
	for _, p := range ps {
		most = max(most, p.Replicas)
		names = append(names, p.Provider)
	}
	n.add("copies_to = \"other_replica\" on %s written as the previous_hosts retry host predicate: a copy goes to another host than its request's earlier attempts, after at most %d re-picks of the balancer (host_selection_retry_max_attempts; then its last pick stands)", strings.Join(names, ", "), most)
	return fmt.Sprintf("      retry_host_predicate:  # copies_to = \"other_replica\": a copy avoids the hosts already tried\n"+
		"      - name: envoy.retry_host_predicates.previous_hosts\n"+
		"        typed_config:\n"+
		"          \"@type\": type.googleapis.com/envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate\n"+
		"      host_selection_retry_max_attempts: %d\n", most)
}

// envoyBreakerNotes: Envoy's circuit_breakers are concurrency limits, not
// failure breakers; the nearest to a consecutive-failure breaker is the
// cluster's outlier detection (consecutive_5xx ejects a host for
// base_ejection_time), which is not written.
func envoyBreakerNotes(n *notes, c *Class) {
	for i := range c.Breakers {
		b := &c.Breakers[i]
		if b.ConsecutiveFailures > 0 && b.FailureRatio == 0 {
			n.add("%s not written: the nearest is the cluster's outlier_detection {consecutive_5xx: %d, base_ejection_time: %s}, which ejects one host rather than stopping calls to the model, with no half-open probes", b, b.ConsecutiveFailures, protoDuration(b.Cooldown.D()))
			continue
		}
		n.add("%s not written: Envoy's circuit_breakers limit concurrency, not failures; outlier_detection's failure_percentage ejects hosts by success rate over its interval, not this breaker", b)
	}
}
