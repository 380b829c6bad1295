package main

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// The default memory limit of run and optimize is the smallest of what
// the system lets this process have: the memory available (MemAvailable),
// what the address-space and data-segment limits (RLIMIT_AS, RLIMIT_DATA:
// ulimit -v, ulimit -d) leave beyond what the process already maps, and
// what its cgroup's limit leaves beyond the group's use (cgroup v2
// memory.max − memory.current, v1 memory.limit_in_bytes −
// memory.usage_in_bytes, the tightest of the group and its parents) — so
// that in a container or a Kubernetes pod the pod's limit applies, not
// the node's memory. Each is a memLimit, named for the refusal message;
// systemLimits (memlimit_linux.go, memlimit_other.go) gathers them.

// memLimit is one limit on the memory this process may still take:
// Bytes of headroom, and Name, what the refusal calls it.
type memLimit struct {
	Bytes int64
	Name  string
}

// smallestLimit returns the tightest of ls; false when ls is empty.
func smallestLimit(ls []memLimit) (memLimit, bool) {
	if len(ls) == 0 {
		return memLimit{}, false
	}
	best := ls[0]
	for _, l := range ls[1:] {
		if l.Bytes < best.Bytes {
			best = l
		}
	}
	return best, true
}

// unlimitedCgroup is the smallest limit a cgroup v1 file reports that
// means none: the kernel writes "no limit" as the largest multiple of the
// page size below 2^63.
const unlimitedCgroup = 1 << 62

// cgroupLimit returns what the memory cgroup of this process leaves, with
// the file system rooted at root ("/" for the real one; a test's fixture
// tree otherwise): from /proc/self/cgroup it finds the process's group in
// the v2 hierarchy (mounted at /sys/fs/cgroup, or /sys/fs/cgroup/unified
// beside v1) and in the v1 memory hierarchy (/sys/fs/cgroup/memory), and
// returns the least limit − use over the group and its parents up to the
// mount, or the mount's own files when the group's directory is not there
// (a container that sees its own group as the root). False when no group
// has a limit.
func cgroupLimit(root string) (memLimit, bool) {
	data, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return memLimit{}, false
	}
	var ls []memLimit
	for _, line := range strings.Split(string(data), "\n") {
		// hierarchy-ID:controller-list:path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			for _, mount := range []string{"sys/fs/cgroup", "sys/fs/cgroup/unified"} {
				if l, ok := cgroupWalk(filepath.Join(root, mount), parts[2], "memory.max", "memory.current", "the cgroup's memory.max"); ok {
					ls = append(ls, l)
				}
			}
		case hasController(parts[1], "memory"):
			if l, ok := cgroupWalk(filepath.Join(root, "sys/fs/cgroup/memory"), parts[2], "memory.limit_in_bytes", "memory.usage_in_bytes", "the cgroup's memory.limit_in_bytes"); ok {
				ls = append(ls, l)
			}
		}
	}
	return smallestLimit(ls)
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// cgroupWalk returns the least limit − use, with limitFile and useFile,
// over the group at path under mount and its parents up to mount (or
// mount alone when the group's directory is missing); false when none of
// them has a limit.
func cgroupWalk(mount, path, limitFile, useFile, name string) (memLimit, bool) {
	dir := filepath.Join(mount, filepath.Clean("/"+path))
	if _, err := os.Stat(dir); err != nil {
		dir = mount
	}
	var ls []memLimit
	for {
		if lim, ok := readCgroupValue(filepath.Join(dir, limitFile)); ok {
			use, _ := readCgroupValue(filepath.Join(dir, useFile))
			ls = append(ls, memLimit{Bytes: lim - use, Name: name})
		}
		if dir == mount || len(dir) <= len(mount) {
			break
		}
		dir = filepath.Dir(dir)
	}
	return smallestLimit(ls)
}

// readCgroupValue reads a cgroup file holding one number of bytes; false
// when the file is missing or holds "max" or v1's no-limit value.
func readCgroupValue(file string) (int64, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(data))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n >= unlimitedCgroup {
		return 0, false // "max", or no limit
	}
	return n, true
}

// procStatusBytes returns the field (such as "VmSize") of
// /proc/self/status under root, in bytes; false when it is not there.
func procStatusBytes(root, field string) (int64, bool) {
	f, err := os.Open(filepath.Join(root, "proc/self/status"))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}

// setSoftLimit lowers the Go runtime's soft memory limit
// (debug.SetMemoryLimit) to what the process uses now plus the headroom
// l leaves, so that the collector works harder before the limit is hit
// instead of the process dying at it; a limit already lower is kept.
func setSoftLimit(l memLimit) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	soft := int64(ms.Sys-ms.HeapReleased) + max(l.Bytes, 0)
	if soft > 0 && soft < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(soft)
	}
}
