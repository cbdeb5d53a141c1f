package main

import (
	"os"
	"path/filepath"
	"time"

	"github.com/taskgov/taskgov/internal/executor/local"
	"github.com/taskgov/taskgov/internal/model"
)

// newLocalExecutor builds the local executor from the server's flags: who
// tasks run as (--task-user) and where their directories live
// (--task-dir), checking that tasks can reach them.
func newLocalExecutor(o serverOptions, images map[string][]string) (*local.Executor, error) {
	users, err := local.ParseUsers(o.taskUser)
	if err != nil {
		return nil, &model.FieldError{Field: "--task-user", Problem: err.Error(), Fix: "use auto, per-team, server, or an unprivileged user's name"}
	}
	dir := o.taskDir
	if dir == "" && users.Mode != local.UsersServer {
		abs, err := filepath.Abs(o.dataDir)
		if err != nil {
			return nil, err
		}
		dir = abs + "-tasks"
	}
	l := local.NewWith(local.Options{StateDir: o.dataDir, TaskDir: dir, Users: users, Images: images, Now: time.Now})
	if err := l.CheckReachable(); err != nil {
		l.Close()
		return nil, &model.FieldError{Field: "--task-dir", Problem: err.Error(), Fix: "see docs/SERVER.md, Local executor"}
	}
	return l, nil
}

// fileModes: files written before this server version may be readable by
// others; the database and token are the server's alone.
func tightenDataFiles(dir string) {
	for _, name := range []string{"taskgov.db", "taskgov.db-wal", "taskgov.db-shm", "admin.token"} {
		_ = os.Chmod(filepath.Join(dir, name), 0o600)
	}
}
