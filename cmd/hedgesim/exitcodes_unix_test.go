//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// panicWriter panics on a write: a stand-in for any bug.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("a bug") }

// failingWriter fails every write, as a closed pipe does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestExitCodes makes docs/operations.md's exit-status table true, one case per cause: 0 ok;
// 1 failure while running (an output that cannot be written, a bug); 2
// bad input or usage, whatever the input (flags, scenario, trace, log, and
// each unreadable in the same way); 130 interrupted.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	replay := func(trace string) string {
		return write(filepath.Base(trace)+"-replay.toml", "[arrivals]\nprocess = \"replay\"\ntrace = \""+trace+"\"\nformat = \"azure\"\n"+
			"[models.m]\nlatency = { kind = \"constant\", value = 1.0 }\n"+
			"[[classes]]\nname = \"c\"\ndeadline = \"10s\"\n[classes.hedge]\nprimary = \"m\"\n")
	}
	deep := write("deep.toml", "x = "+strings.Repeat("[", 100000)+strings.Repeat("]", 100000))
	badTrace := write("bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,1,2\n")
	log := write("log.csv", "latency_ms\n12\n")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		stdout io.Writer // nil: a buffer
		args   []string
		code   int
		want   string
	}{
		{"ok", nil, nil, []string{"run", "--requests", "100", "guard-check"}, 0, ""},
		{"stdout fails", nil, failingWriter{}, []string{"run", "--requests", "100", "guard-check"}, 1, "broken pipe"},
		{"internal error", nil, panicWriter{}, []string{"list"}, 1, "internal error: a bug"},
		{"bad flag", nil, nil, []string{"optimize", "--max-cost", "x"}, 2, "max-cost"},
		{"scenario missing", nil, nil, []string{"run", filepath.Join(dir, "none.toml")}, 2, "no such file"},
		{"scenario a FIFO", nil, nil, []string{"run", fifo}, 2, "not a regular file"},
		{"scenario a device", nil, nil, []string{"run", "/dev/null"}, 2, "not a regular file"},
		{"scenario too deep", nil, nil, []string{"run", deep}, 2, "deep.toml:1: nested more than 64 levels"},
		{"trace missing", nil, nil, []string{"run", replay(filepath.Join(dir, "none.csv"))}, 2, "no such file"},
		{"trace a FIFO", nil, nil, []string{"run", replay(fifo)}, 2, "not a regular file"},
		{"trace /dev/zero", nil, nil, []string{"run", replay("/dev/zero")}, 2, "not a regular file"},
		{"trace bad", nil, nil, []string{"run", replay(badTrace)}, 2, "bad.csv:2: TIMESTAMP"},
		{"trace output a device", nil, nil, []string{"run", "--requests", "10", "--trace", "/dev/null", "guard-check"}, 2, "not a regular file"},
		{"scenario output a FIFO", nil, nil, []string{"optimize", "--requests", "100", "--write-scenario", fifo, "guard-check"}, 2, "not a regular file"},
		{"log a FIFO", nil, nil, []string{"fit", "--format", "csv", "--latency", "x", fifo}, 2, "not a regular file"},
		{"log missing", nil, nil, []string{"fit", filepath.Join(dir, "none.csv")}, 2, "no such file"},
		{"log bad", nil, nil, []string{"fit", log}, 2, "needs --latency"},
		{"interrupted run", cancelled, nil, []string{"run", "--requests", "100", "guard-check"}, 130, "interrupted"},
		{"interrupted optimize", cancelled, nil, []string{"optimize", "--requests", "100", "guard-check"}, 130, "interrupted"},
	} {
		ctx := tc.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		var out, errOut bytes.Buffer
		stdout := tc.stdout
		if stdout == nil {
			stdout = &out
		}
		code := runContext(ctx, tc.args, stdout, &errOut)
		if code != tc.code || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, errOut.String(), tc.code, tc.want)
		}
	}
}

// TestOutputExitCodes: an output path that is wrong before anything runs
// (its directory missing, a FIFO where a file or directory goes, a report
// directory holding other files) is bad input, exit 2, before any work;
// an I/O failure while writing (the report's temporary directory gone
// mid-write, a closed stdout) is a failure, exit 1, with nothing left
// behind.
func TestOutputExitCodes(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"trace in a missing directory", []string{"run", "--requests", "10", "--trace", filepath.Join(missing, "t.csv"), "guard-check"}, "does not exist"},
		{"export into a missing directory", []string{"export", "--format", "json", "--out", filepath.Join(missing, "p.json"), "guard-check"}, "does not exist"},
		{"scenario into a missing directory", []string{"optimize", "--requests", "100", "--write-scenario", filepath.Join(missing, "s.toml"), "guard-check"}, "does not exist"},
		{"report directory in a missing directory", []string{"run", "--requests", "10", "--out", filepath.Join(missing, "report"), "guard-check"}, "does not exist"},
		{"optimize report directory in a missing directory", []string{"optimize", "--requests", "100", "--out", filepath.Join(missing, "report"), "guard-check"}, "does not exist"},
		{"report directory a FIFO", []string{"run", "--requests", "10", "--out", fifo, "guard-check"}, "not a directory"},
		{"report directory of others", []string{"run", "--requests", "10", "--out", foreign, "guard-check"}, "notes.txt"},
	} {
		var out, errOut bytes.Buffer
		if code := runContext(context.Background(), tc.args, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), tc.want) || out.Len() > 0 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q, nothing on stdout", tc.name, code, errOut.String(), tc.want)
		}
	}
	// The temporary report directory vanishes after the first file.
	report := filepath.Join(dir, "report")
	writeHook = func(ctx context.Context, name string) {
		tmps, _ := filepath.Glob(filepath.Join(dir, ".report.hedgesim-*"))
		for _, p := range tmps {
			os.RemoveAll(p)
		}
	}
	defer func() { writeHook = nil }()
	var out, errOut bytes.Buffer
	if code := runContext(context.Background(), []string{"run", "--requests", "10", "--out", report, "guard-check"}, &out, &errOut); code != exitFailure || !strings.Contains(errOut.String(), "no such file") {
		t.Errorf("write failing mid-way: exit %d, stderr %q; want 1", code, errOut.String())
	}
	if _, err := os.Stat(report); err == nil {
		t.Errorf("a report directory was left behind")
	}
}
