package readers

import "math"

// A failed request's latency is read leniently: logs write anything in the
// latency cell of an error (empty, 0, -1, "timeout"), and such rows were
// never checked. A failed row's latency is kept when it parses as a time
// > 0 written the way the column's successful rows write theirs (a plain
// number, or the same unit suffix); otherwise it is NaN, the row counted
// as a failure without a latency (Log.FailedLatencies).

// failedCell is the latency of a failed row and how it was written, kept
// until the whole column has been read.
type failedCell struct {
	// i is the row's index in the Log.
	i    int
	form Unit
}

// failedLatency returns the latency of a row that is not OK, in seconds,
// or NaN when its cell holds none (missing, null, not a time, ≤ 0). The
// row is noted so that finish can drop a latency written in another form
// than the column's successes.
func (rr *rowReader) failedLatency(i int, get cellGetter) float64 {
	v, _, ok, null := get(rr.Latency)
	if !ok || null {
		return math.NaN()
	}
	x, form, err := parseTime(v, rr.unitOf(rr.Latency))
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		return math.NaN()
	}
	rr.failed = append(rr.failed, failedCell{i: i, form: form})
	return x
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
