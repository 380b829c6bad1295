package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// writeTree writes files (path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCgroupLimit: the cgroup's limit less its use is read from fixture
// trees laid out as Linux shows them — cgroup v2 alone (a Kubernetes pod's
// container, its pod's limit the tighter), v2 seen from inside a cgroup
// namespace, v1's memory hierarchy beside v2's unified one — the tightest
// of the group and its parents, and none where every level says "max" or
// v1's no-limit value.
func TestCgroupLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  int64 // 0: no limit
		file  string
	}{
		{"v2 pod", map[string]string{
			"proc/self/cgroup":                               "0::/kubepods/pod1/ctr\n",
			"sys/fs/cgroup/kubepods/pod1/ctr/memory.max":     "max\n",
			"sys/fs/cgroup/kubepods/pod1/ctr/memory.current": "100\n",
			"sys/fs/cgroup/kubepods/pod1/memory.max":         "1000000000\n",
			"sys/fs/cgroup/kubepods/pod1/memory.current":     "300000000\n",
			"sys/fs/cgroup/kubepods/memory.max":              "max\n",
		}, 700_000_000, "memory.max"},
		{"v2 container tighter than pod", map[string]string{
			"proc/self/cgroup":                               "0::/kubepods/pod1/ctr\n",
			"sys/fs/cgroup/kubepods/pod1/ctr/memory.max":     "400000000\n",
			"sys/fs/cgroup/kubepods/pod1/ctr/memory.current": "100000000\n",
			"sys/fs/cgroup/kubepods/pod1/memory.max":         "1000000000\n",
			"sys/fs/cgroup/kubepods/pod1/memory.current":     "300000000\n",
		}, 300_000_000, "memory.max"},
		{"v2 namespace", map[string]string{
			"proc/self/cgroup":             "0::/\n",
			"sys/fs/cgroup/memory.max":     "2147483648\n",
			"sys/fs/cgroup/memory.current": "147483648\n",
		}, 2_000_000_000, "memory.max"},
		{"v2 group not mounted here", map[string]string{
			"proc/self/cgroup":             "0::/system.slice/job.scope\n",
			"sys/fs/cgroup/memory.max":     "500000000\n",
			"sys/fs/cgroup/memory.current": "0\n",
		}, 500_000_000, "memory.max"},
		{"v2 unlimited", map[string]string{
			"proc/self/cgroup":                    "0::/user.slice\n",
			"sys/fs/cgroup/user.slice/memory.max": "max\n",
			"sys/fs/cgroup/memory.current":        "5\n",
		}, 0, ""},
		{"v1 beside unified", map[string]string{
			"proc/self/cgroup": "12:pids:/docker/abc\n4:memory:/docker/abc\n0::/\n",
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "536870912\n",
			"sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes": "36870912\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":            "9223372036854771712\n",
			"sys/fs/cgroup/unified/cgroup.procs":                    "1\n",
		}, 500_000_000, "memory.limit_in_bytes"},
		{"v1 with other controllers", map[string]string{
			"proc/self/cgroup": "4:cpu,memory:/x\n",
			"sys/fs/cgroup/memory/x/memory.limit_in_bytes": "1000\n",
			"sys/fs/cgroup/memory/x/memory.usage_in_bytes": "10\n",
		}, 990, "memory.limit_in_bytes"},
		{"v1 unlimited", map[string]string{
			"proc/self/cgroup":                           "4:memory:/process_api/e7\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.usage_in_bytes": "2643300352\n",
		}, 0, ""},
		{"v1 and v2 limits: the tighter", map[string]string{
			"proc/self/cgroup": "4:memory:/a\n0::/b\n",
			"sys/fs/cgroup/memory/a/memory.limit_in_bytes": "800\n",
			"sys/fs/cgroup/memory/a/memory.usage_in_bytes": "0\n",
			"sys/fs/cgroup/unified/b/memory.max":           "600\n",
			"sys/fs/cgroup/unified/b/memory.current":       "100\n",
		}, 500, "memory.max"},
		{"no /proc", map[string]string{"sys/fs/cgroup/memory.max": "100\n"}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tc.files)
			l, ok := cgroupLimit(root)
			if tc.want == 0 {
				if ok {
					t.Errorf("limit %+v; want none", l)
				}
				return
			}
			if !ok || l.Bytes != tc.want || !strings.Contains(l.Name, tc.file) {
				t.Errorf("limit %+v (found %v); want %d bytes from %s", l, ok, tc.want, tc.file)
			}
		})
	}
}

// TestMemoryLimitNamesTheTightest: without --max-memory the check uses
// the smallest of the system's limits and names it in the refusal; work
// within it runs and sets the runtime's soft limit to at most what the
// process uses plus that headroom; --max-memory replaces the system's
// limits.
func TestMemoryLimitNamesTheTightest(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	limits := func() []memLimit {
		return []memLimit{{8e9, "the memory available (MemAvailable)"}, {1e9, "what the cgroup's memory.max leaves"}, {3e9, "what the address-space limit RLIMIT_AS (ulimit -v) leaves"}}
	}
	err := checkMemoryWith(2e9, byteSize{}, "simulating", "--requests", limits)
	if err == nil || !strings.Contains(err.Error(), "needs about 2.0 GB of memory, more than what the cgroup's memory.max leaves (1.0 GB)") {
		t.Errorf("2 GB against a 1 GB cgroup limit: %v", err)
	}
	if err := checkMemoryWith(5e8, byteSize{}, "simulating", "--requests", limits); err != nil {
		t.Errorf("0.5 GB within 1 GB: %v", err)
	}
	if soft := debug.SetMemoryLimit(-1); soft > 4e9 {
		t.Errorf("soft memory limit %d after a check with 1 GB of headroom; want what is in use plus 1 GB", soft)
	}
	if err := checkMemoryWith(2e9, byteSize{v: 4e9, set: true}, "simulating", "--requests", limits); err != nil {
		t.Errorf("--max-memory 4GB: %v", err)
	}
	if err := checkMemoryWith(2e9, byteSize{}, "simulating", "--requests", func() []memLimit { return nil }); err != nil {
		t.Errorf("no limit known: %v", err)
	}
}
