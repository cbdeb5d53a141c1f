package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/taskgov/taskgov/internal/model"
)

// dataDirLockName is the file in the data directory that a running server
// holds an exclusive flock(2) on, with its pid written in it.
const dataDirLockName = "server.lock"

// lockDataDir claims dir for this server until release is called (or the
// process ends: the kernel drops the lock of a killed server). A second
// server on the same directory is refused: it would share the SQLite
// database's files, its task directories and, as a standby, kill the
// leader's tasks as strays of its own.
func lockDataDir(dir string) (release func(), err error) {
	path := filepath.Join(dir, dataDirLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, dataDirError(dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := "another taskgov server"
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
				holder = fmt.Sprintf("another taskgov server (pid %d)", pid)
			}
		}
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &model.FieldError{Field: "--data-dir",
				Problem: fmt.Sprintf("%s is in use by %s", dir, holder),
				Fix:     "stop that server first, or give each server its own --data-dir (replicas of one PostgreSQL store too)"}
		}
		return nil, dataDirError(dir, err)
	}
	// The pid is for the message above only; the lock is the flock.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}
