package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

// fakeStore is an in-memory Store that fails on demand: the Nth commit, a
// run of "disk full" commits, a fatal fault, or slow commits. A commit is
// all or none: writes go to a copy that replaces the state only on success.
type fakeStore struct {
	mu      sync.Mutex
	st      fakeState
	commits int           // commits tried
	failAt  map[int]error // commit number -> error
	full    int           // the next full commits fail with disk full
	fatal   error         // every commit and probe fails with it
	slow    time.Duration
	readErr error        // TasksNamed fails with it (an unreadable store)
	down    error        // commits and the reads a rollback makes fail with it (a database restarting)
	hang    bool         // commits time out, and probes and a rollback's reads block until their context ends
	failed  atomic.Int64 // commits failed on purpose
	// onApply, if set, runs at the start of every commit, before the
	// store's lock is taken (a test holds a commit there).
	onApply atomic.Pointer[func()]
}

type fakeState struct {
	cluster     *model.Cluster
	tasks       []model.TaskRecord // by seq
	events      []model.Event
	audit       int
	runs        []model.Run
	beat        time.Time
	revoked     []string // teams whose tokens were revoked
	preemptions []model.PreemptionRecord
}

func (s fakeState) clone() fakeState {
	c := s
	c.tasks = slices.Clone(s.tasks)
	c.events = slices.Clone(s.events)
	c.runs = slices.Clone(s.runs)
	c.revoked = slices.Clone(s.revoked)
	if s.cluster != nil {
		cl := *s.cluster
		c.cluster = &cl
	}
	return c
}

var errDiskFull = &model.Fault{Kind: model.FaultTransient, What: "disk full", Fix: "free space", Err: errors.New("fake: no space left on device")}

func newFakeStore() *fakeStore { return &fakeStore{failAt: map[int]error{}} }

// failNext makes the next commit fail with err.
func (s *fakeStore) failNext(err error) {
	s.mu.Lock()
	s.failAt[s.commits+1] = err
	s.mu.Unlock()
}

func (s *fakeStore) setFull(n int) {
	s.mu.Lock()
	s.full = n
	s.mu.Unlock()
}

func (s *fakeStore) Apply(ctx context.Context, ws []model.Write) error {
	if f := s.onApply.Load(); f != nil {
		(*f)()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commits++
	if s.slow > 0 {
		time.Sleep(s.slow)
	}
	if s.fatal != nil {
		return s.fatal
	}
	if s.down != nil {
		s.failed.Add(1)
		return s.down
	}
	if s.hang {
		s.failed.Add(1)
		return fmt.Errorf("commit: %w", context.DeadlineExceeded) // as a store's own commit timeout
	}
	tx := &fakeTx{st: s.st.clone()}
	// Fail in the middle of the batch: half the writes are made first.
	half := len(ws) / 2
	if err := model.ApplyTo(tx, ws[:half]); err != nil {
		return err
	}
	if err, ok := s.failAt[s.commits]; ok {
		s.failed.Add(1)
		return err
	}
	if s.full > 0 {
		s.full--
		s.failed.Add(1)
		return errDiskFull
	}
	if err := model.ApplyTo(tx, ws[half:]); err != nil {
		return err
	}
	s.st = tx.st
	return nil
}

func (s *fakeStore) Cluster(ctx context.Context) (model.Cluster, bool, error) {
	if err := s.block(ctx); err != nil {
		return model.Cluster{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down != nil {
		return model.Cluster{}, false, s.down
	}
	if s.st.cluster == nil {
		return model.Cluster{}, false, nil
	}
	return *s.st.cluster, true, nil
}

func (s *fakeStore) LiveTasks(context.Context) ([]model.TaskRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down != nil {
		return nil, s.down
	}
	var out []model.TaskRecord
	for _, r := range s.st.tasks {
		if !r.State.Terminal() {
			out = append(out, r)
		}
	}
	return out, nil
}

func (s *fakeStore) MaxSeq(context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, r := range s.st.tasks {
		n = max(n, r.Seq)
	}
	return n, nil
}

func (s *fakeStore) LastEventAt(context.Context) (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t time.Time
	for _, e := range s.st.events {
		if e.At.After(t) {
			t = e.At
		}
	}
	return t, nil
}

func (s *fakeStore) PriorUse(_ context.Context, name string) (*model.PriorUse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.prior(name), nil
}

func (st *fakeState) prior(name string) *model.PriorUse {
	for i := len(st.tasks) - 1; i >= 0; i-- {
		if r := st.tasks[i]; r.Name == name {
			return &model.PriorUse{Team: r.Team, Live: !r.State.Terminal()}
		}
	}
	return nil
}

func (s *fakeStore) Task(_ context.Context, name string) (model.TaskRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.st.tasks) - 1; i >= 0; i-- {
		if s.st.tasks[i].Name == name {
			return s.st.tasks[i], nil
		}
	}
	return model.TaskRecord{}, fmt.Errorf("task %q: %w", name, model.ErrNotFound)
}

func (s *fakeStore) TasksNamed(_ context.Context, name string) ([]model.TaskRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readErr != nil {
		return nil, s.readErr
	}
	var out []model.TaskRecord
	for i := len(s.st.tasks) - 1; i >= 0; i-- {
		if s.st.tasks[i].Name == name {
			out = append(out, s.st.tasks[i])
		}
	}
	return out, nil
}

// block waits for ctx to end while the store hangs.
func (s *fakeStore) block(ctx context.Context) error {
	s.mu.Lock()
	hang := s.hang
	s.mu.Unlock()
	if !hang {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func (s *fakeStore) Probe(ctx context.Context) error {
	if err := s.block(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fatal == nil && s.down != nil {
		return s.down
	}
	return s.fatal
}

// fakeTx applies writes to a staged copy, with the store's rules.
type fakeTx struct{ st fakeState }

func (t *fakeTx) InsertTask(r model.TaskRecord) error {
	if err := model.CheckNameReuse(r.Name, r.Team, t.st.prior(r.Name)); err != nil {
		return err
	}
	for _, x := range t.st.tasks {
		if x.Seq == r.Seq {
			return fmt.Errorf("fake: seq %d stored twice", r.Seq)
		}
	}
	t.st.tasks = append(t.st.tasks, r)
	return nil
}

func (t *fakeTx) UpdateTask(r model.TaskRecord) error {
	for i := range t.st.tasks {
		if t.st.tasks[i].Seq == r.Seq {
			t.st.tasks[i] = r
			return nil
		}
	}
	return fmt.Errorf("fake: update of unknown task %s (seq %d)", r.Name, r.Seq)
}

func (t *fakeTx) AddEvent(e model.Event) error     { t.st.events = append(t.st.events, e); return nil }
func (t *fakeTx) Audit(model.AuditEntry) error     { t.st.audit++; return nil }
func (t *fakeTx) PutCluster(c model.Cluster) error { t.st.cluster = &c; return nil }
func (t *fakeTx) StartRun(r model.Run) error       { t.st.runs = append(t.st.runs, r); return nil }
func (t *fakeTx) Heartbeat(at time.Time) error     { t.st.beat = at; return nil }
func (t *fakeTx) EndRun(task string, at time.Time, outcome string) error {
	for i := range t.st.runs {
		if r := &t.st.runs[i]; r.Task == task && r.EndedAt.IsZero() {
			r.EndedAt, r.Outcome = at, outcome
		}
	}
	return nil
}

func (t *fakeTx) AddPreemption(p model.PreemptionRecord) error {
	t.st.preemptions = append(t.st.preemptions, p)
	return nil
}

func (t *fakeTx) RevokeTeamTokens(team string, at time.Time) ([]string, error) {
	t.st.revoked = append(t.st.revoked, team)
	return nil, nil
}

func (t *fakeTx) CloseOpenRuns(at time.Time, outcome string, keep map[string]bool) (int64, error) {
	var n int64
	for i := range t.st.runs {
		if r := &t.st.runs[i]; r.EndedAt.IsZero() && !keep[r.Task] {
			r.EndedAt, r.Outcome = at, outcome
			n++
		}
	}
	return n, nil
}

// fakeExec records calls, fails the starts it is told to, and reports pod
// exits when the test says so: in any order, and twice if asked.
type fakeExec struct {
	mu         sync.Mutex
	events     chan executor.Event
	started    []executor.StartSpec
	stopped    []string
	alive      map[string]executor.StartSpec // task -> its running spec
	failStart  map[string]bool
	goneStart  map[string]bool // Start refuses with executor.ErrGone
	goneFail   *fakeStore      // if set, a gone start makes its store's next commit fail (disk full)
	slowStop   map[string]bool // Stop leaves these tasks' pods running
	violations []string
}

func newFakeExec() *fakeExec {
	return &fakeExec{events: make(chan executor.Event, 1<<16), alive: map[string]executor.StartSpec{}, failStart: map[string]bool{}, goneStart: map[string]bool{}, slowStop: map[string]bool{}}
}

func (x *fakeExec) Start(spec executor.StartSpec) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.started = append(x.started, spec)
	if x.failStart[spec.Task] {
		return errors.New("fake: start refused")
	}
	if x.goneStart[spec.Task] {
		if x.goneFail != nil {
			x.goneFail.failNext(errDiskFull)
			x.goneFail = nil
		}
		return fmt.Errorf("fake: the object of %s is gone: %w", spec.Task, executor.ErrGone)
	}
	if _, ok := x.alive[spec.Task]; ok {
		x.violations = append(x.violations, spec.Task+" started while its pods still run")
		return fmt.Errorf("fake: %s started while its pods still run", spec.Task)
	}
	x.alive[spec.Task] = spec
	return nil
}

// Stop kills every pod at once; each reports its exit, as executors do.
// A task in slowStop keeps running (as in its grace period) until the test
// calls exit.
func (x *fakeExec) Stop(task string, grace time.Duration) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.stopped = append(x.stopped, task)
	if !x.slowStop[task] {
		x.exitLocked(task, -1, false, nil)
	}
}

// exit makes every pod of a running task exit with code (out of rank
// order, each twice if dup).
func (x *fakeExec) exit(task string, code int, dup bool, shuffle func([]executor.Event)) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.exitLocked(task, code, dup, shuffle)
}

func (x *fakeExec) exitLocked(task string, code int, dup bool, shuffle func([]executor.Event)) bool {
	spec, ok := x.alive[task]
	if !ok {
		return false
	}
	delete(x.alive, task)
	var evs []executor.Event
	for _, p := range spec.Pods {
		ev := executor.Event{Task: task, Rank: p.Rank, Run: spec.Resumes, At: time.Now(), Exited: true, ExitCode: code}
		evs = append(evs, ev)
		if dup {
			evs = append(evs, ev)
		}
	}
	if shuffle != nil {
		shuffle(evs)
	}
	for _, ev := range evs {
		x.events <- ev
	}
	return true
}

func (x *fakeExec) running() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Sorted(maps.Keys(x.alive))
}

func (x *fakeExec) Logs(string, int) (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader("")), nil
}
func (x *fakeExec) Handles(string) []int          { return nil }
func (x *fakeExec) Events() <-chan executor.Event { return x.events }
