package optimize

import (
	"fmt"
	"slices"

	"github.com/hedgesim/hedgesim/sim"
)

// ShareLoopDraws sets whether simulateCandidates runs candidates off the
// lane in batches that share their draws (the default) or each alone,
// and returns the function that restores the default.
func ShareLoopDraws(share bool) (restore func()) {
	loopAlone = !share
	return func() { loopAlone = false }
}

// ShareSameClasses sets whether balancerSweeps takes the measurements of
// a class that is another under other names (the default) or simulates
// every class, and returns the function that restores the default.
func ShareSameClasses(share bool) (restore func()) {
	shareNoClasses = !share
	return func() { shareNoClasses = false }
}

// SameClasses returns, per balancer of s.Balancers, the classes its sweep
// of cfg simulates, and each class it takes from another instead, as
// "class<-k:other" (k −1: the sweep as configured).
func SameClasses(cfg *sim.Config, s Settings) (first [][]string, taken [][]string) {
	n := len(s.Balancers)
	cfgs := make([]*sim.Config, n)
	only := make([][]string, n)
	for k, b := range s.Balancers {
		cfgs[k] = withBalancer(cfg, b)
		only[k] = changedUnder(cfgs[k], cfg, &s)
	}
	first, from := sameClasses(cfg, cfgs, only, &s)
	taken = make([][]string, n)
	for k := range from {
		for name, src := range from[k] {
			taken[k] = append(taken[k], fmt.Sprintf("%s<-%d:%s", name, src.k, src.class))
		}
		slices.Sort(taken[k])
	}
	return first, taken
}

// SetKeptBytes sets the bound on a Growth's kept runs (keptBytes) and
// returns the one before.
func SetKeptBytes(n int64) int64 {
	old := keptBytes
	keptBytes = n
	return old
}
