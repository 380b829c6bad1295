package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A report directory (--out DIR) always holds exactly one run's complete
// output. The report is built in a temporary directory beside DIR
// (".DIR.hedgesim-PID-RANDOM"), then swapped in: on Linux by one atomic
// exchange of the two directories (renameat2 RENAME_EXCHANGE), elsewhere
// by two renames. The previous report is then deleted file by file.
//
// hedgesim never deletes a file it did not write. It knows its files from
// the manifest it writes into every report directory (manifestName, a list
// of the files). Before a run, DIR must be absent, empty, or a report
// directory holding only the files its manifest lists; otherwise the run
// stops at once with exit status 2, naming the other files. A report of
// another command (run's report where optimize writes, or the reverse) is
// replaced only with --force.
//
// On SIGINT or SIGTERM, or any failure, the temporary directory is
// removed and DIR is left as it was. A run killed outright (SIGKILL, a
// power cut) can leave the temporary directory behind; the next run into
// the same DIR removes it (its files are listed in its manifest, which is
// written first) unless the process that made it is still running.

// manifestName is the file in a report directory that lists hedgesim's
// files in it.
const manifestName = ".hedgesim-report.json"

// manifest is the content of manifestName.
type manifest struct {
	// WrittenBy is always "hedgesim".
	WrittenBy string `json:"written_by"`
	// Command is the command whose report it is: "run" or "optimize"
	// (merge writes optimize's report). Absent in reports of older builds.
	Command string `json:"command,omitempty"`
	// Files are the report's files, in writing order, the manifest
	// excluded.
	Files []string `json:"files"`
}

// outFile is one file of a report directory.
type outFile struct {
	name string
	data []byte
}

// writeHook, when set (by tests), is called after each file of a report is
// written to the temporary directory, with writeFiles' context and the
// file's name, and with "" just before the swap.
var writeHook func(ctx context.Context, name string)

// flagPath is a path given by a flag (flag without its dashes), or, when
// flag is empty, an input file the command reads (path).
type flagPath struct{ flag, path string }

// prepareOutDir checks, before any work, that the report directory dir
// can be written: its parent exists (a missing one is refused, as for
// every output, so that a typo is caught) and is writable, dir is absent, empty or a report directory of hedgesim's
// only, and none of the other output files (those with a path) is inside
// it, since the directory is replaced whole. A report of another command
// than command is replaced only when force is set. Problems are usage
// errors. It also removes the temporary directories of killed runs into dir.
func prepareOutDir(flagName, dir, command string, force bool, others ...flagPath) error {
	if dir == "-" {
		return usageError{err: fmt.Errorf("--%s -: standard output carries the report; name a directory", flagName)}
	}
	dest, err := resolveOut(dir)
	if err != nil {
		return usageError{err: fmt.Errorf("--%s %s: %w", flagName, dir, err)}
	}
	for _, o := range others {
		if o.path == "" {
			continue
		}
		// Where the file goes, its links followed.
		p, err := resolveOutput(o.path)
		if err != nil {
			// Its directory may be inside dir, not made yet.
			if p, err = filepath.Abs(o.path); err != nil {
				continue
			}
			if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
				p = filepath.Join(real, filepath.Base(p))
			}
		}
		if rel, err := filepath.Rel(dest, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			if o.flag == "" {
				return usageError{err: fmt.Errorf("the input %s is inside --%s %s, which is replaced whole by the report; outputs never replace inputs: write the report elsewhere", o.path, flagName, dir)}
			}
			return usageError{err: fmt.Errorf("--%s %s is inside --%s %s, which is replaced whole by the report; write it elsewhere", o.flag, o.path, flagName, dir)}
		}
	}
	parent := filepath.Dir(dest)
	if st, err := os.Stat(parent); errors.Is(err, fs.ErrNotExist) {
		return usageError{err: fmt.Errorf("--%s %s: directory %s does not exist", flagName, dir, filepath.Dir(filepath.Clean(dir)))}
	} else if err != nil {
		return usageError{err: fmt.Errorf("--%s %s: %w", flagName, dir, err)}
	} else if !st.IsDir() {
		return usageError{err: fmt.Errorf("--%s %s: %s is not a directory", flagName, dir, filepath.Dir(filepath.Clean(dir)))}
	}
	probe, err := os.MkdirTemp(parent, tempPrefix(dest)+"probe-")
	if err != nil {
		return usageError{err: fmt.Errorf("--%s %s: cannot write to %s: %w", flagName, dir, parent, err)}
	}
	os.Remove(probe)
	removeStale(dest)
	own, err := ownFiles(dest)
	if err != nil {
		return usageError{err: fmt.Errorf("--%s %s: %w", flagName, dir, err)}
	}
	if other := reportCommand(dest); len(own) > 0 && other != "" && other != command && !force {
		return usageError{err: fmt.Errorf("--%s %s holds the report of hedgesim %s (%s); %s would replace it whole: choose another directory, or pass --force to replace it",
			flagName, dir, other, fileList(own), command)}
	}
	return nil
}

// reportCommand returns the command whose report the directory dest holds,
// from its manifest: "" when there is none, or it does not say.
func reportCommand(dest string) string {
	data, err := os.ReadFile(filepath.Join(dest, manifestName))
	if err != nil {
		return ""
	}
	var m manifest
	if json.Unmarshal(data, &m) != nil || m.WrittenBy != "hedgesim" {
		return ""
	}
	return m.Command
}

// fileList names at most five of files, then how many more there are.
func fileList(files []string) string {
	shown := files[:min(len(files), 5)]
	s := strings.Join(shown, ", ")
	if len(files) > len(shown) {
		s += fmt.Sprintf(" and %d more", len(files)-len(shown))
	}
	return s
}

// resolveOut returns the absolute path of the report directory dir, with
// symbolic links resolved (a dangling link leads to where the directory
// is made); an existing dir must be a directory.
func resolveOut(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if real, err := resolveOutput(abs); err == nil {
			return real, nil
		}
		return abs, nil
	case err != nil:
		return "", err
	case !st.IsDir():
		return "", errors.New("exists and is not a directory")
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if filepath.Dir(real) == real {
		return "", errors.New("is a file system root; want a directory of its own for the report")
	}
	if isMountPoint(real) {
		return "", errors.New("is a mount point, which cannot be renamed, and the report directory is replaced whole (built beside it, then swapped in); give a directory inside it")
	}
	return real, nil
}

// tempPrefix is the name prefix of dest's temporary directories.
func tempPrefix(dest string) string {
	return "." + filepath.Base(dest) + ".hedgesim-"
}

// ownFiles returns the files of the report directory dest that its manifest
// lists (none when dest is absent or empty), or an error naming the
// entries hedgesim did not write.
func ownFiles(dest string) ([]string, error) {
	entries, err := os.ReadDir(dest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, nil
	}
	var m manifest
	if data, err := os.ReadFile(filepath.Join(dest, manifestName)); err == nil {
		if json.Unmarshal(data, &m) != nil || m.WrittenBy != "hedgesim" {
			m = manifest{}
		}
	}
	var foreign []string
	for _, e := range entries {
		if e.Name() == manifestName && m.WrittenBy != "" {
			continue
		}
		if !e.Type().IsRegular() || !slices.Contains(m.Files, e.Name()) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		return nil, fmt.Errorf("holds files hedgesim did not write (%s); a report replaces the whole directory, so choose a new or empty directory, or move them away",
			fileList(foreign))
	}
	var own []string
	for _, f := range m.Files {
		// Only plain names of files in dest: a list that names a path
		// elsewhere ("../x") is not hedgesim's and deletes nothing.
		if f == "" || f == "." || f == ".." || f != filepath.Base(f) || strings.ContainsAny(f, `/\`) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dest, f)); err == nil {
			own = append(own, f)
		}
	}
	return own, nil
}

// writeFiles writes files as the report directory dir, which prepareOutDir
// has checked: into a temporary directory beside it, then swapped in. It
// stops and cleans up when ctx is done, returning ctx's error; dir is then
// unchanged. command names the command whose report it is, in the manifest.
func writeFiles(ctx context.Context, dir, command string, files []outFile) (err error) {
	dest, err := resolveOut(dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), tempPrefix(dest)+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return err
	}
	m := manifest{WrittenBy: "hedgesim", Command: command}
	for _, f := range files {
		m.Files = append(m.Files, f.name)
	}
	defer func() {
		if err != nil {
			removeReport(tmp, m.Files)
		}
	}()
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	// The manifest goes first, so that a killed run's directory can be
	// cleaned up by the next.
	if err := writeFile(filepath.Join(tmp, manifestName), append(data, '\n')); err != nil {
		return err
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(tmp, f.name), f.data); err != nil {
			return err
		}
		if writeHook != nil {
			writeHook(ctx, f.name)
		}
	}
	mode := fs.FileMode(0o755)
	if st, err := os.Stat(dest); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	syncDir(tmp)
	if writeHook != nil {
		writeHook(ctx, "")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Files added to dir during the run are not ours to replace.
	old, err := ownFiles(dest)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if err := swapDir(tmp, dest); err != nil {
		return fmt.Errorf("%s: swapping in the new report: %w", dir, err)
	}
	// tmp now holds the previous report, if any.
	removeReport(tmp, old)
	syncDir(filepath.Dir(dest))
	return nil
}

// writeFile writes data to the new file path and flushes it to disk.
func writeFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir flushes a directory's entries to disk where the file system
// allows it (not all can sync a directory; the files themselves are
// synced by writeFile).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// exchangeDirs is exchange; tests replace it to take the fallback path.
var exchangeDirs = exchange

// swapDir puts the directory tmp at dest, leaving dest's previous
// directory, if any, at tmp.
func swapDir(tmp, dest string) error {
	if _, err := os.Lstat(dest); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(tmp, dest)
	}
	if err := exchangeDirs(tmp, dest); err == nil {
		return nil
	} else if !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	// Two renames: between them dest is briefly absent.
	old := tmp + ".old"
	if err := os.Rename(dest, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, dest); err != nil {
		os.Rename(old, dest)
		return err
	}
	return os.Rename(old, tmp)
}

// removeReport deletes the files of a report directory that hedgesim
// wrote (names, and the manifest), then the directory if that leaves it
// empty.
func removeReport(dir string, names []string) {
	for _, n := range names {
		os.Remove(filepath.Join(dir, n))
	}
	os.Remove(filepath.Join(dir, manifestName))
	os.Remove(dir)
}

// removeStale removes the temporary directories that killed runs left
// beside dest: those whose process is gone, holding only the files their
// manifest lists. A previous report that a run killed between the two
// renames of swapDir left aside is put back at dest instead.
func removeStale(dest string) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), globEscape(tempPrefix(dest))+"*"))
	for _, tmp := range matches {
		rest := strings.TrimPrefix(filepath.Base(tmp), tempPrefix(dest))
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		if _, err := os.Lstat(dest); errors.Is(err, fs.ErrNotExist) && strings.HasSuffix(tmp, ".old") {
			os.Rename(tmp, dest)
			continue
		}
		if files, err := ownFiles(tmp); err == nil {
			removeReport(tmp, files)
		}
	}
}

// globEscape escapes the metacharacters of filepath.Match in s.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
