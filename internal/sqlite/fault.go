package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/taskgov/taskgov/internal/model"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrFileGone is wrapped when the database file was removed or replaced
// while the server ran: SQLite would go on writing to the removed file, and
// everything written would vanish at the next start.
var ErrFileGone = errors.New("the database file was removed or replaced while the server ran")

// Classify sorts an error from the store into a Fault (nil for nil). An
// error of unknown origin is transient.
func Classify(err error) *model.Fault {
	if err == nil {
		return nil
	}
	var f *model.Fault
	if errors.As(err, &f) {
		return f
	}
	if errors.Is(err, ErrFileGone) {
		return &model.Fault{Kind: model.FaultFatal, What: "database file removed or replaced", Err: err,
			Fix: "stop writing to DATA_DIR by hand; restore taskgov.db (with taskgov.db-wal) from a backup and restart"}
	}
	if errors.Is(err, syscall.ENOSPC) {
		return &model.Fault{Kind: model.FaultTransient, What: "disk full", Err: err, Fix: "free space in the data directory's file system"}
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return &model.Fault{Kind: model.FaultTransient, What: "write failed", Err: err}
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return &model.Fault{Kind: model.FaultTransient, What: "disk full", Err: err, Fix: "free space in the data directory's file system"}
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return &model.Fault{Kind: model.FaultTransient, What: "database busy", Err: err, Fix: "make sure no other program holds DATA_DIR/taskgov.db open"}
	case sqlite3.SQLITE_IOERR:
		return &model.Fault{Kind: model.FaultTransient, What: "I/O error", Err: err, Fix: "check the data directory's disk and file system"}
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return &model.Fault{Kind: model.FaultFatal, What: "database corrupt", Err: err,
			Fix: "stop the server and restore DATA_DIR/taskgov.db (with taskgov.db-wal) from a backup; the database cannot be trusted"}
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN:
		return &model.Fault{Kind: model.FaultFatal, What: "database file removed, replaced or read-only", Err: err,
			Fix: "restore DATA_DIR/taskgov.db from a backup, or make it writable, and restart"}
	case sqlite3.SQLITE_CONSTRAINT:
		return &model.Fault{Kind: model.FaultRejected, What: "write refused by a database constraint", Err: err}
	}
	return &model.Fault{Kind: model.FaultTransient, What: "write failed", Err: err}
}

// fileID identifies the database file: device and inode.
type fileID struct{ dev, ino uint64 }

func statID(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, nil
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, nil
}

// checkFile reports ErrFileGone if the file at the database's path is no
// longer the one the store opened, and a fatal Fault if its header is not
// SQLite's (the file was overwritten). It costs a stat and a 16-byte read.
func (s *Store) checkFile() error {
	id, err := statID(s.path)
	if err != nil {
		return fmt.Errorf("%w (%s: %v)", ErrFileGone, s.path, err)
	}
	if id != s.id {
		return fmt.Errorf("%w (%s is another file now)", ErrFileGone, s.path)
	}
	if s.f == nil {
		return nil
	}
	head := make([]byte, 16)
	if _, err := s.f.ReadAt(head, 0); err != nil || string(head) != "SQLite format 3\x00" {
		why := "its first 16 bytes are not SQLite's header"
		if err != nil {
			why = err.Error()
		}
		return &model.Fault{Kind: model.FaultFatal, What: "database corrupt (bad file header)", Err: fmt.Errorf("%s: %s", s.path, why),
			Fix: "stop the server and restore DATA_DIR/taskgov.db (with taskgov.db-wal) from a backup"}
	}
	return nil
}

// Probe is a quick health check: the database file is the one opened, its
// header is SQLite's, and it answers a query. It does not write.
func (s *Store) Probe(ctx context.Context) error {
	if f := s.fatal.Load(); f != nil {
		return f
	}
	if err := s.checkFile(); err != nil {
		return err
	}
	var v int
	return s.note(s.r.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&v))
}

// note returns err, classified as a fatal Fault when it says the database
// is corrupt, so that reads that find corruption stop the server as writes
// do (via Probe, which reports the last one).
func (s *Store) note(err error) error {
	if f := Classify(err); f != nil && f.Kind == model.FaultFatal {
		s.fatal.Store(f)
		return f
	}
	return err
}

// Classify is the package's Classify, for the engine's Store interface.
func (s *Store) Classify(err error) *model.Fault { return Classify(err) }
