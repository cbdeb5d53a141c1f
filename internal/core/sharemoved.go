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

// shareUnmoved reports whether nothing shareMoved reads moved since its
// last pass, for a snapshot of want values.
func (s *Scheduler) shareUnmoved(want int) bool {
	if s.fullRescan || len(s.shareSnap) != want {
		return false
	}
	return s.shareEpoch == s.qm.epoch || s.breakShareEpoch
}
