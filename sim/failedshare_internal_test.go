package sim

import "testing"

// TestKeptSharesFailedCounted: 3 requests, 1 degraded and 2 timed out,
// none failed: the failed share is exactly 0, counted, where 1 less the
// three shares' floats is 1.1e-16 (run --json wrote failed_share
// 4.97e-17 for a pipeline with no failed turn).
func TestKeptSharesFailedCounted(t *testing.T) {
	s := make(pipeSections, 4*numSections)
	s[0], s[2], s[3] = 3, 1, 2 // section 0: requests, degraded, timed out
	n, sh, _ := s.keptShares(0)
	if n != 3 || sh[3] != 0 {
		t.Errorf("n %d, failed share %g; want 3, exactly 0", n, sh[3])
	}
	s[0] = 4 // one more request, neither checked, degraded nor timed out
	if _, sh, _ = s.keptShares(0); sh[3] != 0.25 {
		t.Errorf("failed share %g; want 0.25", sh[3])
	}
}
