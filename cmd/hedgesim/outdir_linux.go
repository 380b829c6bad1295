package main

import (
	"errors"

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
