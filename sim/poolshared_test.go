package sim

import (
	"strings"
	"testing"
)

// TestPoolLineSharedPlural: the pool line counts one copy or retry that
// shared a replica in the singular, more in the plural.
func TestPoolLineSharedPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{1, ", 1 copy or retry shared a replica with its request's other attempts"},
		{2, ", 2 copies or retries shared a replica with their request's other attempts"},
	} {
		var b strings.Builder
		writePools(&b, []PoolResult{{Provider: "p", Balancer: "p2c", Shared: c.n}})
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%d shared: %q; want %q", c.n, b.String(), c.want)
		}
	}
}
