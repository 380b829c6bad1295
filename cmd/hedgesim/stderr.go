package main

import (
	"fmt"
	"io"

	"github.com/hedgesim/hedgesim/textfit"
)

// printMessage writes a message (an error, a note) to stderr, its lines
// wrapped at spaces to the terminal's width (textfit.TerminalWidth: 120
// columns when stderr is not a terminal), continuation lines indented two
// columns (textfit.Wrap): a long message, such as one listing the
// built-in scenarios, is not one line hundreds of columns wide.
func printMessage(stderr io.Writer, format string, args ...any) {
	io.WriteString(stderr, textfit.Wrap(fmt.Sprintf(format, args...), textfit.TerminalWidth(stderr)))
}
