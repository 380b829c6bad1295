package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/hedgesim/hedgesim/sim"
)

// parseMinReplicas parses the values of --min-replicas, keep-warm floors
// for cfg's autoscaled pools, in the order given without repeats. A
// scenario without an autoscaled pool, a value that is not an integer,
// a negative one or one above a pool's max_replicas is a usage error
// naming the flag.
func parseMinReplicas(values []string, cfg *sim.Config) ([]int, error) {
	bad := func(format string, a ...any) error {
		return usageError{err: fmt.Errorf("--min-replicas: "+format, a...)}
	}
	var pools []sim.Provider
	for _, p := range cfg.Providers {
		if p.Pool != nil && p.Pool.Autoscale != nil {
			pools = append(pools, p)
		}
	}
	if len(pools) == 0 {
		return nil, usageError{err: errors.New("--min-replicas: the scenario has no autoscaled pool ([providers.NAME.pool.autoscale]) for a keep-warm floor")}
	}
	var out []int
	for _, x := range values {
		m, err := strconv.Atoi(x)
		switch {
		case err != nil:
			return nil, bad("%q is not an integer; want a comma-separated list of integers ≥ 0 such as 0,1,2", x)
		case m < 0:
			return nil, bad("%d is negative; want an integer ≥ 0", m)
		}
		for _, p := range pools {
			if m > p.Pool.Replicas {
				return nil, bad("%d is above pool %s's max_replicas %d; want at most %d", m, p.Name, p.Pool.Replicas, p.Pool.Replicas)
			}
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out, nil
}
