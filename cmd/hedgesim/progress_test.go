package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// onTerminal runs the CLI with stderr on a pseudo-terminal and returns the
// exit status and what the terminal received.
func onTerminal(t *testing.T, args ...string) (int, string) {
	t.Helper()
	// Draw from the start: a fast machine can finish before the delay.
	old := progressDelay
	progressDelay = 0
	defer func() { progressDelay = old }()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&got, ptmx) // ends with EIO once the terminal side is closed
		close(done)
	}()
	code := run(args, io.Discard, tty)
	tty.Close()
	<-done
	return code, got.String()
}

// TestProgressOnTerminal: a sweep that takes over a second draws a bar
// with counts and elapsed:ETA on the terminal and erases it at the end;
// --quiet draws nothing. Under -short the sweep is of 5000 requests, not
// 60000, a fraction of a second: onTerminal draws from the start, so the
// bar, its count, its [elapsed:ETA] and its erasing are there all the same.
func TestProgressOnTerminal(t *testing.T) {
	args := []string{"optimize", "--requests", "60000", "guard-check"}
	if testing.Short() {
		args[2] = "5000"
	}
	code, out := onTerminal(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %q", code, out)
	}
	for _, want := range []string{"hedgesim optimize: candidates", "%", "s:"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q: %q", want, out)
		}
	}
	if !regexp.MustCompile(`\(\d+/\d+\) \[\d+s:\d+s\]`).MatchString(out) {
		t.Errorf("terminal output lacks a count (done/total) and [elapsed:ETA]: %q", out)
	}
	// After the last bar drawn comes only its erasing: blanks and carriage returns.
	last := out[strings.LastIndex(out, "hedgesim optimize"):]
	if i := strings.IndexByte(last, '\r'); i < 0 || strings.Trim(last[i:], "\r ") != "" {
		t.Errorf("the bar is not erased at the end; terminal ends with %q", last)
	}
	code, out = onTerminal(t, append([]string{"optimize", "--quiet"}, args[1:]...)...)
	if code != 0 || out != "" {
		t.Errorf("--quiet: exit %d, terminal got %q; want nothing", code, out)
	}
}

// TestProgressRunOnTerminal: a run of a few seconds shows its two steps.
func TestProgressRunOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("a two-second run")
	}
	code, out := onTerminal(t, "run", "--requests", "1e6", "guard-check")
	if code != 0 || !strings.Contains(out, "hedgesim run: hedged run and no hedging, at once") || !strings.Contains(out, "/2)") {
		t.Errorf("exit %d, terminal got %q", code, out)
	}
}

// TestNoProgressOffTerminal: a file, /dev/null (a character device, not a
// terminal) and a buffer get no bar.
func TestNoProgressOffTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	for _, w := range []io.Writer{f, devNull, &bytes.Buffer{}} {
		if p := newProgress(w, "run", false); p != nil {
			t.Errorf("%T: got a progress bar", w)
		}
	}
	if code := run([]string{"optimize", "--requests", "60000", "guard-check"}, io.Discard, f); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if st, _ := f.Stat(); st.Size() != 0 {
		t.Errorf("stderr to a file got %d bytes; want none", st.Size())
	}
}

// TestProgressFitSpinner: fit, whose work has no count, shows a spinner
// with the elapsed time on a large log (10 000 rows, over a second to read
// and fit), and nothing with --quiet.
func TestProgressFitSpinner(t *testing.T) {
	if testing.Short() {
		t.Skip("a fit of a few seconds")
	}
	var b strings.Builder
	b.WriteString("latency_ms\n")
	x := uint64(1)
	for range 10000 {
		x = x*6364136223846793005 + 1442695040888963407 // a fixed LCG: the values only need to vary
		fmt.Fprintf(&b, "%d\n", 100+x>>40%5000)
	}
	log := writeTestFile(t, t.TempDir(), "big.csv", b.String())
	code, out := onTerminal(t, "fit", "--latency", "latency_ms", "--model", "lognormal", log)
	if code != 0 || !strings.Contains(out, "hedgesim fit: reading and fitting") {
		t.Errorf("exit %d, terminal got %q", code, out)
	}
	if code, out := onTerminal(t, "fit", "--quiet", "--latency", "latency_ms", "--model", "lognormal", log); code != 0 || out != "" {
		t.Errorf("--quiet: exit %d, terminal got %q", code, out)
	}
}
