package postgres

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// sqliteDMS is the byte of a WAL database's -shm file on which every
// connection to it holds a shared lock for as long as it is open (SQLite's
// "dead man switch", UNIX_SHM_DMS in os_unix.c: the lock bytes start at
// offset 120, and there are 8 of them before it).
const sqliteDMS = 128

// SQLiteHolder returns the process id of another process that has the
// SQLite database at path open (a running taskgov server), 0 if none has,
// or -1 if one has whose id this process cannot see (another PID
// namespace). It asks the kernel whether a write lock on the database's shared
// memory file would conflict, so it sees a server on this host only (a
// database on a network file system, used from another host, is not
// seen; WAL databases must not be shared across hosts anyway). Call it only
// while this process has no connection to the database: closing a
// descriptor of the file drops every lock the process holds on it (use
// shmProbe then).
func SQLiteHolder(path string) (int, error) {
	p := shmProbe{path: path}
	defer p.close()
	return p.holder()
}

// shmProbe is SQLiteHolder for a process that has the database open too.
// It keeps its descriptor of the -shm file until close, which must come
// after the process's connections are closed: POSIX drops all of a
// process's locks on a file when any descriptor of it is closed, the read
// lock that holds a SQLite snapshot included.
type shmProbe struct {
	path string
	f    *os.File
}

// fakeHolder, if set, stands for a server in another process (the kernel
// does not report a process's own locks); tests set it.
var fakeHolder func() int

func (p *shmProbe) holder() (int, error) {
	if fakeHolder != nil {
		return fakeHolder(), nil
	}
	if p.f == nil {
		f, err := os.Open(p.path + "-shm")
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil // no connection has it open in WAL mode
		}
		if err != nil {
			return 0, fmt.Errorf("checking whether a server uses %s: %w", p.path, err)
		}
		p.f = f
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: sqliteDMS, Len: 1}
	if err := syscall.FcntlFlock(p.f.Fd(), syscall.F_GETLK, &lk); err != nil {
		return 0, fmt.Errorf("checking whether a server uses %s: %w", p.path, err)
	}
	if lk.Type == syscall.F_UNLCK {
		return 0, nil
	}
	if lk.Pid <= 0 {
		return -1, nil // held from another PID namespace (container)
	}
	return int(lk.Pid), nil
}

// HolderName says which process a holder is, for messages.
func HolderName(pid int) string {
	if pid > 0 {
		return fmt.Sprintf("pid %d", pid)
	}
	return "a process in another container"
}

func (p *shmProbe) close() {
	if p.f != nil {
		p.f.Close()
	}
}
