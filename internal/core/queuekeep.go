package core

import (
	"fmt"
	"slices"
	"sort"

	"github.com/taskgov/taskgov/internal/resource"
)

// Keeping a team's sorted queue through completions and requeues.
//
// A team's queue (pending, and its per-type lists byType) is sorted by
// queueLess, whose keys (rank, submit time, submission order) change only
// through SetPriority and policy changes, which unsort it. Until this file,
// every task that left the queue otherwise (a completion, a cancel) or came
// back into its old entry (a preemption victim, a failed task requeued, a
// resumed one) also unsorted it, and the next cycle sorted and split the
// whole queue again and folded every list's bounds (stop.go's queueAgg): at
// 10,000 pending, about a tenth of the deep-backlog replay's CPU, one full
// pass over a team's queue per completion and per preemption.
//
// None of them changes the order:
//   - A running task that ends (forget) has no pending entry: at most a stale
//     one, left by its admission and counted in stale (dropped). Nothing to
//     do.
//   - A pending task cancelled leaves its entry in place, stale, as an
//     admission does (dropped).
//   - A task that comes back while its stale entry is still there (enqueue)
//     takes that entry again, at its place in the order, which it never left
//     (its keys are unchanged): repend makes the entry count as pending again
//     (stale), lets the walk start at or before it (liveFrom, livestart.go)
//     and folds its new pendingSince and backoff into its list's bounds
//     (a bound over a superset stays a bound, stop.go).
//
// So while a queue is sorted (queueSorted or tailOnly), stale counts exactly
// the entries of pending that are no longer pending, and the lists hold every
// pending task once, in order: checkQueues (CheckInvariants) checks this from
// scratch after every cycle of the randomized tests, and breakRepend (the
// entry's place in liveFrom forgotten) is its injected bug.

// repend makes t's entry, still in its team's queue, pending again.
func (s *Scheduler) repend(t *task) {
	tm := t.team
	if !tm.queueSorted && !tm.tailOnly {
		return // a full sort comes first: it rebuilds the lists
	}
	tm.stale--
	i := t.typ.idx
	if i >= len(tm.byType) {
		return
	}
	q := tm.byType[i]
	k := sort.Search(len(q), func(k int) bool { return !queueLess(q[k], t) })
	if k == len(q) || q[k] != t {
		return // in the tail queued since the last sort: appendSorted files it
	}
	s.dueRevived(tm, i, k) // an entry read as gone is pending again (stopwake.go)
	if i < len(tm.liveFrom) && k < tm.liveFrom[i] && !s.breakRepend {
		tm.liveFrom[i] = k
	}
	if i < len(tm.aggs) && tm.aggs[i].n > k {
		tm.aggs[i].foldOne(t)
	}
}

// leave records that pending task t left its team's queue for good (a
// cancel): its entry stays, stale.
func (tm *team) leave(t *task) {
	if !tm.queueSorted && !tm.tailOnly {
		return
	}
	tm.dropped(t)
}

// checkQueues checks every sorted team queue from scratch: stale counts the
// entries no longer pending, every pending task of the team has one entry,
// the filed part and each per-type list are in queue order, the per-type
// lists hold the filed part's pending tasks, no pending entry lies before
// liveFrom, and each list's bounds (queueAgg) hold for its pending tasks.
func (s *Scheduler) checkQueues() error {
	want := map[*team]int{}
	for _, t := range s.tasks {
		if t.state == pending {
			want[t.team]++
		}
	}
	for _, tm := range s.teams {
		if !tm.queueSorted && !tm.tailOnly {
			continue
		}
		stale, live := 0, 0
		seen := map[*task]bool{}
		for _, t := range tm.pending {
			if seen[t] {
				return fmt.Errorf("team %s: task %s has two queue entries", tm.spec.Name, t.spec.Name)
			}
			seen[t] = true
			if t.state == pending {
				live++
			} else {
				stale++
			}
		}
		if stale != tm.stale || live != want[tm] {
			return fmt.Errorf("team %s: queue holds %d pending and %d stale entries, counted %d stale, %d pending tasks",
				tm.spec.Name, live, stale, tm.stale, want[tm])
		}
		filed := tm.pending[:min(tm.sortedLen, len(tm.pending))]
		perType := make([][]*task, len(tm.byType))
		for k, t := range filed {
			if k > 0 && !queueLess(filed[k-1], t) {
				return fmt.Errorf("team %s: queue out of order at %d", tm.spec.Name, k)
			}
			if t.state == pending && t.typ.idx < len(perType) {
				perType[t.typ.idx] = append(perType[t.typ.idx], t)
			}
		}
		for i, q := range tm.byType {
			var got []*task
			for k, t := range q {
				if k > 0 && !queueLess(q[k-1], t) {
					return fmt.Errorf("team %s type %d: list out of order at %d", tm.spec.Name, i, k)
				}
				if t.state != pending {
					continue
				}
				if i < len(tm.liveFrom) && k < tm.liveFrom[i] {
					return fmt.Errorf("team %s type %d: pending %s at %d, before liveFrom %d", tm.spec.Name, i, t.spec.Name, k, tm.liveFrom[i])
				}
				if i < len(tm.aggs) && k < tm.aggs[i].n && !tm.aggs[i].bounds(t) {
					return fmt.Errorf("team %s type %d: the list's bounds miss %s", tm.spec.Name, i, t.spec.Name)
				}
				got = append(got, t)
			}
			if !slices.Equal(got, perType[i]) {
				return fmt.Errorf("team %s type %d: list holds %d pending tasks, the queue %d", tm.spec.Name, i, len(got), len(perType[i]))
			}
			if i < len(tm.aggs) {
				if err := tm.checkAgg(i); err != nil {
					return fmt.Errorf("team %s type %d: %w", tm.spec.Name, i, err)
				}
			}
		}
	}
	return nil
}

// anyEqual reports whether a and b are equal in some resource.
func anyEqual(a, b resource.Vector) bool {
	return a.GPUs == b.GPUs || a.MilliCPU == b.MilliCPU || a.MemMiB == b.MemMiB
}
