//go:build unix

package scenario

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the process has used:
// the fuzz target's time limit counts work done, not waiting for a busy
// machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
