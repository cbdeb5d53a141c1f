package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

// TestRandomOpsRecoveryEqualsLive drives the engine with random sequences of
// inputs (submissions reusing a few names across two teams, cancels,
// suspends, resumes, priority changes, checkpoints, cordons, drains, quota
// changes, pod exits out of order and twice, refused starts) while the store
// fails commits (one at a time, or a run of "disk full") on 30 seeds. After
// every step the state rebuilt from the store equals the live one, and every
// refusal is one a user can act on.
func TestRandomOpsRecoveryEqualsLive(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { randomRun(t, seed, 80) })
	}
}

func randomRun(t *testing.T, seed uint64, steps int) { randomSteps(t, newHarness(t), seed, steps) }

// randomSteps drives h with one seed's random inputs and faults.
func randomSteps(t *testing.T, h *harness, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	names := []string{"j0", "j1", "j2", "j3", "j4", "j5"}
	teams := []string{"a", "b"}
	nodes := []string{"p5-0", "p5-1", "p5-2", "p5-3"}
	ctx := context.Background()
	counts := map[string]int{}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	for step := range steps {
		switch f := rng.IntN(20); {
		case f == 0:
			h.st.failNext(errDiskFull)
		case f == 1:
			h.st.setFull(1 + rng.IntN(3))
		case f == 2:
			h.x.mu.Lock()
			h.x.failStart[pick(names)] = rng.IntN(2) == 0
			h.x.mu.Unlock()
		}
		var err error
		var what string
		switch rng.IntN(12) {
		case 0, 1, 2:
			spec := model.TaskSpec{Name: pick(names), Team: pick(teams), InstanceType: "ml.p5.48xlarge", Nodes: 1 + rng.IntN(2),
				Command: []string{"true"}, AutoResume: rng.IntN(2) == 0, MaxRetry: rng.IntN(2)}
			if rng.IntN(3) == 0 {
				spec.Priority = pick([]string{"inference", "training"})
			}
			what = "submit " + spec.Name + " to " + spec.Team
			_, err = h.e.Submit(ctx, "test", spec)
		case 3, 4, 5:
			running := h.x.running()
			if len(running) == 0 {
				continue
			}
			task := running[rng.IntN(len(running))]
			code := 0
			if rng.IntN(3) == 0 {
				code = 1 + rng.IntN(2)
			}
			what = fmt.Sprintf("exit %s %d", task, code)
			h.x.exit(task, code, rng.IntN(2) == 0, func(evs []executor.Event) { rng.Shuffle(len(evs), func(i, j int) { evs[i], evs[j] = evs[j], evs[i] }) })
		case 6:
			action := pick([]string{ActCancel, ActSuspend, ActResume, ActCheckpoint})
			name := pick(names)
			what = action + " " + name
			_, err = h.e.TaskAction(ctx, "test", name, action, "")
		case 7:
			name := pick(names)
			what = "priority " + name
			_, err = h.e.TaskAction(ctx, "test", name, ActPriority, pick([]string{"inference", "training", "nope"}))
		case 8:
			action := pick([]string{ActCordon, ActUncordon, ActDrain, ActUncordon})
			node := pick(nodes)
			what = action + " " + node
			err = h.e.NodeAction(ctx, "test", node, action)
		case 9:
			team := pick(teams)
			n := int64(rng.IntN(4))
			what = fmt.Sprintf("quota %s %d", team, n)
			limit := rng.IntN(2) * 100
			err = h.e.SetTeam(ctx, "test", model.Team{Name: team, Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &n}},
				BorrowLimitPercent: &limit})
		default:
			what = "tick"
		}
		switch {
		case errors.Is(err, ErrUnavailable):
			counts["refused: storage"]++
		case err != nil:
			counts["refused: input"]++
		default:
			counts["done"]++
		}
		if err != nil && !acceptable(err) {
			t.Fatalf("seed %d step %d (%s): an error a user cannot act on: %v", seed, step, what, err)
		}
		h.quiesce()
		if h.afterStep != nil {
			h.afterStep()
		}
		// While writes fail the loop retries with a heartbeat step every
		// millisecond, so the engine is never quiet and a step may be
		// between its cycle and its publication: the state is compared
		// once the engine is ready again (or, a quarter of the time, left
		// failing so that the next inputs meet the outage too, and compared
		// when it has recovered).
		if h.e.Health().Ready {
			h.checkRecoveryEqualsLive(fmt.Sprintf("seed %d step %d (%s, %v)", seed, step, what, err))
		} else if rng.IntN(4) > 0 {
			h.waitReady()
			h.checkRecoveryEqualsLive(fmt.Sprintf("seed %d step %d (%s, %v), recovered", seed, step, what, err))
		}
	}
	h.st.setFull(0)
	h.waitReady()
	h.checkRecoveryEqualsLive(fmt.Sprintf("seed %d end", seed))
	if len(h.x.violations) > 0 {
		t.Fatalf("seed %d: executor misuse: %v", seed, h.x.violations)
	}
	if h.e.Err() != nil {
		t.Fatalf("seed %d: the engine stopped: %v", seed, h.e.Err())
	}
	h.st.mu.Lock()
	counts["commits"], counts["runs"] = h.st.commits, len(h.st.st.runs)
	h.st.mu.Unlock()
	counts["failed commits"] = int(h.st.failed.Load())
	t.Logf("seed %d: %v", seed, counts)
}

// acceptable: a refusal that names what to fix, or a retryable storage
// failure.
func acceptable(err error) bool {
	return errors.Is(err, model.ErrInvalid) || errors.Is(err, model.ErrConflict) || errors.Is(err, model.ErrNotFound) ||
		errors.Is(err, ErrUnavailable)
}
