package main

import (
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenarios"
)

// TestValidateSchema: `validate --schema` prints the committed
// docs/scenario.schema.json, which the shipped scenarios name; it takes no
// scenario.
func TestValidateSchema(t *testing.T) {
	code, out, errOut := hedgesim(t, "validate", "--schema")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, err := os.ReadFile("../../docs/scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("validate --schema differs from docs/scenario.schema.json")
	}
	if code, _, errOut := hedgesim(t, "validate", "--schema", "guard-check"); code != 2 || !strings.Contains(errOut, "--schema takes no scenario") {
		t.Errorf("--schema with a scenario: exit %d, %s", code, errOut)
	}
}

// TestHelpToStdout: `hedgesim CMD --help` and `-h` (anywhere among the
// flags) print the command's usage on stdout, nothing on stderr, and exit
// 0, as `hedgesim help CMD` does, so that help can be paged or grepped.
func TestHelpToStdout(t *testing.T) {
	for _, cmd := range strings.Split(commandNames, ", ") {
		if cmd == "help" {
			continue
		}
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {cmd, "-help"}, {cmd, "--json", "-h"}} {
			if (cmd == "list" || cmd == "version") && len(args) > 2 {
				continue // they take no other flag
			}
			code, out, errOut := hedgesim(t, args...)
			if code != 0 || errOut != "" || !strings.Contains(out, "Usage: hedgesim "+cmd) {
				t.Errorf("%q: exit %d, stdout %.80q, stderr %.200q; want 0, the usage on stdout, nothing on stderr", args, code, out, errOut)
			}
		}
		_, want, _ := hedgesim(t, "help", cmd)
		if _, out, _ := hedgesim(t, cmd, "--help"); out != want {
			t.Errorf("%s --help differs from help %s", cmd, cmd)
		}
		// A flag's usage must not state the default the flag package
		// adds itself (retune --window read "(default 1d) (default 1d)").
		if strings.Count(strings.Join(strings.Fields(want), " "), "(default 1d) (default 1d)") > 0 ||
			regexp.MustCompile(`\(default ([^()]*)\)\s+\(default ([^()]*)\)`).MatchString(want) {
			t.Errorf("%s --help states a default twice:\n%s", cmd, want)
		}
	}
	// After --, -h is an argument, not a request for help.
	if code, out, _ := hedgesim(t, "validate", "--", "-h"); code != 2 || strings.Contains(out, "Usage") {
		t.Errorf("validate -- -h: exit %d, stdout %q; want 2 (no such scenario)", code, out)
	}
}

// TestVersionFlags: --version, -version and -v work as the version command.
func TestVersionFlags(t *testing.T) {
	_, want, _ := hedgesim(t, "version")
	if !strings.HasPrefix(want, "hedgesim ") {
		t.Fatalf("version: %q", want)
	}
	for _, f := range []string{"--version", "-version", "-v"} {
		if code, out, errOut := hedgesim(t, f); code != 0 || out != want || errOut != "" {
			t.Errorf("%s: exit %d, %q, stderr %q; want 0 and %q", f, code, out, errOut, want)
		}
	}
}

// TestDidYouMean: a misspelt flag or command names the one it most likely
// meant; a name close to nothing gets no guess.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"optimize", "--max_cost", "5"}, "flag provided but not defined: --max_cost (did you mean --max-cost?)"},
		{[]string{"run", "--request", "5"}, "--request (did you mean --requests?)"},
		{[]string{"run", "--requests=5", "--Seed=3"}, "--Seed (did you mean --seed?)"},
		{[]string{"run", "--sed", "3"}, "(did you mean --seed?)"},
		{[]string{"fit", "--metrc", "x", "a.txt"}, "(did you mean --metric?)"},
		{[]string{"export", "--fromat", "grpc", "guard-check"}, "(did you mean --format?)"},
		{[]string{"optimise"}, `unknown command "optimise" (did you mean optimize?)`},
		{[]string{"valdiate"}, "(did you mean validate?)"},
		// Built-in scenario names, for every command that takes one.
		{[]string{"run", "guard-chek"}, "guard-chek: no such file and no built-in scenario of that name; did you mean guard-check? (built-in: agent-loop.toml,"},
		{[]string{"optimize", "Fan-Out.toml"}, "did you mean fan-out?"},
		{[]string{"validate", "two-model-gatway"}, "did you mean two-model-gateway?"},
		{[]string{"export", "--format", "json", "gaurd-check"}, "did you mean guard-check?"},
	} {
		code, out, errOut := hedgesim(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if _, _, errOut := hedgesim(t, "run", "--zzzzzzzz"); strings.Contains(errOut, "did you mean") {
		t.Errorf("run --zzzzzzzz guesses: %q", errOut)
	}
	// A name far from every built-in one gets the list, no guess.
	if code, _, errOut := hedgesim(t, "run", "zzzzzzzz"); code != 2 || strings.Contains(errOut, "did you mean") || !strings.Contains(errOut, "built-in: agent-loop.toml") {
		t.Errorf("run zzzzzzzz: exit %d, stderr %q; want 2, the list, no guess", code, errOut)
	}
}

// TestOutOtherCommandsReport: run --out into optimize's report directory
// (and optimize --out into run's) refuses, naming the report and --force,
// and leaves it as it was; with --force it replaces it. Files hedgesim did
// not write are refused with or without --force, and never removed.
func TestOutOtherCommandsReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	optimizeArgs := []string{"optimize", "--requests", "2000", "--delays", "0s,1s", "--no-plots", "--quiet", "--out", dir, "guard-check"}
	if code, _, errOut := hedgesim(t, optimizeArgs...); code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	before := readDir(t, dir)
	if !strings.Contains(before[manifestName], `"command": "optimize"`) {
		t.Errorf("manifest does not name optimize: %s", before[manifestName])
	}
	code, out, errOut := hedgesim(t, "run", "--requests", "1000", "--out", dir, "guard-check")
	if code != 2 || out != "" || !strings.Contains(errOut, "holds the report of hedgesim optimize (") ||
		!strings.Contains(errOut, "index.html") || !strings.Contains(errOut, "pass --force to replace it") {
		t.Errorf("run --out into optimize's report: exit %d, stderr %q", code, errOut)
	}
	if got := readDir(t, dir); !maps.Equal(got, before) {
		t.Errorf("the refused run changed the report: %v", slices.Sorted(maps.Keys(got)))
	}
	if code, _, errOut := hedgesim(t, "run", "--requests", "1000", "--out", dir, "--force", "guard-check"); code != 0 {
		t.Fatalf("run --force: exit %d: %s", code, errOut)
	}
	after := readDir(t, dir)
	if _, ok := after["index.html"]; ok || !strings.Contains(after[manifestName], `"command": "run"`) {
		t.Errorf("run --force did not replace the report: %v", slices.Sorted(maps.Keys(after)))
	}
	// Now optimize into run's report: refused the same way.
	if code, _, errOut := hedgesim(t, optimizeArgs...); code != 2 || !strings.Contains(errOut, "holds the report of hedgesim run (") {
		t.Errorf("optimize --out into run's report: exit %d, %q", code, errOut)
	}
	// A run into its own report replaces it without --force.
	if code, _, errOut := hedgesim(t, "run", "--requests", "1000", "--seed", "2", "--out", dir, "guard-check"); code != 0 {
		t.Errorf("run into run's report: exit %d: %s", code, errOut)
	}
	// A file hedgesim did not write: refused even with --force, and kept.
	mine := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--requests", "1000", "--out", dir, "--force", "guard-check"},
		append(slices.Clone(optimizeArgs), "--force"),
	} {
		if code, _, errOut := hedgesim(t, args...); code != 2 || !strings.Contains(errOut, "holds files hedgesim did not write (notes.md)") {
			t.Errorf("%q: exit %d, %q", args, code, errOut)
		}
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Errorf("notes.md: %q, %v", b, err)
	}
}

// TestFitTTFTHistogramPastes: the block fit writes for a TTFT histogram
// pastes into a streamed model — its ttft with the tokens_per_s it reminds
// of — and the scenario validates.
func TestFitTTFTHistogramPastes(t *testing.T) {
	dir := t.TempDir()
	metrics := filepath.Join(dir, "metrics.txt")
	src := `# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="0.1"} 40
vllm:time_to_first_token_seconds_bucket{le="0.25"} 700
vllm:time_to_first_token_seconds_bucket{le="0.5"} 2900
vllm:time_to_first_token_seconds_bucket{le="1"} 4500
vllm:time_to_first_token_seconds_bucket{le="2.5"} 4950
vllm:time_to_first_token_seconds_bucket{le="5"} 4995
vllm:time_to_first_token_seconds_bucket{le="+Inf"} 5000
vllm:time_to_first_token_seconds_count 5000
vllm:time_to_first_token_seconds_sum 2600
`
	if err := os.WriteFile(metrics, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := hedgesim(t, "fit", "--name", "chat", "--quiet", metrics)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "\nttft = ") || strings.Contains(out, "\nlatency = ") {
		t.Fatalf("fit of a TTFT histogram writes no ttft:\n%s", out)
	}
	block := strings.Replace(out, "# tokens_per_s = ", "tokens_per_s = ", 1)
	scenarioFile := filepath.Join(dir, "chat.toml")
	scenarioSrc := "requests = 1000\n[arrivals]\nrate = 10\n\n" + block + "\n[[classes]]\nname = \"c\"\noutput_tokens = { kind = \"constant\", value = 100 }\n"
	if err := os.WriteFile(scenarioFile, []byte(scenarioSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := hedgesim(t, "validate", scenarioFile); code != 0 {
		t.Errorf("the pasted block does not validate: %s\n%s", errOut, scenarioSrc)
	}
}

// TestExportChangedScenarioFoundByName: export finds the scenario of a
// report by its name, here in the working directory; when that file has
// changed since optimize ran, the message says which file it compared and
// to pass --scenario FILE with the version the report was made from.
func TestExportChangedScenarioFoundByName(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../scenarios/guard-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	path := "mycheck.toml"
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := "rep"
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "300", "--check-requests", "0", "--no-plots", "--out", rep, path); code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	report := filepath.Join(rep, "report.json")
	if code, _, errOut := hedgesim(t, "export", "--format", "json", report); code != 0 {
		t.Fatalf("export, the scenario found by name: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(path, append(src, "\n# edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := hedgesim(t, "export", "--format", "json", report)
	for _, want := range []string{`another version of scenario "mycheck"`, path + ", found by the report's name,", "pass --scenario FILE with the version the report was made from"} {
		if code != 2 || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("export, edited scenario: exit %d, %q; want 2 and %q", code, errOut, want)
		}
	}
}

// TestDelaysAtTheirPrecision: a delay of 1.118 s is written 1.118 in the
// optimize report, in candidates and pick, and in the exported policy —
// not 1.1179999999999999, which time.Duration.Seconds gives.
func TestDelaysAtTheirPrecision(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := hedgesim(t, "optimize", "--requests", "300", "--check-requests", "0", "--delays", "1.118s,1.86s",
		"--max-cost", "inf", "--json", "guard-check")
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	for _, want := range []string{`"delay_s": 1.118`, `"delay_s": 1.86`} {
		if !strings.Contains(out, want+",") && !strings.Contains(out, want+"\n") {
			t.Errorf("the report lacks %s", want)
		}
	}
	offByUlp := regexp.MustCompile(`"(delay|deadline)_s": [0-9.]*(99999999|00000001)`)
	if m := offByUlp.FindString(out); m != "" {
		t.Errorf("the report has a delay off in its last place: %s", m)
	}
	report := filepath.Join(dir, "report.json")
	if err := os.WriteFile(report, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, doc, errOut := hedgesim(t, "export", "--format", "json", report)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	if !strings.Contains(doc, `"delay_s": 1.118`) && !strings.Contains(doc, `"delay_s": 1.86`) || offByUlp.MatchString(doc) {
		t.Errorf("exported document:\n%s", doc)
	}
}

// TestOptimizeSpendTotal: the optimize spend table ends with a total row
// whose figures are the classes' sums (each printed figure is rounded to
// the dollar, so the sum of the printed ones is within half a dollar per
// class of the printed total).
func TestOptimizeSpendTotal(t *testing.T) {
	code, out, errOut := hedgesim(t, "optimize", "--requests", "2000", "--check-requests", "0", "--quiet")
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	_, table, ok := strings.Cut(out, "spend of the pick at")
	if !ok {
		t.Fatalf("no spend table:\n%s", out)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	dollars := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimPrefix(s, "$"), ",", ""), 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return v
	}
	var sum [6]float64
	var total []string
	classes := 0
	for _, line := range strings.Split(table, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) != 7 {
			continue
		}
		if f[0] == "total" {
			total = f
			continue
		}
		classes++
		for i := range sum {
			if i == 0 {
				v, _ := strconv.ParseFloat(f[1], 64)
				sum[0] += v
				continue
			}
			sum[i] += dollars(f[i+1])
		}
	}
	if classes != 4 || total == nil {
		t.Fatalf("%d class rows, total %q:\n%s", classes, total, table)
	}
	if v, _ := strconv.ParseFloat(total[1], 64); v != sum[0] {
		t.Errorf("total req/s %v; the classes sum to %v", v, sum[0])
	}
	for i := 1; i < len(sum); i++ {
		if got := dollars(total[i+1]); math.Abs(got-sum[i]) > 0.5*float64(classes)+0.5 {
			t.Errorf("total column %d: %v; the classes sum to %v", i+1, got, sum[i])
		}
	}
}

// TestListDescribes: `hedgesim list` prints every shipped scenario with a
// one-line description, from the table of scenarios/README.md — which
// must therefore list every shipped scenario.
func TestListDescribes(t *testing.T) {
	code, out, errOut := hedgesim(t, "list")
	if code != 0 || errOut != "" {
		t.Fatalf("list: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	names := scenarios.Names()
	if len(lines) != len(names) {
		t.Fatalf("%d lines for %d scenarios:\n%s", len(lines), len(names), out)
	}
	for i, n := range names {
		name, desc, _ := strings.Cut(lines[i], "  ")
		desc = strings.TrimSpace(desc)
		if strings.TrimSuffix(name, " (default)") != n || len(desc) < 20 || strings.Contains(desc, "`") {
			t.Errorf("line %q: want %s and its description", lines[i], n)
		}
		if (n == scenarios.Default) != strings.HasSuffix(name, " (default)") {
			t.Errorf("line %q: the default is %s", lines[i], scenarios.Default)
		}
	}
	if !strings.Contains(out, "guard-check.toml  ") || !strings.Contains(out, "bimodal safety classifier") {
		t.Errorf("list:\n%s", out)
	}
}

// TestOptimizeHelpOutputs: optimize --help names every file --out writes,
// index.html included.
func TestOptimizeHelpOutputs(t *testing.T) {
	_, out, _ := hedgesim(t, "optimize", "--help")
	for _, f := range []string{"report.txt", "report.json", "index.html", "candidates.csv", "PNG", "SVG"} {
		if !strings.Contains(out, f) {
			t.Errorf("optimize --help does not name %s", f)
		}
	}
}
