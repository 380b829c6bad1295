package main

import (
	"errors"
	"flag"
	"slices"

	"github.com/hedgesim/hedgesim/optimize"
)

// adaptiveFlag is optimize's --adaptive: percentiles of adaptive delays
// to try as candidates beside the fixed delays (optimize.Search.Adaptive).
type adaptiveFlag struct {
	v   []float64 // fractions in (0, 1)
	raw string
	set bool
}

func (f *adaptiveFlag) String() string { return f.raw }
func (*adaptiveFlag) checksRepeats()   {} // refuses a second list itself

// Set parses a comma-separated list of percentiles in (0, 100), and
// refuses a second list other than the first (givenTwice; the same
// percentiles in the same order, 95 and 95.0, change nothing); the flag
// package names the flag in the error, a usage error (exit 2).
func (f *adaptiveFlag) Set(s string) error {
	v, err := optimize.ParseAdaptive(s)
	if f.set {
		if err == nil && slices.Equal(v, f.v) {
			return nil
		}
		return givenTwice(f.raw, s)
	}
	if err != nil {
		return err
	}
	f.v, f.raw, f.set = v, s, true
	return nil
}

func addAdaptiveFlag(fs *flag.FlagSet) *adaptiveFlag {
	f := &adaptiveFlag{}
	fs.Var(f, "adaptive", "also try, for every class that hedges, an adaptive delay at each of these percentiles of recent latencies, comma-separated `list` in (0, 100) such as 90,95,99 (candidates \"adaptive p95\"…; window, warm-up and source: the class's adaptive table, else 1000 samples, 100, primaries)")
	return f
}

// check refuses --adaptive with the flags that cannot carry its picks:
// --write-scenario writes fixed delays only, and a shard's part records
// no adaptive candidates for hedgesim merge.
func (f *adaptiveFlag) check(writeScenario, shard string) error {
	switch {
	case !f.set:
		return nil
	case writeScenario != "":
		return usageError{err: errors.New("--adaptive cannot go with --write-scenario: the scenario writer writes fixed delays, not an adaptive pick; export the report instead (hedgesim export --format json, or failsafe-go --approximate)")}
	case shard != "":
		return usageError{err: errors.New("--adaptive cannot go with --shard: a shard's part does not carry the adaptive candidates to hedgesim merge")}
	}
	return nil
}

// apply sets the adaptive percentiles of se when the flag is given.
func (f *adaptiveFlag) apply(se *optimize.Search) {
	if f.set {
		se.Adaptive = f.v
	}
}
