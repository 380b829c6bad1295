package main

import (
	"syscall"
)

// systemLimits returns the limits on the memory this process may still
// take (see memlimit.go): MemAvailable, RLIMIT_AS less VmSize, RLIMIT_DATA
// less VmData, and the cgroup's limit less its use — those that are set.
func systemLimits() []memLimit {
	var ls []memLimit
	if n, ok := availableMemory(); ok {
		ls = append(ls, memLimit{n, "the memory available (MemAvailable)"})
	}
	for _, r := range []struct {
		res   int
		field string
		name  string
	}{
		{syscall.RLIMIT_AS, "VmSize", "what the address-space limit RLIMIT_AS (ulimit -v) leaves"},
		{syscall.RLIMIT_DATA, "VmData", "what the data-segment limit RLIMIT_DATA (ulimit -d) leaves"},
	} {
		var lim syscall.Rlimit
		// No limit is RLIM_INFINITY, 2^64 − 1.
		if err := syscall.Getrlimit(r.res, &lim); err != nil || lim.Cur >= 1<<62 {
			continue
		}
		used, _ := procStatusBytes("/", r.field)
		ls = append(ls, memLimit{int64(lim.Cur) - used, r.name})
	}
	if l, ok := cgroupLimit("/"); ok {
		l.Name = "what " + l.Name + " leaves"
		ls = append(ls, l)
	}
	return ls
}
