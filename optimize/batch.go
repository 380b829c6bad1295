package optimize

import (
	"context"

	"github.com/hedgesim/hedgesim/sim"
)

// batchBytes bounds the latency buffers one batch of candidates holds at
// once: sim.RunPolicies keeps every run of a batch until the batch ends.
const batchBytes = 32 << 20

// batchSize is the most candidates of n requests each that one batch
// runs together: at least 1, and their latency buffers (5 bytes a request,
// see sim.EstimateMemory) within batchBytes.
func batchSize(requests int) int { return max(1, batchBytes/(5*max(requests, 1))) }

// simulateCandidates makes the measurements, of the candidates 0 … n−1
// named by keys, that the memo m would simulate (its shard owns them and
// none is known), and returns them by candidate; the others are left zero.
// of(i) gives candidate i's class (0 … classes−1), its single-class
// scenario and its policy; measure(i, res, err) makes its measurement from
// its run. The candidates of a class are run in batches that share their
// draws (sim.RunPolicies): per class, at least workers batches, the
// candidates dealt to them in turn so that short and long delays mix, and
// none larger than batchSize; the batches run on workers goroutines.
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
	for _, idx := range byClass {
		if len(idx) == 0 {
			continue
		}
		n := max(workers, (len(idx)+batchSize(requests)-1)/batchSize(requests))
		n = min(n, len(idx))
		part := make([][]int, n)
		for j, i := range idx {
			part[j%n] = append(part[j%n], i)
		}
		batches = append(batches, part...)
	}
	made := make([]Measurement, len(keys))
	err := parallelContext(ctx, len(batches), workers, func(b int) error {
		idx := batches[b]
		_, c, _ := of(idx[0])
		pols := make([]sim.Policy, len(idx))
		for j, i := range idx {
			_, _, pols[j] = of(i)
		}
		res, err := sim.RunPolicies(ctx, c, 0, pols)
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
