package optimize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// Measurement is what a sweep keeps of one simulation: one candidate of one
// class (or its no-hedging baseline), reduced to the statistics the report
// needs. A sharded sweep (RunShard) hands measurements from machine to
// machine; their JSON form is exact, so that a report assembled from them
// (Assemble) is the report Run produces.
type Measurement struct {
	// Key names the simulation: "class web: none", "class web: candidate
	// 3 (650ms)", or for coupled classes "group a,b: round 2, class a:
	// candidate 3 (650ms)". Keys are unique within a sweep.
	Key string
	// Err is the simulator's error when it rejected the candidate ("" when
	// it ran); Invalid says the error was sim.ErrInvalidConfig.
	Err     string
	Invalid bool
	// Requests is the number of requests simulated, and Cut those the
	// warm-up cut left out of a batched run's figures (0 otherwise).
	Requests, Cut int64
	// Latency holds the percentiles, the mean and the intervals in seconds
	// (+Inf for a miss, NaN for a mean of nothing).
	Latency sim.Latency
	// AnsweredShare, HedgedShare and AnsweredWithinShare are shares in
	// [0, 1], AttemptsPerRequest calls per request and CostPer1kUSD USD per
	// 1000 requests (see Candidate).
	AnsweredShare, HedgedShare, AnsweredWithinShare float64
	AttemptsPerRequest, CostPer1kUSD                float64
	// OverLimit is the run's overload of a request-rate limit (see
	// Candidate.OverLimit, before the comparison with no hedging).
	OverLimit bool
	// Loads are the limits the run pushed past what they sustain (see
	// Candidate.Loads).
	Loads []Load
	// PerSecond is the rate, in requests per second, at which closed-loop
	// clients got requests done (0 for open arrivals): the rate of the
	// class's spend.
	PerSecond float64
	// Survival is the thinned survival curve (see Candidate.Survival).
	Survival []SurvivalPoint
	// Span is set for a no-hedging run: the p10 and p99 in seconds that
	// its class's default delay grid spans (NaN when unknown).
	Span *[2]float64
	// WonPrimary and WonCopies count the answered requests by the attempt
	// that answered them (sim's ClassResult.Won).
	WonPrimary int64
	WonCopies  []sim.ModelWins
	// Met counts the requests that met the class's target (its SLO, or
	// answered); Paired says whether the run was compared with the
	// baseline request by request, and Rescued and Harmed count what that
	// found (sim's Paired). MetBits are a no-hedging run's bits, one per
	// request of the run (a coupled group's: of all its classes), which
	// its class's candidates are paired with (nil: not recorded).
	Met, Rescued, Harmed int64
	Paired               bool
	MetBits              *sim.MetBits
	// Group holds, for a run of a coupled group, every class's figures
	// (group.go); nil otherwise. Spans holds, for the group's run without
	// hedging, every class's Span (its default grid's).
	Group []GroupFigure
	Spans [][2]float64
	// Batches holds each batch's linearised p95 and p99 on sim's fixed
	// grid when the class's requests interact, and BatchFrom the first
	// batch after the warm-up cut (paired.go); nil otherwise. Shares
	// holds, then, each batch's
	// answered share, share within the target and cost per 1000 requests
	// (Candidate.batchS).
	Batches   [2][]float64
	BatchFrom int
	Shares    [3][]float64
	// ReplicaHours is the replica-hours the run's autoscaled pools were
	// up or starting (sim.AutoscaleResult.ReplicaHours, summed); nil when
	// no pool of the run autoscales.
	ReplicaHours *float64
	// Fates holds, when the class's requests interact and the run was
	// paired, each batch's share of requests that met the target, were
	// rescued and were harmed (Candidate.batchF); nil otherwise.
	Fates [3][]float64
	// SectionCosts holds, for a no-hedging run whose requests are
	// independent, the run's cost in USD of each of its 1000 arrival
	// sections (sim.ClassResult.SectionCosts); nil otherwise.
	// CostSE and CostSections hold, for a hedged run paired with such a
	// run, its added cost's standard error in percentage points over
	// those sections and their number, K ≥ 2 (sim.PairedAddedCostSE); 0
	// and 0 otherwise.
	SectionCosts []float64
	CostSE       float64
	CostSections int
	// Upper, UpperRank and UpperN are Candidate.upper, upperRank and
	// upperN: for independent requests too few for a two-sided interval
	// of the p95 (index 0) or p99 (1), the order statistic in seconds
	// that bounds it from above at the level, its rank and the latencies
	// it is ranked among; rank 0 when there is none.
	Upper             [2]float64
	UpperRank, UpperN [2]int
	// BreakerWarnings are the run's warnings of circuit breakers from
	// which cancelled calls hid failures (sim.BreakerResult.HiddenWarning);
	// nil when there are none.
	BreakerWarnings []string
}

// replicaHours returns the replica-hours of the autoscaled pools res sent
// attempts to, summed — a one-class run keeps every provider of the
// scenario, and the pools of the other classes' providers idle at their
// floor — or nil when it sent none to an autoscaled pool.
func replicaHours(res *sim.Result) *float64 {
	sent := map[string]int64{}
	for _, p := range res.Providers {
		sent[p.Name] = p.Sent
	}
	var h *float64
	for i := range res.Pools {
		if a := res.Pools[i].Autoscale; a != nil && sent[res.Pools[i].Provider] > 0 {
			if h == nil {
				h = new(float64)
			}
			*h += a.ReplicaHours
		}
	}
	return h
}

// measurementOf returns the measurement of the summarized candidate c.
func measurementOf(key string, c *Candidate) Measurement {
	return Measurement{
		Key: key, Requests: c.Requests, Cut: c.cut, Latency: c.Latency,
		AnsweredShare: c.AnsweredShare, HedgedShare: c.HedgedShare, AnsweredWithinShare: c.AnsweredWithinShare,
		AttemptsPerRequest: c.AttemptsPerRequest, CostPer1kUSD: c.CostPer1kUSD,
		OverLimit: c.OverLimit, Loads: c.Loads, Survival: c.Survival, PerSecond: c.perSecond,
		WonPrimary: c.won.Primary, WonCopies: c.won.Copies, Met: c.met, Rescued: c.rescued, Harmed: c.harmed, Paired: c.paired,
		Batches: c.batchQ, BatchFrom: c.batchFrom, Shares: c.batchS, Fates: c.batchF, ReplicaHours: c.ReplicaHours,
		SectionCosts: c.secCost, CostSE: c.costSE, CostSections: c.costK,
		Upper: c.upper, UpperRank: c.upperRank, UpperN: c.upperN,
		BreakerWarnings: c.breakerWarns,
	}
}

// failure returns the measurement of a candidate the simulator rejected.
func failure(key string, err error) Measurement {
	return Measurement{Key: key, Err: err.Error(), Invalid: errors.Is(err, sim.ErrInvalidConfig)}
}

// apply sets the measured fields of c (what summarize sets, and OverLimit).
func (m *Measurement) apply(c *Candidate) {
	c.Requests, c.cut = m.Requests, m.Cut
	c.Latency = m.Latency
	c.P95CIOK, c.P99CIOK = m.Latency.P95CIOK, m.Latency.P99CIOK
	c.AnsweredShare, c.HedgedShare, c.AnsweredWithinShare = m.AnsweredShare, m.HedgedShare, m.AnsweredWithinShare
	c.AttemptsPerRequest, c.CostPer1kUSD = m.AttemptsPerRequest, m.CostPer1kUSD
	c.OverLimit = m.OverLimit
	c.Loads = m.Loads
	c.Survival = m.Survival
	c.perSecond = m.PerSecond
	c.won = sim.Won{Primary: m.WonPrimary, Copies: m.WonCopies}
	c.met, c.rescued, c.harmed, c.paired = m.Met, m.Rescued, m.Harmed, m.Paired
	c.batchQ, c.batchFrom = m.Batches, m.BatchFrom
	c.batchS = m.Shares
	c.ReplicaHours = m.ReplicaHours
	c.batchF = m.Fates
	c.secCost, c.costSE, c.costK = m.SectionCosts, m.CostSE, m.CostSections
	c.upper, c.upperRank, c.upperN = m.Upper, m.UpperRank, m.UpperN
	c.breakerWarns = m.BreakerWarnings
	c.shares()
}

// err returns the simulator's error of a rejected candidate, or nil.
func (m *Measurement) err() error {
	if m.Err == "" {
		return nil
	}
	return storedError{m.Err, m.Invalid}
}

// storedError is a simulator error carried by a measurement: its text, and
// whether it was sim.ErrInvalidConfig.
type storedError struct {
	msg     string
	invalid bool
}

func (e storedError) Error() string        { return e.msg }
func (e storedError) Is(target error) bool { return e.invalid && target == sim.ErrInvalidConfig }

// exact is a float64 whose JSON form reads back bit for bit: a number in
// the shortest form that round-trips, or the string "+Inf", "-Inf" or
// "NaN".
type exact float64

func (x exact) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return []byte(`"` + strconv.FormatFloat(f, 'g', -1, 64) + `"`), nil
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

func (x *exact) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 1 && b[0] == '"' {
		s = s[1 : len(s)-1]
		if s != "+Inf" && s != "-Inf" && s != "NaN" {
			return fmt.Errorf("%s is not a number", b)
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%s is not a number", b)
	}
	*x = exact(f)
	return nil
}

// measurementJSON is the JSON form of a Measurement.
// upperJSON is Measurement's one-sided upper bounds (p95, p99): each in
// seconds, its rank and the latencies it is ranked among.
type upperJSON struct {
	Q    [2]exact `json:"q"`
	Rank [2]int   `json:"rank"`
	N    [2]int   `json:"n"`
}

type measurementJSON struct {
	Key      string `json:"key"`
	Err      string `json:"error,omitempty"`
	Invalid  bool   `json:"invalid_config,omitempty"`
	Requests int64  `json:"requests"`
	// Latency: mean, p50, p90, p95, p99, p99.9, the p95 interval, the p99
	// interval.
	Latency  []exact `json:"latency_s"`
	P95CIOK  bool    `json:"p95_ci_ok"`
	P99CIOK  bool    `json:"p99_ci_ok"`
	Answered exact   `json:"answered_share"`
	Hedged   exact   `json:"hedged_share"`
	Within   exact   `json:"answered_within_target_share"`
	Attempts exact   `json:"attempts_per_request"`
	Cost     exact   `json:"cost_per_1k_usd"`
	Over     bool    `json:"over_rate_limit"`
	Loads    []load  `json:"loads,omitempty"`
	Rate     exact   `json:"throughput_per_s,omitempty"`
	// Survival: t0, s0, t1, s1, …
	Survival []exact   `json:"survival"`
	Span     *[2]exact `json:"grid_span_s,omitempty"`
	// Who won and what hedging bought (see Measurement).
	WonPrimary int64           `json:"won_by_primary"`
	WonCopies  []sim.ModelWins `json:"won_by_copies,omitempty"`
	Met        int64           `json:"met"`
	Rescued    int64           `json:"rescued,omitempty"`
	Harmed     int64           `json:"harmed,omitempty"`
	Paired     bool            `json:"paired,omitempty"`
	MetBits    string          `json:"met_bits,omitempty"`
	Group      []groupFigure   `json:"group,omitempty"`
	Spans      [][2]exact      `json:"grid_spans_s,omitempty"`
	Batches    [][]exact       `json:"batch_p95_p99_s,omitempty"`
	BatchFrom  int             `json:"batch_first_kept,omitempty"`
	Shares     [][]exact       `json:"batch_shares,omitempty"`
	Replicas   *exact          `json:"replica_hours,omitempty"`
	Fates      [][]exact       `json:"batch_fate_shares,omitempty"`
	// SecCost: the cost in USD of each of a no-hedging run's 1000 arrival
	// sections (independent requests only); CostSE and CostK: a hedged
	// run's added cost's standard error over them and their number.
	SecCost []exact `json:"section_cost_usd,omitempty"`
	// Upper: Measurement's Upper, UpperRank and UpperN, when a rank is set.
	Upper  *upperJSON `json:"upper_bound_s,omitempty"`
	CostSE exact      `json:"added_cost_se_pct,omitempty"`
	CostK  int        `json:"added_cost_sections,omitempty"`
	// Cut: the requests the warm-up cut left out of a batched run.
	Cut int64 `json:"warm_up_cut,omitempty"`
}

// groupFigure is the JSON form of a GroupFigure, exact.
type groupFigure struct {
	Class    string   `json:"class"`
	Q        exact    `json:"q_s"`
	CI       [2]exact `json:"q_ci_s"`
	CIOK     bool     `json:"q_ci_ok"`
	Answered exact    `json:"answered_share"`
	Hedged   exact    `json:"hedged_share"`
	Cost     exact    `json:"cost_per_1k_usd"`
	Calls    exact    `json:"attempts_per_request"`
	Requests int64    `json:"requests"`
	// Batches and BatchFrom: GroupFigure's, when the class's requests
	// interact.
	Batches   []exact `json:"batch_q_s,omitempty"`
	BatchFrom int     `json:"batch_first_kept,omitempty"`
	// Within and WithinBatches: GroupFigure's, under an objective with a
	// target.
	Within          exact   `json:"within_target_share,omitempty"`
	WithinBatches   []exact `json:"batch_within_target_shares,omitempty"`
	AnsweredBatches []exact `json:"batch_answered_shares,omitempty"`
}

// load is the JSON form of a Load, exact.
type load struct {
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Offered     exact  `json:"offered"`
	Utilisation exact  `json:"utilisation"`
	Limit       exact  `json:"limit"`
	Burst       exact  `json:"burst_s"`
	Span        exact  `json:"span_s"`
}

// sectionCount is the number of arrival sections section_cost_usd holds
// (sim.ClassResult.SectionCosts).
const sectionCount = 1000

// latencyNames name the values of latency_s.
var latencyNames = [10]string{"mean", "p50", "p90", "p95", "p99", "p99.9", "p95 interval low", "p95 interval high", "p99 interval low", "p99 interval high"}

// BadMeasurementError is the error of reading a measurement that is well
// formed JSON but cannot be a simulation's: it names the measurement, the
// field and what is wrong.
type BadMeasurementError struct {
	Key, Field, Problem string
}

func (e *BadMeasurementError) Error() string {
	return fmt.Sprintf("measurement %q: %s %s", e.Key, e.Field, e.Problem)
}

// check checks that w can be a simulation's measurement: every array of
// its length, every value in its range.
func (w *measurementJSON) check() error {
	bad := func(field, format string, a ...any) error {
		return &BadMeasurementError{Key: w.Key, Field: field, Problem: fmt.Sprintf(format, a...)}
	}
	nonNeg := func(x exact) bool { f := float64(x); return f >= 0 } // +Inf included, NaN not
	share := func(x exact) bool { f := float64(x); return f >= 0 && f <= 1 }
	finite := func(x exact) bool { f := float64(x); return f >= 0 && !math.IsInf(f, 1) }
	if len(w.Latency) != len(latencyNames) {
		return bad("latency_s", "has %d values; want %d (%s)", len(w.Latency), len(latencyNames), strings.Join(latencyNames[:], ", "))
	}
	switch {
	case w.Requests < 0:
		return bad("requests", "is %d; want ≥ 0", w.Requests)
	case w.Err != "":
		if w.Requests != 0 || len(w.Survival) != 0 || w.Span != nil {
			return bad("error", "goes with statistics; a rejected candidate has none")
		}
		return nil
	case w.Requests == 0 && (w.Answered != 0 || w.Hedged != 0 || w.Within != 0 || w.Attempts != 0 || w.Cost != 0 || w.Rate != 0):
		// A class of a coupled group that no request fell in (a share
		// of 10⁻⁹): its run, the group's, measured its classes, but it
		// has no figures of its own.
		return bad("requests", "is 0, with shares, calls or a cost; a run without requests of the class has none (0)")
	}
	if w.Replicas != nil && !finite(*w.Replicas) {
		return bad("replica_hours", "is %v; want finite hours ≥ 0", float64(*w.Replicas))
	}
	if n := len(w.SecCost); n != 0 && n != sectionCount {
		return bad("section_cost_usd", "has %d values; want %d, one per arrival section", n, sectionCount)
	}
	if len(w.SecCost) > 0 && !strings.HasSuffix(w.Key, ": none") {
		return bad("section_cost_usd", "is set; only a no-hedging run (a key ending in \": none\") has them")
	}
	switch {
	case w.CostK != 0 && (w.CostK < 2 || w.CostK > sectionCount):
		return bad("added_cost_sections", "is %d; want a count in [2, %d] (0 without an interval)", w.CostK, sectionCount)
	case !finite(w.CostSE):
		return bad("added_cost_se_pct", "is %v; want finite percentage points ≥ 0", float64(w.CostSE))
	case w.CostK == 0 && w.CostSE != 0:
		return bad("added_cost_se_pct", "is set without added_cost_sections")
	}
	for i, x := range w.SecCost {
		if !finite(x) {
			return bad("section_cost_usd", "value %d is %v; want finite USD ≥ 0", i+1, float64(x))
		}
	}
	if n := len(w.Batches); w.BatchFrom < 0 || (n > 0 && w.BatchFrom > len(w.Batches[0])) || (n == 0 && w.BatchFrom != 0) {
		return bad("batch_first_kept", "is %d; want a batch of batch_p95_p99_s (0 without them)", w.BatchFrom)
	}
	for i, x := range w.Latency {
		// The mean is NaN when no request was answered (below); an
		// interval's bounds when it is no interval (not ok).
		nan := i == 0 || (i == 6 || i == 7) && !w.P95CIOK || (i == 8 || i == 9) && !w.P99CIOK
		if w.Requests == 0 {
			if !math.IsNaN(float64(x)) {
				return bad("latency_s", "%s (value %d) is %v; want \"NaN\": the run had no request of the class", latencyNames[i], i+1, float64(x))
			}
			continue
		}
		if !nonNeg(x) && !(nan && math.IsNaN(float64(x))) {
			return bad("latency_s", "%s (value %d) is %v; want a number of seconds ≥ 0 or \"+Inf\" (or \"NaN\" for an interval marked not ok)", latencyNames[i], i+1, float64(x))
		}
	}
	// The mean is over answered requests: "NaN" exactly when none was.
	if mean := float64(w.Latency[0]); math.IsNaN(mean) != (w.Answered == 0) || math.IsInf(mean, 1) {
		return bad("latency_s", "mean is %v with an answered share of %v; want finite seconds when some request was answered, \"NaN\" when none was", mean, float64(w.Answered))
	}
	for i := 2; i <= 5; i++ { // p50 ≤ p90 ≤ p95 ≤ p99 ≤ p99.9
		if w.Latency[i] < w.Latency[i-1] {
			return bad("latency_s", "%s is %v, below %s %v; percentiles cannot decrease", latencyNames[i], float64(w.Latency[i]), latencyNames[i-1], float64(w.Latency[i-1]))
		}
	}
	for i := 6; i <= 8; i += 2 { // each interval's low end ≤ its high end
		if w.Latency[i+1] < w.Latency[i] {
			return bad("latency_s", "%s is %v, below %s %v", latencyNames[i+1], float64(w.Latency[i+1]), latencyNames[i], float64(w.Latency[i]))
		}
	}
	for _, f := range []struct {
		name string
		ok   bool
		want string
	}{
		{"answered_share", share(w.Answered), "a share in [0, 1]"},
		{"hedged_share", share(w.Hedged), "a share in [0, 1]"},
		{"answered_within_target_share", share(w.Within), "a share in [0, 1]"},
		{"attempts_per_request", finite(w.Attempts), "a finite number ≥ 0"},
		{"cost_per_1k_usd", finite(w.Cost), "a finite number ≥ 0"},
		{"throughput_per_s", finite(w.Rate), "a finite number ≥ 0"},
	} {
		if !f.ok {
			return bad(f.name, "is out of range; want %s", f.want)
		}
	}
	for i, l := range w.Loads {
		switch {
		case l.Kind != LoadQueue && l.Kind != LoadRate:
			return bad("loads", "%d has kind %q; want %q or %q", i+1, l.Kind, LoadQueue, LoadRate)
		case l.Name == "":
			return bad("loads", "%d has no name", i+1)
		case !finite(l.Span) || !finite(l.Burst):
			return bad("loads", "%d (%s) has span %v s, burst %v s; want finite seconds ≥ 0", i+1, l.Name, float64(l.Span), float64(l.Burst))
		case l.Kind == LoadQueue && (!(l.Offered >= 1) || math.IsInf(float64(l.Offered), 1)):
			return bad("loads", "%d (%s) has offered load %v; want a finite number ≥ 1", i+1, l.Name, float64(l.Offered))
		case l.Kind == LoadQueue && !share(l.Utilisation):
			return bad("loads", "%d (%s) has utilisation %v; want a share in [0, 1]", i+1, l.Name, float64(l.Utilisation))
		case l.Kind == LoadRate && !(finite(l.Limit) && l.Limit > 0 && finite(l.Offered) && l.Offered > l.Limit):
			return bad("loads", "%d (%s) offers %v requests/s to a limit of %v/s; want finite rates, the offered above the limit", i+1, l.Name, float64(l.Offered), float64(l.Limit))
		}
	}
	switch {
	case len(w.Survival)%2 != 0:
		return bad("survival", "has an odd number of values; want time, share pairs")
	case len(w.Survival) == 0 && w.Answered > 0:
		return bad("survival", "is empty, but %v of the requests were answered", float64(w.Answered))
	case len(w.Survival) > 0 && w.Answered == 0:
		return bad("survival", "has points, but no request was answered")
	}
	for i := 0; i < len(w.Survival); i += 2 {
		t, sv := w.Survival[i], w.Survival[i+1]
		switch {
		case !finite(t) || i > 0 && t < w.Survival[i-2]:
			return bad("survival", "time %d is %v; want finite seconds ≥ 0, not decreasing", i/2+1, float64(t))
		case !share(sv) || i > 0 && sv > w.Survival[i-1]:
			return bad("survival", "share %d is %v; want a share in [0, 1], not increasing", i/2+1, float64(sv))
		}
	}
	for i, sp := range w.Spans {
		for _, x := range sp {
			if !nonNeg(x) && !math.IsNaN(float64(x)) {
				return bad("grid_spans_s", "%d is %v; want seconds ≥ 0 (or \"NaN\" when unknown)", i+1, float64(x))
			}
		}
	}
	if len(w.Spans) > 0 && len(w.Spans) != len(w.Group) {
		return bad("grid_spans_s", "has %d spans for %d classes; want one per class", len(w.Spans), len(w.Group))
	}
	for i, g := range w.Group {
		if g.Class == "" || !nonNeg(g.Q) || !nonNeg(g.CI[0]) || !nonNeg(g.CI[1]) || !share(g.Answered) || !share(g.Hedged) ||
			!finite(g.Cost) || !finite(g.Calls) || g.Requests < 0 {
			return bad("group", "%d is %+v; want a class, a percentile and its interval ≥ 0 s (\"+Inf\" for a miss), shares, a cost, calls and a count ≥ 0", i+1, g)
		}
		if !share(g.Within) {
			return bad("group", "%d has within_target_share %v; want a share in [0, 1]", i+1, float64(g.Within))
		}
		if g.BatchFrom < 0 || g.BatchFrom > len(g.Batches) || (len(g.Batches) == 0 && g.BatchFrom != 0) {
			return bad("group", "%d has batch_first_kept %d; want a batch of its batch_q_s (0 without them)", i+1, g.BatchFrom)
		}
	}
	won := w.WonPrimary
	for i, c := range w.WonCopies {
		if c.Model == "" || c.Requests < 1 {
			return bad("won_by_copies", "%d is %+v; want a model and a count ≥ 1", i+1, c)
		}
		won += c.Requests
	}
	counts := []struct {
		name string
		n    int64
	}{{"won_by_primary", w.WonPrimary}, {"met", w.Met}, {"rescued", w.Rescued}, {"harmed", w.Harmed}}
	for _, c := range counts {
		if c.n < 0 || c.n > w.Requests {
			return bad(c.name, "is %d; want a count in [0, %d], the requests", c.n, w.Requests)
		}
	}
	if won > w.Requests {
		return bad("won_by_primary", "and won_by_copies sum to %d; want at most the %d requests", won, w.Requests)
	}
	if !w.Paired && (w.Rescued != 0 || w.Harmed != 0) {
		return bad("rescued", "is set on a run not paired with its baseline")
	}
	baseline := strings.HasSuffix(w.Key, ": none")
	if w.MetBits != "" {
		b, err := sim.ParseMetBits(w.MetBits)
		switch {
		case err != nil:
			return bad("met_bits", "%v", err)
		case !baseline:
			return bad("met_bits", "is set; only a no-hedging run (a key ending in \": none\") has them")
		case b.Len() < w.Requests:
			return bad("met_bits", "holds %d requests; the run has at least %d (a coupled group's run: every class's)", b.Len(), w.Requests)
		}
	}
	switch {
	case baseline && w.Span == nil:
		return bad("grid_span_s", "is missing; a no-hedging run has one")
	case !baseline && w.Span != nil:
		return bad("grid_span_s", "is set; only a no-hedging run (a key ending in \": none\") has one")
	case w.Span != nil:
		for i, x := range w.Span {
			if !nonNeg(x) && !math.IsNaN(float64(x)) {
				return bad("grid_span_s", "value %d is %v; want seconds ≥ 0 (or \"NaN\" when unknown)", i+1, float64(x))
			}
		}
	}
	return nil
}

// MarshalJSON writes m exactly (see exact): floats that read back bit for
// bit, +Inf and NaN as strings.
func (m Measurement) MarshalJSON() ([]byte, error) {
	l := &m.Latency
	w := measurementJSON{
		Key: m.Key, Err: m.Err, Invalid: m.Invalid, Requests: m.Requests,
		Latency: []exact{exact(l.Mean), exact(l.P50), exact(l.P90), exact(l.P95), exact(l.P99), exact(l.P999),
			exact(l.P95CI95[0]), exact(l.P95CI95[1]), exact(l.P99CI95[0]), exact(l.P99CI95[1])},
		P95CIOK: l.P95CIOK, P99CIOK: l.P99CIOK,
		Answered: exact(m.AnsweredShare), Hedged: exact(m.HedgedShare), Within: exact(m.AnsweredWithinShare),
		Attempts: exact(m.AttemptsPerRequest), Cost: exact(m.CostPer1kUSD), Over: m.OverLimit, Rate: exact(m.PerSecond),
		Survival: make([]exact, 0, 2*len(m.Survival)),
	}
	for _, p := range m.Survival {
		w.Survival = append(w.Survival, exact(p.T), exact(p.S))
	}
	for _, l := range m.Loads {
		w.Loads = append(w.Loads, load{l.Kind, l.Name, exact(l.Offered), exact(l.Utilisation), exact(l.Limit), exact(l.BurstSeconds), exact(l.SpanSeconds)})
	}
	if m.Span != nil {
		w.Span = &[2]exact{exact(m.Span[0]), exact(m.Span[1])}
	}
	w.WonPrimary, w.WonCopies, w.Met, w.Rescued, w.Harmed, w.Paired = m.WonPrimary, m.WonCopies, m.Met, m.Rescued, m.Harmed, m.Paired
	if m.MetBits != nil {
		w.MetBits = m.MetBits.String()
	}
	for _, sp := range m.Spans {
		w.Spans = append(w.Spans, [2]exact{exact(sp[0]), exact(sp[1])})
	}
	if m.Batches[0] != nil {
		for _, b := range m.Batches {
			xs := make([]exact, len(b))
			for j, x := range b {
				xs[j] = exact(x)
			}
			w.Batches = append(w.Batches, xs)
		}
		w.BatchFrom = m.BatchFrom
	}
	if m.Shares[0] != nil {
		for _, b := range m.Shares {
			xs := make([]exact, len(b))
			for j, x := range b {
				xs[j] = exact(x)
			}
			w.Shares = append(w.Shares, xs)
		}
	}
	if m.ReplicaHours != nil {
		h := exact(*m.ReplicaHours)
		w.Replicas = &h
	}
	w.Cut = m.Cut
	if m.Fates[0] != nil {
		for _, b := range m.Fates {
			xs := make([]exact, len(b))
			for j, x := range b {
				xs[j] = exact(x)
			}
			w.Fates = append(w.Fates, xs)
		}
	}
	w.CostSE, w.CostK = exact(m.CostSE), m.CostSections
	if m.UpperRank != [2]int{} {
		w.Upper = &upperJSON{[2]exact{exact(m.Upper[0]), exact(m.Upper[1])}, m.UpperRank, m.UpperN}
	}
	if m.SectionCosts != nil {
		w.SecCost = make([]exact, len(m.SectionCosts))
		for k, x := range m.SectionCosts {
			w.SecCost[k] = exact(x)
		}
	}
	for _, g := range m.Group {
		gf := groupFigure{g.Class, exact(g.Q), [2]exact{exact(g.CI[0]), exact(g.CI[1])}, g.CIOK,
			exact(g.Answered), exact(g.Hedged), exact(g.CostPer1k), exact(g.Calls), g.Requests, nil, g.BatchFrom, exact(g.Within), nil, nil}
		for _, x := range g.Batches {
			gf.Batches = append(gf.Batches, exact(x))
		}
		for _, x := range g.WithinBatches {
			gf.WithinBatches = append(gf.WithinBatches, exact(x))
		}
		for _, x := range g.AnsweredBatches {
			gf.AnsweredBatches = append(gf.AnsweredBatches, exact(x))
		}
		w.Group = append(w.Group, gf)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *Measurement) UnmarshalJSON(b []byte) error {
	var w measurementJSON
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&w); err != nil {
		return err
	}
	if w.Key == "" {
		return errors.New("a measurement without a key")
	}
	if err := w.check(); err != nil {
		return err
	}
	x := w.Latency
	*m = Measurement{
		Key: w.Key, Err: w.Err, Invalid: w.Invalid, Requests: w.Requests,
		Latency: sim.Latency{Mean: float64(x[0]), P50: float64(x[1]), P90: float64(x[2]), P95: float64(x[3]), P99: float64(x[4]), P999: float64(x[5]),
			P95CI95: [2]float64{float64(x[6]), float64(x[7])}, P99CI95: [2]float64{float64(x[8]), float64(x[9])},
			P95CIOK: w.P95CIOK, P99CIOK: w.P99CIOK},
		AnsweredShare: float64(w.Answered), HedgedShare: float64(w.Hedged), AnsweredWithinShare: float64(w.Within),
		AttemptsPerRequest: float64(w.Attempts), CostPer1kUSD: float64(w.Cost), OverLimit: w.Over, PerSecond: float64(w.Rate),
	}
	if len(w.Survival) > 0 {
		m.Survival = make([]SurvivalPoint, len(w.Survival)/2)
		for i := range m.Survival {
			m.Survival[i] = SurvivalPoint{T: float64(w.Survival[2*i]), S: float64(w.Survival[2*i+1])}
		}
	}
	if w.Span != nil {
		m.Span = &[2]float64{float64(w.Span[0]), float64(w.Span[1])}
	}
	m.WonPrimary, m.WonCopies, m.Met, m.Rescued, m.Harmed, m.Paired = w.WonPrimary, w.WonCopies, w.Met, w.Rescued, w.Harmed, w.Paired
	if w.MetBits != "" {
		m.MetBits, _ = sim.ParseMetBits(w.MetBits) // checked
	}
	for _, sp := range w.Spans {
		m.Spans = append(m.Spans, [2]float64{float64(sp[0]), float64(sp[1])})
	}
	if len(w.Batches) == 2 && len(w.Batches[0]) == len(w.Batches[1]) {
		for i, b := range w.Batches {
			m.Batches[i] = make([]float64, len(b))
			for j, x := range b {
				m.Batches[i][j] = float64(x)
			}
		}
		m.BatchFrom = w.BatchFrom
	}
	if len(w.Fates) == 3 && len(w.Fates[0]) == len(w.Fates[1]) && len(w.Fates[0]) == len(w.Fates[2]) {
		for i, b := range w.Fates {
			m.Fates[i] = make([]float64, len(b))
			for j, x := range b {
				m.Fates[i][j] = float64(x)
			}
		}
	}
	if len(w.Shares) == 3 {
		for i, b := range w.Shares {
			if len(b) == 0 {
				continue // no target, or no prices
			}
			m.Shares[i] = make([]float64, len(b))
			for j, x := range b {
				m.Shares[i][j] = float64(x)
			}
		}
	}
	if len(w.SecCost) > 0 {
		m.SectionCosts = make([]float64, len(w.SecCost))
		for k, x := range w.SecCost {
			m.SectionCosts[k] = float64(x)
		}
	}
	m.CostSE, m.CostSections = float64(w.CostSE), w.CostK
	if u := w.Upper; u != nil {
		m.Upper, m.UpperRank, m.UpperN = [2]float64{float64(u.Q[0]), float64(u.Q[1])}, u.Rank, u.N
	}
	m.Cut = w.Cut
	if w.Replicas != nil {
		h := float64(*w.Replicas)
		m.ReplicaHours = &h
	}
	for _, g := range w.Group {
		f := GroupFigure{Class: g.Class, Q: float64(g.Q), CI: [2]float64{float64(g.CI[0]), float64(g.CI[1])}, CIOK: g.CIOK,
			Answered: float64(g.Answered), Hedged: float64(g.Hedged), CostPer1k: float64(g.Cost), Calls: float64(g.Calls), Requests: g.Requests,
			BatchFrom: g.BatchFrom, Within: float64(g.Within)}
		for _, x := range g.Batches {
			f.Batches = append(f.Batches, float64(x))
		}
		for _, x := range g.WithinBatches {
			f.WithinBatches = append(f.WithinBatches, float64(x))
		}
		for _, x := range g.AnsweredBatches {
			f.AnsweredBatches = append(f.AnsweredBatches, float64(x))
		}
		m.Group = append(m.Group, f)
	}
	for _, l := range w.Loads {
		m.Loads = append(m.Loads, Load{Kind: l.Kind, Name: l.Name, Offered: float64(l.Offered), Utilisation: float64(l.Utilisation),
			Limit: float64(l.Limit), BurstSeconds: float64(l.Burst), SpanSeconds: float64(l.Span)})
	}
	return nil
}

// Union returns the measurements of every set, each key once, sorted by
// key. A key measured in several sets must carry the same measurement in
// each (bit for bit): otherwise the sets come from different inputs or
// builds, and Union returns an error naming the key.
func Union(sets ...[]Measurement) ([]Measurement, error) {
	byKey := map[string]Measurement{}
	enc := map[string][]byte{}
	for _, set := range sets {
		for _, m := range set {
			b, err := json.Marshal(m)
			if err != nil {
				return nil, err
			}
			if prev, ok := enc[m.Key]; ok {
				if !bytes.Equal(prev, b) {
					return nil, fmt.Errorf("measurement %q differs between parts: they were made by different builds or from different inputs", m.Key)
				}
				continue
			}
			byKey[m.Key], enc[m.Key] = m, b
		}
	}
	out := make([]Measurement, 0, len(byKey))
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		out = append(out, byKey[k])
	}
	return out, nil
}

// baseline measures the no-hedging run res of class k of c, with the span
// of its class's default delay grid.
func baseline(res *sim.Result, c *sim.Config, k int, level float64, target time.Duration) Measurement {
	me := measured("", res, c, k, level, target)
	q10, q99 := gridSpan(&res.Classes[k], c.Classes[k].Deadline)
	me.Span = &[2]float64{q10, q99}
	me.MetBits = res.Met
	return me
}

// measureRun is the measurement of class k of a candidate's run res of
// scenario c: its summary at the given level and target, or, when the
// simulator refused the candidate (err), a failure kept under key. base
// are the section costs of its no-hedging run (nil when its requests
// interact), which its own are reduced to its added cost's standard
// error against. An error is returned only when ctx ended.
func measureRun(ctx context.Context, key string, res *sim.Result, c *sim.Config, k int, err error, level float64, target time.Duration, base []float64) (Measurement, error) {
	if err != nil {
		if ctx.Err() != nil {
			return Measurement{}, err
		}
		return failure(key, err), nil
	}
	me := measured(key, res, c, k, level, target)
	if se, n := sim.PairedAddedCostSE(me.SectionCosts, base); n >= 2 {
		me.CostSE, me.CostSections = se, n
	}
	me.SectionCosts = nil
	return me, nil
}

// measured is the summary, under key, of class k of run res of scenario c
// at the given level and target, with whether the run overloads a rate
// limit.
func measured(key string, res *sim.Result, c *sim.Config, k int, level float64, target time.Duration) Measurement {
	loads := loadsOf(res, c)
	x := Candidate{OverLimit: slices.ContainsFunc(loads, func(l Load) bool { return l.Kind == LoadRate }), Loads: loads}
	r := &res.Classes[k]
	summarize(&x, r, level, target)
	x.won = r.Won
	x.ReplicaHours = replicaHours(res)
	x.breakerWarns = breakerWarnings(res)
	if p := r.Paired; p != nil {
		x.met, x.rescued, x.harmed, x.paired = p.Met, p.Rescued, p.Harmed, p.Compared
		if fm, fr, fh, ok := r.GridFates(); ok {
			x.batchF = [3][]float64{fm, fr, fh}
		}
	} else {
		x.met = r.Answered // no bits (closed-loop clients): answered is all we know
		if slo := c.Classes[k].SLO; slo > 0 {
			x.met = r.AnsweredWithin(slo.Seconds())
		}
	}
	return measurementOf(key, &x)
}
