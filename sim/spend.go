package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hedgesim/hedgesim/textfit"
)

// DaysPerMonth is the length of the month in Spend.PerMonth.
const DaysPerMonth = 30

// Spend is what a class costs at its arrival rate, where budgets are set:
// per day and per month (DaysPerMonth days), in US dollars, with hedging
// and without. Per day = cost per request × requests per second × 86 400.
type Spend struct {
	// RequestsPerSecond is the class's arrival rate: the scenario's rate
	// (for a replayed trace, its requests over their time span) times the
	// class's configured share (for a trace whose classes match rules
	// assign, the share of the replayed requests its rule takes), as
	// optimize uses; in a run with closed-loop clients, the class's
	// throughput (Throughput.PerSecond). A class of open arrivals with
	// no simulated request (a share of 10⁻⁹) keeps its rate, as optimize
	// shows it, but has no cost to spend: its dollar figures are unknown
	// (NoCost; JSON null, "-" in a run's text), in a run as in optimize.
	RequestsPerSecond float64 `json:"requests_per_s"`
	// NoHedgingRequestsPerSecond is the rate of the no-hedging figures:
	// RequestsPerSecond, except in a run with closed-loop clients, whose
	// throughput without hedging is its own.
	NoHedgingRequestsPerSecond float64 `json:"no_hedging_requests_per_s"`
	PerDay                     float64 `json:"per_day"`
	PerMonth                   float64 `json:"per_month"`
	NoHedgingPerDay            float64 `json:"no_hedging_per_day"`
	NoHedgingPerMonth          float64 `json:"no_hedging_per_month"`
	// NoRate is set when the traffic has no arrival rate: a replayed
	// trace whose requests all arrive at one instant (or a single request)
	// spans no time; in optimize also when the policy rolled out was not
	// simulated (an undecided class without a "configured" candidate).
	// The figures are then 0 and not known: the JSON writes every one
	// null, the text n/a.
	NoRate bool `json:"-"`
	// NoCost is set when no request of the class was simulated (a share
	// of 10⁻⁹): by optimize, and by a run's JSON (ClassReport.MarshalJSON);
	// it keeps its rate, but its dollar figures are not known: the JSON
	// writes them null, the text n/a ("-" in a run's).
	NoCost bool `json:"-"`
	// NoPickCost is set, by optimize, when the policy rolled out was not
	// simulated (an undecided class without a "configured" candidate)
	// but no hedging was: the rate and the no-hedging figures are known,
	// PerDay and PerMonth are not (JSON null, the text n/a).
	NoPickCost bool `json:"-"`
	// NoPickRate is set with NoPickCost for a class of closed-loop
	// clients: the rate its clients reach under the policy rolled out is
	// not known either (RequestsPerSecond is 0; JSON null, the text n/a),
	// while no hedging's rate and spend are.
	NoPickRate bool `json:"-"`
}

// spendNull is a Spend's JSON when it has no arrival rate.
const spendNull = `{"requests_per_s":null,"no_hedging_requests_per_s":null,"per_day":null,"per_month":null,"no_hedging_per_day":null,"no_hedging_per_month":null}`

// MarshalJSON writes s, with every figure null when s.NoRate, the dollar
// figures null when s.NoCost, and the pick's when s.NoPickCost (its rate
// too when s.NoPickRate).
func (s Spend) MarshalJSON() ([]byte, error) {
	if s.NoRate {
		return []byte(spendNull), nil
	}
	type plain Spend
	if s.NoPickCost && s.NoPickRate && !s.NoCost {
		return json.Marshal(struct {
			plain
			RequestsPerSecond *float64 `json:"requests_per_s"`
			PerDay            *float64 `json:"per_day"`
			PerMonth          *float64 `json:"per_month"`
		}{plain: plain(s)})
	}
	if s.NoPickCost && !s.NoCost {
		return json.Marshal(struct {
			plain
			PerDay   *float64 `json:"per_day"`
			PerMonth *float64 `json:"per_month"`
		}{plain: plain(s)})
	}
	if s.NoCost {
		return json.Marshal(struct {
			plain
			PerDay            *float64 `json:"per_day"`
			PerMonth          *float64 `json:"per_month"`
			NoHedgingPerDay   *float64 `json:"no_hedging_per_day"`
			NoHedgingPerMonth *float64 `json:"no_hedging_per_month"`
		}{plain: plain(s)})
	}
	return json.Marshal(plain(s))
}

// NoArrivalSpan reports whether cfg's arrivals span no time, so that its
// traffic has no arrival rate to spend at: a replayed trace whose replayed
// requests all arrive at one instant, or only one of them.
func NoArrivalSpan(cfg *Config) bool {
	return cfg.Arrivals.Process == Replay && !cfg.closedLoop() && ArrivalRate(cfg) == 0
}

// replayedRequests is the number of requests cfg replays from its trace.
func replayedRequests(cfg *Config) int {
	if cfg.Arrivals.Trace == nil {
		return 0
	}
	return min(cfg.Requests, len(cfg.Arrivals.Trace.Arrivals))
}

// NoSpanWarning is the warning of a run or optimize when
// NoArrivalSpan(cfg), else "".
func NoSpanWarning(cfg *Config) string {
	if !NoArrivalSpan(cfg) {
		return ""
	}
	why := "it replays one request"
	if n := replayedRequests(cfg); n != 1 {
		why = fmt.Sprintf("the %d requests it replays all arrive at one instant", n)
	}
	return "the replayed trace spans no time (" + why + "): it has no arrival rate, so the spend per day and month is n/a (JSON null); the cost per 1k requests stands"
}

// ArrivalRate returns the mean arrival rate of cfg in requests per second:
// Arrivals.Rate for Poisson and constant arrivals; for a replayed trace,
// (n − 1) over the time from the first to the n-th arrival of the n =
// Requests replayed (0 when they all arrive at once).
func ArrivalRate(cfg *Config) float64 {
	if cfg.Arrivals.Process != Replay {
		return cfg.Arrivals.Rate
	}
	tr := cfg.Arrivals.Trace
	if tr == nil {
		return 0
	}
	n := min(cfg.Requests, len(tr.Arrivals))
	if n < 2 {
		return 0
	}
	span := tr.Arrivals[n-1] - tr.Arrivals[0]
	if span <= 0 {
		return 0
	}
	return float64(n-1) / span.Seconds()
}

// spendOf is the spend of c (one class, or overall) at rate, its share
// of the scenario's arrival rate.
func spendOf(c *ClassReport, rate float64) Spend {
	if c.Requests == 0 {
		if c.Throughput != nil {
			return Spend{}
		}
		return Spend{RequestsPerSecond: rate, NoHedgingRequestsPerSecond: rate}
	}
	if c.Throughput != nil {
		// Closed-loop clients: each side at the rate it reached.
		nh := c.Throughput.PerSecond
		if c.NoHedging.Throughput != nil {
			nh = c.NoHedging.Throughput.PerSecond
		}
		return SpendAtRates(c.Throughput.PerSecond, nh, c.CostPer1k.Total, c.NoHedging.CostPer1k.Total)
	}
	return SpendAt(rate, c.CostPer1k.Total, c.NoHedging.CostPer1k.Total)
}

// SpendAt is the spend of traffic at rate requests per second that costs
// costPer1k US dollars per 1000 requests, and noHedgingCostPer1k without
// hedging.
func SpendAt(rate, costPer1k, noHedgingCostPer1k float64) Spend {
	return SpendAtRates(rate, rate, costPer1k, noHedgingCostPer1k)
}

// SpendAtRates is SpendAt with the traffic without hedging at its own rate,
// noHedgingRate: closed-loop clients send as fast as their answers come
// back, so the two sides reach different throughputs.
func SpendAtRates(rate, noHedgingRate, costPer1k, noHedgingCostPer1k float64) Spend {
	day := rate * (24 * time.Hour).Seconds() / 1000
	nhDay := noHedgingRate * (24 * time.Hour).Seconds() / 1000
	return Spend{
		RequestsPerSecond:          rate,
		NoHedgingRequestsPerSecond: noHedgingRate,
		PerDay:                     costPer1k * day,
		PerMonth:                   costPer1k * day * DaysPerMonth,
		NoHedgingPerDay:            noHedgingCostPer1k * nhDay,
		NoHedgingPerMonth:          noHedgingCostPer1k * nhDay * DaysPerMonth,
	}
}

// Dollars formats an amount in US dollars as the reports do (see dollars).
func Dollars(x float64) string { return dollars(x) }

// setSpend fills the Spend of every class and overall.
func (r *Report) setSpend(cfg *Config) {
	// With closed-loop clients every row has a Throughput: each spends at
	// the rate it reached.
	// Open arrivals: overall is the classes' sum, so that it is the
	// configured mix's spend, not the drawn mix's.
	rate := ArrivalRate(cfg)
	var sum Spend
	for i := range r.Classes {
		s := spendOf(&r.Classes[i], rate*cfg.Classes[i].Share)
		r.Classes[i].Spend = s
		sum.RequestsPerSecond += s.RequestsPerSecond
		sum.NoHedgingRequestsPerSecond += s.NoHedgingRequestsPerSecond
		sum.PerDay += s.PerDay
		sum.PerMonth += s.PerMonth
		sum.NoHedgingPerDay += s.NoHedgingPerDay
		sum.NoHedgingPerMonth += s.NoHedgingPerMonth
	}
	r.Overall.Spend = spendOf(&r.Overall, rate)
	if r.Overall.Throughput == nil && r.Overall.Requests > 0 {
		r.Overall.Spend = sum
	}
	if NoArrivalSpan(cfg) {
		for i := range r.Classes {
			r.Classes[i].Spend = Spend{NoRate: true}
		}
		r.Overall.Spend = Spend{NoRate: true}
	}
}

// writeSpend writes the spend table of rows; a row without requests
// shows its rate and "-" for its spend, which is unknown.
func writeSpend(w io.Writer, rows []ClassReport) {
	tw := textfit.NewTable(w, tabwriter.AlignRight)
	at := "arrival rate"
	for _, c := range rows {
		if c.Throughput != nil {
			at = "throughput" // closed-loop clients: the rate they reached
		}
	}
	fmt.Fprintf(tw, "spend at %s\treq/s\tper day\tper month (%d d)\tno hedging per day\tper month\tadded per month\t\n", at, DaysPerMonth)
	for _, c := range rows {
		s := c.Spend
		if s.NoRate {
			fmt.Fprintf(tw, "%s\tn/a\tn/a\tn/a\tn/a\tn/a\tn/a\t\n", c.Class)
			continue
		}
		if c.Requests == 0 {
			// No request fell in the class: its cost per request, and
			// so its spend, is unknown, not $0.
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t-\t\n", c.Class, PerSecond(s.RequestsPerSecond))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Class, PerSecond(s.RequestsPerSecond),
			dollars(s.PerDay), dollars(s.PerMonth), dollars(s.NoHedgingPerDay), dollars(s.NoHedgingPerMonth),
			dollars(s.PerMonth-s.NoHedgingPerMonth))
	}
	tw.Flush()
	for i := range rows {
		if s := &rows[i].Spend; !s.NoRate && rows[i].Requests > 0 && s.ThroughputChanged() {
			fmt.Fprintln(w, ThroughputSpendNote+".")
			break
		}
	}
	fmt.Fprintln(w)
}

// dollars formats an amount in US dollars: three significant digits below
// $1, cents below $100, whole dollars with thousands separators from $100
// ($648, $1,570,634), so that a column of monthly figures reads alike.
func dollars(x float64) string {
	switch {
	case x < 0:
		return "-" + dollars(-x)
	case x == 0:
		return "$0"
	case x < 1:
		return fmt.Sprintf("$%.3g", x)
	case x < 99.995:
		return fmt.Sprintf("$%.2f", x)
	}
	return "$" + thousands(strconv.FormatFloat(math.Round(x), 'f', 0, 64))
}

// PerSecond formats a rate in requests per second as the spend tables do:
// three significant digits below 1000 (0.5, 24.9, 183), whole numbers with
// thousands separators from 1000 (1,230, 1,000,000) — never an exponent
// below 10¹⁵.
func PerSecond(x float64) string {
	if x >= 999.5 && x < 1e15 {
		return thousands(strconv.FormatFloat(math.Round(x), 'f', 0, 64))
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// thousands puts a comma between every three digits of the whole number
// digits, from the right.
func thousands(digits string) string {
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// DollarsPer1k formats a cost per 1000 requests in US dollars as the
// reports' cost-per-1k tables do: four decimals ($1.4315), with thousands
// separators from $1,000 ($7,749,210,000.0000); below one cent three
// significant digits ($0.00123, $0.0000000450), so that a non-zero cost
// never reads $0.0000; zero is $0.0000.
func DollarsPer1k(x float64) string {
	switch {
	case x < 0:
		return "-" + DollarsPer1k(-x)
	case x == 0 || math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Sprintf("$%.4f", x)
	case x < 0.00995:
		decimals := 2 - int(math.Floor(math.Log10(x)))
		return "$" + strconv.FormatFloat(x, 'f', decimals, 64)
	}
	s := strconv.FormatFloat(x, 'f', 4, 64)
	whole, frac, _ := strings.Cut(s, ".")
	return "$" + thousands(whole) + "." + frac
}

// ThroughputChanged reports whether s's no-hedging figures are at another
// rate than its own: closed-loop clients, who send more when answered
// sooner. Its added spend (PerMonth − NoHedgingPerMonth) then holds the
// spend of the requests the rate change adds, beside hedging's own
// (HedgingPerMonth).
func (s *Spend) ThroughputChanged() bool {
	return s.NoHedgingRequestsPerSecond > 0 && s.NoHedgingRequestsPerSecond != s.RequestsPerSecond
}

// HedgingPerMonth is what hedging itself adds a month at s's rate: PerMonth
// less the no-hedging cost per request at that same rate, NoHedgingPerMonth
// × RequestsPerSecond ÷ NoHedgingRequestsPerSecond — PerMonth −
// NoHedgingPerMonth when the two rates are one (open arrivals).
func (s *Spend) HedgingPerMonth() float64 {
	if !s.ThroughputChanged() {
		return s.PerMonth - s.NoHedgingPerMonth
	}
	return s.PerMonth - s.NoHedgingPerMonth*s.RequestsPerSecond/s.NoHedgingRequestsPerSecond
}

// ThroughputSpendNote is the footnote of a spend table with a row whose
// throughput changed (ThroughputChanged): what its added spend holds.
const ThroughputSpendNote = "closed-loop clients send more requests when answered sooner: their no-hedging figures are at their own throughput, so added per month holds the spend of the extra requests as well as hedging's own"
