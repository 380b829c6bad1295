//go:build !unix

package scenario

import "time"

var start = time.Now()

// cpuTime returns the wall time since the tests started, where the
// process's CPU time is not at hand.
func cpuTime() time.Duration { return time.Since(start) }
