package main

import (
	"os"
	"path/filepath"
)

// writeFileAtomic writes data to dir/name through a temporary file in dir
// that is synced and renamed into place, so that the file is either its
// old self or complete; the temporary file is removed on failure.
func writeFileAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	// CreateTemp makes the file readable by its owner only; the config or
	// scenario written here is for others (a proxy, a teammate) to read too.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		os.Remove(tmp)
		return err
	}
	syncDir(dir)
	return nil
}
