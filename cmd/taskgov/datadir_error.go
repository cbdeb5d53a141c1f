package main

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/taskgov/taskgov/internal/model"
)

// dataDirError says why the data directory cannot be made or closed to
// others (mode 0700) at start, and what to do: a read-only file system, a
// path through a file, or a directory the server's user does not own. It
// is a refusal of the --data-dir given (exit 2), not a server failure.
func dataDirError(dir string, err error) error {
	fix := "give a directory on a writable file system that the server's user owns or may create"
	switch {
	case errors.Is(err, syscall.EROFS):
		fix = "the file system is mounted read-only: remount it read-write, or give a --data-dir elsewhere"
	case errors.Is(err, syscall.ENOTDIR):
		fix = "a part of the path is a file, not a directory: give a --data-dir whose parents are directories"
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		fix = "run the server as the directory's owner, or give a --data-dir the server's user owns"
	}
	return &model.FieldError{Field: "--data-dir", Problem: fmt.Sprintf("%s cannot be used as the data directory (%v)", dir, err), Fix: fix}
}
