package optimize

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// Adaptive percentile delays as a candidate family: beside the fixed
// delays, Search.Adaptive lists percentiles, and every class whose
// configured policy hedges gets, per percentile, a candidate "adaptive
// pNN" — the class's configured policy (its copies, targets, budgets)
// with its gaps replaced by a delay that tracks that percentile of
// recent latencies (sim.Adaptive, as Finagle's backup-request filter
// does). Such a candidate is simulated like the configured one: off the
// independent lane, alone, on the class's seed. It joins the frontier,
// the trade-off walk and the verdict like any other.

// AdaptiveDefaults are the settings of an adaptive candidate of a class
// whose policy has no adaptive delay: the scenario file's defaults of
// [classes.hedge.adaptive] (window 1000 samples, warm_up 100 samples, no
// min or max clamp, source primaries), as retune's DefaultAdaptive
// has. A class with an adaptive delay of its own keeps its window,
// warm-up, clamps and source, and only the percentile changes.
var AdaptiveDefaults = sim.Adaptive{Window: 1000, WarmUp: 100, Source: sim.FromPrimaries}

// MaxAdaptive is the most adaptive percentiles one search tries.
const MaxAdaptive = 16

// AdaptiveDelay is, in a report, the adaptive delay of an adaptive
// candidate (absent from every other): the percentile in (0, 1) of the
// last Window latencies (or of WindowTimeSeconds of them, when > 0) from
// Source ("primaries", "attempts" or "requests"), after WarmUp samples,
// clamped to [MinSeconds, MaxSeconds] (MaxSeconds 0: no upper clamp).
// The JSON names are export's, so that `hedgesim export` reads it.
type AdaptiveDelay struct {
	Percentile        float64 `json:"percentile"`
	Window            int     `json:"window"`
	WindowTimeSeconds float64 `json:"window_time_s"`
	WarmUp            int     `json:"warm_up"`
	MinSeconds        float64 `json:"min_s"`
	MaxSeconds        float64 `json:"max_s"`
	Source            string  `json:"source"`
}

// ParseAdaptive parses a comma-separated list of percentiles, each a
// number in (0, 100) ("90,95,99"), into fractions in (0, 1), sorted. An
// empty list, an element that is not a number, one out of range or one
// listed twice ("95,p95") is an error naming it.
func ParseAdaptive(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty list; want percentiles in (0, 100), such as 90,95,99")
	}
	var out []float64
	for i, x := range strings.Split(s, ",") {
		x = strings.TrimSpace(x)
		v, err := strconv.ParseFloat(strings.TrimPrefix(x, "p"), 64)
		switch {
		case x == "":
			return nil, fmt.Errorf("element %d is empty; want percentiles in (0, 100), such as 90,95,99", i+1)
		case err != nil:
			return nil, fmt.Errorf("%q is not a number; want a percentile in (0, 100), such as 95", x)
		case !(v > 0 && v < 100):
			return nil, fmt.Errorf("%s is out of range; want a percentile in (0, 100), such as 95", x)
		}
		out = append(out, v/100)
	}
	out = slices.Sorted(slices.Values(out))
	for i := 1; i < len(out); i++ {
		if out[i] == out[i-1] {
			// Likely a slip for another percentile: a repeat would only
			// repeat a candidate.
			return nil, fmt.Errorf("p%s is listed twice; list each percentile once", fnum(100*out[i]))
		}
	}
	if len(out) > MaxAdaptive {
		return nil, fmt.Errorf("%d percentiles; at most %d", len(out), MaxAdaptive)
	}
	return out, nil
}

// validateAdaptive checks Search.Adaptive: at most MaxAdaptive
// percentiles, each a fraction in (0, 1).
func validateAdaptive(ps []float64) error {
	if len(ps) > MaxAdaptive {
		return fmt.Errorf("%d adaptive percentiles: at most %d", len(ps), MaxAdaptive)
	}
	for _, p := range ps {
		if !(p > 0 && p < 1) {
			return fmt.Errorf("adaptive percentile %g: must be a fraction in (0, 1), such as 0.95", p)
		}
	}
	return nil
}

// adaptiveCandidates returns the adaptive candidates of the one-class
// config c for the percentiles ps (fractions): none when the class's
// configured policy does not hedge, and none for a percentile its own
// adaptive delay already has (the configured candidate is that policy).
func adaptiveCandidates(c *sim.Config, ps []float64) []Candidate {
	base := c.Classes[0].Policy
	if len(ps) == 0 || base.Copies == 0 {
		return nil
	}
	names := make([]string, 0, len(base.Targets))
	for _, m := range base.Targets {
		names = append(names, c.Models[m].Name)
	}
	if len(names) == 0 {
		names = append(names, c.Models[base.Primary].Name)
	}
	var out []Candidate
	for _, p := range ps {
		a := AdaptiveDefaults
		if base.Adaptive != nil {
			if base.Adaptive.Percentile == p {
				continue
			}
			a = *base.Adaptive
		}
		a.Percentile = p
		d := startDelay(&base)
		out = append(out, Candidate{
			Label: adaptiveLabel(p), Hedging: true, Delay: d, DelaySeconds: seconds(d),
			Copies: base.Copies, Target: strings.Join(names, ","),
			Adaptive: &AdaptiveDelay{
				Percentile: p, Window: a.Window, WindowTimeSeconds: seconds(a.WindowTime), WarmUp: a.WarmUp,
				MinSeconds: seconds(a.Min), MaxSeconds: seconds(a.Max), Source: a.Source.String(),
			},
			adaptive: &a,
		})
	}
	return out
}

// startDelay is the first gap of an adaptive candidate's policy: the
// class's first positive delay, else 1s. An adaptive delay replaces every
// positive gap, so its value is not simulated; it must only be positive.
func startDelay(p *sim.Policy) time.Duration {
	if len(p.Delays) > 0 && p.Delays[0] > 0 {
		return p.Delays[0]
	}
	return time.Second
}

// adaptivePolicy is Candidate.Policy for an adaptive candidate c: base
// with c's copies, one positive gap and c's adaptive delay.
func adaptivePolicy(c *Candidate, base sim.Policy) sim.Policy {
	pol := base
	pol.Copies = c.Copies
	if len(pol.Delays) == 0 || pol.Delays[0] <= 0 {
		pol.Delays = []time.Duration{c.Delay}
	}
	a := *c.adaptive
	pol.Adaptive = &a
	return pol
}

// adaptiveLabel is the label of the adaptive candidate of percentile p
// (a fraction): "adaptive p95", "adaptive p99.9".
func adaptiveLabel(p float64) string {
	return "adaptive p" + strconv.FormatFloat(math.Round(p*1e6)/1e4, 'g', -1, 64)
}

// describeAdaptive says what an adaptive candidate does.
func describeAdaptive(c *Candidate) string {
	a := c.Adaptive
	window := fmt.Sprintf("last %d latencies", a.Window)
	if a.WindowTimeSeconds > 0 {
		window = "latencies of the last " + fdelay(time.Duration(a.WindowTimeSeconds*1e9))
	}
	return fmt.Sprintf("up to %d cop%s to %s at the p%s of the %s of %s (after a warm-up of %d)",
		c.Copies, plural(c.Copies, "y", "ies"), c.Target, strings.TrimPrefix(c.Label, "adaptive p"), window, a.Source, a.WarmUp)
}
