package engine

import (
	"maps"
	"sort"
	"time"

	"github.com/taskgov/taskgov/internal/metrics"
)

// What /metrics says about pending tasks, without a walk of the queue per
// scrape. Two figures:
//
//   - pending tasks by team: exact for the View, kept by publishStep as
//     tasks enter and leave Pending (O(teams) per step that changes one);
//   - pending tasks by team and wait reason: a count of a built waiting
//     list. Building the list costs the whole queue on the loop (the core
//     renders each deferred try's reason), so a scrape counts the current
//     View's list when it is built, else reuses the last list it counted
//     while that is at most ReasonsMaxAge old, and only then asks the loop
//     to build the list. ReasonsAge says how old the counted list is. A
//     failed build drops the kept counts (serveWaiting), so while the queue
//     cannot be listed the scrape says so (QueueListed false).

// ReasonsMaxAge bounds how old the queue listing that
// taskgov_pending_tasks{team,reason} counts may be.
const ReasonsMaxAge = 30 * time.Second

// reasonCounts is a successfully built list's counts, kept without the list.
type reasonCounts struct {
	at     time.Time
	counts []metrics.Pending
}

// addPending returns pending changed by delta (a copy; pending itself
// when no count changes), without teams whose count is zero.
func addPending(pending, delta map[string]int) map[string]int {
	var out map[string]int
	for team, d := range delta {
		if d == 0 {
			continue
		}
		if out == nil {
			out = maps.Clone(pending)
			if out == nil {
				out = map[string]int{}
			}
		}
		if out[team] += d; out[team] <= 0 {
			delete(out, team)
		}
	}
	if out == nil {
		return pending
	}
	return out
}

// countsOf counts a built list by team and reason, once per list.
func (w *waitView) countsOf() []metrics.Pending {
	w.countOnce.Do(func() {
		n := map[[2]string]int{}
		for _, x := range w.list {
			n[[2]string{x.Team, string(x.Reason.Code)}]++
		}
		for k, c := range n {
			w.counts = append(w.counts, metrics.Pending{Team: k[0], Reason: k[1], N: c})
		}
		sort.Slice(w.counts, func(a, b int) bool {
			if w.counts[a].Team != w.counts[b].Team {
				return w.counts[a].Team < w.counts[b].Team
			}
			return w.counts[a].Reason < w.counts[b].Reason
		})
	})
	return w.counts
}

// pendingSnapshot fills s's pending figures from v (see above); now is the
// scrape's time. It builds the list only when v's is not built and the
// last counted one is older than ReasonsMaxAge (or failed).
func (e *Engine) pendingSnapshot(s *metrics.Snapshot, v *View, now time.Time) {
	teams := make([]string, 0, len(v.pending))
	for t := range v.pending {
		teams = append(teams, t)
	}
	sort.Strings(teams)
	for _, t := range teams {
		s.PendingByTeam = append(s.PendingByTeam, metrics.TeamPending{Team: t, N: v.pending[t]})
	}
	if !v.wait.isBuilt() {
		if r := e.reasons.Load(); r != nil && now.Sub(r.at) <= ReasonsMaxAge {
			s.QueueListed, s.Pending, s.ReasonsAge = true, r.counts, now.Sub(r.at)
			return
		}
		_, v = v.Waiting() // builds it, or takes a later View's
	}
	if !v.wait.isBuilt() { // the engine stopped: an unbuilt list reads as empty
		s.QueueListed = true
		return
	}
	if v.wait.err != nil {
		return // QueueListed false, no counts
	}
	s.QueueListed, s.Pending = true, v.wait.countsOf()
	e.reasons.Store(&reasonCounts{at: v.wait.at, counts: s.Pending})
	if e.View().wait != v.wait { // no longer the current queue
		s.ReasonsAge = max(0, now.Sub(v.wait.at))
	}
}
