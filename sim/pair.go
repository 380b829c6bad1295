package sim

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Who won, and what hedging bought, request by request.
//
// Every run counts, per class, the answered requests by the attempt that
// answered them: the primary, or a copy to each model (ClassResult.Won).
//
// A run can also be paired with its no-hedging baseline through the
// common random numbers: request i draws the same arrival, class and
// primary in both. The baseline run records one bit per request — whether
// it met its class's target: answered within Class.SLO of its arrival, or,
// without an SLO, answered at all (Pair.Record, Result.Met) — and the
// hedged run, given those bits (Pair.Base), counts per class the requests
// it rescued — met the target only with hedging — and those it harmed —
// met it without hedging and miss it with (ClassResult.Paired). That is
// at most one bit per request per run. With closed-loop clients request i
// need not be of the same class in both runs (which client sends it
// depends on timing), so such runs are not paired; nor are runs with a
// pipeline class, whose requests are made of calls of their steps. The
// wins of a pipeline's calls are counted in its steps' classes, not in
// the pipeline class.

// Pair asks a run to record or compare, request by request, whether each
// request met its class's target (see Who won).
type Pair struct {
	// Record makes the run record the bits (Result.Met).
	Record bool
	// Base, when set, are the bits of the same scenario's run without
	// hedging (WithoutHedging), of as many requests: the run counts the
	// requests it rescued and harmed against them (ClassResult.Paired).
	Base *MetBits
}

// MetBits holds one bit per request, in request order: whether it met its
// class's target.
type MetBits struct {
	n     int64
	words []uint64
}

// newMetBits returns n cleared bits.
func newMetBits(n int64) *MetBits { return &MetBits{n: n, words: make([]uint64, (n+63)/64)} }

// Len returns the number of requests.
func (m *MetBits) Len() int64 { return m.n }

// Met reports whether request i met its target.
func (m *MetBits) Met(i int64) bool { return m.words[i>>6]>>(i&63)&1 == 1 }

// Count returns how many requests met their target.
func (m *MetBits) Count() int64 {
	var c int
	for _, w := range m.words {
		c += bits.OnesCount64(w)
	}
	return int64(c)
}

// or sets the bits o has set (a split run's other range).
func (m *MetBits) or(o *MetBits) {
	for i, w := range o.words {
		m.words[i] |= w
	}
}

// String returns the bits as text: the request count, a colon and the
// words in base64 (little-endian), which ParseMetBits reads back.
func (m *MetBits) String() string {
	b := make([]byte, 8*len(m.words))
	for i, w := range m.words {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return fmt.Sprintf("%d:%s", m.n, base64.StdEncoding.EncodeToString(b))
}

// ParseMetBits reads what MetBits.String writes.
func ParseMetBits(s string) (*MetBits, error) {
	count, enc, ok := strings.Cut(s, ":")
	n, err := strconv.ParseInt(count, 10, 64)
	if !ok || err != nil || n < 0 {
		return nil, fmt.Errorf("met bits %.20q: want COUNT:BASE64, a request count ≥ 0 and the bits", s)
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, fmt.Errorf("met bits: %v", err)
	}
	m := newMetBits(n)
	if len(b) != 8*len(m.words) {
		return nil, fmt.Errorf("met bits: %d bytes for %d requests; want %d", len(b), n, 8*len(m.words))
	}
	for i := range m.words {
		m.words[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	if r := n % 64; r != 0 && m.words[len(m.words)-1]>>r != 0 {
		return nil, fmt.Errorf("met bits: bits set past the last of %d requests", n)
	}
	return m, nil
}

// Won counts a class's answered requests by the attempt that answered:
// its primary, or a copy to each model (in the order of Config.Models,
// only those that won any).
type Won struct {
	Primary int64       `json:"primary"`
	Copies  []ModelWins `json:"copies"`
}

// ModelWins is how many requests copies to one model answered.
type ModelWins struct {
	Model    string `json:"model"`
	Requests int64  `json:"requests"`
}

// Paired is what a run recording or comparing met bits (Config.Pair)
// counted of a class: Met, its requests that met the target; and, when
// Compared with a no-hedging baseline request by request (see Who won),
// Rescued, those that met it only with hedging, and Harmed, only without.
type Paired struct {
	Met      int64 `json:"met"`
	Rescued  int64 `json:"rescued"`
	Harmed   int64 `json:"harmed"`
	Compared bool  `json:"compared"`
}

// pairState is a run's recording and comparison (Pair).
type pairState struct {
	rec  *MetBits // bits recorded, or nil
	base *MetBits // the baseline's bits, or nil
	// sec are each class's per-section fates when requests interact
	// (fates.go); nil otherwise.
	sec []fateSections
}

// pairClass is what pairState.end reads of a request's class, together,
// kept in the class's stats (classStats.pair) so that it is found without
// a look-up of its own: its SLO (never without one: answered is met) and
// its per-section fates (pairState.sec's, nil when requests do not
// interact).
type pairClass struct {
	slo   time.Duration
	fates fateSections
}

// newPairState returns the state for cfg's Pair, or nil when it asks for
// nothing or the run has closed-loop clients; it sets each class's
// stats.pair (stats holds one classStats per class of cfg).
func newPairState(cfg *Config, stats []classStats) *pairState {
	p := cfg.Pair
	if p == nil || (!p.Record && p.Base == nil) || cfg.closedLoop() || cfg.pipelined() {
		return nil
	}
	s := &pairState{base: p.Base}
	for i := range cfg.Classes {
		slo := cfg.Classes[i].SLO
		if slo == 0 {
			slo = never // every answer meets it
		}
		stats[i].pair = pairClass{slo: slo}
	}
	if p.Record {
		s.rec = newMetBits(int64(cfg.Requests))
	}
	s.sectionFates(cfg)
	for i := range s.sec {
		stats[i].pair.fates = s.sec[i]
	}
	return s
}

// end books request r, ending after latency d with outcome o. answer
// (exit.go) takes its steps for an answer inline: a change here goes there
// too.
func (p *pairState) end(st *classStats, r *request, o outcome, d time.Duration) {
	id, pc := r.id, &st.pair
	met := o == outOK && d <= pc.slo
	if met {
		st.met++
		if rec := p.rec; rec != nil && id < rec.n {
			rec.words[id>>6] |= 1 << (id & 63)
		}
	}
	var rescued, harmed bool
	if b := p.base; b != nil && id < b.n {
		if was := b.words[id>>6]>>(id&63)&1 != 0; met && !was {
			rescued = true
			st.rescued++
		} else if !met && was {
			harmed = true
			st.harmed++
		}
	}
	if pc.fates != nil {
		countFate(pc.fates, r.sec, met, rescued, harmed)
	}
}

// wonIndex is the index in classStats.won of a win by attempt k, sent to
// model m: 0 for the primary, 1 + m for a copy.
func wonIndex(k int, m int32) int {
	if k == 0 {
		return 0
	}
	return 1 + int(m)
}

// wonOf returns the wins counted in won (classStats.won) by name.
func wonOf(won []int64, models []Model) Won {
	w := Won{Copies: []ModelWins{}}
	if len(won) == 0 {
		return w
	}
	w.Primary = won[0]
	for m := range models {
		if n := won[1+m]; n > 0 {
			w.Copies = append(w.Copies, ModelWins{Model: models[m].Name, Requests: n})
		}
	}
	return w
}

// validateSLO checks a class's SLO.
func (c *Class) validateSLO() error {
	switch {
	case c.SLO < 0:
		return invalid("class %q: slo %v: must be ≥ 0", c.Name, c.SLO)
	case c.SLO > 0 && c.Deadline > 0 && c.SLO >= c.Deadline:
		return invalid("class %q: slo %v is at or past its deadline %v: every answered request meets it; omit slo, or set it below the deadline", c.Name, c.SLO, c.Deadline)
	}
	return nil
}
