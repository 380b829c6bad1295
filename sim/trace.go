package sim

import (
	"strconv"
	"strings"
	"time"
)

// AttemptRecord is one attempt as it ended, for checking a policy by eye.
type AttemptRecord struct {
	Request int64  // request index, from 0 in arrival order
	Class   string // class name
	Attempt int    // 0 = primary, k = copy k
	// Round is the request's run under its class's retry (0 first, n
	// re-run n) and Try the call's try within its attempt under the
	// class's attempt retry (0 first, n retry n): every call has its row.
	Round, Try int
	Model      string // model the attempt was sent to
	// Start is when the attempt was sent and End when it left the system
	// (its response; for a winner under first_token, the end of its stream;
	// for an attempt its request let go of, its response or the landing of
	// its cancel, whichever came first), both from the start of the run.
	Start, End time.Duration
	// Outcome is "completed", "failed", "rate_limited", "rejected" (an
	// overload error from a full provider), "invalid", "timed_out"
	// (abandoned at the attempt timeout), "stalled" (a stream cut by the
	// inter-token timeout or the speed floor; End is the cut) or
	// "cancelled". Every attempt sent
	// has exactly one record.
	Outcome string
	// Won reports whether this attempt's response ended the request.
	Won bool
	// BilledInput and BilledOutput are the tokens the attempt was billed for.
	BilledInput, BilledOutput float64
	// CostUSD is what the attempt cost.
	CostUSD float64
	// Replica is the index of the replica the attempt went to, at a
	// provider with a pool (Provider.Pool); −1 otherwise, and for an
	// attempt a gate answered before it reached a replica.
	Replica int
	// Due is when the attempt's answer would have ended had it run to its
	// end (its wait, if any, and its drawn service time, a replica's
	// slowdown included) — for a "cancelled" one, the latency a record of
	// every call counts to its end — and End for a completed one; 0 when
	// its service never started (cancelled while still queued, say).
	Due time.Duration
}

// RunTrace is Run that also calls fn, when not nil, once for every
// attempt, in the order their ends are decided (a loser's end is decided
// when its request ends, so rows are not sorted by End). fn must not
// retain the record's address.
func RunTrace(cfg *Config, fn func(*AttemptRecord)) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := newEngine(cfg)
	e.trace = fn
	e.run()
	return e.result(), nil
}

// emit reports attempt k of r to the trace function, if any.
// billed says whether the attempt is billed (its cost then follows from in
// and out at its model's prices); the cost is computed only when tracing.
func (e *engine) emit(r *request, k int, end time.Duration, outcome string, won bool, in, out float64, billed bool) {
	if e.trace == nil {
		return
	}
	a := &r.att[k]
	md := &e.cfg.Models[a.model]
	cost := 0.0
	if billed {
		cost = price(md, in, out)
	}
	e.rec = AttemptRecord{
		Request: r.id, Class: e.cfg.Classes[r.class].Name, Attempt: k, Round: int(r.round), Try: int(a.try), Model: md.Name,
		Start: a.start, End: end, Outcome: outcome, Won: won,
		BilledInput: in, BilledOutput: out, CostUSD: cost, Replica: int(a.rep) - 1,
	}
	if a.started {
		e.rec.Due = a.end
	}
	e.trace(&e.rec)
}

// TraceCSVHeader is the header row of AppendCSV's rows.
const TraceCSVHeader = "request,class,attempt,model,start_s,end_s,outcome,won,billed_input_tokens,billed_output_tokens,cost_usd,round,try\n"

// AppendCSV appends r as one CSV row (columns as in TraceCSVHeader; times
// in seconds from the start of the run) to b.
func (r *AttemptRecord) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, r.Request, 10)
	b = append(b, ',')
	b = appendCSVField(b, r.Class)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Attempt), 10)
	b = append(b, ',')
	b = appendCSVField(b, r.Model)
	b = append(b, ',')
	b = appendSeconds(b, r.Start)
	b = append(b, ',')
	b = appendSeconds(b, r.End)
	b = append(b, ',')
	b = append(b, r.Outcome...)
	b = append(b, ',')
	b = strconv.AppendBool(b, r.Won)
	b = append(b, ',')
	b = strconv.AppendFloat(b, r.BilledInput, 'f', -1, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, r.BilledOutput, 'f', -1, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, r.CostUSD, 'g', 10, 64)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Round), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Try), 10)
	return append(b, '\n')
}

// TraceReplicaCSVHeader is the header row of AppendReplicaCSV's rows:
// TraceCSVHeader's columns and the replica's.
const TraceReplicaCSVHeader = "request,class,attempt,model,start_s,end_s,outcome,won,billed_input_tokens,billed_output_tokens,cost_usd,round,try,replica\n"

// AppendReplicaCSV appends r as AppendCSV does, with one more column: its
// replica (empty when it has none), for runs with a replica pool.
func (r *AttemptRecord) AppendReplicaCSV(b []byte) []byte {
	b = r.AppendCSV(b)
	b = append(b[:len(b)-1], ',')
	if r.Replica >= 0 {
		b = strconv.AppendInt(b, int64(r.Replica), 10)
	}
	return append(b, '\n')
}

// appendSeconds appends d in seconds with up to 9 decimals (exact to the
// nanosecond), trailing zeros trimmed.
func appendSeconds(b []byte, d time.Duration) []byte {
	n := len(b)
	b = strconv.AppendFloat(b, float64(d)/1e9, 'f', 9, 64)
	for len(b) > n+1 && b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	return b
}

// appendCSVField appends s, quoted as RFC 4180 requires when it holds a
// comma, quote or line break.
func appendCSVField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"')
}
