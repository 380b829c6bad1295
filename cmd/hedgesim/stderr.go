package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/hedgesim/hedgesim/textfit"
)

// printMessage writes a message (an error, a note) to stderr, its lines
// wrapped at spaces to messageWidth(stderr), continuation lines indented
// two columns (textfit.Wrap): on a terminal, a long message, such as one
// listing the built-in scenarios, is not one line hundreds of columns
// wide that the terminal cuts mid-word.
func printMessage(stderr io.Writer, format string, args ...any) {
	io.WriteString(stderr, textfit.Wrap(fmt.Sprintf(format, args...), messageWidth(stderr)))
}

// messageWidth returns the width messages to w wrap to: that of a
// textfit.Writer, a terminal's width (textfit.TerminalWidth), or 0 (no
// wrapping) for any other writer: a log or a pipe keeps each message on
// one line, for grep and for scripts that read it.
func messageWidth(w io.Writer) int {
	if n := textfit.Width(w); n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return textfit.TerminalWidth(w)
	}
	return 0
}
