package htmlreport

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// screenshotOut, when set, is where TestPageInBrowser also writes its
// screenshot (docs/img/html-report.png, shown in docs/optimize.md, is made this way).
var screenshotOut = flag.String("screenshot", "", "also write the browser test's screenshot to this PNG file")

// chromium returns the path of a Chromium binary, or skips the test naming
// the package to install.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("headless Chromium is not installed: install the Debian package chromium (apt-get install chromium); .ci/run does")
	return ""
}

// TestPageInBrowser opens the report of an optimisation in headless
// Chromium and checks that the page logs no console error and loads
// nothing (it is self-contained), that every figure is drawn with a
// non-zero size, and that the class table has one row per class. The
// screenshot is kept as a test artifact (go test -artifacts).
func TestPageInBrowser(t *testing.T) {
	bin := chromium(t)
	rep := optimizeDefault(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "index.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, rep, Options{Commands: []Command{{Label: "Reproduce:", Line: "hedgesim optimize"}}}); err != nil {
		t.Fatal(err)
	}
	f.Close()

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1400),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	var mu sync.Mutex
	var problems []string
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				problems = append(problems, "console.error")
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				problems = append(problems, "log: "+e.Entry.Text)
			}
		}
	}))
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("opening the page in %s: %v", bin, err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#classes tbody tr").length`))
	if err != nil {
		t.Fatal(err)
	}
	if rows != len(rep.Classes) {
		t.Errorf("class table has %d rows; want one per class (%d)", rows, len(rep.Classes))
	}
	type box struct {
		Name          string
		Width, Height float64
	}
	boxes, err := chromedp.Run(ctx, chromedp.Evaluate[[]box](`Array.from(document.querySelectorAll(".figure svg")).map(s => {
		const r = s.getBoundingClientRect();
		return {Name: s.parentElement.dataset.figure, Width: r.width, Height: r.height};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if len(boxes) != 3*len(rep.Classes) {
		t.Errorf("%d figures; want 3 per class (%d)", len(boxes), 3*len(rep.Classes))
	}
	for i, b := range boxes {
		if !(b.Width > 0 && b.Height > 0) {
			t.Errorf("figure %d (%s) is drawn %g × %g px; want a non-zero size", i, b.Name, b.Width, b.Height)
		}
	}
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType("resource").map(e => e.name)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded) > 0 {
		t.Errorf("the page loaded %q; want a self-contained page", loaded)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if len(shot) < 1000 || !strings.HasPrefix(string(shot), "\x89PNG") {
		t.Errorf("screenshot of %d bytes is not a PNG", len(shot))
	}
	out := filepath.Join(t.ArtifactDir(), "html-report.png")
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", out)
	if *screenshotOut != "" {
		if err := os.WriteFile(*screenshotOut, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The per-class table fits a small laptop screen: in a window 1024 px
	// wide its box scrolls nothing sideways, and nor does the page.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1024, 768)); err != nil {
		t.Fatal(err)
	}
	type widths struct{ Table, Box, Page, Window float64 }
	w, err := chromedp.Run(ctx, chromedp.Evaluate[widths](`({
		Table: document.querySelector("#classes").scrollWidth,
		Box: document.querySelector("#classes").parentElement.clientWidth,
		Page: document.documentElement.scrollWidth,
		Window: window.innerWidth})`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("per-class table %g px wide in a box of %g px; page %g px in a window of %g px", w.Table, w.Box, w.Page, w.Window)
	if w.Window != 1024 || w.Table > w.Box || w.Page > w.Window {
		t.Errorf("the per-class table is %g px wide in a box of %g px (page %g px, window %g px): it scrolls sideways", w.Table, w.Box, w.Page, w.Window)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("console errors: %q", problems)
	}
}
