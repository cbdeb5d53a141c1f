package core

// shareMoved (dirty.go) compares, at the start and at the end of every
// cycle, everything a weighted share reads across types: every team's
// borrowing per type and every type's unallocated capacity, O(teams ×
// types) over the whole catalogue. At 2,000 teams that is about a megabyte
// read twice per cycle, most of it not in any cache after a garbage
// collection, which cost more than the rest of a cycle after a single
// submission (BenchmarkGiant).
//
// What it reads changes only through what moves the quota memo's epoch
// (quotamemo.go): a team's borrowing only in refreshTeamType (bumpUsage)
// and detachTeam (bump); a type's schedulable capacity in setSchedulable,
// the quota sum and the team list in attachTeam and detachTeam, the
// BorrowUnallocated switch in SetPolicy (each bump). So while the epoch is
// the one recorded when the snapshot was last compared, and the snapshot
// has the team list's length, a pass would find every value equal to its
// snapshot and report nothing moved: shareUnmoved skips it. The full-rescan
// reference always makes the pass; breakShareEpoch (test only) skips it
// whatever moved, the bug TestDifferentialCatchesBrokenShareEpoch must
// catch.

// When the epoch moved, the pass read every team: O(teams × types) at the
// start and at the end of a cycle after a single completion (4,600 pairs at
// 200 teams and the 23 catalogue types of the one-input benchmark), though
// one team's borrowing changed. A team's borrowing (borC) is written only in
// refreshTeamType, which lists the team (listShareTeam), and in detachTeam.
// detachTeam and attachTeam, which also change the team list and the teams'
// positions, set shareAll. So while shareAll is unset and the snapshot has
// the team list's length, every team whose borrowing may differ from its
// snapshot row is listed, and comparing the listed teams' rows (and every
// type's unallocated capacity, read as before) finds exactly what the whole
// pass finds. A team's row is its position in the team list (idx, which
// the list's changes renumber). The full-rescan reference and the first pass
// after shareAll read every team; breakShareList (test only) leaves the
// listed teams out, the bug TestShareMovedMarksOtherTypes must catch.

// listShareTeam lists t for shareMoved's next pass: its borrowing was
// written.
func (s *Scheduler) listShareTeam(t *team) {
	if !t.shareListed {
		t.shareListed = true
		s.shareTeams = append(s.shareTeams, t)
	}
}

// clearShareTeams empties the list after a pass.
func (s *Scheduler) clearShareTeams() {
	for _, t := range s.shareTeams {
		t.shareListed = false
	}
	clear(s.shareTeams)
	s.shareTeams = s.shareTeams[:0]
	s.shareAll = false
}

// The same holds, at a smaller scale, for the cycle's loop over teams that
// pushes each team's head of every evaluated type: it scanned the whole
// catalogue per team (46,000 flags at 2,000 teams) to find the one or none
// evaluated; workTypes lists them once per cycle.

// workTypes returns the indices of the types the cycle evaluates (s.work),
// in increasing order.
func (s *Scheduler) workTypes() []int {
	w := s.workList[:0]
	for i, on := range s.work {
		if on {
			w = append(w, i)
		}
	}
	s.workList = w
	return w
}

// shareUnmoved reports whether nothing shareMoved reads moved since its
// last pass, for a snapshot of want values.
func (s *Scheduler) shareUnmoved(want int) bool {
	if s.fullRescan || len(s.shareSnap) != want {
		return false
	}
	return s.shareEpoch == s.qm.epoch || s.breakShareEpoch
}
