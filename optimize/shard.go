package optimize

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/hedgesim/hedgesim/sim"
)

// Shard names one of Count shares of a sweep's simulations, Index in
// [0, Count) — 0-based, like a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX. The zero value (Count 0) is the whole sweep.
//
// Shard i of n simulates the hedged candidates whose position is i modulo
// n: among all candidates of the classes swept alone, in report order, and
// among the candidates of each step of a coupled group's coordinate
// descent. Every shard simulates every no-hedging baseline, since the
// default delay grid derives from it (one simulation per class or step,
// next to some 44 candidates).
type Shard struct {
	Index, Count int
}

// ParseShard parses "i/n" (0 ≤ i < n, n ≥ 1), i and n plain decimal
// numbers: digits only, without a sign, spaces or leading zeros.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	plain := func(x string) bool {
		if x == "" || len(x) > 1 && x[0] == '0' {
			return false
		}
		for _, c := range x {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	switch {
	case ok && err1 == nil && i < 0:
		return Shard{}, fmt.Errorf("%q: the index must be in [0, %d) (0-based, like JOB_COMPLETION_INDEX)", s, max(n, 1))
	case !ok || err1 != nil || err2 != nil || !plain(a) || !plain(b):
		return Shard{}, fmt.Errorf("%q is not i/n; want the shard's 0-based index and the number of shards as plain decimal numbers, such as 0/3", s)
	case n < 1:
		return Shard{}, fmt.Errorf("%q: the number of shards must be ≥ 1", s)
	case i < 0 || i >= n:
		return Shard{}, fmt.Errorf("%q: the index must be in [0, %d) (0-based, like JOB_COMPLETION_INDEX)", s, n)
	}
	return Shard{i, n}, nil
}

func (sh Shard) String() string { return fmt.Sprintf("%d/%d", sh.Index, sh.Count) }

// Owns reports whether the shard simulates the candidate at position k
// (see Expect); every shard simulates position −1, a baseline.
func (sh Shard) Owns(k int) bool { return k < 0 || sh.Count <= 1 || k%sh.Count == sh.Index }

// memo gives a sweep its measurements: known ones, or simulated when its
// shard owns them.
type memo struct {
	shard    Shard
	known    map[string]*Measurement
	simulate bool // false: known measurements only (Assemble)
	record   bool // keep the new measurements (RunShard)
	mu       sync.Mutex
	fresh    []Measurement
	asked    map[string]int // when set, every key asked for, with its owner (Expect)
	// keep, when set, keeps every measurement get returns in kept, by
	// key, for sweeps of the same classes under other names to take
	// (balancerSweeps).
	keep bool
	kept map[string]*Measurement
	// grow, when set, makes the lane runs of classes swept alone by
	// extending those of its last sweep (Growth).
	grow *Growth
}

// get returns the measurement called key: a known one, or one made by
// run when the memo simulates and its shard owns position owner (−1:
// every shard); nil when neither. It is safe for concurrent use.
func (m *memo) get(key string, owner int, run func() (Measurement, error)) (*Measurement, error) {
	if m.asked != nil {
		m.mu.Lock()
		m.asked[key] = owner
		m.mu.Unlock()
	}
	if k, ok := m.known[key]; ok {
		return k, nil
	}
	if !m.simulate || !m.shard.Owns(owner) {
		return nil, nil
	}
	me, err := run()
	if err != nil {
		return nil, err
	}
	me.Key = key
	if m.record || m.keep {
		m.mu.Lock()
		if m.record {
			m.fresh = append(m.fresh, me)
		}
		if m.keep {
			if m.kept == nil {
				m.kept = map[string]*Measurement{}
			}
			m.kept[key] = &me
		}
		m.mu.Unlock()
	}
	return &me, nil
}

// needs reports whether get(key, owner, …) would simulate: the memo
// simulates, its shard owns position owner and key is not known.
func (m *memo) needs(key string, owner int) bool {
	_, ok := m.known[key]
	return !ok && m.simulate && m.shard.Owns(owner)
}

// ErrMissingMeasurement is the error of Assemble when the measurements
// lack one that the report needs (a shard's part is missing or comes
// from another sweep).
var ErrMissingMeasurement = errors.New("missing measurement")

// missingError says that a measurement a report needs is in no part.
func missingError(key string) error {
	return fmt.Errorf("%w: no part holds %q: a shard's part is missing, or comes from another sweep", ErrMissingMeasurement, key)
}

// RunShard simulates shard's share of the sweep Run would make of cfg
// under s, given the measurements known from earlier stages (none in the
// first), and returns the known measurements with its own, sorted by key.
// It does not run the rollout check (Assemble does).
//
// The classes swept alone are done in one stage. A group of coupled
// classes is not: each step of its coordinate descent (one class in one
// round) sweeps with the other classes at the picks of the steps before,
// which need every shard's measurements. A stage therefore does the first
// step of each group that its known measurements leave open; Assemble says
// when another stage is needed. With one shard (Count ≤ 1), RunShard
// simulates everything in one stage.
func RunShard(cfg *sim.Config, s Settings, shard Shard, known []Measurement, opt Options) ([]Measurement, error) {
	if shard.Count > 0 && (shard.Index < 0 || shard.Index >= shard.Count) {
		return nil, fmt.Errorf("shard %s: the index must be in [0, %d)", shard, shard.Count)
	}
	m := &memo{shard: shard, known: index(known), simulate: true, record: true}
	if _, _, err := sweep(cfg, s, opt, m, false); err != nil {
		return nil, err
	}
	return Union(known, m.fresh)
}

// Assemble builds the report of the sweep of cfg under s from the
// measurements of every shard of a stage (RunShard), with the rollout
// check; it simulates nothing else but pipeline classes, which shards
// leave out and Assemble searches whole (runPipeline). The report is the one Run returns,
// field for field. When a group of coupled classes needs another stage,
// the report is nil and next names the steps to do (one per group, such as
// "group a,b: round 1, class b"): run RunShard on every shard again with
// all the measurements so far (ms) as known.
func Assemble(cfg *sim.Config, s Settings, ms []Measurement, opt Options) (rep *Report, next []string, err error) {
	m := &memo{known: index(ms)}
	return sweep(cfg, s, opt, m, true)
}

// Expect returns the measurements that assembling the sweep of cfg under s
// from ms asks for, as far as ms takes it: each key with the position of
// its candidate, which shard i of n simulates when Shard{i, n}.Owns it (−1:
// a no-hedging baseline, which every shard simulates). A key of ms that is
// not asked for is no measurement of this sweep. err is the error Assemble
// would return (ErrMissingMeasurement when ms lacks one); the keys asked for
// until then are returned with it. Nothing is simulated, not even the
// rollout check.
func Expect(cfg *sim.Config, s Settings, ms []Measurement, opt Options) (map[string]int, error) {
	m := &memo{known: index(ms), asked: map[string]int{}}
	_, _, err := sweep(cfg, s, opt, m, false)
	return m.asked, err
}

// index maps measurements by key.
func index(ms []Measurement) map[string]*Measurement {
	out := make(map[string]*Measurement, len(ms))
	for i := range ms {
		out[ms[i].Key] = &ms[i]
	}
	return out
}
