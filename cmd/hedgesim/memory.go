package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// byteSize is the --max-memory flag: a number of bytes with an optional
// unit (B, KB, MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers
// of 1024), such as 8GiB or 500MB.
type byteSize struct {
	v   int64
	set bool
}

func (b *byteSize) String() string {
	if !b.set {
		return ""
	}
	return formatBytes(b.v)
}

// valueKey is the size in bytes, exactly (String rounds it).
func (b *byteSize) valueKey() string { return strconv.FormatInt(b.v, 10) }

func (b *byteSize) Set(s string) error {
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	num, mult := strings.TrimSpace(s), 1.0
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	x, err := strconv.ParseFloat(num, 64)
	switch {
	case err != nil || math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("%q is not a size: want a number and a unit B, KB (kB), MB, GB, TB, KiB, MiB, GiB or TiB, such as 8GiB or 500MB", s)
	case x*mult < 1 || x*mult > 1<<62:
		return fmt.Errorf("%q is out of range: want at least 1 byte and at most 4 EiB", s)
	}
	b.v, b.set = int64(x*mult), true
	return nil
}

// formatBytes writes n in the largest of GB, MB and KB (powers of 1000)
// that it reaches, to one decimal, or in whole bytes below 1 KB ("1 B",
// "500.0 KB", "533.6 MB"), so that no size reads 0.0.
func formatBytes(n int64) string {
	for _, u := range []struct {
		name string
		size float64
	}{{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		// From 999.95 of a unit, one decimal would read 1000.0 of it.
		if float64(n) >= 0.99995*u.size {
			return fmt.Sprintf("%.1f %s", float64(n)/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// availableMemory returns the memory the system can give without swapping
// (MemAvailable of /proc/meminfo), or false where that is unknown.
func availableMemory() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}

// checkMemory refuses, as a usage error, work estimated to need more than
// --max-memory or, without it, more than the tightest of the system's
// limits (systemLimits: the memory available, the rlimits, the cgroup's
// limit), naming the limit that applied: what says what would be run,
// lower which flags lower the need. Without --max-memory, work within the
// limit sets the runtime's soft memory limit from it (setSoftLimit).
func checkMemory(need int64, limit byteSize, what, lower string) error {
	return checkMemoryWith(need, limit, what, lower, systemLimits)
}

// checkMemoryWith is checkMemory with the system's limits from limits.
func checkMemoryWith(need int64, limit byteSize, what, lower string, limits func() []memLimit) error {
	budget, source := limit.v, "--max-memory"
	if !limit.set {
		l, ok := smallestLimit(limits())
		if !ok {
			return nil
		}
		budget, source = l.Bytes, l.Name
		if need <= budget {
			setSoftLimit(l)
		}
	}
	if need <= budget {
		return nil
	}
	needText, budgetText := formatBytes(need), formatBytes(budget)
	if needText == budgetText { // close: show them apart
		needText, budgetText = fmt.Sprintf("%d bytes", need), fmt.Sprintf("%d bytes", budget)
	}
	return usageError{err: fmt.Errorf("%s needs about %s of memory, more than %s (%s); lower %s, or set --max-memory if more can be had",
		what, needText, source, budgetText, lower)}
}
