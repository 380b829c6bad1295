package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxMemoryRefuses: run and optimize refuse, before simulating, work
// estimated to need more than --max-memory, with exit status 2, the
// estimate and the flags that lower it; within the limit they run.
func TestMaxMemoryRefuses(t *testing.T) {
	for _, c := range []struct {
		args  []string
		wants []string
	}{
		{[]string{"run", "--requests", "5e7", "--max-memory", "500MB", "guard-check"},
			[]string{"simulating 50000000 requests", "about 533.6 MB", "more than --max-memory (500.0 MB)", "lower --requests"}},
		{[]string{"optimize", "--requests", "1e7", "--workers", "2", "--max-memory", "100MB", "guard-check"},
			[]string{"10000000 requests per candidate", "about 233.6 MB", "more than --max-memory (100.0 MB)", "--workers"}},
	} {
		code, out, errOut := hedgesim(t, c.args...)
		if code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want 2 and nothing", c.args, code, out)
		}
		for _, w := range c.wants {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, errOut)
			}
		}
	}
	if code, _, errOut := hedgesim(t, "run", "--requests", "1000", "--max-memory", "100MB", "guard-check"); code != 0 {
		t.Errorf("a small run within --max-memory: exit %d: %s", code, errOut)
	}
	for bad, why := range map[string]string{"1x": "is not a size", "GiB": "is not a size", "-5GB": "is out of range", "0": "is out of range", "0.5B": "is out of range"} {
		if code, _, errOut := hedgesim(t, "run", "--max-memory", bad, "guard-check"); code != 2 || !strings.Contains(errOut, why) {
			t.Errorf("--max-memory %s: exit %d, %s; want %q", bad, code, errOut, why)
		}
	}
}

func TestByteSizeUnits(t *testing.T) {
	for in, want := range map[string]int64{"500MB": 500e6, "8GiB": 8 << 30, "1.5 KiB": 1536, "42": 42, "3B": 3, "2TB": 2e12, "1kB": 1000} {
		var b byteSize
		if err := b.Set(in); err != nil || b.v != want {
			t.Errorf("%q: %d, %v; want %d", in, b.v, err, want)
		}
	}
}

// TestMaxMemoryCountsClients: every closed-loop client is held for the
// whole run, whatever the number of requests: 50 requests from 2·10⁶
// clients need about 2 × (176 B × 2·10⁶ + 16 MiB) = 737.5 MB (540 MB
// measured), so --max-memory 100MB refuses them.
func TestMaxMemoryCountsClients(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clients.toml")
	src := "requests = 50\n[models.m]\nlatency = { kind = \"constant\", value = 1 }\n[[classes]]\nname = \"w\"\nclients = 2000000\nthink_time = \"1s\"\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := hedgesim(t, "run", "--max-memory", "100MB", path)
	if code != 2 || out != "" {
		t.Errorf("exit %d, stdout %q; want 2 and nothing", code, out)
	}
	for _, w := range []string{"2000000 closed-loop clients", "more than --max-memory (100.0 MB)", "clients"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
}

// TestFormatBytesUnits: sizes read in a unit that fits, in the estimate
// and the limit alike, never "0.0 MB". Regression: --max-memory 1B and
// 0.5KB were shown as (0.0 MB).
func TestFormatBytesUnits(t *testing.T) {
	for n, want := range map[int64]string{
		1: "1 B", 500: "500 B", 999: "999 B", 1000: "1.0 KB", 1500: "1.5 KB", 999_949: "999.9 KB",
		999_950: "1.0 MB", 533_600_000: "533.6 MB", 999_950_000: "1.0 GB", 8_589_934_592: "8.6 GB",
	} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
	for flag, want := range map[string]string{"1B": "(1 B)", "0.5KB": "(500 B)", "2KiB": "(2.0 KB)"} {
		code, _, errOut := hedgesim(t, "run", "--max-memory", flag, "guard-check")
		if code != 2 || !strings.Contains(errOut, "more than --max-memory "+want) || !strings.Contains(errOut, " MB of memory") {
			t.Errorf("--max-memory %s: exit %d, %q; want 2 and %s", flag, code, errOut, want)
		}
	}
}
