package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// One cycle that admits more tasks than the engine's internal queue holds
// (1,024 start results) must not stall the engine: raising a quota from 0
// admits 1,100 waiting tasks at once.
func TestBurstOfAdmissionsInOneCycle(t *testing.T) {
	e := newEnv(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 138}]
policy: {priorityClasses: [{name: training, weight: 70}]}
teams: [{name: alpha, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}]
`)
	const n = 1100
	for i := range n {
		s := spec(fmt.Sprintf("t%04d", i), "alpha", "sleep", "5")
		s.PerNode = model.Request{GPUs: 1}
		e.mustDo("POST", "/api/v1/tasks", e.admin, s, 201, nil)
	}
	team := map[string]any{"name": "alpha", "lending": "DontLend", "quotas": []any{map[string]any{"instanceType": "ml.p5.48xlarge", "count": 138}}}
	done := make(chan struct{})
	go func() {
		e.mustDo("PUT", "/api/v1/teams/alpha", e.admin, team, 200, nil)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the engine stalled on a burst of admissions")
	}
	e.waitState(fmt.Sprintf("t%04d", n-1), model.StateRunning, 60*time.Second)
	// The engine still answers after the burst.
	e.mustDo("GET", "/api/v1/tasks/t0000", e.admin, nil, 200, nil)
}
