// Package local is the executor that runs each pod as a child process of the
// server, on virtual nodes that all live on this host.
//
// A pod's environment is built from nothing: PATH, HOME, the task's env, and
// TASKGOV_TASK, TASKGOV_TEAM, TASKGOV_NODE, TASKGOV_NODE_RANK,
// TASKGOV_NUM_NODES, TASKGOV_CHECKPOINT_DIR (the same directory for every
// run of the task), TASKGOV_RESUME_COUNT, CUDA_VISIBLE_DEVICES (the assigned
// GPU indices; on virtual nodes these are virtual), and MASTER_ADDR,
// MASTER_PORT, WORLD_SIZE, RANK and LOCAL_RANK for torchrun-style scripts.
// A pod reports a checkpoint by writing the file CheckpointFile in its
// checkpoint directory.
//
// Each pod leads its own session. Users says which uid it runs as: the
// server's, one shared unprivileged user, or one uid per team. With another
// uid a pod cannot signal the server or read its files; with per-team uids
// it cannot enter another team's directories either. docs/SERVER.md states
// the trust model.
package local

import (
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

// CheckpointFile is the file a pod writes (or touches) in
// TASKGOV_CHECKPOINT_DIR after saving a checkpoint.
const CheckpointFile = ".taskgov-checkpoint"

// Executor runs pods as local processes.
type Executor struct {
	stateDir, taskDir string
	users             Users
	images            map[string][]string // model.Cluster.Images; read only
	crashLimit        int
	events            chan executor.Event
	now               func() time.Time

	mu      sync.Mutex
	tasks   map[string]*taskProcs
	uidTeam map[uint32]string // per-team uids handed out, to catch a hash collision
	done    chan struct{}
}

type taskProcs struct {
	procs    []*exec.Cmd
	alive    int // pods not yet reaped, guarded by Executor.mu
	ckptSeen time.Time
	ckptDir  string
}

var _ executor.Executor = (*Executor)(nil)

// Options configure an executor.
type Options struct {
	// StateDir is the server's private directory (made 0700): logs and run
	// markers.
	StateDir string
	// TaskDir holds one directory per team and task, shared with pods;
	// default StateDir/work (which pods reach only as the server's user).
	TaskDir string
	// Users says which uid pods run as; the zero value is the server's.
	Users Users
	// Images maps an image to the argv a task with that image and no
	// command runs (the cluster file's images section); CheckRun refuses
	// such a task with an image it does not map.
	Images map[string][]string
	// CrashLimit is how many server deaths in a row a task may be running
	// at before it is refused (default DefaultCrashLimit).
	CrashLimit int
	Now        func() time.Time
}

// New returns an executor whose pods run as the server's user, with state
// under dir and task directories under dir/work.
func New(dir string, now func() time.Time) *Executor {
	return NewWith(Options{StateDir: dir, Now: now})
}

// NewWith returns an executor configured by o (paths made absolute).
func NewWith(o Options) *Executor {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	if o.TaskDir == "" {
		o.TaskDir = filepath.Join(o.StateDir, "work")
	}
	if o.Users.Mode == "" {
		o.Users.Mode = UsersServer
	}
	if o.CrashLimit <= 0 {
		o.CrashLimit = DefaultCrashLimit
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	e := &Executor{stateDir: abs(o.StateDir), taskDir: abs(o.TaskDir), users: o.Users, images: o.Images, crashLimit: o.CrashLimit,
		events: make(chan executor.Event, 1024), now: o.Now,
		tasks: map[string]*taskProcs{}, uidTeam: map[uint32]string{}, done: make(chan struct{})}
	go e.watchCheckpoints()
	return e
}

// Events implements executor.Executor.
func (e *Executor) Events() <-chan executor.Event { return e.events }

// Start implements executor.Executor.
func (e *Executor) Start(spec executor.StartSpec) error {
	argv, err := e.argv(spec)
	if err != nil {
		return err
	}
	spec.Command, spec.Args = argv, nil
	if !model.ValidName(spec.Task) || !model.ValidName(spec.Team) {
		return fmt.Errorf("task %q of team %q: not a valid name for a directory", spec.Task, spec.Team)
	}
	if err := e.claimUID(spec.Team); err != nil {
		return err
	}
	if spec.Resumes == 0 {
		e.markEnded(spec.Task) // a new submission starts with a clean slate
		e.clearLogs(spec.Task) // and its own logs, not an earlier task's of that name
	} else if err := e.crashLoopError(spec.Task); err != nil {
		return err
	}
	ckpt, err := e.prepareTask(spec)
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	tp := &taskProcs{ckptDir: ckpt, ckptSeen: checkpointTime(ckpt)}
	var sids []int
	for _, pod := range spec.Pods {
		cmd, err := e.startPod(spec, pod, ckpt, port)
		if err != nil {
			for _, c := range tp.procs {
				_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			}
			return err
		}
		tp.procs = append(tp.procs, cmd)
		sids = append(sids, cmd.Process.Pid)
	}
	_ = e.markRunning(spec.Task, sids)
	tp.alive = len(tp.procs)
	e.mu.Lock()
	e.tasks[spec.Task] = tp
	e.mu.Unlock()
	for i, cmd := range tp.procs {
		go e.wait(spec.Task, spec.Pods[i].Rank, spec.Resumes, cmd)
	}
	return nil
}

// claimUID refuses a team whose per-team uid another team already has.
func (e *Executor) claimUID(team string) error {
	if e.users.Mode != UsersPerTeam {
		return nil
	}
	uid, _, _ := e.users.ids(team)
	e.mu.Lock()
	defer e.mu.Unlock()
	if other, ok := e.uidTeam[uid]; ok && other != team {
		return fmt.Errorf("teams %s and %s map to the same uid %d; rename one of them, or run tasks as one shared user (--task-user)", other, team, uid)
	}
	e.uidTeam[uid] = team
	return nil
}

func (e *Executor) startPod(spec executor.StartSpec, pod executor.Pod, ckpt string, port int) (*exec.Cmd, error) {
	logf, err := os.OpenFile(e.logPath(spec.Task, pod.Rank), os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child holds its own descriptor
	fmt.Fprintf(logf, "=== taskgov: run %d of %s, rank %d on node %s ===\n", spec.Resumes+1, spec.Task, pod.Rank, pod.Node)
	env := e.podEnv(spec, pod, ckpt, port)
	path, err := lookPath(spec.Command[0], env)
	if err != nil {
		fmt.Fprintf(logf, "taskgov: %v\n", err)
		return nil, err
	}
	cmd := &exec.Cmd{Path: path, Args: spec.Command, Env: env, Dir: ckpt, Stdout: logf, Stderr: logf}
	// Its own session (so its own process group: a stop reaches the pod's
	// children too, and no terminal signal reaches it); its own uid where
	// configured; and death with the server, so a crashed server leaves
	// nothing running (Go sets it after the uid change, which clears it).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Credential: e.users.credential(spec.Team)}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(logf, "taskgov: starting %q: %v\n", spec.Command[0], err)
		return nil, fmt.Errorf("starting %q: %w", spec.Command[0], err)
	}
	return cmd, nil
}

// lookPath finds a program as the pod's own PATH would.
func lookPath(prog string, env []string) (string, error) {
	if strings.Contains(prog, "/") {
		return prog, nil
	}
	path := DefaultPath
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, prog)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%q not found in PATH %s (set PATH in the task's env, or give the program's full path)", prog, path)
}

func (e *Executor) wait(task string, rank, run int, cmd *exec.Cmd) {
	err := cmd.Wait()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() >= 0 {
			code = ee.ExitCode()
		}
	}
	e.mu.Lock()
	if tp := e.tasks[task]; tp != nil {
		if tp.alive--; tp.alive == 0 {
			delete(e.tasks, task)
			e.markEnded(task)
		}
	}
	e.mu.Unlock()
	e.events <- executor.Event{Task: task, Rank: rank, Run: run, At: e.now(), Exited: true, ExitCode: code}
}

// Stop implements executor.Executor: SIGTERM to each pod's process group,
// SIGKILL after grace.
func (e *Executor) Stop(task string, grace time.Duration) {
	e.mu.Lock()
	tp := e.tasks[task]
	e.mu.Unlock()
	if tp == nil {
		return
	}
	for _, c := range tp.procs {
		pid := c.Process.Pid
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		time.AfterFunc(grace, func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	}
}

// Logs implements executor.Executor.
func (e *Executor) Logs(task string, rank int) (io.ReadCloser, error) {
	if !model.ValidName(task) {
		return nil, fmt.Errorf("task %q: %w", task, fs.ErrNotExist)
	}
	return os.Open(e.logPath(task, rank))
}

// Handles implements executor.Executor: the process group ids.
func (e *Executor) Handles(task string) []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	tp := e.tasks[task]
	if tp == nil {
		return nil
	}
	out := make([]int, len(tp.procs))
	for i, c := range tp.procs {
		out[i] = c.Process.Pid
	}
	return out
}

// watchCheckpoints polls running tasks' checkpoint files and reports new ones.
func (e *Executor) watchCheckpoints() {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-e.done:
			return
		case <-tick.C:
		}
		e.mu.Lock()
		var found []executor.Event
		for name, tp := range e.tasks {
			if m := checkpointTime(tp.ckptDir); m.After(tp.ckptSeen) {
				tp.ckptSeen = m
				found = append(found, executor.Event{Task: name, At: m, Checkpoint: true})
			}
		}
		e.mu.Unlock()
		for _, ev := range found {
			e.events <- ev
		}
	}
}

// Close stops the checkpoint watcher. Running pods are the caller's to stop.
func (e *Executor) Close() { close(e.done) }

// checkpointTime is the time of the checkpoint file in dir: a regular file
// in the task's own directory (a link to elsewhere does not count).
func checkpointTime(dir string) time.Time {
	fi, err := os.Lstat(filepath.Join(dir, CheckpointFile))
	if err != nil || !fi.Mode().IsRegular() {
		return time.Time{}
	}
	return fi.ModTime()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
