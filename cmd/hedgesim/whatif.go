package main

import (
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/hedgesim/hedgesim/scenario"
)

// whatIfFlags are the what-if overrides of run and optimize.
type whatIfFlags struct {
	set   setFlag
	scale scaleFlag
}

// scaleFlag is a factor > 0 that remembers whether it was set.
type scaleFlag struct{ floatFlag }

func (f *scaleFlag) Set(s string) error {
	if err := f.floatFlag.Set(s); err != nil {
		return err
	}
	if !(f.v > 0) || math.IsInf(f.v, 1) {
		return fmt.Errorf("%s: want a finite factor > 0, such as 2 for twice today's traffic", s)
	}
	return nil
}

// setFlag collects repeated --set KEY=VALUE arguments.
type setFlag []string

func (f *setFlag) String() string     { return strings.Join(*f, " ") }
func (f *setFlag) Set(s string) error { *f = append(*f, s); return nil }
func (*setFlag) checksRepeats()       {}

// addWhatIfFlags registers --set and --scale-rate on fs.
func addWhatIfFlags(fs *flag.FlagSet) *whatIfFlags {
	w := &whatIfFlags{}
	fs.Var(&w.set, "set", "what-if override `KEY=VALUE` on top of the scenario, repeatable; KEY as errors print it, e.g. arrivals.rate=40, classes[1].hedge.delay=800ms, models.b.rate_limit.requests_per_minute=600 (validated like the file; listed in the report)")
	fs.Var(&w.scale, "scale-rate", "what if traffic were `F` times today's: multiplies the arrival rate (a replayed trace plays F times faster); an error when there is none (closed-loop classes only)")
	return w
}

// options returns the scenario options the flags ask for (nil: none).
func (w *whatIfFlags) options() *scenario.Options {
	if w == nil || len(w.set) == 0 && !w.scale.set {
		return nil
	}
	return &scenario.Options{Set: w.set, RateScale: w.scale.v}
}
