package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
	"github.com/taskgov/taskgov/internal/testwait"
)

// fullAtPreemption is the real SQLite store whose disk fills at the first
// batch that records a preemption once armed: that batch's writes are all
// made in a real transaction, which then fails with ENOSPC and is rolled
// back, and every write after it fails the same way until cleared.
type fullAtPreemption struct {
	*sqlite.Store
	armed, full atomic.Bool
}

func (s *fullAtPreemption) Apply(ctx context.Context, ws []model.Write) error {
	if s.armed.Load() && !s.full.Load() {
		for _, w := range ws {
			if w.Preemption != nil {
				s.full.Store(true)
			}
		}
	}
	if !s.full.Load() {
		return s.Store.Apply(ctx, ws)
	}
	return s.Store.Commit(ctx, func(tx *sqlite.Tx) error {
		if err := model.ApplyTo(tx, ws); err != nil {
			return err
		}
		return fmt.Errorf("injected: writing the batch: %w", syscall.ENOSPC)
	})
}

// TestPreemptionWriteFails: the disk fills as a reclaim is written. The
// victim's preemption and its record are both absent (the victim runs on,
// GET /api/v1/preemptions lists nothing, in the API and in the database),
// the server keeps serving reads, refuses writes with 503 (nothing changed),
// and /readyz and /healthz say that writes fail and why. Once space is
// back, the reclaim happens and is recorded once.
func TestPreemptionWriteFails(t *testing.T) {
	st := &fullAtPreemption{}
	e := newEnvWith(t, testCluster, envOptions{store: func(s *sqlite.Store) engine.Store { st.Store = s; return st }})
	big := spec("a-big", "alpha", "sleep", "60")
	big.Nodes = 3 // borrows one of beta's nodes
	e.mustDo("POST", "/api/v1/tasks", e.admin, big, 201, nil)
	e.waitState("a-big", model.StateRunning, testwait.Scale(10*time.Second))
	st.armed.Store(true)
	serve := spec("b-serve", "beta", "sleep", "60")
	serve.Nodes, serve.Priority = 2, "inference"
	code, body := e.do("POST", "/api/v1/tasks", e.admin, serve)
	if code != 201 && code != http.StatusServiceUnavailable {
		t.Fatalf("the submission whose reclaim fills the disk: %d %s", code, body)
	}
	submitted := code == 201
	t.Logf("the submission whose reclaim failed was answered %d", code)
	testwait.For(t, 10*time.Second, 20*time.Millisecond, "the disk to fill at the reclaim", st.full.Load)
	var ready struct{ Status, Reason string }
	testwait.For(t, 10*time.Second, 20*time.Millisecond, "/readyz to say writes fail", func() bool {
		ready.Reason = ""
		c, b := e.do("GET", "/readyz", "", nil)
		_ = json.Unmarshal(b, &ready)
		return c == http.StatusServiceUnavailable && strings.Contains(ready.Reason, "disk full")
	})
	var health struct{ Status, Reason string }
	e.mustDo("GET", "/healthz", "", nil, 200, &health)
	if health.Status == "ok" || !strings.Contains(health.Reason, "disk full") {
		t.Errorf("/healthz while no write succeeds: %+v; want it alive (200) but not ok, saying why", health)
	}

	// Both absent: the victim runs, no record, in the API and the database.
	v := e.waitState("a-big", model.StateRunning, testwait.Scale(5*time.Second))
	if v.Resumes != 0 {
		t.Errorf("the victim of the failed reclaim: %+v", v)
	}
	var list preemptionList
	e.mustDo("GET", "/api/v1/preemptions", e.admin, nil, 200, &list)
	stored, err := e.st.Preemptions(context.Background(), model.PreemptionFilter{Limit: 10})
	if err != nil || len(list.Preemptions) != 0 || len(stored) != 0 {
		t.Fatalf("preemptions recorded by a failed write: API %+v, database %+v (%v)", list.Preemptions, stored, err)
	}
	if r, err := e.st.Task(context.Background(), "a-big"); err != nil || r.State != model.StateRunning {
		t.Fatalf("the victim in the database after the failed reclaim: %s %v", r.State, err)
	}
	// Serving: reads answer, writes are refused clearly.
	e.mustDo("GET", "/api/v1/tasks/a-big", e.admin, nil, 200, nil)
	c, b := e.do("POST", "/api/v1/tasks", e.admin, spec("meanwhile", "alpha", "true"))
	if c != http.StatusServiceUnavailable || !strings.Contains(string(b), "nothing was changed") {
		t.Errorf("a submission while the disk is full: %d %s", c, b)
	}

	st.full.Store(false)
	st.armed.Store(false)
	testwait.For(t, 10*time.Second, 20*time.Millisecond, "/readyz to recover", func() bool {
		c, _ := e.do("GET", "/readyz", "", nil)
		return c == 200
	})
	e.mustDo("GET", "/healthz", "", nil, 200, &health)
	if health.Status != "ok" {
		t.Errorf("/healthz after recovery: %+v", health)
	}
	if !submitted {
		e.mustDo("POST", "/api/v1/tasks", e.admin, serve, 201, nil)
	}
	e.waitState("b-serve", model.StateRunning, testwait.Scale(10*time.Second))
	e.waitState("a-big", model.StatePending, testwait.Scale(5*time.Second))
	list = preemptionList{}
	e.mustDo("GET", "/api/v1/preemptions", e.admin, nil, 200, &list)
	if len(list.Preemptions) != 1 || list.Preemptions[0].Task != "a-big" || list.Preemptions[0].Preemptor != "b-serve" {
		t.Fatalf("after recovery, want the one reclaim recorded once: %+v", list.Preemptions)
	}
}
