// Package local is the executor that runs each pod as a child process of the
// server, on virtual nodes that all live on this host.
//
// Every pod gets TASKGOV_TASK, TASKGOV_TEAM, TASKGOV_NODE_RANK,
// TASKGOV_NUM_NODES, TASKGOV_CHECKPOINT_DIR (the same directory for every run
// of the task), TASKGOV_RESUME_COUNT, CUDA_VISIBLE_DEVICES (the assigned GPU
// indices; on virtual nodes these are virtual), and MASTER_ADDR, MASTER_PORT,
// WORLD_SIZE, RANK and LOCAL_RANK for torchrun-style scripts. A pod reports a
// checkpoint by writing the file CheckpointFile in its checkpoint directory.
package local

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/taskgov/taskgov/internal/executor"
)

// CheckpointFile is the file a pod writes (or touches) in
// TASKGOV_CHECKPOINT_DIR after saving a checkpoint.
const CheckpointFile = ".taskgov-checkpoint"

// Executor runs pods as local processes.
type Executor struct {
	dir    string
	events chan executor.Event
	now    func() time.Time

	mu    sync.Mutex
	tasks map[string]*taskProcs
	done  chan struct{}
}

type taskProcs struct {
	procs    []*exec.Cmd
	alive    int // pods not yet reaped, guarded by Executor.mu
	ckptSeen time.Time
	ckptDir  string
}

var _ executor.Executor = (*Executor)(nil)

// New returns an executor that keeps checkpoints and logs under dir (made
// absolute).
func New(dir string, now func() time.Time) *Executor {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	e := &Executor{dir: dir, events: make(chan executor.Event, 1024), now: now,
		tasks: map[string]*taskProcs{}, done: make(chan struct{})}
	go e.watchCheckpoints()
	return e
}

// CheckpointDir is where a task's checkpoints live, across runs.
func (e *Executor) CheckpointDir(task string) string {
	return filepath.Join(e.dir, "tasks", task, "checkpoint")
}

func (e *Executor) logPath(task string, rank int) string {
	return filepath.Join(e.dir, "tasks", task, "logs", fmt.Sprintf("rank-%d.log", rank))
}

// Events implements executor.Executor.
func (e *Executor) Events() <-chan executor.Event { return e.events }

// Start implements executor.Executor.
func (e *Executor) Start(spec executor.StartSpec) error {
	if len(spec.Command) == 0 {
		return fmt.Errorf("task %s has no command to run", spec.Task)
	}
	ckpt := e.CheckpointDir(spec.Task)
	if err := os.MkdirAll(ckpt, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(e.logPath(spec.Task, 0)), 0o755); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	tp := &taskProcs{ckptDir: ckpt, ckptSeen: mtime(filepath.Join(ckpt, CheckpointFile))}
	for _, pod := range spec.Pods {
		cmd, err := e.startPod(spec, pod, ckpt, port)
		if err != nil {
			for _, c := range tp.procs {
				_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			}
			return err
		}
		tp.procs = append(tp.procs, cmd)
	}
	tp.alive = len(tp.procs)
	e.mu.Lock()
	e.tasks[spec.Task] = tp
	e.mu.Unlock()
	for i, cmd := range tp.procs {
		go e.wait(spec.Task, spec.Pods[i].Rank, spec.Resumes, cmd)
	}
	return nil
}

func (e *Executor) startPod(spec executor.StartSpec, pod executor.Pod, ckpt string, port int) (*exec.Cmd, error) {
	logf, err := os.OpenFile(e.logPath(spec.Task, pod.Rank), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logf, "=== taskgov: run %d of %s, rank %d on node %s ===\n", spec.Resumes+1, spec.Task, pod.Rank, pod.Node)
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	gpus := make([]string, len(pod.GPUs))
	for i, g := range pod.GPUs {
		gpus[i] = strconv.Itoa(g)
	}
	env := append(os.Environ(),
		dataDirVar+"="+e.dir,
		"TASKGOV_TASK="+spec.Task, "TASKGOV_TEAM="+spec.Team, "TASKGOV_NODE="+pod.Node,
		"TASKGOV_NODE_RANK="+strconv.Itoa(pod.Rank), "TASKGOV_NUM_NODES="+strconv.Itoa(len(spec.Pods)),
		"TASKGOV_CHECKPOINT_DIR="+ckpt, "TASKGOV_RESUME_COUNT="+strconv.Itoa(spec.Resumes),
		"CUDA_VISIBLE_DEVICES="+strings.Join(gpus, ","),
		"MASTER_ADDR=127.0.0.1", "MASTER_PORT="+strconv.Itoa(port),
		"WORLD_SIZE="+strconv.Itoa(len(spec.Pods)), "RANK="+strconv.Itoa(pod.Rank), "LOCAL_RANK=0")
	for k, v := range spec.Env {
		env = append(env, k+"="+v)
	}
	cmd.Env = env
	// Own process group, so a stop reaches the pod's children too; and die
	// with the server, so a crashed server leaves nothing running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %v: %w", spec.Command, err)
	}
	logf.Close() // the child holds its own descriptor
	return cmd, nil
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

// dataDirVar marks every pod process (and, by inheritance, its children)
// with the executor's directory, so strays can be found after a crash.
const dataDirVar = "TASKGOV_DATA_DIR"

// KillStrays kills every process on this host whose environment carries
// this executor's directory: pods, and their children, left behind by a
// server that crashed. A pod's direct child dies with the server
// (Pdeathsig), but its own children would not. It returns how many it killed.
func (e *Executor) KillStrays() int {
	marker := []byte(dataDirVar + "=" + e.dir + "\x00")
	self := os.Getpid()
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	killed := 0
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, marker...)) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	return killed
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
			if m := mtime(filepath.Join(tp.ckptDir, CheckpointFile)); m.After(tp.ckptSeen) {
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

func mtime(path string) time.Time {
	fi, err := os.Stat(path)
	if err != nil {
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
