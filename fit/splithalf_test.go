package fit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hedgesim/hedgesim/readers"
)

// sharedLogs is where the full llmperf leaderboard data lies next to a
// checkout in the development setup (../shared/data); the test that needs
// it is skipped elsewhere.
const sharedLogs = "../../shared/data/llmperf-leaderboard/raw_data/individual/*.json"

// splitHalfTable runs SplitHalf (seed 1) on every file and returns the rows
// of the logs with at least MinSplitHalf successful requests.
func splitHalfTable(t *testing.T, files []string) []SplitHalfRow {
	t.Helper()
	var rows []SplitHalfRow
	for _, f := range files {
		l, err := readers.ReadLLMPerf(open(t, f), f)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := SplitHalf(l, Options{Seed: 1})
		if errors.Is(err, ErrNoData) {
			t.Logf("skipped: %v", err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rs...)
	}
	var b bytes.Buffer
	if err := WriteSplitHalf(&b, rows); err != nil {
		t.Fatal(err)
	}
	t.Logf("split-half p95 predictions (seed 1):\n%s", b.String())
	return rows
}

func inside(rows []SplitHalfRow) int {
	n := 0
	for _, r := range rows {
		if r.Check.Inside {
			n++
		}
	}
	return n
}

// TestSplitHalfShipped: on the two shipped logs the predictions of the
// held-out p95 fall inside their 95 % intervals (with seed 1). Four
// intervals at 95 % all hold with probability 0.81 only; at least 3 of 4
// hold with probability 0.986, which is what the test asks.
func TestSplitHalfShipped(t *testing.T) {
	rows := splitHalfTable(t, []string{togetherLog, anyscaleLog})
	if len(rows) != 4 || inside(rows) < 3 {
		t.Errorf("%d of %d predictions inside, want at least 3 of 4", inside(rows), len(rows))
	}
	for _, r := range rows {
		if r.NA+r.NB < MinSplitHalf || r.NA > r.NB || r.NB-r.NA > 1 {
			t.Errorf("%s: halves %d/%d", r.File, r.NA, r.NB)
		}
	}
}

// TestSplitHalfAllLLMPerf is the acceptance test over every
// llmperf leaderboard log with ≥ 100 successful requests (15 of 19): the
// prediction must fall inside the held-out half's interval in most of them
// (more than half of the rows). At the 95 % level about 1 row in 20 would
// miss by chance alone; the misses are discussed in fit's documentation of
// the split-half check. Skipped without ../shared/data.
func TestSplitHalfAllLLMPerf(t *testing.T) {
	files, _ := filepath.Glob(sharedLogs)
	if len(files) == 0 {
		t.Skip("no llmperf leaderboard data at " + sharedLogs)
	}
	if testing.Short() {
		t.Skip("-short")
	}
	rows := splitHalfTable(t, files)
	if len(rows) < 2*15 {
		t.Errorf("%d rows, want 2 for each of the 15 logs with ≥ 100 successful requests", len(rows))
	}
	if in := inside(rows); 2*in <= len(rows) {
		t.Errorf("only %d of %d predictions inside the held-out interval", in, len(rows))
	}
}

// The llmperf logs that ship with the repository.
const (
	togetherLog = "../scenarios/data/llmperf-leaderboard/individual/together_13b.json"
	anyscaleLog = "../scenarios/data/llmperf-leaderboard/individual/anyscale_13b.json"
)

func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
