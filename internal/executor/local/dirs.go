package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/taskgov/taskgov/internal/executor"
)

// Layout. The state directory is the server's alone (0700): logs and run
// markers, beside the database and admin token. The task directory is
// shared with pods, one directory per team and one per task inside it:
//
//	TASKDIR/                 0711, server's: pods may pass, not list
//	TASKDIR/TEAM/            0710, server's, group of the team's uid: only
//	                         that team's pods may pass (0700 without users)
//	TASKDIR/TEAM/TASK/       0700, the team's uid: the pod's working,
//	                         home and checkpoint directory
//	TASKDIR/TEAM/TASK.owner  0600, server's: the task record that owns TASK
//	TASKDIR/TEAM/TASK.N/     an earlier task N's directory, moved aside when
//	                         a new task reused the name
//
// The server creates TEAM and TASK itself, inside directories no pod can
// write, so a pod cannot plant a symlink where the server will follow it.

// teamDir returns a team's directory.
func (e *Executor) teamDir(team string) string { return filepath.Join(e.taskDir, team) }

// CheckpointDir is where a task's checkpoints live, across runs; it is also
// the pod's working and home directory.
func (e *Executor) CheckpointDir(team, task string) string {
	return filepath.Join(e.taskDir, team, task)
}

func (e *Executor) logDir(task string) string {
	return filepath.Join(e.stateDir, "tasks", task, "logs")
}

func (e *Executor) logPath(task string, rank int) string {
	return filepath.Join(e.logDir(task), fmt.Sprintf("rank-%d.log", rank))
}

// clearLogs removes a task's rank logs: a new task of a name that an
// earlier, finished task had starts without that task's output.
func (e *Executor) clearLogs(task string) {
	logs, _ := filepath.Glob(filepath.Join(e.logDir(task), "rank-*.log"))
	for _, l := range logs {
		_ = os.Remove(l)
	}
}

// prepareRoots creates the state and task directories with their modes
// (whatever the umask or an earlier mode).
func (e *Executor) prepareRoots() error {
	if err := mkdirMode(e.stateDir, 0o700); err != nil {
		return err
	}
	mode := fs.FileMode(0o711)
	if e.users.Mode == UsersServer {
		mode = 0o700
	}
	return mkdirMode(e.taskDir, mode)
}

// prepareTask creates (or re-checks) a task's directories and returns its
// checkpoint directory, claimed for the task's record: an earlier task's of
// the name is moved aside unless the spec keeps it (ClaimCheckpointDir).
func (e *Executor) prepareTask(spec executor.StartSpec) (string, error) {
	team, task := spec.Team, spec.Task
	if err := e.prepareRoots(); err != nil {
		return "", err
	}
	if err := mkdirMode(filepath.Join(e.stateDir, "tasks"), 0o700); err != nil {
		return "", err
	}
	if err := mkdirMode(filepath.Join(e.stateDir, "tasks", task), 0o700); err != nil {
		return "", err
	}
	if err := mkdirMode(e.logDir(task), 0o700); err != nil {
		return "", err
	}
	uid, gid, sw := e.users.ids(team)
	td := e.teamDir(team)
	if sw {
		if err := mkdirOwned(td, 0o710, uint32(os.Geteuid()), gid); err != nil {
			return "", err
		}
	} else if err := mkdirMode(td, 0o700); err != nil {
		return "", err
	}
	ckpt := e.CheckpointDir(team, task)
	if _, err := executor.ClaimCheckpointDir(ckpt, spec); err != nil {
		return "", fmt.Errorf("task %s: %w", task, err)
	}
	if err := mkdirOwned(ckpt, 0o700, uid, gid); err != nil {
		return "", err
	}
	return ckpt, nil
}

// mkdirMode makes dir (and missing parents) and sets its mode.
func mkdirMode(dir string, mode fs.FileMode) error {
	if err := os.MkdirAll(dir, mode); err != nil {
		return err
	}
	return os.Chmod(dir, mode)
}

// mkdirOwned makes dir if missing, refuses anything but a real directory in
// its place, and sets its owner and mode without following links.
func mkdirOwned(dir string, mode fs.FileMode, uid, gid uint32) error {
	if err := os.Mkdir(dir, mode); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (a %v); remove it", dir, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && (st.Uid != uid || st.Gid != gid) {
		if err := os.Lchown(dir, int(uid), int(gid)); err != nil {
			return err
		}
	}
	return os.Chmod(dir, mode)
}

// CheckReachable reports an error when pods running as another user could
// not reach the task directory, because a directory above it is closed to
// others (a private home or temporary directory, say).
func (e *Executor) CheckReachable() error {
	if e.users.Mode == UsersServer {
		return nil
	}
	for d := filepath.Dir(e.taskDir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil && fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("tasks run as other users (--task-user %s) but cannot pass %s (mode %v) to reach the task directory %s: "+
				"give --task-dir a directory whose parents all may be passed (e.g. /var/lib/taskgov-tasks), or run tasks as the server's user with --task-user server",
				e.users.Mode, d, fi.Mode().Perm(), e.taskDir)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
