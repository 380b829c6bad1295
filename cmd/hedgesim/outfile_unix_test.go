//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// optimizeQuick is a small optimize command line over guard-check.
var optimizeQuick = []string{"optimize", "--requests", "200", "--check-requests", "0", "--delays", "0s,1s", "--quiet"}

// copyScenario copies the shipped guard-check.toml into dir as name.
func copyScenario(t *testing.T, dir, name string) string {
	t.Helper()
	p, _ := shippedCopy(t, "guard-check.toml", dir, name)
	return p
}

// symlink makes link point to to, as given (relative or absolute).
func symlink(t *testing.T, to, link string) {
	t.Helper()
	if err := os.Symlink(to, link); err != nil {
		t.Fatal(err)
	}
}

// isLink reports whether path is a symbolic link pointing to to.
func isLink(path, to string) bool {
	got, err := os.Readlink(path)
	return err == nil && got == to
}

// TestOutputsWriteThroughSymlinks: every output file named through a
// symbolic link (relative, absolute, a chain, dangling) is written to the
// link's target, and the link stays a link. Regression: the rename of
// the atomic write replaced the link with a regular file and left the
// target unchanged.
func TestOutputsWriteThroughSymlinks(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		old    bool   // the target holds "old\n" before
		to     string // the link's content; relative to dir unless absolute
		target string // the file that must be written, in dir
		args   func(link string) []string
		want   string // the target's content starts so
	}{
		{"run --trace", true, "target.csv", "target.csv",
			func(l string) []string { return []string{"run", "--requests", "5", "--trace", l, "guard-check"} }, "request,class,attempt"},
		{"run --trace, dangling", false, "new.csv", "new.csv",
			func(l string) []string { return []string{"run", "--requests", "5", "--trace", l, "guard-check"} }, "request,class,attempt"},
		{"run --trace, link into another directory", true, "sub/t.csv", "sub/t.csv",
			func(l string) []string { return []string{"run", "--requests", "5", "--trace", l, "guard-check"} }, "request,class,attempt"},
		{"run --trace, absolute link", true, filepath.Join(dir, "abs.csv"), "abs.csv",
			func(l string) []string { return []string{"run", "--requests", "5", "--trace", l, "guard-check"} }, "request,class,attempt"},
		{"optimize --write-scenario", true, "target.toml", "target.toml",
			func(l string) []string { return append(cloneArgs(optimizeQuick), "--write-scenario", l, "guard-check") }, "#:schema ../docs/scenario.schema.json\n# guard-check"},
		{"optimize --shard --out", false, "part.json", "part.json",
			func(l string) []string {
				return append(cloneArgs(optimizeQuick), "--shard", "0/1", "--out", l, "guard-check")
			}, `{"format":"hedgesim optimize part"`},
		{"export --out", true, "target.txt", "target.txt",
			func(l string) []string { return []string{"export", "--format", "json", "--out", l, "guard-check"} }, "{"},
	} {
		target := filepath.Join(dir, tc.target)
		if tc.old {
			if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		link := filepath.Join(dir, strings.NewReplacer(" ", "-", ",", "").Replace(tc.name)+".link")
		symlink(t, tc.to, link)
		code, _, errOut := hedgesim(t, tc.args(link)...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.name, code, errOut)
			continue
		}
		if !isLink(link, tc.to) {
			t.Errorf("%s: %s is no longer a link to %s", tc.name, link, tc.to)
		}
		got, err := os.ReadFile(target)
		if err != nil || !strings.HasPrefix(string(got), tc.want) {
			t.Errorf("%s: the target holds %.60q (%v); want it to start with %q", tc.name, got, err, tc.want)
		}
	}
	// A chain of links is followed to its end.
	symlink(t, "chain2", filepath.Join(dir, "chain1"))
	symlink(t, "sub/chain3", filepath.Join(dir, "chain2"))
	symlink(t, "../end.csv", filepath.Join(sub, "chain3"))
	if code, _, errOut := hedgesim(t, "run", "--requests", "5", "--trace", filepath.Join(dir, "chain1"), "guard-check"); code != 0 {
		t.Fatalf("chain: exit %d: %s", code, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "end.csv")); err != nil || !strings.HasPrefix(string(got), "request,") {
		t.Errorf("chain: end.csv holds %.40q (%v)", got, err)
	}
	for _, l := range []string{"chain1", "chain2", "sub/chain3"} {
		if st, err := os.Lstat(filepath.Join(dir, l)); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("chain: %s is no longer a link", l)
		}
	}
	// A loop of links is bad input.
	symlink(t, "loop2", filepath.Join(dir, "loop1"))
	symlink(t, "loop1", filepath.Join(dir, "loop2"))
	if code, _, errOut := hedgesim(t, "run", "--requests", "5", "--trace", filepath.Join(dir, "loop1"), "guard-check"); code != 2 || !strings.Contains(errOut, "symbolic links") {
		t.Errorf("loop: exit %d, %q; want 2 and symbolic links", code, errOut)
	}
	// No temporary file is left anywhere.
	for _, d := range []string{dir, sub} {
		tmps, _ := filepath.Glob(filepath.Join(d, ".*tmp*"))
		if len(tmps) > 0 {
			t.Errorf("temporary files left: %q", tmps)
		}
	}
}

// cloneArgs returns a copy of s, to append to.
func cloneArgs(s []string) []string { return append([]string(nil), s...) }

// TestOutputsNeverReplaceInputs: an output file that is an input of the
// command (the scenario, directly, through a symbolic link or a hard
// link) is bad input, exit 2, before any work; the input is unchanged.
// Regression: run --trace SCENARIO replaced the scenario with the trace.
func TestOutputsNeverReplaceInputs(t *testing.T) {
	dir := t.TempDir()
	scen := copyScenario(t, dir, "gc.toml")
	want, _ := os.ReadFile(scen)
	symlink(t, "gc.toml", filepath.Join(dir, "link.toml"))
	if err := os.Link(scen, filepath.Join(dir, "hard.toml")); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{scen, filepath.Join(dir, "link.toml"), filepath.Join(dir, "hard.toml"), filepath.Join(dir, ".", "gc.toml")} {
		for _, args := range [][]string{
			{"run", "--requests", "5", "--trace", out, scen},
			append(cloneArgs(optimizeQuick), "--write-scenario", out, scen),
			append(cloneArgs(optimizeQuick), "--shard", "0/1", "--out", out, scen),
			{"export", "--format", "json", "--out", out, scen},
		} {
			code, stdout, errOut := hedgesim(t, args...)
			if code != 2 || !strings.Contains(errOut, "is the input") || !strings.Contains(errOut, "outputs never replace inputs") || stdout != "" {
				t.Errorf("%q: exit %d, %q; want 2 and is the input", args, code, errOut)
			}
			if got, _ := os.ReadFile(scen); !bytes.Equal(got, want) {
				t.Fatalf("%q changed the scenario", args)
			}
		}
	}
	// export's --scenario is an input too.
	rep := filepath.Join(dir, "report.json")
	code, js, errOut := hedgesim(t, append(cloneArgs(optimizeQuick), "--json", scen)...)
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(rep, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"export", "--format", "json", "--scenario", scen, "--out", filepath.Join(dir, "link.toml"), rep},
		{"export", "--format", "json", "--scenario", scen, "--out", rep, rep},
		// Without --scenario, the scenario found beside the report is one.
		{"export", "--format", "json", "--out", scen, rep},
		{"export", "--format", "json", "--out", filepath.Join(dir, "link.toml"), rep},
	} {
		if code, _, errOut := hedgesim(t, args...); code != 2 || !strings.Contains(errOut, "outputs never replace inputs") {
			t.Errorf("%q: exit %d, %q; want 2", args, code, errOut)
		}
	}
	if got, _ := os.ReadFile(rep); string(got) != js {
		t.Error("export replaced its input report")
	}
}

// TestOutputIsStandardOutput: an output file that is the program's own
// standard output redirected to a file (/dev/stdout > out.txt, here a
// link of the test's own to /proc/self/fd/1, which is what /dev/stdout
// is) is bad input, exit 2: renaming onto it would lose the report and
// replace the link. Regression: as root, run --trace /dev/stdout replaced
// the system's /dev/stdout link with a regular file.
func TestOutputIsStandardOutput(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd/1"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "stdout")
	symlink(t, "/proc/self/fd/1", link)
	for _, args := range [][]string{
		{"run", "--requests", "10", "--trace", link, "guard-check"},
		{"export", "--format", "json", "--out", link, "guard-check"},
	} {
		outPath := filepath.Join(dir, "out.txt")
		f, err := os.Create(outPath)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "HEDGESIM_TEST_MAIN=1")
		cmd.Stdout = f
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err = cmd.Run()
		f.Close()
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(stderr.String(), "is standard output") {
			t.Errorf("%q: exit %d (%v), %q; want 2 and is standard output", args, code, err, stderr.String())
		}
		if !isLink(link, "/proc/self/fd/1") {
			t.Fatalf("%q replaced the link", args)
		}
		if got, _ := os.ReadFile(outPath); len(got) > 0 {
			t.Errorf("%q wrote %.60q to standard output", args, got)
		}
	}
}

// TestOutputPathDashAndEmpty: "-" names standard output, which carries
// the report of run, optimize and merge, so it is refused for their
// output files and directories; export, whose only output is the
// configuration, takes --out - as standard output. An explicitly empty
// path is a usage error naming the flag.
func TestOutputPathDashAndEmpty(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--requests", "5", "--trace", "-", "guard-check"}, "--trace -: standard output carries the report"},
		{[]string{"run", "--requests", "5", "--out", "-", "guard-check"}, "--out -: standard output carries the report"},
		{append(cloneArgs(optimizeQuick), "--write-scenario", "-", "guard-check"), "--write-scenario -: standard output carries the report"},
		{append(cloneArgs(optimizeQuick), "--out", "-", "guard-check"), "--out -: standard output carries the report"},
		{append(cloneArgs(optimizeQuick), "--shard", "0/1", "--out", "-", "guard-check"), "--out -: standard output carries the report"},
		{[]string{"merge", "p.json", "--out", "-"}, "--out -: standard output carries the report"},
		{[]string{"run", "--requests", "5", "--trace", "", "guard-check"}, "--trace: empty path"},
		{[]string{"run", "--requests", "5", "--out=", "guard-check"}, "--out: empty path"},
		{append(cloneArgs(optimizeQuick), "--write-scenario", "", "guard-check"), "--write-scenario: empty path"},
		{append(cloneArgs(optimizeQuick), "--out", "", "guard-check"), "--out: empty path"},
		{append(cloneArgs(optimizeQuick), "--shard", "0/1", "--out", "x.json", "--resume", "", "guard-check"), "--resume: empty path"},
		{[]string{"merge", "p.json", "--out", "r", "--state", ""}, "--state: empty path"},
		{[]string{"export", "--format", "json", "--out", "", "guard-check"}, "--out: empty path"},
		{[]string{"export", "--format", "json", "--scenario", "", "guard-check"}, "--scenario: empty path"},
	} {
		code, stdout, errOut := hedgesim(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || stdout != "" {
			t.Errorf("%q: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	code, a, errOut := hedgesim(t, "export", "--format", "json", "--out", "-", "guard-check")
	_, b, _ := hedgesim(t, "export", "--format", "json", "guard-check")
	if code != 0 || a != b || a == "" {
		t.Errorf("export --out -: exit %d, %q; want the configuration on standard output", code, errOut)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`a file named "-" was written`)
	}
}

// TestOutputDirectoryNotWritable: an output file whose directory exists
// but cannot be written to (/proc, where no file can be created, even by
// root) is a usage error naming the flag and the path, before any work:
// exit 2 and nothing on standard output. Regression: each command did all
// its work, printed its report (retune printed nothing) and then failed
// with exit 1 on the temporary file's open.
func TestOutputDirectoryNotWritable(t *testing.T) {
	if st, err := os.Stat("/proc/self"); err != nil || !st.IsDir() {
		t.Skip("no /proc")
	}
	metrics := filepath.Join("testdata", "docs", "guard-metrics-80.txt")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(cloneArgs(optimizeQuick), "--write-scenario", "/proc/x.toml", "guard-check"), "--write-scenario /proc/x.toml: cannot write to directory /proc"},
		{[]string{"export", "--format", "grpc", "--out", "/proc/x.json", "guard-check"}, "--out /proc/x.json: cannot write to directory /proc"},
		{[]string{"retune", "guard-check", "--from", metrics, "--quiet", "--write-scenario", "/proc/n.toml"}, "--write-scenario /proc/n.toml: cannot write to directory /proc"},
		{[]string{"run", "--requests", "5", "--trace", "/proc/t.csv", "guard-check"}, "--trace /proc/t.csv: cannot write to directory /proc"},
	} {
		code, stdout, errOut := hedgesim(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || stdout != "" {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %q; want 2 and %q", tc.args, code, stdout, errOut, tc.want)
		}
	}
}
