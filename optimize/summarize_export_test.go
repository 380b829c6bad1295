package optimize

import (
	"context"
	"errors"

	"github.com/hedgesim/hedgesim/sim"
)

// CandidateSummary runs class i of cfg alone at the given requests, once
// without hedging (recording its met bits) and once with its own policy
// paired with that run, as a sweep's candidate is; it returns the function
// that summarises the candidate's run (measured).
func CandidateSummary(ctx context.Context, cfg *sim.Config, i, requests int) (summarize func() Measurement, err error) {
	c, _, err := classConfig(cfg, i, requests)
	if err != nil {
		return nil, err
	}
	pol := c.Classes[0].Policy
	none := pol
	sim.NoHedging(&none)
	rc := *c
	rc.Pair = &sim.Pair{Record: true}
	base, err := runPolicy(ctx, &rc, none)
	if err != nil {
		return nil, err
	}
	res, err := runPolicy(ctx, pairedWith(c, base.Met), pol)
	if err != nil {
		return nil, err
	}
	if !res.Classes[0].Batched() {
		return nil, errors.New("the candidate's requests do not interact (not batched)")
	}
	return func() Measurement { return measured("", res, c, 0, 0.95, 0) }, nil
}
