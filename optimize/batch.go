package optimize

import (
	"context"
	"runtime"

	"github.com/hedgesim/hedgesim/sim"
)

// batchBytes bounds the memory one batch of candidates holds at once
// (sim.RunPolicies keeps every run of a batch until the batch ends), as
// held counts it.
const batchBytes = 128 << 20

// batchSize is the most candidates of n requests each that one batch
// runs together: at least 1, and their runs within batchBytes.
func batchSize(requests int) int {
	c := sim.Config{Requests: max(requests, 1)}
	return int(max(1, batchBytes/held(&c)))
}

// held is the memory a run of c held in a sweep takes, without the
// process's own 16 MiB: twice what sim.EstimateMemory counts for the run
// (for its latencies, 10 bytes a request), because the garbage collector
// lets the runs already measured, which are garbage, grow the heap to
// about twice what is live (GOGC=100). Measured, peak resident memory: the
// default sweep on 2 workers, 8.2 bytes a request of the 46 runs held at
// 10⁶ requests (378 MB) and 10.6 at 2·10⁵ (98 MB); eval-black-hole with
// 2·10⁴ clients swept at 2·10⁴ requests, 264 MB.
func held(c *sim.Config) int64 { return 2 * (sim.EstimateMemory(c) - 16<<20) }

// batchCount is into how many batches simulateCandidates deals n candidates
// of a class: at least workers (so that every worker has a share of each
// class), none larger than batchSize, and none empty.
func batchCount(n, workers, requests int) int {
	b := batchSize(requests)
	return min(n, max(workers, (n+b-1)/b))
}

// EstimateMemory returns about how many bytes of resident memory a sweep
// of cfg under s on workers goroutines (≤ 0: GOMAXPROCS) holds at its
// peak: workers batches of candidates of s.Requests requests at once, each
// batch as large as the class with the most candidates to try makes it
// (with the draws shared by a batch off the lane), or
// the rollout check's full-scenario run and its baseline, whichever is
// more. A run is counted as held counts it, with sim.EstimateMemory's
// 16 MiB once per worker; a run of a group of coupled classes simulates
// s.Requests times the classes of the group, each at its share.
func EstimateMemory(cfg *sim.Config, s Settings, workers int) int64 {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	check := s.CheckRequests
	if check < 0 {
		check = min(DefaultCheckRequests, 5*s.Requests)
	}
	c := *cfg
	c.Requests = s.Requests
	if tr := cfg.Arrivals.Trace; cfg.Arrivals.Process == sim.Replay && tr != nil {
		// A replayed trace runs at most its own requests.
		c.Requests = min(c.Requests, len(tr.Arrivals))
		check = min(check, len(tr.Arrivals))
	}
	const process = 16 << 20
	perRun := c.Requests
	if !s.Alone {
		groups, _ := coupledGroups(cfg, &s)
		for _, g := range groups {
			c.Requests = max(c.Requests, perRun*len(g))
		}
	}
	one := held(&c)
	// The classes swept alone: each batch of a class whose grid candidates
	// take the lane holds as many runs as a batch has candidates; one
	// whose candidates do not runs them one at a time, and holds the
	// draws they share (sim.SharedDrawBytes).
	per := 1
	var shared int64
	for i := range cfg.Classes {
		name := cfg.Classes[i].Name
		if !optimized(&s, name) {
			continue
		}
		cc, _, err := classConfig(cfg, i, perRun)
		if err != nil {
			continue
		}
		grid := Candidate{Hedging: true, Copies: max(cc.Classes[0].Policy.Copies, 1)}
		cc.Classes[0].Policy = grid.Policy(cc.Classes[0].Policy)
		if !sim.Lane(cc) {
			if b := sim.SharedDrawBytes(perRun); b <= batchBytes {
				shared = b
			}
			continue
		}
		most := candidatesAtMost(s.For(name))
		n := batchCount(most, workers, perRun)
		per = max(per, (most+n-1)/n)
	}
	sweep := int64(workers) * (int64(per)*one + shared + process)
	c.Requests = check
	return max(sweep, 2*sim.EstimateMemory(&c))
}

// simulateCandidates makes the measurements, of the candidates 0 … n−1
// named by keys, that the memo m would simulate (its shard owns them and
// none is known), and returns them by candidate; the others are left zero.
// of(i) gives candidate i's class (0 … classes−1), its single-class
// scenario and its policy; measure(i, res, err) makes its measurement from
// its run. The candidates of a class are run in batches that share their
// draws (sim.RunPolicies): per class, at least workers batches, the
// candidates dealt to them in turn so that short and long delays mix, and
// none larger than batchSize, and a batch of its own for each candidate
// off the lane; the batches run on workers goroutines.
// tick, when not nil, is called once per candidate: at once for those it
// does not simulate, and for the others as each is measured.
func simulateCandidates(ctx context.Context, m *memo, keys []string, classes, workers, requests int, tick func(),
	of func(i int) (int, *sim.Config, sim.Policy), measure func(i int, res *sim.Result, err error) (Measurement, error)) ([]Measurement, error) {
	byClass := make([][]int, classes)
	for i, key := range keys {
		if m.needs(key, i) {
			c, _, _ := of(i)
			byClass[c] = append(byClass[c], i)
		} else if tick != nil {
			tick() // known, or another shard's
		}
	}
	var batches [][]int
	var loop []bool // per batch: its candidates are off the lane (loopBatches)
	for _, all := range byClass {
		// A candidate off the lane (the configured policy, say, with an
		// adaptive delay) shares no lane draws: it runs in a batch of
		// candidates off the lane, so that the others' batches still do.
		var idx, off []int
		for _, i := range all {
			_, c, pol := of(i)
			one := *c
			one.Classes = append([]sim.Class(nil), c.Classes...)
			one.Classes[0].Policy = pol
			if sim.Lane(&one) {
				idx = append(idx, i)
			} else {
				off = append(off, i)
			}
		}
		for _, part := range deal(off, loopBatchCount(len(off), workers, requests)) {
			batches = append(batches, part)
			loop = append(loop, true)
		}
		if len(idx) == 0 {
			continue
		}
		for _, part := range deal(idx, batchCount(len(idx), workers, requests)) {
			batches = append(batches, part)
			loop = append(loop, false)
		}
	}
	made := make([]Measurement, len(keys))
	err := parallelContext(ctx, len(batches), workers, func(b int) error {
		idx := batches[b]
		_, c, _ := of(idx[0])
		pols := make([]sim.Policy, len(idx))
		for j, i := range idx {
			_, _, pols[j] = of(i)
		}
		if loop[b] && m.grow != nil {
			m.grow.resimulated()
		}
		if loop[b] {
			return sim.RunPoliciesEach(ctx, c, 0, pols, func(j int, res *sim.Result, err error) error {
				i := idx[j]
				me, merr := measure(i, res, err)
				if merr != nil {
					return merr
				}
				made[i] = me
				if tick != nil {
					tick()
				}
				return nil
			})
		}
		var res []*sim.Result
		var err error
		if m.grow != nil {
			res, err = m.grow.run(ctx, c, pols, false)
		} else {
			res, err = sim.RunPolicies(ctx, c, 0, pols)
		}
		if err != nil && m.grow != nil && ctx.Err() == nil {
			m.grow.resimulated()
		}
		for j, i := range idx {
			var me Measurement
			var merr error
			switch {
			case err == nil:
				me, merr = measure(i, res[j], nil)
			case ctx.Err() != nil:
				return ctx.Err()
			default:
				// A policy the simulator refuses fails the whole batch:
				// run each alone, so only the refused ones fail.
				r, rerr := runPolicy(ctx, c, pols[j])
				me, merr = measure(i, r, rerr)
			}
			if merr != nil {
				return merr
			}
			made[i] = me
			if tick != nil {
				tick()
			}
		}
		return nil
	}, nil)
	return made, err
}

// deal deals idx to n parts in turn, so that short and long delays mix.
func deal(idx []int, n int) [][]int {
	part := make([][]int, n)
	for j, i := range idx {
		part[j%n] = append(part[j%n], i)
	}
	return part
}

// loopBatch is about how many candidates off the lane one batch runs one
// after another, sharing their draws (sim.RunPoliciesEach): the first
// run of a batch draws what the others take, so larger batches share
// more, and smaller ones spread the candidates more evenly on the
// workers. A class's default grid (candidatesAtMost: 45) makes one batch
// per worker: a balancer's sweep under Settings.Balancers, which runs on
// one worker, draws each class's requests once rather than once per 12
// candidates. A batch holds one run and the draws it shares at a time,
// whatever its size.
const loopBatch = 48

// loopBatchCount is into how many batches simulateCandidates deals n
// candidates off the lane of a class: at least workers, about loopBatch
// candidates each, and none empty; one each (nothing shared) when the
// shared draws of runs of requests each would hold more than batchBytes.
func loopBatchCount(n, workers, requests int) int {
	if loopAlone || sim.SharedDrawBytes(requests) > batchBytes {
		return n
	}
	return min(n, max(workers, (n+loopBatch-1)/loopBatch))
}

// loopAlone makes simulateCandidates run every candidate off the lane
// in a batch of its own, sharing no draws, as it did before
// loopBatchCount, for the test that checks the report does not change.
var loopAlone bool

// candidatesAtMost bounds how many hedged candidates grid gives a class
// under search: every delay (the default grid's DefaultDelayCount + 4),
// copies and targets, and the configured policy.
func candidatesAtMost(search Search) int {
	delays := len(search.Delays)
	if search.Delays == nil {
		delays = DefaultDelayCount + 4
	}
	return delays*max(1, len(search.Copies))*max(1, len(search.Targets)) + 1
}
