// Package textfit fits the reports' text to a terminal's width.
//
// A report is written to an io.Writer. To fit it to W columns, wrap the
// destination in a *Writer of width W: the report's tables (NewTable, a
// stand-in for text/tabwriter) read the width from it and fit themselves
// to it (Table), and Wrap then breaks the prose lines that are still
// wider. A report written to any other writer, or to a Writer of width 0,
// is byte for byte what text/tabwriter prints: the full, wide text.
//
// Widths are counted in runes, as text/tabwriter counts them; the
// reports print no double-width characters.
package textfit

import (
	"io"
	"os"

	"golang.org/x/term"
)

// DefaultWidth is the width text is fitted to when standard output is not
// a terminal (a pipe, a file), in columns.
const DefaultWidth = 120

// Writer is an io.Writer with the width, in columns, that text written
// to it should fit; Cols 0 means no limit (the wide text).
type Writer struct {
	W    io.Writer
	Cols int
}

// NewWriter returns w with the width cols (0: no limit).
func NewWriter(w io.Writer, cols int) *Writer { return &Writer{W: w, Cols: cols} }

// Write writes p to the underlying writer unchanged.
func (w *Writer) Write(p []byte) (int, error) { return w.W.Write(p) }

// Width returns the width text written to w should fit: Cols.
func (w *Writer) Width() int { return w.Cols }

// Width returns the width text written to w should fit, in columns: that
// of a *Writer (or any writer with a Width() int method), 0 (no limit) for
// any other writer.
func Width(w io.Writer) int {
	if x, ok := w.(interface{ Width() int }); ok {
		return max(x.Width(), 0)
	}
	return 0
}

// TerminalWidth returns the width to fit text written to w to: the
// terminal's width when w is a terminal (golang.org/x/term), else
// DefaultWidth.
func TerminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return DefaultWidth
}
