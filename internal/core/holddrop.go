package core

import "github.com/taskgov/taskgov/internal/model"

// The hold jump when the holder drops its hold (holdjump.go, stophold.go).
//
// A holder H whose try at the check's state S would drop its hold (its
// type has no schedulable node, its node selector matches too few, or its
// quota check fails: holderKeeps) blocks the stop until it is tried, and
// after a change in a queue that old it waits behind other teams' heads:
// the walk tried them all first, each changing nothing (the holder's own
// try dropping its hold was the last change of 14% of the deep-backlog
// replay's tries, BENCHMARKS.md).
//
// When every team passes every other bound of the check at S, the rest of
// the walk changes nothing but the hold: H's team passes them too, so H's
// try admits nothing and preempts nothing; it drops the hold, and then a
// task within its quota past its due (a taker) may take a new one. So the
// check is made as for the hold jump, with every team whose tail has such
// a task counted among the takers (holdDue as if no task held nodes) and
// H's team with them, and the hold-blind teams of the rest are deferred
// (holdBlind): their tries read no hold, whichever is in place, and reach
// no reserve (their tasks are refused by quota, exceed it, or are not yet
// due), so the render at the walk's end state writes what the full walk
// wrote before or after the drop, or after a new hold. The walk goes on
// with H's team, the takers and the teams that are not hold-blind; the
// check passes once H has been tried and any new hold is taken
// (stophold.go, holdjump.go). It is the cycle's jump of the type (one per
// cycle: the take jump then waits for the next).
//
// breakDropJump (test only) counts H's team out of the takers: its tail is
// deferred with the rest when hold-blind, so H's try, which drops the hold,
// is made only at the render; TestDifferentialCatchesBrokenDropJump must
// see it.

// dropJump makes, for type i whose hold does not stand, the check above
// and jumps when only the takers and the holder hold it back.
func (s *Scheduler) dropJump(i int) {
	h := s.types[i].holder
	if h == nil || !s.jumpableDrop(i) {
		return
	}
	p := &s.policy
	c := stopCheck{i: i, cur: s.typeWake[i], wake: never,
		rebalance: p.IdleComputeAllocation == model.FairShare && *p.FairShareRebalance, bor: s.borrowSummary(i),
		jump: true, dropping: true, takers: s.jump.takers[:0]}
	// A team that fails a bound holds the jump back: tries made ahead
	// (stoptrial.go) hold only while nothing changes, and the holder's
	// try changes the hold, so none are made here.
	first := s.stops.blocker[i]
	if first != nil && s.blocks(first, &c) {
		s.jump.takers = c.takers[:0]
		return
	}
	for _, tm := range s.teams {
		if tm != first && s.blocks(tm, &c) {
			s.stops.blocker[i] = tm
			s.jump.takers = c.takers[:0]
			return
		}
	}
	if !s.breakDropJump {
		c.takers = append(c.takers, h.team)
	}
	jumps := s.jump.jumps
	s.holdJump(&c)
	if s.jump.jumps != jumps {
		s.jump.drops++
	}
}

// jumpableDrop reports whether a check of type i, whose hold does not
// stand, may jump: a walk's check, no jump yet in this cycle.
func (s *Scheduler) jumpableDrop(i int) bool {
	j := &s.jump
	if len(j.cycle) != len(s.types) {
		j.cycle, j.out = make([]uint64, len(s.types)), make([][]bool, len(s.types))
	}
	return s.stops.heads != nil && s.stops.popped.t == nil && j.cycle[i] != s.cycle
}
