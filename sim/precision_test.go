package sim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestPrecisionJSON: a Reached that is +Inf (no interval: a p95 that is
// a miss) is written as null, which encoding/json refuses to write for a
// bare float, and reads back as +Inf; a finite one reads back exactly.
func TestPrecisionJSON(t *testing.T) {
	for _, p := range []Precision{
		{Asked: 0.02, Reached: math.Inf(1), Requests: 4000, MaxRequests: 128000, Unreachable: "the p95 is a miss"},
		{Asked: 0.02, Reached: 0.0173, Requests: 8000, MaxRequests: 128000, Met: true},
	} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		if math.IsInf(p.Reached, 1) != strings.Contains(string(b), `"reached":null`) {
			t.Errorf("%+v written as %s", p, b)
		}
		var got Precision
		if err := json.Unmarshal(b, &got); err != nil || got != p {
			t.Errorf("%s read back as %+v (%v); want %+v", b, got, err, p)
		}
	}
}

// TestP95WidestMissByNoise: a row whose p95 is a miss makes the precision
// unreachable only when its share answered is clearly below 95 % (the
// upper bound of its interval under 0.95); a miss whose share's interval
// reaches 95 % (class fatal of status-rules at 1000 requests: 94.96 %,
// [92.1 %, 96.8 %]) has no interval yet, and is the widest row with
// Reached +Inf, for more requests to narrow. Reached and the row are
// those of the rows that can have an interval; with none, no row.
func TestP95WidestMissByNoise(t *testing.T) {
	ci := func(lo, hi float64) *[2]*float64 { return &[2]*float64{&lo, &hi} }
	row := func(name string, p95 float64, share *[2]*float64) ClassReport {
		c := ClassReport{Class: name, Requests: 1000, AnsweredShareCI95: share}
		c.Latency.P95, c.Latency.P95CIOK = p95, true
		c.Latency.P95CI95 = [2]float64{0.9 * p95, 1.1 * p95}
		if math.IsInf(p95, 1) {
			c.Latency.P95CI95 = [2]float64{2, p95}
		}
		return c
	}
	inf := math.Inf(1)
	r := Report{Classes: []ClassReport{row("fatal", inf, ci(0.921, 0.968)), row("ok", 2, ci(0.99, 1))}, Overall: row("overall", 1.9, ci(0.98, 0.99))}
	if reached, widest, undef := r.P95Widest(); !math.IsInf(reached, 1) || widest != "fatal" || undef != "" {
		t.Errorf("miss by noise: reached %v, widest %q, undefined %q; want +Inf at fatal, none undefined", reached, widest, undef)
	}
	r.Classes[0].AnsweredShareCI95 = nil // no interval of the share yet
	if reached, widest, undef := r.P95Widest(); !math.IsInf(reached, 1) || widest != "fatal" || undef != "" {
		t.Errorf("share without an interval: reached %v, widest %q, undefined %q; want +Inf at fatal, none undefined", reached, widest, undef)
	}
	r.Classes[0].AnsweredShareCI95 = ci(0.90, 0.94)
	if reached, widest, undef := r.P95Widest(); math.Abs(reached-0.1) > 1e-9 || widest != "ok" && widest != "overall" ||
		!strings.HasPrefix(undef, "class fatal: the p95 is a miss (the share answered in time is clearly below 95%") {
		t.Errorf("clear miss: reached %v, widest %q, undefined %q; want 0.1 over the other rows, fatal undefined", reached, widest, undef)
	}
	r.Classes[1] = row("ok", inf, ci(0.90, 0.94))
	r.Overall = row("overall", inf, ci(0.90, 0.94))
	if reached, widest, undef := r.P95Widest(); !math.IsInf(reached, 1) || widest != "" ||
		!strings.HasPrefix(undef, "class fatal, class ok, overall: the p95 is a miss") {
		t.Errorf("every row a clear miss: reached %v, widest %q, undefined %q; want +Inf, no row", reached, widest, undef)
	}
}

// TestPrecisionLineWidestWithoutInterval: the text names the widest row
// whenever the JSON does, also when it has no interval yet.
func TestPrecisionLineWidestWithoutInterval(t *testing.T) {
	p := &Precision{Asked: 0.02, Reached: math.Inf(1), WidestClass: "fatal", Requests: 32000, MaxRequests: 32000, Simulated: 32000}
	if got, want := precisionLine(p, "x"), "x is without an interval (widest: class fatal) at 32000 requests"; !strings.Contains(got, want) {
		t.Errorf("%q; want %q in it", got, want)
	}
}
