package fit

import (
	"fmt"
	"math"

	"github.com/hedgesim/hedgesim/readers"
)

// AllAboveTop returns an error when every observation of h lies in its
// open last bucket (B, +Inf]: the counts say only that every latency
// exceeds B, which bounds no percentile and leaves any model's location
// and spread to its starting values. The error names the count and B, and
// asks for buckets above B; it is nil otherwise. FitHistogram returns it
// unless Options.OpenTop is set.
func AllAboveTop(h *readers.Histogram) error {
	last := len(h.Counts) - 1
	if last < 0 || !math.IsInf(h.Upper[last], 1) || h.Counts[last] <= 0 {
		return nil
	}
	for _, c := range h.Counts[:last] {
		if c > 0 {
			return nil
		}
	}
	return fmt.Errorf("the histogram places every one of its %g observations above its top bound %g s, in the open bucket (%g, +Inf]: it says only that every latency exceeds %g s, which no model can be fitted to; export buckets above %g s",
		h.Counts[last], h.Lower[last], h.Lower[last], h.Lower[last], h.Lower[last])
}
