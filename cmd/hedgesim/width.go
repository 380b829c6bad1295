package main

import (
	"bytes"
	"flag"
	"io"

	"github.com/hedgesim/hedgesim/textfit"
)

// wideFlag adds --wide to fs.
func wideFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("wide", false, "print the text at full width, every table and line as wide as its content (as --out's report.txt holds it), instead of fitting it to the terminal (120 columns when standard output is not one)")
}

// fittedText returns the text write writes, fitted to stdout's width
// (textfit.TerminalWidth: its tables narrowed, its long lines wrapped),
// or at full width when wide is set.
func fittedText(stdout io.Writer, wide bool, write func(io.Writer) error) ([]byte, error) {
	width := 0
	if !wide {
		width = textfit.TerminalWidth(stdout)
	}
	var b bytes.Buffer
	if err := write(textfit.NewWriter(&b, width)); err != nil {
		return nil, err
	}
	return []byte(textfit.Wrap(b.String(), width)), nil
}
