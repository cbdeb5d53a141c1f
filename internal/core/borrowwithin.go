package core

// borrowOver reports whether t, a borrowing task, may preempt v by its
// team's borrowWithinGroup (Kueue's borrowWithinCohort): v is a task of
// another team of t's group (the caller passes only borrowed ones), of a
// lower class than t's and at most the setting's maxPriorityWeight, and t's
// team's reclaimWithinGroup allows taking it. Such a victim is taken for
// priority, as a team's own lower-priority task is: rule 5's share
// condition and minimum runtime do not apply to it.
func (s *Scheduler) borrowOver(t, v *task) bool {
	tm := t.team
	b := tm.spec.BorrowWithinGroup
	if !b.Preempts() || v.team == tm || v.team.group != tm.group || v.rank >= t.rank || !s.mayReclaim(t, v) {
		return false
	}
	return b.MaxPriorityWeight == nil || v.rank <= *b.MaxPriorityWeight
}
