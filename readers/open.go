package readers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// DefaultMaxBytes is the largest log or trace file Open accepts unless told
// otherwise: 1 GiB, about 20 million rows of a CSV trace.
const DefaultMaxBytes int64 = 1 << 30

// MaxBytesEnv names the environment variable that overrides
// DefaultMaxBytes for the hedgesim command: a whole number of bytes.
const MaxBytesEnv = "HEDGESIM_MAX_DATA_BYTES"

// ErrNotRegular is returned (wrapped) by Open for a path that is not a
// regular file: a directory, a device such as /dev/zero, a FIFO or a socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned (wrapped) when a file is larger than its bound.
var ErrTooLarge = errors.New("file too large")

// Open opens path for reading if it is a regular file (symbolic links are
// followed) of at most maxBytes bytes (maxBytes ≤ 0 means DefaultMaxBytes).
// The returned file's reads fail with an error wrapping ErrTooLarge once
// more than maxBytes bytes have been read, so a file that grows while it is
// read stays bounded too. Open never blocks on a FIFO: the file is opened
// non-blocking and checked with fstat before anything is read. Errors name
// the path and wrap ErrNotRegular, ErrTooLarge or the os error.
func Open(path string, maxBytes int64) (io.ReadCloser, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	// A first Stat rejects special files before open(2), which could block
	// (a FIFO without writer) or have side effects (a tape device).
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, st, maxBytes); err != nil {
		return nil, err
	}
	// O_NONBLOCK: if the path was swapped for a FIFO since the Stat, open
	// returns at once and the fstat below rejects it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if st, err = f.Stat(); err == nil {
		err = checkRegular(path, st, maxBytes)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &boundedFile{f: f, path: path, left: maxBytes, max: maxBytes}, nil
}

// ReadFile is os.ReadFile through Open: the whole of a regular file of at
// most maxBytes bytes.
func ReadFile(path string, maxBytes int64) ([]byte, error) {
	f, err := Open(path, maxBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func checkRegular(path string, st fs.FileInfo, maxBytes int64) error {
	if !st.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("is %s, %w", kindOf(st.Mode()), ErrNotRegular)}
	}
	if st.Size() > maxBytes {
		return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: %d bytes, more than the limit of %s", ErrTooLarge, st.Size(), FormatBytes(maxBytes))}
	}
	return nil
}

// kindOf names the kind of a file that is not regular.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// FormatBytes writes n bytes in the largest binary unit that divides it
// ("64 MiB", "1 GiB"), or as bytes.
func FormatBytes(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// boundedFile is an *os.File that fails instead of reading past its bound.
type boundedFile struct {
	f         *os.File
	path      string
	left, max int64
}

func (b *boundedFile) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Anything more is over the bound; a file that ends exactly at it
		// reads as EOF.
		var one [1]byte
		if n, _ := b.f.Read(one[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, &fs.PathError{Op: "read", Path: b.path, Err: fmt.Errorf("%w: more than the limit of %s", ErrTooLarge, FormatBytes(b.max))}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.f.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedFile) Close() error { return b.f.Close() }

// lineLimiter passes a reader through, failing with an *InputError once a
// line grows longer than maxLine bytes, so that a CSV reader never holds
// more than that of one record (a file without newlines would otherwise be
// read whole into one field).
type lineLimiter struct {
	r    io.Reader
	file string
	line int // 1-based line of the next byte
	cur  int // bytes of the current line read so far
}

func limitLines(r io.Reader, file string) io.Reader {
	return &lineLimiter{r: r, file: file, line: 1}
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	b := p[:n]
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.cur += len(b)
			break
		}
		if l.cur+i > maxLine {
			break
		}
		l.line++
		l.cur = 0
		b = b[i+1:]
	}
	if l.cur > maxLine || len(b) > 0 && bytes.IndexByte(b, '\n') >= 0 {
		return 0, inputErr(l.file, l.line, "", "line longer than %d MiB", maxLine>>20)
	}
	return n, err
}
