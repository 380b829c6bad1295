package main

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressDelay is how long work runs before a progress bar appears, so
// that quick commands print nothing.
var progressDelay = 300 * time.Millisecond

// progress draws a progress bar (github.com/schollz/progressbar) with
// elapsed time and ETA on a terminal, redrawn in place at most ten times a
// second and erased when the work ends. A nil *progress does nothing: commands call it unconditionally.
type progress struct {
	w       io.Writer
	command string
	start   time.Time
	mu      sync.Mutex // set, finish and the redraw goroutine
	bar     *progressbar.ProgressBar
	stage   string
	done    int
	total   int
	stop    chan struct{} // closed by finish when live runs
	stopped chan struct{} // closed by the redraw goroutine
}

// newProgress returns a progress bar for command on w, or nil when quiet
// is set or w is not a terminal (a pipe, a file, /dev/null).
func newProgress(w io.Writer, command string, quiet bool) *progress {
	if quiet || !isTTY(w) {
		return nil
	}
	return &progress{w: w, command: command, start: time.Now()}
}

// isTTY reports whether w is a terminal.
func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// set reports that done of total steps of stage are finished. A new stage
// or total starts the bar (and its ETA) afresh. total -1 means the amount
// of work is unknown: a spinner with the elapsed time is drawn instead.
func (p *progress) set(stage string, done, total int) {
	if p == nil || total == 0 || total < -1 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(stage, done, total)
}

// live redraws the bar four times a second from another goroutine, so
// that elapsed time and ETA move during long steps; finish stops it.
func (p *progress) live() {
	if p == nil {
		return
	}
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				if p.total != 0 {
					p.draw(p.stage, p.done, p.total)
				}
				p.mu.Unlock()
			}
		}
	}()
}

// draw is set with p.mu held.
func (p *progress) draw(stage string, done, total int) {
	p.done = done
	if p.bar == nil && time.Since(p.start) < progressDelay {
		p.stage, p.total = stage, total // not yet: remember what is running
		return
	}
	if p.bar == nil || stage != p.stage || total != p.total {
		// A bar for this stage; the one of the stage before is erased.
		if p.bar != nil {
			p.bar.Clear()
		}
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription("hedgesim "+p.command+": "+stage),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetRenderBlankState(true),
		)
		p.stage, p.total = stage, total
	}
	if total < 0 {
		p.bar.Add(1) // a spinner turns by one step per redraw
		return
	}
	p.bar.Set(done)
}

// finish stops the redrawing and erases the bar.
func (p *progress) finish() {
	if p == nil {
		return
	}
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Clear()
		p.bar = nil
	}
}
