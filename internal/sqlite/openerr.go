package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// openError says why the database at path could not be opened and
// migrated, in words and with what to do, naming the file: SQLite's own
// errors ("file is not a database (26)", "disk I/O error (4874)") name
// neither. It never touches the file; err stays wrapped.
func openError(path string, err error) error {
	dir := filepath.Dir(path)
	if fi, statErr := os.Stat(path); statErr == nil && fi.IsDir() {
		return fmt.Errorf("opening database %s: the path is a directory, not a database file (%w); move it away, or give another --data-dir", path, err)
	}
	if free, ok := freeBytes(dir); ok && free < 1<<20 && (errors.Is(err, syscall.ENOSPC) || sqliteCode(err) == sqlite3.SQLITE_FULL || sqliteCode(err) == sqlite3.SQLITE_IOERR) {
		return fmt.Errorf("opening database %s: the file system holding %s is full (%d bytes free; %w); free space there and restart", path, dir, free, err)
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		return fmt.Errorf("opening database %s: the file is not a valid taskgov database (damaged or overwritten: %w); "+
			"restore it (with taskgov.db-wal) from a backup, or move it aside to start with an empty database (its tasks are then lost)", path, err)
	case sqlite3.SQLITE_READONLY:
		return fmt.Errorf("opening database %s: the file is read-only (%w); make it and %s writable by the server's user", path, err, dir)
	case sqlite3.SQLITE_CANTOPEN:
		return fmt.Errorf("opening database %s: the file cannot be opened (%w); check that it and %s are readable and writable by the server's user", path, err, dir)
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL:
		return fmt.Errorf("opening database %s: the disk failed to read or write it (%w); check the disk and file system holding %s", path, err, dir)
	}
	return fmt.Errorf("opening database %s: %w", path, err)
}

// sqliteCode is err's primary SQLite result code, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return 0
	}
	return se.Code() & 0xff
}

// freeBytes is the space an unprivileged writer may still use on dir's
// file system.
func freeBytes(dir string) (uint64, bool) {
	var fs syscall.Statfs_t
	if syscall.Statfs(dir, &fs) != nil {
		return 0, false
	}
	return fs.Bavail * uint64(fs.Bsize), true
}
