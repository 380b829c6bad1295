//go:build !linux

package main

// systemLimits returns the limits on the memory this process may still
// take: none known outside Linux (no /proc/meminfo, cgroups or the same
// rlimits), so the default check is off.
func systemLimits() []memLimit {
	if n, ok := availableMemory(); ok {
		return []memLimit{{n, "the memory available (MemAvailable)"}}
	}
	return nil
}
