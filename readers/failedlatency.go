package readers

import (
	"math"
	"strconv"
	"strings"
)

// A failed request's latency is read leniently: logs write an empty cell,
// 0 or a text ("timeout") in the latency cell of an error. A failed row's
// latency is kept when it parses as a time > 0 written the way the
// column's successful rows write theirs (a plain number, or the same unit
// suffix); otherwise it is NaN, the row counted as a failure without a
// latency (Log.FailedLatencies). A number that is negative or not finite
// (-5, NaN, Inf) is bad input as on a successful row.

// failedCell is the latency of a failed row and how it was written, kept
// until the whole column has been read.
type failedCell struct {
	// i is the row's index in the Log.
	i    int
	form Unit
}

// failedLatency returns the latency of a row that is not OK, in seconds,
// or NaN when its cell holds none (missing, null, empty, zero, not a
// number). A negative or non-finite number is an *InputError naming file,
// line and column. The row is noted so that finish can drop a latency
// written in another form than the column's successes.
func (rr *rowReader) failedLatency(file string, i int, get cellGetter) (float64, error) {
	v, line, ok, null := get(rr.Latency)
	if !ok || null {
		return math.NaN(), nil
	}
	x, form, err := parseTime(v, rr.unitOf(rr.Latency))
	isTime := err == nil
	if !isTime {
		// "-5" in a column of no stated unit, or "NaN", is not a time
		// but still a bad number.
		if x, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return math.NaN(), nil
		}
	}
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return 0, inputErr(file, line, rr.Latency, "%q on a failed row is not a finite number; leave the cell empty when an error has no latency", clip(strings.TrimSpace(v)))
	case x < 0:
		return 0, inputErr(file, line, rr.Latency, "%s on a failed row is negative; a latency must be > 0 (leave the cell empty when an error has no latency)", clip(strings.TrimSpace(v)))
	case x == 0 || !isTime:
		return math.NaN(), nil
	}
	rr.failed = append(rr.failed, failedCell{i: i, form: form})
	return x, nil
}

// finish sets to NaN the latencies of the failed rows of l written in
// another form than the latency column's successful rows ("0.03s" beside
// plain numbers): in a column stitched from two sources, the unit of a
// plain number is in doubt. With no successful row to compare, the failed
// rows' latencies are kept.
func (rr *rowReader) finish(l *Log) {
	first, ok := rr.forms[rr.Latency]
	if !ok {
		return
	}
	for _, f := range rr.failed {
		if f.form != first.unit {
			l.lat[f.i] = math.NaN()
		}
	}
}

// FailedLatencies returns the whole-call latencies in seconds, in file
// order, of the requests with Status Failed that have one (an error's
// latency: when it came back), and the number of Failed requests without
// one. Rate-limited and invalid requests are not counted.
func (l *Log) FailedLatencies() (lat []float64, missing int) {
	for i, s := range l.status {
		if s != Failed {
			continue
		}
		if math.IsNaN(l.lat[i]) {
			missing++
			continue
		}
		lat = append(lat, l.lat[i])
	}
	return lat, missing
}
