package core

// The failed-search memo's key (attemptKey) packs, from the low bits: the
// node selector's number (24 bits, 0 for none), the mode (1 bit), the
// instance type's index (15 bits) and the team's index (24 bits). A
// Scheduler numbers each distinct selector string the first time a search
// of a task with it is keyed, and keeps the number for its life: the memo
// log (blocked.go) keeps keys across cycles.
const (
	keySelBits  = 24
	keyTypeBits = 15
	keyTeamBits = 24
)

// plainKey is the memo key of a search by a task of team tm and type i
// without a node selector.
func plainKey(tm, i int, mode preemptMode) attemptKey {
	if tm >= 1<<keyTeamBits || i >= 1<<keyTypeBits {
		panic("core: team or instance type index past the memo key's range")
	}
	return attemptKey(uint64(tm)<<(keySelBits+1+keyTypeBits) | uint64(i)<<(keySelBits+1) |
		uint64(mode)<<keySelBits)
}

// taskKey is the memo key of t's search in mode.
func (s *Scheduler) taskKey(t *task, mode preemptMode) attemptKey {
	k := plainKey(t.team.idx, t.typ.idx, mode)
	if t.sel == "" {
		return k
	}
	id, ok := s.selIDs[t.sel]
	if !ok {
		if s.selIDs == nil {
			s.selIDs = map[string]uint32{}
		}
		id = uint32(len(s.selIDs) + 1)
		if id >= 1<<keySelBits {
			panic("core: more node selectors than the memo key numbers")
		}
		s.selIDs[t.sel] = id
	}
	return k | attemptKey(id)
}

// typ is the key's instance type index.
func (k attemptKey) typ() int {
	return int(k>>(keySelBits+1)) & (1<<keyTypeBits - 1)
}
