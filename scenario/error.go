package scenario

import (
	"fmt"
	"strconv"
)

// Error is a problem found in a scenario file, or in reading it: every
// error that Parse, Load and LoadFS return is an *Error.
type Error struct {
	// File is the file name given to Parse or Load.
	File string
	// Line is the 1-based line the problem is on, 0 when no line applies
	// (for example a required table that is missing altogether).
	Line int
	// Key is the full path of the key, with array indices, as in
	// "models.guard.latency.sigma" or "classes[1].hedge.delay"; empty for
	// syntax errors that are not about one key.
	Key string
	// Msg says what is wrong, the offending value and what is allowed.
	Msg string
	// Err is the underlying error when the file could not be read (then
	// Line is 0), else nil.
	Err error
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Error formats the problem as "file:line: key: msg", leaving out the line
// when it is 0 and the key when it is empty.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		s += ": " + e.Key
	}
	return s + ": " + e.Msg
}

// errorf returns an *Error for key, on the line where the key (or, when
// the key is absent from the file, its longest present prefix) is written.
func (c *checker) errorf(key, format string, args ...any) *Error {
	return &Error{File: c.file, Line: c.lines.lineOf(key), Key: key, Msg: fmt.Sprintf(format, args...)}
}
