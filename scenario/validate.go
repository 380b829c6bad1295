package scenario

import (
	"errors"
	"fmt"
	"hash"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// Defaults of the file format (see scenarios/README.md).
const (
	defaultSeed     = 1
	defaultRequests = 100000
	// shareTolerance is how far the class shares may sum from 1;
	// shareRounding is added to it for the rounding of the sum, so that
	// shares written to sum to 1 ± 0.001 in decimal (0.4995 + 0.4995) pass.
	shareTolerance = 0.001
	shareRounding  = 1e-12
	// maxPrice bounds every price (USD per million tokens, or per attempt),
	// so that costs stay finite.
	maxPrice = 1e6
)

// checker turns decoded tables into a sim.Config. Each problem is an
// *Error located in the file; the checker records it (keep) and goes on
// with the parts that do not depend on the faulty value, so that one pass
// reports every independent problem.
type checker struct {
	file  string
	lines keyLines
	// errs are the problems found so far; undecoded are the keys whose
	// values could not be decoded (see keep).
	errs      []*Error
	undecoded []string
	// misspelledIn are the tables with an unknown key.
	misspelledIn []string
	// overridden maps key paths set on the command line to the override
	// (see Options).
	overridden map[string]string
	// flagged holds what the command line gives every class's optimize
	// objective (Options.SLA and Target), or nil.
	flagged *Options
	// models maps model names to their index in Config.Models.
	models map[string]int
	// modelNames are the model names in index order.
	modelNames []string
	// open reads files named relative to the scenario file (traces);
	// replay is set when the arrivals replay a trace. See replay.go.
	open   opener
	replay *replay
	// hash has seen the scenario file's bytes, and sees those of the
	// files it names as they are read (Scenario.SHA256).
	hash hash.Hash
	// patterns maps the key paths bind has seen to their patterns, and
	// ranged holds the values out of their key's range (ranges.go).
	patterns map[string]string
	ranged   []*Error
	// ignored are warnings of settings accepted but without effect (a
	// latency_ewma setting under a balancer --set changed), before the
	// configuration's own (Scenario.Warnings).
	ignored []*Error
}

// config validates the whole file; name is the default scenario name.
// Problems are recorded in c (see failed); the returned Config is complete
// only when there are none.
func (c *checker) config(f *fileTable, name string) sim.Config {
	var cfg sim.Config
	var err error
	cfg.Name = name
	switch {
	case f.Name == nil:
		// The file's name stands in: it must do as a name too.
		if err := c.checkName("", "the scenario name taken from the file name,", name); err != nil {
			err.Msg += `; give the scenario a name with name = "…"`
			c.keep(err)
		}
	case *f.Name == "":
		c.keep(c.errorf("name", "empty; omit name to use the file name %q", name))
	default:
		if err := c.checkName("name", "scenario name", *f.Name); err != nil {
			c.keep(err)
		} else {
			cfg.Name = *f.Name
		}
	}
	seed := int64(defaultSeed)
	if f.Seed != nil {
		if seed = *f.Seed; seed < 0 {
			c.keep(c.errorf("seed", "%d is negative; want an integer in [0, 2^63)", seed))
			seed = defaultSeed
		}
	}
	cfg.Seed = uint64(seed)
	cfg.Requests = defaultRequests
	if f.Requests != nil {
		if *f.Requests < 1 || *f.Requests > sim.MaxRequests {
			c.keep(c.errorf("requests", "%d is out of range; want an integer in [1, %d] (a run holds every request's latency)", *f.Requests, sim.MaxRequests))
		} else {
			cfg.Requests = int(*f.Requests)
		}
	}
	allClosed, _ := closedClasses(f.Classes)
	switch {
	case allClosed && f.Arrivals != nil:
		if sets := c.overridesWhere(func(k string) bool {
			return strings.HasPrefix(k, "classes[") && strings.HasSuffix(k, "].clients")
		}); sets != "" {
			// --set changes values; it cannot remove the file's [arrivals].
			err = c.errorf("arrivals", "every class is closed-loop (clients) after %s: no class takes open arrivals, and --set cannot remove a table; remove [arrivals] from a copy of the file and set clients there", sets)
		} else {
			err = c.errorf("arrivals", "every class is closed-loop (clients): no class takes open arrivals; remove [arrivals]")
		}
	case allClosed:
	default:
		cfg.Arrivals, err = c.arrivals(f.Arrivals)
	}
	c.keep(err)
	if r := cfg.Arrivals.Rate; err == nil && !allClosed && cfg.Arrivals.Process != sim.Replay && float64(cfg.Requests)/r > sim.MaxSpan.Seconds() {
		c.keep(c.errorf("arrivals.rate", "%g requests per second make %d requests span %.3g s of simulated time; at most %.3g s (100 years): raise the rate or simulate fewer requests",
			r, cfg.Requests, float64(cfg.Requests)/r, sim.MaxSpan.Seconds()))
	}
	if err == nil {
		c.keep(c.replaySetup(f, &cfg))
	} else if c.replay != nil {
		c.replayUnread(f)
	}
	cfg.Models = c.modelList(f.Models)
	cfg.Classes = c.classes(f.Classes)
	if len(cfg.Classes) == len(f.Classes) {
		for i := range f.Classes {
			c.checkCuts(indexKey("classes", i), f.Classes[i].Hedge, &cfg.Classes[i], cfg.Models)
			c.checkCycle(indexKey("classes", i), &f.Classes[i], &cfg.Classes[i], cfg.Models)
		}
	}
	if len(c.errs) == 0 {
		// The match rules take requests in order: only a complete list
		// of classes can be checked against the trace.
		c.keep(c.assignClasses(f.Classes, &cfg))
	}
	cfg.Providers, err = c.providers(f.Providers, cfg.Models)
	c.keep(err)
	c.checkBatching(&cfg)
	c.checkRestartsInRun(&cfg, f.Providers)
	cfg.Correlation, err = c.correlation(f.Correlation)
	c.keep(err)
	if len(c.errs) > 0 || len(c.ranged) > 0 {
		// A value out of its range has its own error, at its line: the
		// simulator's check would repeat it without one.
		return cfg
	}
	if err := cfg.Validate(); err != nil {
		// Cross-field rules only the simulator knows, such as a correlation
		// matrix that is not positive semidefinite.
		key := ""
		if cfg.Correlation != (sim.Correlation{}) {
			key = "correlation"
		}
		c.keep(c.errorf(key, "%v", err))
	}
	return cfg
}

func (c *checker) arrivals(a *arrivalsTable) (sim.Arrivals, error) {
	var out sim.Arrivals
	if a == nil {
		return out, c.errorf("arrivals", "missing table [arrivals]; it needs at least rate (requests per second)")
	}
	var err error
	if out.Process, err = enum(c, "arrivals.process", a.Process, sim.Poisson, sim.Poisson, sim.Constant, sim.Replay); err != nil {
		// A bad rate is a problem of its own, whatever the process.
		if a.Rate != nil {
			if r := *a.Rate; !(r > 0) || math.IsInf(r, 1) {
				c.keep(c.errorf("arrivals.rate", "%g is not a valid rate; want a finite rate > 0 requests per second", r))
			}
		}
		return out, err
	}
	if out.Process == sim.Replay {
		return c.replayArrivals(a)
	}
	if err := c.noReplayKeys(a, out.Process); err != nil {
		return out, err
	}
	if a.Rate == nil {
		return out, c.errorf("arrivals.rate", "missing; give the arrival rate in requests per second (> 0)")
	}
	if r := *a.Rate; !(r > 0) || math.IsInf(r, 1) {
		return out, c.errorf("arrivals.rate", "%g is not a valid rate; want a finite rate > 0 requests per second", r)
	}
	out.Rate = *a.Rate
	return out, nil
}

// modelList builds the models in name order and records their indices.
func (c *checker) modelList(tables map[string]modelTable) []sim.Model {
	if len(tables) == 0 {
		c.keep(c.errorf("models", "no models defined; add at least one [models.NAME] table"))
		return nil
	}
	c.modelNames = make([]string, 0, len(tables))
	for name := range tables {
		c.modelNames = append(c.modelNames, name)
	}
	sort.Strings(c.modelNames)
	c.models = make(map[string]int, len(tables))
	for i, name := range c.modelNames {
		c.models[name] = i
	}
	models := make([]sim.Model, len(tables))
	for i, name := range c.modelNames {
		t := tables[name]
		models[i] = c.model(joinKey("models", name), name, &t)
	}
	return models
}

// model builds the model called name from t at key, recording problems.
func (c *checker) model(key, name string, t *modelTable) sim.Model {
	m := sim.Model{Name: name, Provider: name}
	if name == "" {
		c.keep(c.errorf(key, "empty model name"))
		return m
	}
	if err := c.checkName(key, "model name", name); err != nil {
		c.keep(err)
		return m
	}
	if t.Provider != nil {
		if *t.Provider == "" {
			c.keep(c.errorf(key+".provider", "empty; omit provider to use the model name %q", name))
		} else {
			if err := c.checkName(key+".provider", "provider name", *t.Provider); err != nil {
				c.keep(err) // kept as the provider, so that no reference to it fails too
			}
			m.Provider = *t.Provider
		}
	}
	var err error
	streamed := t.TTFT != nil || t.TokensPerSecond != nil
	switch {
	case t.Latency != nil && streamed:
		k := key + ".ttft"
		if t.TTFT == nil {
			k = key + ".tokens_per_s"
		}
		c.keep(c.errorf(k, "latency and ttft/tokens_per_s are exclusive; give either latency (whole call) or ttft and tokens_per_s (streamed)"))
	case t.Latency == nil && !streamed:
		c.keep(c.errorf(key, "no latency; give latency (seconds for the whole call) or ttft (seconds) and tokens_per_s (decode speed)"))
	case streamed && t.TTFT == nil:
		c.keep(c.errorf(key+".tokens_per_s", "tokens_per_s needs ttft (time to first token, seconds) in the same model"))
	case streamed && t.TokensPerSecond == nil:
		c.keep(c.errorf(key+".ttft", "ttft needs tokens_per_s (decode speed, tokens per second) in the same model"))
	case t.Latency != nil:
		m.Latency, err = c.dist(key+".latency", t.Latency, "s", false)
		c.keep(err)
	default:
		m.TTFT, err = c.dist(key+".ttft", t.TTFT, "s", false)
		c.keep(err)
		m.TokensPerSecond, err = c.dist(key+".tokens_per_s", t.TokensPerSecond, "tokens/s", true)
		c.keep(err)
	}
	if t.PrefillPerSecond != nil {
		if t.TTFT == nil {
			c.keep(c.errorf(key+".prefill_tokens_per_s", "prefill_tokens_per_s needs the streamed form: ttft (base time to first token, seconds) and tokens_per_s in the same model"))
		} else {
			m.PrefillTokensPerSecond, err = c.dist(key+".prefill_tokens_per_s", t.PrefillPerSecond, "tokens/s", true)
			c.keep(err)
		}
	}
	if t.ErrorLatency != nil {
		m.ErrorLatency, err = c.dist(key+".error_latency", t.ErrorLatency, "s", false)
		c.keep(err)
	}
	m.ErrorRate, err = c.probability(key+".error_rate", t.ErrorRate)
	c.keep(err)
	m.InvalidRate, err = c.probability(key+".invalid_rate", t.InvalidRate)
	c.keep(err)
	m.PriceInputPerMTok, err = c.price(key+".price_input_per_mtok", t.PriceInputPerMTok)
	c.keep(err)
	m.PriceOutputPerMTok, err = c.price(key+".price_output_per_mtok", t.PriceOutputPerMTok)
	c.keep(err)
	m.PricePerRequest, err = c.price(key+".price_per_request", t.PricePerRequest)
	c.keep(err)
	if t.RateLimit != nil {
		m.RateLimit, err = c.rateLimit(key+".rate_limit", t.RateLimit)
		c.keep(err)
	}
	c.failures(key, t, &m)
	c.breaker(key, t, &m)
	c.stalls(key, t, &m)
	return m
}

// classes builds the [[classes]] entries, recording problems; the share
// sum is checked when every share could be read.
func (c *checker) classes(tables []classTable) []sim.Class {
	if len(tables) == 0 {
		c.keep(c.errorf("classes", "no classes defined; add at least one [[classes]] table"))
		return nil
	}
	classes := make([]sim.Class, len(tables))
	seen := make(map[string]int, len(tables))
	sum := 0.0
	sharesKnown := true
	var terms []string
	open := 0
	for i := range tables {
		if tables[i].Clients == nil {
			open++
		}
	}
	for i := range tables {
		key := indexKey("classes", i)
		cl := c.class(key, &tables[i], open)
		if cl.Name != "" {
			if j, dup := seen[cl.Name]; dup {
				c.keep(c.errorf(key+".name", "duplicate class name %q; classes[%d] (line %d) already uses it",
					cl.Name, j, c.lines.lineOf(indexKey("classes", j)+".name")))
			} else {
				seen[cl.Name] = i
			}
		}
		if tables[i].Clients != nil {
			classes[i] = cl
			continue // closed-loop: no share
		}
		if cl.Share == 0 || c.hasErrorsWithin(key+".share") {
			sharesKnown = false
		}
		sum += cl.Share
		terms = append(terms, strconv.FormatFloat(cl.Share, 'g', -1, 64))
		classes[i] = cl
	}
	// A pipeline's steps are exported and traced as "CLASS/STEP": no other
	// class may be called so.
	for i := range classes {
		pl := classes[i].Pipeline
		if pl == nil {
			continue
		}
		for _, st := range pl.Steps {
			if j, dup := seen[classes[i].Name+"/"+st.Name]; dup {
				c.keep(c.errorf(indexKey("classes", j)+".name", "%q is also the name of step %s of pipeline class %s (classes[%d]), which reports and exports call it so; rename one",
					classes[i].Name+"/"+st.Name, st.Name, classes[i].Name, i))
			}
		}
	}
	if sharesKnown && open > 0 && math.Abs(sum-1) > shareTolerance+shareRounding {
		c.keep(c.errorf("classes", "shares sum to %.6g (%s); they must sum to 1 ± %g",
			sum, strings.Join(terms, " + "), shareTolerance))
	}
	return classes
}

// class builds the class at key from t, recording problems; n is the
// number of classes with open arrivals. The class's Share is 0 when it
// could not be read, and for a closed-loop class.
func (c *checker) class(key string, t *classTable, n int) sim.Class {
	var cl sim.Class
	var err error
	switch {
	case t.Name == nil || strings.TrimSpace(*t.Name) == "":
		c.keep(c.errorf(key+".name", "missing or blank; every class needs a unique name"))
	case strings.TrimSpace(*t.Name) == "overall":
		c.keep(c.errorf(key+".name", `"overall" is the name of the all-classes row of every report; choose another name`))
	default:
		if err := c.checkName(key+".name", "class name", *t.Name); err != nil {
			c.keep(err)
		} else {
			cl.Name = *t.Name
		}
	}
	closed := c.closedLoop(key, t, &cl)
	// A replay rule the class breaks does not hide its other problems.
	c.keep(c.replayClass(key, t))
	switch {
	case closed:
	case c.sharesFromTrace():
		cl.Share = 1 / float64(n) // replaced by the trace's shares in assignClasses
	case t.Share != nil:
		if s := *t.Share; !(s > 0 && s <= 1) {
			c.keep(c.errorf(key+".share", "%g is out of range; want a fraction of traffic in (0, 1]", s))
		} else {
			cl.Share = *t.Share
		}
	case n == 1:
		cl.Share = 1
	default:
		c.keep(c.errorf(key+".share", "missing; share may be omitted only when there is a single class (there are %d)", n))
	}
	if t.Steps != nil {
		c.pipelineClass(key, t, &cl)
		return cl
	}
	cl.InputTokens, err = c.tokens(key+".input_tokens", t.InputTokens)
	c.keep(err)
	cl.OutputTokens, err = c.tokens(key+".output_tokens", t.OutputTokens)
	c.keep(err)
	if t.Deadline != nil {
		cl.Deadline = time.Duration(*t.Deadline)
	}
	if t.SLO != nil {
		switch slo := time.Duration(*t.SLO); {
		case slo <= 0:
			c.keep(c.errorf(key+".slo", "%v: want a latency target > 0, such as \"2s\"; omit slo for none", slo))
		case cl.Deadline > 0 && slo >= cl.Deadline:
			c.keep(c.errorf(key+".slo", "%v is at or past the class's deadline %v: every answered request meets it; set it below the deadline, or omit it", slo, cl.Deadline))
		default:
			cl.SLO = slo
		}
	}
	cl.OnTimeout, err = enum(c, key+".on_timeout", t.OnTimeout, sim.FailOpen, sim.FailOpen, sim.FailClosed)
	c.keep(err)
	c.callPolicy(key, t.Hedge, t.Retry, t.AttemptRetry, &cl)
	return cl
}

// callPolicy reads the hedge policy and retries of the call at key — a
// one-call class, or a pipeline's step — into cl, whose deadline is set,
// recording problems.
func (c *checker) callPolicy(key string, hedge *hedgeTable, retry, attemptRetry *retryTable, cl *sim.Class) {
	cl.Policy = c.policy(key, cl.Name, hedge)
	cl.Retry = c.retry(key+".retry", retry, false)
	cl.AttemptRetry = c.retry(key+".attempt_retry", attemptRetry, true)
	if !c.hasErrorsWithin(key + ".hedge") {
		c.retryBudget(key+".retry", retry, &cl.Policy, cl.Name)
		c.retryBudget(key+".attempt_retry", attemptRetry, &cl.Policy, cl.Name)
	}
	// The gaps depend on the delays, copies and adaptive rule only: a
	// problem elsewhere in the hedge table (an undefined target, say) does
	// not hide them.
	gapsKnown := !c.hasErrorsWithin(key + ".deadline")
	for _, k := range []string{"delay", "delays", "max_copies", "adaptive"} {
		gapsKnown = gapsKnown && !c.hasErrorsWithin(key+".hedge."+k)
	}
	if gapsKnown {
		c.keep(c.checkGaps(key, hedge, cl))
	}
}

// hedgeHeader returns the header of the hedge table of the call at key —
// [classes.hedge] for a class, [classes.steps.hedge] for a pipeline's
// step — and who makes that call: "the class" or "step NAME".
func hedgeHeader(key, name string) (header, who string) {
	if strings.Contains(key, ".steps[") {
		if name == "" {
			return "[classes.steps.hedge]", "the step"
		}
		return "[classes.steps.hedge]", fmt.Sprintf("step %q", name)
	}
	return "[classes.hedge]", "the class"
}

// policy builds the hedge policy of the call at classKey (a class, or a
// pipeline's step named name), recording problems; h may be nil.
func (c *checker) policy(classKey, name string, h *hedgeTable) sim.Policy {
	p := sim.Policy{OnInvalid: sim.NonFatal, CancelBilling: sim.BillInput}
	key := classKey + ".hedge"
	if h == nil {
		h = &hedgeTable{}
	}
	var err error
	switch {
	case h.Primary != nil:
		p.Primary, err = c.modelRef(key+".primary", *h.Primary)
		c.keep(err)
	case len(c.modelNames) <= 1:
		p.Primary = 0
	default:
		header, who := hedgeHeader(classKey, name)
		c.keep(c.errorf(key+".primary", "missing; with %d models (%s) %s must name its primary model in %s primary",
			len(c.modelNames), strings.Join(c.modelNames, ", "), who, header))
	}
	if h.Targets != nil {
		if len(h.Targets) == 0 {
			c.keep(c.errorf(key+".targets", "empty list; omit targets to send every copy to the primary model"))
		}
		p.Targets = make([]int, len(h.Targets))
		for j, name := range h.Targets {
			p.Targets[j], err = c.modelRef(indexKey(key+".targets", j), name)
			c.keep(err)
		}
	}
	switch {
	case h.Delay != nil && h.Delays != nil:
		c.keep(c.errorf(key+".delays", "delay and delays are exclusive; give delay (the same gap before every copy) or delays (one gap per copy)"))
		return p
	case h.Delay != nil:
		p.Delays = []time.Duration{time.Duration(*h.Delay)}
		p.Copies = 1
	case h.Delays != nil:
		if len(h.Delays) == 0 {
			c.keep(c.errorf(key+".delays", "empty list; give one gap per copy, such as [\"1s\", \"1s\"], or omit it"))
			return p
		}
		p.Delays = make([]time.Duration, len(h.Delays))
		for j, d := range h.Delays {
			p.Delays[j] = time.Duration(d)
		}
		p.Copies = len(p.Delays)
	}
	if h.MaxCopies != nil {
		n := *h.MaxCopies
		switch {
		case n < 0 || n > sim.MaxCopies:
			c.keep(c.errorf(key+".max_copies", "%d is out of range; want 0 to %d copies beyond the primary (gRPC maxAttempts = max_copies + 1)", n, sim.MaxCopies))
		case n > 0 && p.Delays == nil && !c.hasErrorsWithin(key+".delay") && !c.hasErrorsWithin(key+".delays"):
			c.keep(c.errorf(key+".max_copies", "%d copies but no delay or delays; say when copies are sent, e.g. delay = \"1s\" (\"0s\" sends all at once)", n))
		default:
			p.Copies = int(n)
		}
	}
	p.Winner, err = enum(c, key+".winner", h.Winner, sim.FirstValid, sim.FirstValid, sim.FirstToken, sim.FirstResponse)
	c.keep(err)
	p.OnError, err = enum(c, key+".on_error", h.OnError, sim.Fatal, sim.Fatal, sim.NonFatal, sim.Ignore)
	c.keep(err)
	p.OnInvalid, err = enum(c, key+".on_invalid", h.OnInvalid, sim.NonFatal, sim.Fatal, sim.NonFatal, sim.Ignore)
	c.keep(err)
	if h.CancelLatency != nil {
		p.CancelLatency = time.Duration(*h.CancelLatency)
	}
	p.CancelBilling, err = enum(c, key+".cancel_billing", h.CancelBilling, sim.BillInput, sim.BillNone, sim.BillInput, sim.BillGenerated, sim.BillFull)
	c.keep(err)
	c.policyExtras(key, h, &p)
	return p
}

// modelRef returns the index of the model called name.
func (c *checker) modelRef(key, name string) (int, error) {
	if len(c.models) == 0 {
		return 0, nil // no models: reported once, at "models"
	}
	i, ok := c.models[name]
	if !ok {
		return 0, c.errorf(key, "model %q is not defined; defined models: %s", name, strings.Join(c.modelNames, ", "))
	}
	return i, nil
}

// enum returns def when s is nil, else the value among allowed whose
// String is *s.
func enum[T fmt.Stringer](c *checker, key string, s *string, def T, allowed ...T) (T, error) {
	if s == nil {
		return def, nil
	}
	names := make([]string, len(allowed))
	for i, v := range allowed {
		if v.String() == *s {
			return v, nil
		}
		names[i] = strconv.Quote(v.String())
	}
	hint := ""
	if best := closest(*s, allowed); best != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", best)
	}
	return def, c.errorf(key, "unknown value %q%s; allowed: %s", *s, hint, strings.Join(names, ", "))
}

// closest returns the name of the allowed value nearest to s (Closest).
func closest[T fmt.Stringer](s string, allowed []T) string {
	names := make([]string, len(allowed))
	for i, v := range allowed {
		names[i] = v.String()
	}
	return Closest(s, names)
}

// Closest returns the name of names nearest to s — the same but for case,
// or within about a third of s's length in edits (insertions, deletions,
// substitutions and swaps of neighbours; one edit for a short s) — or ""
// when none is that near: the "did you mean" of an unknown value.
func Closest(s string, names []string) string {
	best, bestDist := "", max(len(s)/3+1, 2)
	for _, name := range names {
		if strings.EqualFold(name, s) {
			return name
		}
		if d := EditDistance(name, s); d < bestDist {
			best, bestDist = name, d
		}
	}
	return best
}

// probability returns *p (0 when nil), which must be in [0, 1].
func (c *checker) probability(key string, p *float64) (float64, error) {
	if p == nil {
		return 0, nil
	}
	if !(*p >= 0 && *p <= 1) {
		return 0, c.errorf(key, "%g is not a probability; want a value in [0, 1]", *p)
	}
	return *p, nil
}

// price returns *p (0 when nil), which must be finite and ≥ 0.
func (c *checker) price(key string, p *float64) (float64, error) {
	if p == nil {
		return 0, nil
	}
	if !(*p >= 0 && *p <= maxPrice) {
		return 0, c.errorf(key, "%g is not a valid price; want an amount in [0, %g] USD", *p, float64(maxPrice))
	}
	return *p, nil
}

// dist builds the distribution s at key. Its support must start at ≥ 0, or
// above 0 with probability 1 when positive is set; unit names the values in messages.
func (c *checker) dist(key string, s *dist.Spec, unit string, positive bool) (dist.Continuous, error) {
	d, err := s.Build()
	if err != nil {
		var se *dist.SpecError
		if errors.As(err, &se) {
			k := key
			switch {
			case se.Key == "":
			case strings.HasPrefix(se.Key, "["):
				k += se.Key
			default:
				k += "." + se.Key
			}
			return nil, c.errorf(k, "%s", se.Msg)
		}
		return nil, c.errorf(key, "%v", err)
	}
	lo, _ := d.Support()
	switch {
	case positive && (!(lo >= 0) || d.CDF(0) > 0):
		return nil, c.errorf(key, "%s distribution can take the value %g %s; it must be > 0 with probability 1", s.Kind, math.Min(lo, 0), unit)
	case !positive && !(lo >= 0):
		return nil, c.errorf(key, "%s distribution can take the value %g %s; it must stay ≥ 0", s.Kind, lo, unit)
	case positive && lo == 0:
		if why := dist.InverseMeanInfinite(d); why != "" {
			return nil, c.errorf(key, "%s: a speed this close to 0 this often makes the mean time (tokens ÷ speed) infinite; want a speed whose 1/speed has a finite mean: uniform with min > 0, gamma or weibull with shape > 1, lognormal, pareto, a quantile table, or a constant", why)
		}
	}
	c.checkDistRange(key, c.patterns[key], s, d)
	return d, nil
}

// tokens builds a token-count distribution; nil means constant 0.
func (c *checker) tokens(key string, s *dist.Spec) (dist.Continuous, error) {
	if s == nil {
		zero := 0.0
		s = &dist.Spec{Kind: "constant", Value: &zero}
	}
	return c.dist(key, s, "tokens", false)
}
