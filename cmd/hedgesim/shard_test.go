package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
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

// shardCounts are the shard counts a split sweep is checked at: 1, 2 and
// 3, or under -short only 3 (which, on a coupled group, takes a stage per
// step of its coordinate descent).
func shardCounts() []int {
	if testing.Short() {
		return []int{3}
	}
	return []int{1, 2, 3}
}

// TestMergeIsOptimize: `hedgesim merge` of 1, 2 or 3 shards (3 under
// -short) writes the
// report directory `hedgesim optimize --out DIR` writes, byte for byte
// (report.txt, report.json, index.html, candidates.csv, every plot, the
// manifest), and prints what it prints — for classes swept alone (the
// default scenario) and for coupled ones (shared-rate-limit, one stage per
// step of the coordinate descent when split).
func TestMergeIsOptimize(t *testing.T) {
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory
	for _, sc := range []string{"", "shared-rate-limit"} {
		name := sc
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			dir := filepath.Join(work, "report")
			args := []string{"optimize", "--requests", "1500", "--check-requests", "3000"}
			if testing.Short() {
				args[2], args[4] = "500", "1000" // byte identity, at any size
			}
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
			for _, n := range shardCounts() {
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
	// A part whose measurement was changed: same sweep, other numbers
	// (still numbers a simulation could give).
	var f map[string]any
	data, _ := os.ReadFile(p2)
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	for _, m := range f["measurements"].([]any) {
		m.(map[string]any)["cost_per_1k_usd"] = 7.0
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

// TestNewPartArgs: --shard, --resume, --out's value and the output flags
// (merge's own stand for them) leave the command line, whatever their
// spelling; the rest stays in place.
func TestNewPartArgs(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.json")
	for _, c := range []struct {
		in   []string
		want []string
		out  int
	}{
		{[]string{"--requests", "10", "--shard", "0/2", "--out", p, "guard-check"}, []string{"--requests", "10", "--out", "", "guard-check"}, 3},
		{[]string{"guard-check", "-out=" + p, "--shard=1/2", "--all", "--resume", "s.json", "--seed", "3"}, []string{"guard-check", "-out=", "--seed", "3"}, 1},
		{[]string{"--json", "--out", p, "--shard", "0/1", "--no-plots=true", "--", "guard-check"}, []string{"--out", "", "--", "guard-check"}, 1},
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

// TestShardOutputsNotInputs: --state and a shard's --out never replace one
// of the command's inputs (a part, the state resumed from, the scenario)
// nor any existing file that is not a hedgesim file of the same kind; they
// replace a part or state of an earlier run.
func TestShardOutputsNotInputs(t *testing.T) {
	work := t.TempDir()
	part := func(name string) string { return filepath.Join(work, name) }
	scen, _ := shippedCopy(t, "shared-rate-limit.toml", work, "srl.toml")
	notes := part("notes.txt")
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"optimize", "--requests", "300", "--check-requests", "0", scen}
	var parts []string
	for i := range 2 {
		p := part(fmt.Sprintf("1-%d.json", i))
		if code, _, errOut := hedgesim(t, append(slices.Clone(args), "--shard", fmt.Sprintf("%d/2", i), "--out", p)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		parts = append(parts, p)
	}
	// Rerunning a shard replaces its own part.
	if code, _, errOut := hedgesim(t, append(slices.Clone(args), "--shard", "1/2", "--out", parts[1])...); code != 0 {
		t.Fatalf("rerun of a shard into its part: exit %d: %s", code, errOut)
	}
	snapshot := func() map[string][]byte { return readTree(t, work) }
	before := snapshot()
	merge := func(state string) []string {
		return append(append([]string{"merge"}, parts...), "--out", part("rep"), "--state", state)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{merge(parts[0]), "is a part of this merge (" + parts[0] + ")"},
		{merge(filepath.Join(work, ".", "1-1.json")), "is a part of this merge (" + parts[1] + ")"},
		{merge(scen), "is the input scenario"},
		{merge(notes), "is not a hedgesim file"},
		{append(slices.Clone(args), "--shard", "0/2", "--out", notes), "is not a hedgesim file"},
		{append(slices.Clone(args), "--shard", "0/2", "--out", scen), "is the input scenario"},
	} {
		code, _, errOut := hedgesim(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	state := part("state1.json")
	if code, _, errOut := hedgesim(t, merge(state)...); code != 0 {
		t.Fatalf("merge --state: exit %d: %s", code, errOut)
	}
	// merge again: it replaces its own state.
	if code, _, errOut := hedgesim(t, merge(state)...); code != 0 {
		t.Fatalf("merge into its earlier state: exit %d: %s", code, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(slices.Clone(args), "--shard", "0/2", "--resume", state, "--out", state), "is the --resume state (" + state + ")"},
		{append(slices.Clone(args), "--shard", "0/2", "--out", state), "is a state file of hedgesim, not a part"},
	} {
		code, _, errOut := hedgesim(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	code, _, errOut := hedgesim(t, append(append([]string{"merge"}, parts...), "--out", part("rep"), "--state", parts[0])...)
	if code != 2 {
		t.Errorf("merge --state PART: exit %d, %q", code, errOut)
	}
	after := snapshot()
	for f, b := range before {
		if !bytes.Equal(after[f], b) {
			t.Errorf("%s was changed", f)
		}
	}
}

// TestMergeDamagedParts: parts that are well-formed JSON but whose
// measurements cannot be their sweep's are refused with exit status 2,
// naming the part and the field or measurement, and nothing is written.
func TestMergeDamagedParts(t *testing.T) {
	work := t.TempDir()
	args := []string{"optimize", "--requests", "300", "--check-requests", "0"}
	var parts []string
	for i := range 3 {
		p := filepath.Join(work, fmt.Sprintf("p%d.json", i))
		if code, _, errOut := hedgesim(t, append(slices.Clone(args), "--shard", fmt.Sprintf("%d/3", i), "--out", p)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		parts = append(parts, p)
	}
	load := func(p string) map[string]any {
		var f map[string]any
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	ms := func(f map[string]any) []any { return f["measurements"].([]any) }
	hedged := func(f map[string]any) map[string]any { // a hedged candidate's measurement
		for _, m := range ms(f) {
			if m := m.(map[string]any); strings.Contains(m["key"].(string), "candidate") {
				return m
			}
		}
		t.Fatal("no candidate in the part")
		return nil
	}
	dir := filepath.Join(work, "report")
	for _, c := range []struct {
		name   string
		part   int
		change func(f map[string]any)
		want   string
	}{
		{"latency cut", 1, func(f map[string]any) { hedged(f)["latency_s"] = []any{1, 2} }, "latency_s has 2 values; want 10"},
		{"NaN latency", 1, func(f map[string]any) { hedged(f)["latency_s"].([]any)[2] = "NaN" }, "latency_s p90 (value 3) is NaN"},
		{"negative share", 0, func(f map[string]any) { hedged(f)["hedged_share"] = -0.5 }, "hedged_share is out of range"},
		{"NaN mean of answered requests", 1, func(f map[string]any) { hedged(f)["latency_s"].([]any)[0] = "NaN" }, "latency_s mean is NaN with an answered share of"},
		{"p50 above p90", 2, func(f map[string]any) { hedged(f)["latency_s"].([]any)[1] = 99 }, "latency_s p90 is"},
		{"interval upside down", 0, func(f map[string]any) { hedged(f)["latency_s"].([]any)[7] = 0 }, "latency_s p95 interval high is 0, below p95 interval low"},
		{"empty survival", 2, func(f map[string]any) { hedged(f)["survival"] = []any{} }, "survival is empty"},
		{"no requests, with figures", 0, func(f map[string]any) { hedged(f)["requests"] = 0 }, "requests is 0, with shares, calls or a cost"},
		{"made-up candidate", 1, func(f map[string]any) {
			m := map[string]any{}
			for k, v := range hedged(f) {
				m[k] = v
			}
			m["key"] = "class " + strings.Split(strings.TrimPrefix(hedged(f)["key"].(string), "class "), ":")[0] + ": candidate 999 (5s)"
			f["measurements"] = append(ms(f), m)
		}, "candidate 999 (5s)\" is none of this sweep's candidates"},
		{"duplicated key", 0, func(f map[string]any) { f["measurements"] = append(ms(f), hedged(f)) }, "is there twice"},
		{"baseline removed", 2, func(f map[string]any) {
			var keep []any
			for _, m := range ms(f) {
				if !strings.HasSuffix(m.(map[string]any)["key"].(string), ": none") {
					keep = append(keep, m)
				}
			}
			f["measurements"] = keep
		}, "lacks the measurement \"class"},
		{"candidate of another shard", 0, func(f map[string]any) { f["measurements"] = append(ms(f), hedged(load(parts[1]))) }, "which shard 1/3 makes"},
		{"candidate removed", 1, func(f map[string]any) {
			var keep []any
			dropped := false
			for _, m := range ms(f) {
				if !dropped && strings.Contains(m.(map[string]any)["key"].(string), "candidate") {
					dropped = true
					continue
				}
				keep = append(keep, m)
			}
			f["measurements"] = keep
		}, "which that shard makes"},
	} {
		f := load(parts[c.part])
		c.change(f)
		data, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		bad := filepath.Join(work, "bad.json")
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		in := slices.Clone(parts)
		in[c.part] = bad
		code, _, errOut := hedgesim(t, append(append([]string{"merge"}, in...), "--out", dir)...)
		if code != 2 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, bad) {
			t.Errorf("%s: exit %d, %q; want 2, %s and %q", c.name, code, errOut, bad, c.want)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s: merge wrote the report", c.name)
			os.RemoveAll(dir)
		}
	}
}

// TestMergeRemovesStaleState: a merge that writes the report removes a
// state an earlier merge left at --state, so that docs/operations.md's staged loop
// (`[ -f STATE ] || break`) stops; it leaves any other file alone.
func TestMergeRemovesStaleState(t *testing.T) {
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory
	work := t.TempDir()
	part := func(name string) string { return filepath.Join(work, name) }
	// A state of a coupled sweep, left over.
	cargs := []string{"optimize", "--requests", "300", "--check-requests", "0", "shared-rate-limit"}
	var cparts []string
	for i := range 2 {
		p := part(fmt.Sprintf("c%d.json", i))
		if code, _, errOut := hedgesim(t, append(slices.Clone(cargs), "--shard", fmt.Sprintf("%d/2", i), "--out", p)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		cparts = append(cparts, p)
	}
	stale := part("stale.json")
	// The merges draw no figures (--no-plots): the state and report.json
	// are what is checked.
	if code, _, errOut := hedgesim(t, append(append([]string{"merge"}, cparts...), "--out", part("r0"), "--no-plots", "--state", stale)...); code != 0 {
		t.Fatalf("merge --state: exit %d: %s", code, errOut)
	}
	// A sweep that finishes in one stage, merged with --state stale.json.
	args := []string{"optimize", "--requests", "300", "--check-requests", "0"}
	var parts []string
	for i := range 2 {
		p := part(fmt.Sprintf("p%d.json", i))
		if code, _, errOut := hedgesim(t, append(slices.Clone(args), "--shard", fmt.Sprintf("%d/2", i), "--out", p)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		parts = append(parts, p)
	}
	dir := part("report")
	code, _, errOut := hedgesim(t, append(append([]string{"merge"}, parts...), "--out", dir, "--no-plots", "--state", stale)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.json")); err != nil {
		t.Fatalf("no report: %v", err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("a finished merge left the state %s at --state: a staged loop would go on", stale)
	}
	if !strings.Contains(errOut, "removed "+stale) {
		t.Errorf("merge did not say it removed the state: %q", errOut)
	}
}

// TestShardSettingsCompared: shards are compared by the settings they
// parsed, not by the text of their command lines: flag order and
// spelling, the scenario's path and the flags that cannot change results
// (--workers, --quiet, output flags) may differ; real differences are
// refused. The merge's output follows its own output flags.
func TestShardSettingsCompared(t *testing.T) {
	work := t.TempDir()
	part := func(name string) string { return filepath.Join(work, name) }
	scen, _ := shippedCopy(t, "guard-check.toml", work, "gc.toml")
	rel, err := filepath.Rel(mustGetwd(t), scen)
	if err != nil {
		t.Fatal(err)
	}
	shard := func(name, spec string, a ...string) string {
		t.Helper()
		a = append(a, "--shard", spec, "--out", part(name))
		if code, _, errOut := hedgesim(t, append([]string{"optimize"}, a...)...); code != 0 {
			t.Fatalf("%q: exit %d: %s", a, code, errOut)
		}
		return part(name)
	}
	p0 := shard("p0.json", "0/3", "--requests", "300", "--check-requests=0", scen, "--workers", "4")
	p1 := shard("p1.json", "1/3", "--check-requests", "0", "--requests=300", rel, "--quiet", "--no-plots")
	p2 := shard("p2.json", "2/3", "--json", "--requests", "3e2", "--check-requests", "0", scen, "--all")
	seed := shard("seed.json", "2/3", "--requests", "300", "--check-requests", "0", "--seed", "9", scen)
	more := shard("more.json", "2/3", "--requests", "400", "--check-requests", "0", scen)
	obj := shard("obj.json", "2/3", "--requests", "300", "--check-requests", "0", "--objective", "p99", scen)
	dir := part("report")
	code, out, errOut := hedgesim(t, "merge", p0, p1, p2, "--out", dir, "--json", "--no-plots")
	if code != 0 {
		t.Fatalf("merge of shards that differ only in spelling and run flags: exit %d: %s", code, errOut)
	}
	if !json.Valid([]byte(out)) {
		t.Errorf("merge --json printed no JSON:\n%s", out)
	}
	for f := range readTree(t, dir) {
		if strings.HasSuffix(f, ".png") || strings.HasSuffix(f, ".svg") {
			t.Errorf("merge --no-plots drew %s", f)
		}
	}
	for _, c := range []struct {
		odd, want string
	}{
		{seed, "no --seed against --seed 9"},
		{more, "--requests 300 against --requests 400"},
		{obj, "no --objective against --objective p99"},
	} {
		code, _, errOut := hedgesim(t, "merge", p0, p1, c.odd, "--out", part("r2"))
		if code != 2 || !strings.Contains(errOut, "different command lines") || !strings.Contains(errOut, c.want) {
			t.Errorf("merge with %s: exit %d, %q; want 2 and %q", c.odd, code, errOut, c.want)
		}
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestMergeRelativeScenario: shards run with a relative scenario path;
// merge, run from another directory, finds the file where the shards did
// (and checks its sha256); when it is gone from there, the error says the
// path came from the shards' command line and where to run merge.
func TestMergeRelativeScenario(t *testing.T) {
	shardDir, elsewhere := t.TempDir(), t.TempDir()
	shippedCopy(t, "guard-check.toml", shardDir, "gc.toml")
	t.Chdir(shardDir)
	var parts []string
	for i := range 2 {
		p := filepath.Join(shardDir, fmt.Sprintf("p%d.json", i))
		if code, _, errOut := hedgesim(t, "optimize", "--requests", "300", "--check-requests", "0", "gc.toml", "--shard", fmt.Sprintf("%d/2", i), "--out", p); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		parts = append(parts, p)
	}
	t.Chdir(elsewhere)
	merge := append(slices.Clone(parts), "--out", filepath.Join(elsewhere, "report"), "--no-plots") // where it finds the scenario, not figures
	if code, _, errOut := hedgesim(t, append([]string{"merge"}, merge...)...); code != 0 {
		t.Fatalf("merge from another directory: exit %d: %s", code, errOut)
	}
	if err := os.Rename(filepath.Join(shardDir, "gc.toml"), filepath.Join(shardDir, "moved.toml")); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := hedgesim(t, append([]string{"merge"}, merge...)...)
	if code != 2 || !strings.Contains(errOut, "comes from the shards' command line") || !strings.Contains(errOut, "run merge from the shards' directory") {
		t.Errorf("merge without the scenario: exit %d, %q", code, errOut)
	}
}

// TestMergeOwnOutErrors: a problem with merge's own --out is reported as
// merge's, not as one of the shards' command line.
func TestMergeOwnOutErrors(t *testing.T) {
	work := t.TempDir()
	var parts []string
	for i := range 2 {
		p := filepath.Join(work, fmt.Sprintf("p%d.json", i))
		if code, _, errOut := hedgesim(t, "optimize", "--requests", "300", "--check-requests", "0", "--shard", fmt.Sprintf("%d/2", i), "--out", p); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		parts = append(parts, p)
	}
	foreign := filepath.Join(work, "foreign")
	if err := os.Mkdir(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := hedgesim(t, append(append([]string{"merge"}, parts...), "--out", foreign)...)
	if code != 2 || !strings.HasPrefix(errOut, "hedgesim merge: --out "+foreign) || strings.Contains(errOut, "shards' command line") {
		t.Errorf("merge --out DIR holding another file: exit %d, %q; want 2 and merge's own --out error", code, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(foreign, "notes.txt")); err != nil || string(b) != "mine\n" {
		t.Errorf("notes.txt changed: %q, %v", b, err)
	}
}

// TestMergeWriteScenario: merge --write-scenario FILE writes the scenario
// with the picks applied that optimize --write-scenario writes, byte for
// byte; optimize --shard sends --write-scenario to merge.
func TestMergeWriteScenario(t *testing.T) {
	work := t.TempDir()
	scen, src := shippedCopy(t, "guard-check.toml", work, "gc.toml")
	args := []string{"optimize", "--requests", "500", "--check-requests", "1000", scen}
	want := filepath.Join(work, "want.toml")
	if code, _, errOut := hedgesim(t, append(slices.Clone(args), "--write-scenario", want)...); code != 0 {
		t.Fatalf("optimize --write-scenario: exit %d: %s", code, errOut)
	}
	code, _, errOut := hedgesim(t, append(slices.Clone(args), "--shard", "0/2", "--out", filepath.Join(work, "x.json"), "--write-scenario", want)...)
	if code != 2 || !strings.Contains(errOut, "pass --write-scenario FILE to hedgesim merge") {
		t.Errorf("optimize --shard --write-scenario: exit %d, %q", code, errOut)
	}
	var parts []string
	for i := range 2 {
		p := filepath.Join(work, fmt.Sprintf("p%d.json", i))
		if code, _, errOut := hedgesim(t, append(slices.Clone(args), "--shard", fmt.Sprintf("%d/2", i), "--out", p)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		parts = append(parts, p)
	}
	got := filepath.Join(work, "got.toml")
	merge := append(append([]string{"merge"}, parts...), "--out", filepath.Join(work, "report"), "--no-plots") // the scenarios are compared, not figures
	if code, _, errOut := hedgesim(t, append(slices.Clone(merge), "--write-scenario", scen)...); code != 2 || !strings.Contains(errOut, "is the input scenario") {
		t.Errorf("merge --write-scenario SCENARIO: exit %d, %q", code, errOut)
	}
	if code, _, errOut := hedgesim(t, append(slices.Clone(merge), "--write-scenario", parts[0])...); code != 2 || !strings.Contains(errOut, "is a part of this merge") {
		t.Errorf("merge --write-scenario PART: exit %d, %q", code, errOut)
	}
	same := filepath.Join(work, "same.json") // absent: two outputs, one file
	if code, _, errOut := hedgesim(t, append(slices.Clone(merge), "--state", same, "--write-scenario", same)...); code != 2 || !strings.Contains(errOut, "are the same file") {
		t.Errorf("merge --state F --write-scenario F: exit %d, %q", code, errOut)
	}
	if code, _, errOut := hedgesim(t, append(slices.Clone(merge), "--write-scenario", got)...); code != 0 {
		t.Fatalf("merge --write-scenario: exit %d: %s", code, errOut)
	}
	g, err1 := os.ReadFile(got)
	w, err2 := os.ReadFile(want)
	if err1 != nil || err2 != nil || !bytes.Equal(g, w) {
		t.Errorf("merge --write-scenario wrote\n%s\nwant (optimize's)\n%s\n%v %v", g, w, err1, err2)
	}
	if b, _ := os.ReadFile(scen); !bytes.Equal(b, src) {
		t.Error("the scenario changed")
	}
}

// TestBuildIDUnpinned: two builds whose version and revision do not pin
// their source ("(devel)" without VCS information, or with local changes)
// are told apart by their executables' sha256; a clean revision or a
// release version is enough alone.
func TestBuildIDUnpinned(t *testing.T) {
	devel := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/hedgesim/hedgesim", Version: "(devel)"}}
	exe := func(h string) func() string { return func() string { return h } }
	if a, b := buildIDOf(devel, true, exe("aa")), buildIDOf(devel, true, exe("bb")); a == b || !strings.Contains(a, "executable sha256 aa") {
		t.Errorf("two (devel) builds without VCS information: %q and %q", a, b)
	}
	dirty := *devel
	dirty.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}
	if a, b := buildIDOf(&dirty, true, exe("aa")), buildIDOf(&dirty, true, exe("bb")); a == b {
		t.Errorf("two builds with local changes: %q and %q", a, b)
	}
	clean := *devel
	clean.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}
	release := *devel
	release.Main.Version = "v1.2.3"
	for _, bi := range []*debug.BuildInfo{&clean, &release} {
		if a, b := buildIDOf(bi, true, exe("aa")), buildIDOf(bi, true, exe("bb")); a != b || strings.Contains(a, "executable") {
			t.Errorf("a pinned build is named by its executable: %q, %q", a, b)
		}
	}
}

// TestMergeWide: merge takes --wide, as optimize does: the report at full
// width, every line as long as its content (here some over 120 columns),
// where without it the text is fitted to 120 columns (stdout is no
// terminal). A shard run with --wide merges with shards run without it: it
// is an output flag, merge's own standing for it. Regression: merge had no
// --wide ("flag provided but not defined").
func TestMergeWide(t *testing.T) {
	work := t.TempDir()
	part := func(name string) string { return filepath.Join(work, name) }
	scen, _ := shippedCopy(t, "guard-check.toml", work, "gc.toml")
	var parts []string
	for i, extra := range [][]string{{"--wide"}, nil} {
		a := append([]string{"optimize", "--requests", "300", "--check-requests", "0", scen, "--shard", fmt.Sprintf("%d/2", i), "--out", part(fmt.Sprintf("p%d.json", i))}, extra...)
		if code, _, errOut := hedgesim(t, a...); code != 0 {
			t.Fatalf("%q: exit %d: %s", a, code, errOut)
		}
		parts = append(parts, part(fmt.Sprintf("p%d.json", i)))
	}
	longest := func(s string) int {
		n := 0
		for _, l := range strings.Split(s, "\n") {
			n = max(n, utf8.RuneCountInString(l))
		}
		return n
	}
	code, wide, errOut := hedgesim(t, append(append([]string{"merge", "--wide"}, parts...), "--out", part("wide"), "--no-plots")...)
	if code != 0 {
		t.Fatalf("merge --wide: exit %d: %s", code, errOut)
	}
	code, fitted, errOut := hedgesim(t, append(append([]string{"merge"}, parts...), "--out", part("fitted"), "--no-plots")...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if w, f := longest(wide), longest(fitted); w <= 120 || f > 120 {
		t.Errorf("longest line %d columns with --wide, %d without; want over 120 and at most 120", w, f)
	}
}
