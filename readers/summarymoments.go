package readers

import "math"

// momentTol is the relative slack in checkMoments: a mean computed in
// floating point from values all equal to the max can exceed it by a few
// units in the last place, about 1e-16 relatively; 1e-9 of the value is
// far above that and far below any inconsistency worth reporting.
const momentTol = 1e-9

// checkMoments returns an *InputError when the published min, mean and
// max of metric name (fields results_<name>_min/_mean/_max, each optional)
// contradict each other: a min above the max, or a mean outside
// [min, max] (beyond a relative momentTol). Such a summary cannot come
// from one run's requests, as a decreasing percentile cannot. The error is
// on the mean's line (the max's for a min above the max) and names both
// values.
func checkMoments(file string, fields map[string]jsonField, name string, m SummaryMetric) error {
	key := func(s string) string { return "results_" + name + "_" + s }
	above := func(a, b float64) bool { // a > b beyond rounding
		return !math.IsNaN(a) && !math.IsNaN(b) && a-b > momentTol*math.Max(math.Abs(a), math.Abs(b))
	}
	switch {
	case above(m.Min, m.Max):
		k := key("max")
		return inputErr(file, fields[k].line, k, "%g is below %s (%g); the summary is inconsistent: the max cannot be below the min", m.Max, key("min"), m.Min)
	case above(m.Mean, m.Max):
		k := key("mean")
		return inputErr(file, fields[k].line, k, "%g is above %s (%g); the summary is inconsistent: a mean cannot exceed the largest value", m.Mean, key("max"), m.Max)
	case above(m.Min, m.Mean):
		k := key("mean")
		return inputErr(file, fields[k].line, k, "%g is below %s (%g); the summary is inconsistent: a mean cannot be below the smallest value", m.Mean, key("min"), m.Min)
	}
	return nil
}
