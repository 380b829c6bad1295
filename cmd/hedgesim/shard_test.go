package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// shardedOptimize runs `optimize ARGS --shard i/n --out PART` for every
// shard, stage after stage (--resume the state merge wrote), and merges
// each stage's parts into dir. It returns merge's last stdout and the
// number of stages.
func shardedOptimize(t *testing.T, work string, args []string, n int, dir string) (string, int) {
	t.Helper()
	var resume []string
	for stage := 1; stage <= 20; stage++ {
		var parts []string
		for i := range n {
			part := filepath.Join(work, fmt.Sprintf("stage%d-part%d.json", stage, i))
			a := append(slices.Clone(args), "--shard", fmt.Sprintf("%d/%d", i, n), "--out", part)
			a = append(a, resume...)
			if code, _, errOut := hedgesim(t, a...); code != 0 {
				t.Fatalf("stage %d, shard %d/%d: exit %d: %s", stage, i, n, code, errOut)
			}
			parts = append(parts, part)
		}
		state := filepath.Join(work, fmt.Sprintf("state%d.json", stage))
		code, out, errOut := hedgesim(t, append(append([]string{"merge"}, parts...), "--out", dir, "--state", state)...)
		if code != 0 {
			t.Fatalf("stage %d: merge: exit %d: %s", stage, code, errOut)
		}
		if _, err := os.Stat(state); err != nil {
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("stage %d: merge wrote neither the report nor a state: %v\n%s", stage, err, out)
			}
			return out, stage
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatalf("stage %d: merge wrote both a state and the report", stage)
		}
		if !strings.Contains(out, "--resume") {
			t.Errorf("stage %d: merge wrote a state without saying how to resume:\n%s", stage, out)
		}
		resume = []string{"--resume", state}
	}
	t.Fatal("no report after 20 stages")
	return "", 0
}

// readTree returns every file of dir by name.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// TestMergeIsOptimize: `hedgesim merge` of 1, 2 or 3 shards writes the
// report directory `hedgesim optimize --out DIR` writes, byte for byte
// (report.txt, report.json, index.html, candidates.csv, every plot, the
// manifest), and prints what it prints — for classes swept alone (the
// default scenario) and for coupled ones (shared-rate-limit, one stage per
// step of the coordinate descent when split).
func TestMergeIsOptimize(t *testing.T) {
	for _, sc := range []string{"", "shared-rate-limit"} {
		name := sc
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			dir := filepath.Join(work, "report")
			args := []string{"optimize", "--requests", "1500", "--check-requests", "3000"}
			if sc != "" {
				args = append(args, sc)
			}
			code, wantOut, errOut := hedgesim(t, append(slices.Clone(args), "--out", dir)...)
			if code != 0 {
				t.Fatalf("optimize: exit %d: %s", code, errOut)
			}
			want := readTree(t, dir)
			if len(want) < 5 {
				t.Fatalf("optimize wrote only %d files", len(want))
			}
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			for n := 1; n <= 3; n++ {
				nwork := filepath.Join(work, fmt.Sprint(n))
				if err := os.Mkdir(nwork, 0o755); err != nil {
					t.Fatal(err)
				}
				gotOut, stages := shardedOptimize(t, nwork, args, n, dir)
				t.Logf("%d shard(s): %d stage(s)", n, stages)
				if sc == "" && stages != 1 || sc != "" && (n == 1) != (stages == 1) {
					t.Errorf("%d shard(s): %d stages", n, stages)
				}
				if gotOut != wantOut {
					t.Errorf("%d shard(s): merge printed\n%s\nwant\n%s", n, gotOut, wantOut)
				}
				got := readTree(t, dir)
				for f, w := range want {
					if g, ok := got[f]; !ok {
						t.Errorf("%d shard(s): merge wrote no %s", n, f)
					} else if !bytes.Equal(g, w) {
						t.Errorf("%d shard(s): %s differs from optimize's", n, f)
					}
				}
				for f := range got {
					if _, ok := want[f]; !ok {
						t.Errorf("%d shard(s): merge wrote %s, which optimize does not", n, f)
					}
				}
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestShardErrors: bad --shard values and combinations exit 2 with a
// message naming the value and what is allowed, before any simulation;
// merge refuses parts of other sweeps, other stages, duplicate and missing
// shards, and writes nothing.
func TestShardErrors(t *testing.T) {
	work := t.TempDir()
	part := func(name string) string { return filepath.Join(work, name) }
	args := []string{"optimize", "--requests", "300", "--check-requests", "0"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "3/3", "--out", part("x.json")}, `"3/3": the index must be in [0, 3)`},
		{[]string{"--shard", "1/0", "--out", part("x.json")}, "the number of shards must be ≥ 1"},
		{[]string{"--shard", "one", "--out", part("x.json")}, `"one" is not i/n`},
		{[]string{"--shard", "0/2"}, "--shard needs --out FILE"},
		{[]string{"--resume", part("state.json")}, "--resume needs --shard"},
		{[]string{"--shard", "0/2", "--out", part("x.json"), "--write-scenario", part("w.toml")}, "--write-scenario cannot go with --shard"},
		{[]string{"--shard", "0/2", "--out", filepath.Join(work, "no", "x.json")}, "does not exist"},
		{[]string{"--shard", "0/2", "--out", work}, "is a directory"},
	} {
		code, _, errOut := hedgesim(t, append(slices.Clone(args), c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(part("x.json")); err == nil {
		t.Error("a refused shard wrote its part")
	}

	shard := func(name, spec string, extra ...string) string {
		t.Helper()
		a := append(append(slices.Clone(args), extra...), "--shard", spec, "--out", part(name))
		if code, _, errOut := hedgesim(t, a...); code != 0 {
			t.Fatalf("%q: exit %d: %s", a, code, errOut)
		}
		return part(name)
	}
	p0, p1, p2 := shard("p0.json", "0/3"), shard("p1.json", "1/3"), shard("p2.json", "2/3")
	other := shard("other.json", "2/3", "--seed", "9")
	twoOf2 := shard("q1.json", "1/2")
	guard := shard("guard.json", "2/3", "guard-check")
	// A part whose measurement was changed: same sweep, other numbers.
	var f map[string]any
	data, _ := os.ReadFile(p2)
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	for _, m := range f["measurements"].([]any) {
		m.(map[string]any)["requests"] = 7.0
	}
	changed, _ := json.Marshal(f)
	tampered := part("tampered.json")
	if err := os.WriteFile(tampered, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	notPart := part("not-a-part.json")
	os.WriteFile(notPart, []byte(`{"hello": 1}`), 0o644)
	dir := part("report")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{p0, p1}, "missing shard 2 of 3 (stage 1)"},
		{[]string{p0, p1, p1}, "are both shard 1/3"},
		{[]string{p0, p1, other}, "different command lines"},
		{[]string{p0, p1, guard}, "different scenarios"},
		{[]string{p0, twoOf2}, "disagree on the number of shards"},
		{[]string{p0, p1, tampered}, "differs between parts"},
		{[]string{p0, notPart}, "not a hedgesim part"},
		{[]string{p0, part("absent.json")}, "absent.json"},
		{[]string{p0, p1, p2, "--state", work}, "is a directory"},
	} {
		code, _, errOut := hedgesim(t, append(append([]string{"merge"}, c.args...), "--out", dir)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("merge %q: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if code, _, errOut := hedgesim(t, "merge", p0, p1, p2); code != 2 || !strings.Contains(errOut, "needs --out DIR") {
		t.Errorf("merge without --out: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("a refused merge wrote the report directory")
	}

	// Coupled classes split over shards need a state to go on; without
	// --state, merge says so (exit 2) and writes nothing.
	cargs := []string{"optimize", "--requests", "300", "--check-requests", "0", "shared-rate-limit"}
	var cparts []string
	for i := range 2 {
		p := part(fmt.Sprintf("c%d.json", i))
		if code, _, errOut := hedgesim(t, append(slices.Clone(cargs), "--shard", fmt.Sprintf("%d/2", i), "--out", p)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		cparts = append(cparts, p)
	}
	code, _, errOut := hedgesim(t, append(append([]string{"merge"}, cparts...), "--out", dir)...)
	if code != 2 || !strings.Contains(errOut, "need another stage") || !strings.Contains(errOut, "--state FILE") {
		t.Errorf("merge of a first stage without --state: exit %d, %q", code, errOut)
	}
	state := part("state.json")
	if code, _, errOut := hedgesim(t, append(append([]string{"merge"}, cparts...), "--out", dir, "--state", state)...); code != 0 {
		t.Fatalf("merge --state: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("merge wrote a report although another stage is needed")
	}
	// The next stage must run the same command line, and --resume takes a
	// state, not a part.
	code, _, errOut = hedgesim(t, "optimize", "--requests", "400", "--check-requests", "0", "shared-rate-limit", "--shard", "0/2", "--out", part("n.json"), "--resume", state)
	if code != 2 || !strings.Contains(errOut, "different command lines") {
		t.Errorf("--resume with another command line: exit %d, %q", code, errOut)
	}
	code, _, errOut = hedgesim(t, append(slices.Clone(cargs), "--shard", "0/2", "--out", part("n.json"), "--resume", cparts[0])...)
	if code != 2 || !strings.Contains(errOut, "is a shard's part") {
		t.Errorf("--resume with a part: exit %d, %q", code, errOut)
	}
	code, _, errOut = hedgesim(t, "merge", state, "--out", dir)
	if code != 2 || !strings.Contains(errOut, "is a state") {
		t.Errorf("merge of a state: exit %d, %q", code, errOut)
	}
	// Parts of different stages do not merge.
	n0 := part("n0.json")
	if code, _, errOut := hedgesim(t, append(slices.Clone(cargs), "--shard", "0/2", "--out", n0, "--resume", state)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, _, errOut = hedgesim(t, "merge", n0, cparts[1], "--out", dir)
	if code != 2 || !strings.Contains(errOut, "is of stage 2") {
		t.Errorf("merge of two stages: exit %d, %q", code, errOut)
	}
}

// TestNewPartArgs: --shard, --resume and --out's value leave the command
// line, whatever their spelling; the rest stays in place.
func TestNewPartArgs(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.json")
	for _, c := range []struct {
		in   []string
		want []string
		out  int
	}{
		{[]string{"--requests", "10", "--shard", "0/2", "--out", p, "guard-check"}, []string{"--requests", "10", "--out", "", "guard-check"}, 3},
		{[]string{"guard-check", "-out=" + p, "--shard=1/2", "--all", "--resume", "s.json"}, []string{"guard-check", "-out=", "--all"}, 1},
		{[]string{"--json", "--out", p, "--shard", "0/1", "--", "guard-check"}, []string{"--json", "--out", "", "--", "guard-check"}, 2},
	} {
		job, err := parseOptimize(c.in, io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		got := job.partial
		if !slices.Equal(got.Args, c.want) || got.Out != c.out {
			t.Errorf("%q: part command line %q (out %d); want %q (out %d)", c.in, got.Args, got.Out, c.want, c.out)
		}
		if w := got.with("DIR"); w[c.out] != c.want[c.out]+"DIR" {
			t.Errorf("%q: with DIR: %q", c.in, w)
		}
	}
}

func TestMergeHelp(t *testing.T) {
	code, out, _ := hedgesim(t, "help", "merge")
	if code != 0 || !strings.Contains(out, "--state") || !strings.Contains(out, "PART… --out DIR") {
		t.Errorf("help merge: exit %d:\n%s", code, out)
	}
	code, out, _ = hedgesim(t, "help", "optimize")
	if code != 0 || !strings.Contains(out, "-shard i/n") || !strings.Contains(out, "-resume STATE") {
		t.Errorf("help optimize lacks --shard and --resume: exit %d:\n%s", code, out)
	}
	code, out, _ = hedgesim(t, "help")
	if code != 0 || !strings.Contains(out, "hedgesim merge PART… --out DIR") {
		t.Errorf("help lacks merge:\n%s", out)
	}
}
