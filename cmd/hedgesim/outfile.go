package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Every file a command writes (run --trace, optimize --write-scenario,
// optimize --shard --out, merge --state and --write-scenario, export
// --out) is named by a flag and goes through checkOutput before any work,
// then is written whole or not at all: into a temporary file beside its
// target, synced, then renamed onto it (writeFileAtomic, createTemp).
//
// A symbolic link is written through: the file written is the link's
// final target (followed like open(2) follows it, a dangling link
// included), so the link stays a link. An output whose target exists and
// is not a regular file (a directory, a FIFO, a device such as /dev/null
// or a terminal) is refused, and so is one in a directory that a file
// cannot be created in (checked by creating and removing one), since the rename would replace it; so is an
// output that is the command's standard output or error (/dev/stdout
// redirected to a file), whose report it would lose, and one that is any of
// the command's inputs (the scenario, a part, a --resume state, a report),
// compared as files after following links: outputs never replace inputs.

// maxLinks bounds the symbolic links followed to an output's target, as
// the kernel's MAXSYMLINKS does.
const maxLinks = 40

// outputFile is a file a command writes, checked by checkOutput.
type outputFile struct {
	path string // as given
	// dir and name are the file written: path with its symbolic links
	// followed, dir absolute and free of links.
	dir, name string
}

// input is a file a command reads: what it is ("the input scenario", "a
// part of this merge") and its path as given.
type input struct{ what, path string }

// checkOutput checks, before any work, that the output file path named by
// --flag can be written, and returns where it goes. Usage errors: an empty
// path or "-" (standard output carries the report: leave the flag out or
// name a file), a directory that does not exist or cannot be written to
// (checked by creating and removing a temporary file in it), a target that exists and
// is not a regular file, standard output or error, or one of inputs
// (those with an empty path are skipped).
func checkOutput(flag, path string, inputs ...input) (*outputFile, error) {
	bad := func(format string, a ...any) error {
		return usageError{err: fmt.Errorf("--%s %s: "+format, append([]any{flag, path}, a...)...)}
	}
	switch path {
	case "":
		return nil, usageError{err: fmt.Errorf("--%s: empty path", flag)}
	case "-":
		return nil, bad("standard output carries the report; name a file")
	}
	st, err := os.Stat(path) // follows links
	switch {
	case errors.Is(err, fs.ErrNotExist):
		st = nil
	case err != nil:
		return nil, bad("%v", err)
	case st.IsDir():
		return nil, usageError{err: fmt.Errorf("--%s %s is a directory; want a file name", flag, path)}
	case !st.Mode().IsRegular():
		return nil, usageError{err: fmt.Errorf("--%s %s is not a regular file (%s); it would be replaced: want a file name", flag, path, st.Mode().Type())}
	}
	target, err := resolveOutput(path)
	if err != nil {
		return nil, bad("%v", err)
	}
	dir := filepath.Dir(target)
	if dst, err := os.Stat(dir); err != nil || !dst.IsDir() {
		shown := filepath.Dir(path)
		if target != path {
			shown = dir
		}
		return nil, bad("directory %s does not exist", shown)
	}
	if st != nil {
		for _, std := range []struct {
			name string
			f    *os.File
		}{{"standard output", os.Stdout}, {"standard error", os.Stderr}} {
			if fst, err := std.f.Stat(); err == nil && os.SameFile(st, fst) {
				return nil, bad("is %s, which carries the report; name another file", std.name)
			}
		}
		for _, in := range inputs {
			if in.path == "" || in.path == "-" {
				continue
			}
			if ist, err := os.Stat(in.path); err == nil && os.SameFile(st, ist) {
				return nil, usageError{err: fmt.Errorf("--%s %s is %s (%s); outputs never replace inputs: write to another file", flag, path, in.what, in.path)}
			}
		}
	}
	o := &outputFile{path: path, dir: dir, name: filepath.Base(target)}
	// The file is written by creating a temporary file beside it: try
	// that now, so that a directory that cannot be written to (no
	// permission, a read-only or pseudo file system) stops the command
	// before any work rather than after it.
	probe, err := o.createTemp()
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, bad("cannot write to directory %s: %v", dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return o, nil
}

// target returns the path of the file written.
func (o *outputFile) target() string { return filepath.Join(o.dir, o.name) }

// write writes data to o atomically (writeFileAtomic).
func (o *outputFile) write(data []byte) error { return writeFileAtomic(o.dir, o.name, data) }

// resolveOutput returns the file that writing path writes, as an absolute
// path whose directory is free of symbolic links: path itself, or, for a
// symbolic link, its final target, which need not exist. It fails when
// the directory of the target does not exist or the links loop.
func resolveOutput(path string) (string, error) {
	p, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for range maxLinks {
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return "", fmt.Errorf("directory %s does not exist", filepath.Dir(p))
		}
		p = filepath.Join(dir, filepath.Base(p))
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return p, nil // absent, or not a link
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(dir, to)
		}
		p = to
	}
	return "", errors.New("too many levels of symbolic links")
}

// createTemp creates the temporary file beside o's target that o is
// written to before it is renamed into place.
func (o *outputFile) createTemp() (*os.File, error) {
	return os.CreateTemp(o.dir, "."+o.name+".tmp*")
}

// pathValue is the value of a flag naming a file or directory; an
// explicitly empty one is a usage error (parseFlags).
type pathValue string

func (v *pathValue) String() string     { return string(*v) }
func (v *pathValue) Set(s string) error { *v = pathValue(s); return nil }

// pathFlag defines a path flag (pathValue) on fs.
func pathFlag(fs *flag.FlagSet, name, usage string) *string {
	p := new(pathValue)
	fs.Var(p, name, usage)
	return (*string)(p)
}

// emptyPath returns a usage error naming the first path flag of fs set
// to "".
func emptyPath(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if _, ok := f.Value.(*pathValue); ok && err == nil && f.Value.String() == "" {
			err = usageError{err: fmt.Errorf("--%s: empty path", f.Name)}
		}
	})
	return err
}

// scenarioInput is the scenario file named by a command's positional
// arguments, as an input outputs must not replace; none when it is a
// built-in scenario.
func scenarioInput(pos []string) input {
	if len(pos) == 1 {
		if st, err := os.Stat(pos[0]); err == nil && !st.IsDir() {
			return input{"the input scenario", pos[0]}
		}
	}
	return input{}
}
