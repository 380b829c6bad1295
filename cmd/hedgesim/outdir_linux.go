package main

import (
	"errors"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories a and b in one atomic step
// (renameat2(2) with RENAME_EXCHANGE, Linux 3.15 and later). It returns
// errors.ErrUnsupported when the kernel or file system cannot.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return errors.ErrUnsupported
	}
	return err
}

// isMountPoint reports whether the directory path is the root of a mount
// (statx's STATX_ATTR_MOUNT_ROOT, Linux 5.8 and later, which sees bind
// mounts too; else a device other than its parent's). A mount point cannot
// be renamed, so it cannot be a report directory, which is replaced whole.
func isMountPoint(path string) bool {
	var stx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_BASIC_STATS, &stx); err == nil &&
		stx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 {
		return stx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
	}
	var st, up unix.Stat_t
	if unix.Stat(path, &st) != nil || unix.Stat(filepath.Dir(path), &up) != nil {
		return false
	}
	return st.Dev != up.Dev
}
