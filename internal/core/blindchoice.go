package core

// Rule 6 under victimOrder: MostRecentlyStarted (Kueue's order, kept to
// measure what the checkpoint-aware default saves). Whether, when and for
// which task a preemption happens is the waiting task's and the cheapest
// admissible way to make room: every rule (the categories, rule 10's cheap
// victims and payback price) decides it with the work victims really lose,
// whatever the victim order. The order chooses only which victims a
// preemption so decided takes. So the two orders make the same preemption
// decisions from the same state and differ in the work their victims lose,
// which is what the comparison is for.
//
// Before, the order also priced victims blind (by their work since start),
// so rule 10 found few cheap ones and the blind runs preempted about half as
// often as the default: their lost GPU-hours in all measured the trigger as
// much as the choice (SIMULATOR.md, "Victim order decides only which
// victims").

// blindChoice takes the victims of a preemption already decided for t in
// this mode (victims, still removed, and t's placement nodes without them)
// and chooses again among all of t's candidates in this mode (all: every
// task the category and priority rules admit, dear ones too; the cost
// rules that confined the decided search to cheap or paid-for victims do
// not confine this one, since Kueue's order knows no cost), in Kueue's
// order: category, lower priority, the most recently started, with no
// node-by-node search and no checkpoint read. It
// returns the new victims, still removed, and t's placement; should that
// greedy search fail (a candidate refused on the way), the decided victims
// and placement, removed again.
func (s *Scheduler) blindChoice(t *task, mode preemptMode, all, victims []victim, nodes []int32) ([]victim, []int32) {
	// nodes is place's scratch (s.cc.buf), which the search below writes
	// over: the fallback needs its own copy.
	nodes = append([]int32(nil), nodes...)
	pool := append(make([]victim, 0, len(all)), all...)
	for k := len(victims) - 1; k >= 0; k-- {
		s.reassign(victims[k].t)
	}
	s.cc.blind = true
	blind, at := s.searchVictims(t, mode, pool)
	s.cc.blind = false
	if blind != nil {
		return blind, at
	}
	for _, v := range victims {
		s.unassign(v.t)
	}
	clear(s.cc.noRoom) // the failed search's memo read other states
	return victims, nodes
}
