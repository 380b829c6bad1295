package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRetuneOutShifted: the guard latency moved to 80 % slow, retuned with
// --out DIR and --export grpc: the report directory holds report.txt,
// report.json, index.html and export-grpc.diff, listed in its manifest;
// the page has the drift, the current policy predicted → now, keep or
// change and the new optimisation; the diff's two sides are what `hedgesim
// export --format grpc` writes for guard-check and for the scenario
// --write-scenario writes, and the diff turns one into the other.
func TestRetuneOutShifted(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates an optimisation of guard-check")
	}
	tmp := t.TempDir()
	dir, newFile := filepath.Join(tmp, "report"), filepath.Join(tmp, "new.toml")
	code, out, errOut := hedgesim(t, "retune", "guard-check", "--from", guardMetrics(t, 0.8, 10000, 2), "--metric", "guard_request_duration_seconds",
		"--requests", "20000", "--check-requests", "20000", "--objective", "answered", "--target", "3s", "--max-cost", "inf",
		"--copies", "2,4", "--min-unanswered-cut-per-cost", "0.1", "--quiet", "--out", dir, "--export", "grpc", "--write-scenario", newFile)
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s\n%s", code, errOut, out)
	}
	var m manifest
	if data, err := os.ReadFile(filepath.Join(dir, manifestName)); err != nil || json.Unmarshal(data, &m) != nil {
		t.Fatalf("manifest: %v", err)
	}
	want := []string{"report.txt", "report.json", "index.html", "export-grpc.diff"}
	if m.Command != "retune" || !slices.Equal(m.Files, want) {
		t.Errorf("manifest %+v, want command retune and files %v", m, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(want)+1 {
		t.Errorf("%d entries in %s, want %d", len(entries), dir, len(want)+1)
	}
	page := readString(t, filepath.Join(dir, "index.html"))
	for _, w := range []string{`id="drift"`, "llama-guard", "shifted", "lies outside the live interval", `id="current-policy"`, "87.6% → 49.5%", `id="decisions"`,
		">change<", `id="adaptive"`, `id="adaptive-table"`, `id="optimisation"`, `id="summary"`, `data-figure=`, `id="export-diff"`, `id="export-diff-text"`, "hedgesim retune guard-check"} {
		if !strings.Contains(page, w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	for _, bad := range []string{"<script", `src="http`, "<link"} {
		if strings.Contains(page, bad) {
			t.Errorf("index.html is not self-contained: it has %q", bad)
		}
	}
	// The diff's sides: export of the scenario and of the written one.
	_, cur, errOut := hedgesim(t, "export", "--format", "grpc", "guard-check")
	code, next, errOut2 := hedgesim(t, "export", "--format", "grpc", newFile)
	if code != 0 {
		t.Fatalf("export of the written scenario: exit %d: %s %s", code, errOut, errOut2)
	}
	var rep struct {
		Export struct{ Format, Diff, Current, New string }
	}
	if err := json.Unmarshal([]byte(readString(t, filepath.Join(dir, "report.json"))), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Export.Current != cur || rep.Export.New != next || cur == next {
		t.Errorf("report.json's export sides are not export's output:\ncurrent %q\nexport  %q\nnew     %q\nexport  %q", rep.Export.Current, cur, rep.Export.New, next)
	}
	diff := readString(t, filepath.Join(dir, "export-grpc.diff"))
	if diff != rep.Export.Diff || !strings.Contains(out, diff) {
		t.Errorf("export-grpc.diff, report.json's diff and the printed one differ:\n%s", diff)
	}
	if got := applyUnified(t, cur, diff); got != next {
		t.Errorf("the diff applied to the current export gives\n%s\nwant\n%s", got, next)
	}
	if !strings.Contains(diff, `-        "maxAttempts": 3,`) {
		t.Errorf("the diff does not remove the current maxAttempts 3 (copies at 1 s and 2 s):\n%s", diff)
	}
}

// TestRetuneOutUnchanged: nothing shifted, --out DIR writes the page of
// the drift alone (no optimisation section) and an empty export diff; a
// directory holding another command's report is refused before any read
// unless --force, and a bad input leaves no directory.
func TestRetuneOutUnchanged(t *testing.T) {
	tmp := t.TempDir()
	from := guardMetrics(t, 0.5, 10000, 1)
	dir := filepath.Join(tmp, "report")
	code, out, errOut := hedgesim(t, "retune", "guard-check", "--from", from, "--out", dir, "--export", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	page := readString(t, filepath.Join(dir, "index.html"))
	for _, w := range []string{`id="drift"`, "unchanged", "No model shifted", `id="export-diff"`, "the same, no diff"} {
		if !strings.Contains(page, w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	for _, no := range []string{`id="summary"`, `id="current-policy"`, `id="optimisation"`, "requests per candidate", "lies outside the live interval"} {
		if strings.Contains(page, no) {
			t.Errorf("index.html has %q without a re-check", no)
		}
	}
	if d := readString(t, filepath.Join(dir, "export-json.diff")); d != "" {
		t.Errorf("export diff %q, want empty", d)
	}
	if !strings.Contains(out, "export diff (json): the retuned scenario exports the same configuration") {
		t.Errorf("the report does not say the export is the same:\n%s", out)
	}

	other := filepath.Join(tmp, "opt")
	if code, _, errOut := hedgesim(t, "optimize", "guard-check", "--requests", "500", "--quiet", "--no-plots", "--out", other); code != 0 {
		t.Fatalf("optimize --out: exit %d: %s", code, errOut)
	}
	code, _, errOut = hedgesim(t, "retune", "guard-check", "--from", from, "--out", other)
	if code != 2 || !strings.Contains(errOut, "holds the report of hedgesim optimize") {
		t.Errorf("onto optimize's report: exit %d: %s", code, errOut)
	}
	if code, _, errOut = hedgesim(t, "retune", "guard-check", "--from", from, "--out", other, "--force"); code != 0 {
		t.Errorf("--force: exit %d: %s", code, errOut)
	}

	bad := filepath.Join(tmp, "bad")
	code, _, errOut = hedgesim(t, "retune", "guard-check", "--from", from, "--label", "region=eu", "--out", bad, "--export", "grpc")
	if code != 2 {
		t.Errorf("no series: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Errorf("bad input left %s", bad)
	}
	code, _, errOut = hedgesim(t, "retune", "guard-check", "--from", from, "--export", "yaml")
	if code != 2 || !strings.Contains(errOut, `--export "yaml": unknown`) {
		t.Errorf("--export yaml: exit %d: %s", code, errOut)
	}
	// A current policy the format cannot express (an adaptive delay in
	// grpc) is refused before the source is read: it is not there.
	code, _, errOut = hedgesim(t, "retune", "eval-black-hole", "--from", filepath.Join(tmp, "absent.txt"), "--export", "grpc", "--out", filepath.Join(tmp, "r3"))
	if code != 2 || !strings.Contains(errOut, "--export grpc: the current policies: grpc: class adaptive-p99 cannot be written") || strings.Contains(errOut, "absent.txt") {
		t.Errorf("an adaptive current policy with --export grpc: exit %d: %s", code, errOut)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// applyUnified applies a unified diff to a, checking every context and
// removed line against a: the test's own reading of the format, so that
// the diff is checked against the two texts it claims to join.
func applyUnified(t *testing.T, a, diff string) string {
	t.Helper()
	src := strings.SplitAfter(a, "\n")
	var out []string
	at := 0 // next line of src not yet copied
	for l := range strings.Lines(diff) {
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"):
		case strings.HasPrefix(l, "@@"):
			var from int
			if _, err := fmt.Sscanf(l, "@@ -%d", &from); err != nil {
				t.Fatalf("hunk header %q: %v", l, err)
			}
			for ; at < from-1; at++ {
				out = append(out, src[at])
			}
		case strings.HasPrefix(l, " "), strings.HasPrefix(l, "-"):
			if at >= len(src) || src[at] != l[1:] {
				t.Fatalf("diff line %q does not match line %d of the current export", l, at+1)
			}
			if l[0] == ' ' {
				out = append(out, src[at])
			}
			at++
		case strings.HasPrefix(l, "+"):
			out = append(out, l[1:])
		default:
			t.Fatalf("diff line %q", l)
		}
	}
	return strings.Join(append(out, src[at:]...), "")
}

// TestRetuneNoAdaptive: a retune that finds drift compares each class's
// static policy with an adaptive delay, on the live models and through
// the shift, unless --no-adaptive.
func TestRetuneNoAdaptive(t *testing.T) {
	args := []string{"retune", "guard-check", "--from", guardMetrics(t, 0.8, 10000, 2), "--requests", "2000", "--check-requests", "2000", "--quiet", "--wide"}
	code, out, errOut := hedgesim(t, args...)
	if code != 3 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"adaptive delay against the static policy (2000 requests each", "  the shift: model llama-guard: the scenario's model",
		"not the scenario's stretched", "check  adaptive p95 ×2 → llama-guard  live"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	// The static policy is the new pick: the current one (1.00s ×2) is
	// over guard-check's cap of +80% on the live models, so the class
	// changes to the best within it, no hedging (docs/retune.md, step 4).
	if !regexp.MustCompile(`check +static no hedging +shift`).MatchString(out) {
		t.Errorf("output lacks the static policy, no hedging, through the shift:\n%s", out)
	}
	dir := filepath.Join(t.TempDir(), "report")
	code, out, errOut = hedgesim(t, append(args, "--no-adaptive", "--out", dir, "--no-plots")...)
	if code != 3 || strings.Contains(out, "adaptive delay against") {
		t.Errorf("--no-adaptive: exit %d: %s\n%s", code, errOut, out)
	}
	// --no-plots: the page without the optimisation's figures.
	if page := readString(t, filepath.Join(dir, "index.html")); strings.Contains(page, "data-figure=") || strings.Contains(page, `id="adaptive"`) || !strings.Contains(page, `id="summary"`) {
		t.Error("--no-plots --no-adaptive: the page has figures or the adaptive section, or lacks the optimisation")
	}
}

// TestRetuneFromURLRetried: a /metrics page that answers 503 twice is
// read on the third request and the report directory written; one that
// always answers 503 exits 2 after --timeout, naming the URL and the 503,
// with no report directory and no scenario written.
func TestRetuneFromURLRetried(t *testing.T) {
	data := readString(t, guardMetrics(t, 0.5, 5000, 3))
	var n atomic.Int32
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(data))
	}))
	defer flaky.Close()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "report")
	code, out, errOut := hedgesim(t, "retune", "guard-check", "--from", flaky.URL+"/metrics", "--out", dir)
	if code != 0 || !strings.Contains(out, "unchanged") || n.Load() != 3 {
		t.Errorf("exit %d after %d requests: %s\n%s", code, n.Load(), errOut, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Error(err)
	}
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	dir2, scen := filepath.Join(tmp, "report2"), filepath.Join(tmp, "new.toml")
	code, _, errOut = hedgesim(t, "retune", "guard-check", "--from", busy.URL+"/metrics", "--timeout", "500ms", "--out", dir2, "--write-scenario", scen, "--export", "json")
	if code != 2 || !strings.Contains(errOut, busy.URL+"/metrics") || !strings.Contains(errOut, "HTTP 503") || !strings.Contains(errOut, "gave up after 500ms") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	for _, p := range []string{dir2, scen} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written", p)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Errorf("%d entries in %s, want only the first report (no temporary directory left)", len(entries), tmp)
	}
}
