package readers

import "strings"

// A boolean status column is read with true as success (DefaultOK), so an
// error flag ("is_error": false) would read backwards. Without Columns.OK,
// a status column whose every value is a boolean (or empty or null) and
// whose false rows, the failures, are more than half of all rows is
// refused: the reader cannot tell a flag of errors from a service failing
// most requests, and asks for --ok.

// boolCount counts the status values of a log that are booleans.
type boolCount struct {
	// nTrue and nFalse count the values "true" and "false" (any case);
	// nOther counts the values that are neither, nor empty, nor null.
	nTrue, nFalse, nOther int
}

// add counts status value v (a JSON null as "null").
func (b *boolCount) add(v string) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		b.nTrue++
	case "false":
		b.nFalse++
	case "", "null":
	default:
		b.nOther++
	}
}

// checkBoolStatus returns an *InputError (line 0: the whole column) when
// c.Status holds only booleans, c.OK is empty and its false rows, read as
// failures, are more than half of its rows; nil otherwise.
func (c *Columns) checkBoolStatus(file string, b boolCount, rows int) error {
	if c.Status == "" || len(c.OK) > 0 || b.nOther > 0 || 2*b.nFalse <= rows {
		return nil
	}
	return inputErr(file, 0, c.Status,
		"holds only booleans (true ×%d, false ×%d), and reading true as success counts %.1f %% of the %d rows as failed; "+
			"say which value means success: --ok false if the column flags errors (is_error), --ok true if it flags successes",
		b.nTrue, b.nFalse, 100*float64(b.nFalse)/float64(rows), rows)
}
