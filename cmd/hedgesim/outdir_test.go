package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readDir returns every file of dir by name.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, name := range dirNames(t, dir) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	return files
}

// hedgesimCtx runs the CLI in-process under ctx.
func hedgesimCtx(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = runContext(ctx, args, &o, &e)
	return code, o.String(), e.String()
}

// TestOutInterrupted is the acceptance test for whole-report output: a
// directory holding a report of one scenario (with plots) is rewritten by a
// run of another scenario that is interrupted after each possible file of
// the write phase, and before the swap. Every time, the directory holds the
// complete old report byte for byte, nothing temporary is left beside it,
// and the exit status is 130. An uninterrupted run then leaves exactly its
// own complete report, whose report.json names its scenario hash and seed.
func TestOutInterrupted(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "report")
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "1000", "--delays", "0,1s", "--out", dir, "guard-check"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	old := readDir(t, dir)
	if len(old) != 1+4+6 { // manifest, report.txt/json, candidates.csv, index.html, 3 plots × 2 formats
		t.Fatalf("first report has %d files: %v", len(old), slices.Sorted(maps.Keys(old)))
	}
	args := []string{"optimize", "--requests", "1000", "--delays", "0,500ms", "--classes", "short", "--no-plots", "--seed", "9", "--out", dir, "two-model-gateway"}
	t.Cleanup(func() { writeHook = nil })
	for k := 1; ; k++ {
		ctx, cancel := context.WithCancel(context.Background())
		calls, swapped := 0, false
		writeHook = func(_ context.Context, name string) {
			calls++
			if calls == k {
				cancel()
			}
			swapped = swapped || name == ""
		}
		code, out, errOut := hedgesimCtx(ctx, args...)
		cancel()
		if calls < k { // every point of the write phase has been tried
			if code != 0 {
				t.Fatalf("uninterrupted run: exit %d: %s", code, errOut)
			}
			break
		}
		if code != exitInterrupted || out != "" || !strings.Contains(errOut, "interrupted") {
			t.Fatalf("interrupted at hook call %d: exit %d, stdout %q, stderr %q; want 130, nothing on stdout", k, code, out, errOut)
		}
		if got := readDir(t, dir); !maps.Equal(got, old) {
			t.Fatalf("interrupted at hook call %d (swap reached: %v): the directory is not the old report: %v", k, swapped, slices.Sorted(maps.Keys(got)))
		}
		if got := dirNames(t, parent); !slices.Equal(got, []string{"report"}) {
			t.Fatalf("interrupted at hook call %d: beside the report: %v", k, got)
		}
	}
	writeHook = nil
	got := readDir(t, dir)
	if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, []string{manifestName, "candidates.csv", "index.html", "report.json", "report.txt"}) {
		t.Fatalf("new report: %v", names)
	}
	var rep struct {
		Scenario string `json:"scenario"`
		SHA256   string `json:"scenario_sha256"`
		Seed     uint64 `json:"seed"`
	}
	if err := json.Unmarshal([]byte(got["report.json"]), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Scenario != "two-model-gateway" || len(rep.SHA256) != 64 || rep.Seed != 9 {
		t.Errorf("report.json identifies %+v; want two-model-gateway, a SHA-256, seed 9", rep)
	}
	var oldRep struct {
		SHA256 string `json:"scenario_sha256"`
	}
	json.Unmarshal([]byte(old["report.json"]), &oldRep)
	if oldRep.SHA256 == rep.SHA256 || len(oldRep.SHA256) != 64 {
		t.Errorf("the two scenarios' hashes %q and %q do not tell them apart", oldRep.SHA256, rep.SHA256)
	}
	if got := dirNames(t, parent); !slices.Equal(got, []string{"report"}) {
		t.Errorf("beside the report: %v", got)
	}
}

// TestOutForeignFiles: hedgesim refuses, before running, a report
// directory holding files it did not write, and leaves them alone.
func TestOutForeignFiles(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := hedgesim(t, "run", "--requests", "100", "--out", dir, "guard-check")
	if code != exitUsage || !strings.Contains(errOut, "notes.md") || !strings.Contains(errOut, "did not write") {
		t.Fatalf("exit %d, %q; want 2 naming notes.md", code, errOut)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"notes.md"}) {
		t.Errorf("directory now holds %v", got)
	}
	// A report directory with a file added later is refused too.
	rdir := filepath.Join(t.TempDir(), "r")
	if code, _, errOut := hedgesim(t, "run", "--requests", "100", "--out", rdir, "guard-check"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	os.WriteFile(filepath.Join(rdir, "extra.txt"), nil, 0o644)
	if code, _, errOut := hedgesim(t, "run", "--requests", "100", "--out", rdir, "guard-check"); code != exitUsage || !strings.Contains(errOut, "extra.txt") {
		t.Errorf("exit %d, %q; want 2 naming extra.txt", code, errOut)
	}
	os.Remove(filepath.Join(rdir, "extra.txt"))
	// An output file inside the directory would be lost in the swap.
	if code, _, errOut := hedgesim(t, "run", "--requests", "100", "--out", rdir, "--trace", filepath.Join(rdir, "a.csv"), "guard-check"); code != exitUsage || !strings.Contains(errOut, "is inside --out") {
		t.Errorf("--trace inside --out: exit %d, %q", code, errOut)
	}
	// A file in place of the directory.
	if code, _, errOut := hedgesim(t, "run", "--requests", "100", "--out", notes, "guard-check"); code != exitUsage || !strings.Contains(errOut, "not a directory") {
		t.Errorf("--out FILE: exit %d, %q", code, errOut)
	}
}

// TestOutStaleTemp: the temporary directory of a killed run is removed by
// the next run into the same directory, file by file from its manifest;
// one of a live process, or holding other files, is left alone.
func TestOutStaleTemp(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "report")
	mk := func(name string, files ...string) string {
		p := filepath.Join(parent, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		m, _ := json.Marshal(manifest{WrittenBy: "hedgesim", Files: []string{"report.txt", "report.json"}})
		os.WriteFile(filepath.Join(p, manifestName), m, 0o644)
		for _, f := range files {
			os.WriteFile(filepath.Join(p, f), []byte("x"), 0o644)
		}
		return p
	}
	const deadPID = "2147483646" // above any pid_max
	mk(".report.hedgesim-"+deadPID+"-1", "report.txt")
	mk(".report.hedgesim-" + deadPID + "-2")
	live := mk(".report.hedgesim-1-3", "report.txt") // pid 1 is alive
	foreign := mk(".report.hedgesim-"+deadPID+"-4", "report.txt", "mine.txt")
	if code, _, errOut := hedgesim(t, "run", "--requests", "100", "--out", dir, "guard-check"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := []string{filepath.Base(live), filepath.Base(foreign), "report"}
	if got := dirNames(t, parent); !slices.Equal(got, want) {
		t.Errorf("beside the report: %v; want %v", got, want)
	}
}

// TestOutWriteScenarioInside: optimize's --write-scenario inside --out
// would be lost in the swap, and is refused before the sweep.
func TestOutWriteScenarioInside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	code, _, errOut := hedgesim(t, "optimize", "--requests", "500", "--out", dir, "--write-scenario", filepath.Join(dir, "s.toml"), "guard-check")
	if code != exitUsage || !strings.Contains(errOut, "--write-scenario") || !strings.Contains(errOut, "is inside --out") {
		t.Errorf("exit %d, %q; want 2: inside --out", code, errOut)
	}
}

// TestOutEmptyDir: an existing empty directory becomes the report
// directory, keeping its permissions; nothing is left beside it.
func TestOutEmptyDir(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "r")
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := hedgesim(t, "run", "--requests", "100", "--out", dir, "guard-check"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, %v; want 0750", st.Mode(), err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{manifestName, "report.json", "report.txt"}) {
		t.Errorf("report: %v", got)
	}
	if got := dirNames(t, parent); !slices.Equal(got, []string{"r"}) {
		t.Errorf("beside the report: %v", got)
	}
}

// TestOutTwoRenames: where the directories cannot be exchanged atomically,
// two renames replace the report just as well; a previous report left
// aside by a run killed between them is put back by the next run.
func TestOutTwoRenames(t *testing.T) {
	exchangeDirs = func(a, b string) error { return errors.ErrUnsupported }
	t.Cleanup(func() { exchangeDirs = exchange })
	parent := t.TempDir()
	dir := filepath.Join(parent, "r")
	for _, seed := range []string{"1", "2"} {
		if code, _, errOut := hedgesim(t, "run", "--requests", "100", "--seed", seed, "--out", dir, "guard-check"); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep struct{ Seed int }
		json.Unmarshal([]byte(readDir(t, dir)["report.json"]), &rep)
		if strconv.Itoa(rep.Seed) != seed {
			t.Errorf("report of seed %d, want %s", rep.Seed, seed)
		}
		if got := dirNames(t, parent); !slices.Equal(got, []string{"r"}) {
			t.Errorf("beside the report: %v", got)
		}
	}
	// Killed between the renames: DIR is gone, the old report aside.
	aside := filepath.Join(parent, ".r.hedgesim-2147483646-1.old")
	if err := os.Rename(dir, aside); err != nil {
		t.Fatal(err)
	}
	old := readDir(t, aside)
	if err := prepareOutDir("out", dir, "run", false); err != nil {
		t.Fatal(err)
	}
	if got := readDir(t, dir); !maps.Equal(got, old) {
		t.Errorf("the old report was not put back: %v", slices.Sorted(maps.Keys(got)))
	}
}

// TestOutHoldsTheScenario: a scenario file inside --out, which the report
// replaces whole, is refused as an input, for run and optimize, and is
// left as it was.
func TestOutHoldsTheScenario(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rep")
	if code, _, errOut := hedgesim(t, "run", "--requests", "100", "--out", dir, "guard-check"); code != 0 {
		t.Fatalf("run --out: exit %d: %s", code, errOut)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "guard-check.toml"))
	if err != nil {
		t.Fatal(err)
	}
	scen := filepath.Join(dir, "report.txt") // a report file's name
	if err := os.WriteFile(scen, src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"run", "optimize"} {
		code, _, errOut := hedgesim(t, cmd, "--requests", "100", "--out", dir, scen)
		if code != exitUsage || !strings.Contains(errOut, "is inside --out") || !strings.Contains(errOut, "outputs never replace inputs") {
			t.Errorf("%s: exit %d, %q; want 2 and why", cmd, code, errOut)
		}
		if got, _ := os.ReadFile(scen); !bytes.Equal(got, src) {
			t.Fatalf("%s replaced the scenario", cmd)
		}
	}
}
