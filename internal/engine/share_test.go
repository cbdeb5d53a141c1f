package engine

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestPublishedViewsNeverChange: the engine shares its live records with
// the Views it publishes (edit, persist), so a record changed in place
// would change a published View under its readers. A reader keeps a deep
// copy of the records of every View it sees while the engine runs the
// randomized test's inputs (failing commits and rollbacks included); at the
// end every kept View must still hold exactly what it held. With -race, a
// change in place is also a data race with the reader.
func TestPublishedViewsNeverChange(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			h := newHarness(t)
			type kept struct {
				v    *View
				recs map[string]model.TaskRecord
			}
			var seen []kept
			stop, done := make(chan struct{}), make(chan struct{})
			go func() { // wakes at each publish; under load it may skip some
				defer close(done)
				v := h.e.View()
				for {
					seen = append(seen, kept{v, deepRecords(v)})
					select {
					case <-stop:
						return
					case <-v.next:
						v = h.e.View()
					}
				}
			}()
			// The reader above may be starved on a loaded machine; the
			// View after each input is kept too, read in step.
			var stepped []kept
			h.afterStep = func() {
				v := h.e.View()
				stepped = append(stepped, kept{v, deepRecords(v)})
			}
			randomSteps(t, h, seed, 40)
			close(stop)
			<-done
			if len(stepped) < 10 { // a step with nothing to do keeps none
				t.Fatalf("only %d Views kept after 40 inputs", len(stepped))
			}
			t.Logf("%d Views kept by the reader, %d after inputs", len(seen), len(stepped))
			for _, k := range append(seen, stepped...) {
				if now := deepRecords(k.v); !reflect.DeepEqual(now, k.recs) {
					t.Fatalf("View of step %d changed after it was published:\nthen %+v\nnow  %+v", k.v.Step(), k.recs, now)
				}
			}
		})
	}
}

// deepRecords copies a View's records, with their slices.
func deepRecords(v *View) map[string]model.TaskRecord {
	out := map[string]model.TaskRecord{}
	v.tasks.Each(func(r *model.TaskRecord) bool {
		cp := *r
		cp.Placement = slices.Clone(cp.Placement)
		for i := range cp.Placement {
			cp.Placement[i].GPUs = slices.Clone(cp.Placement[i].GPUs)
		}
		cp.PGIDs = slices.Clone(cp.PGIDs)
		cp.Spec.Command = slices.Clone(cp.Spec.Command)
		cp.Spec.Env = maps.Clone(cp.Spec.Env)
		cp.Spec.NodeSelector = maps.Clone(cp.Spec.NodeSelector)
		out[r.Name] = cp
		return true
	})
	return out
}

// TestEngineSharesRecordsWithTheView: once the engine is quiet, each live
// task has one record, held by both the engine and the View (no copy per
// live task), after submissions, admissions, pod starts, a priority change,
// a suspension, a cancellation and a completion.
func TestEngineSharesRecordsWithTheView(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	for i, team := range []string{"a", "a", "b", "b", "b", "a"} {
		if err := h.submit(fmt.Sprint("j", i), team, 1+i%2); err != nil {
			t.Fatal(err)
		}
	}
	h.quiesce()
	for _, act := range [][2]string{{"j3", ActPriority}, {"j4", ActSuspend}, {"j5", ActCancel}, {"j1", ActCheckpoint}} {
		arg := ""
		if act[1] == ActPriority {
			arg = "inference"
		}
		if _, err := h.e.TaskAction(ctx, "test", act[0], act[1], arg); err != nil {
			t.Fatalf("%s %s: %v", act[1], act[0], err)
		}
	}
	if _, err := h.e.TaskAction(ctx, "test", "j2", ActResume, ""); err == nil { // refused: j2 is not suspended
		t.Fatal("resuming a task that is not suspended was accepted")
	}
	h.x.exit("j0", 0, false, nil)
	h.quiesce()
	h.e.mu.Lock()
	defer h.e.mu.Unlock()
	v := h.e.View()
	if v.LiveTasks() != len(h.e.records) || len(h.e.records) == 0 {
		t.Fatalf("%d live tasks in the View, %d in the engine", v.LiveTasks(), len(h.e.records))
	}
	for name, r := range h.e.records {
		if p, ok := v.tasks.Get(name); !ok || p != r {
			t.Errorf("task %s (%s): the engine's record %p, the View's %p", name, r.State, r, p)
		}
	}
}
