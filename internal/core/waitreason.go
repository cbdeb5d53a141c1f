package core

import "github.com/taskgov/taskgov/internal/model"

// A task's wait reason is a pointer to a record that is never modified
// once made, and tasks share records: the Scheduler interns them (record),
// so every task refused alike (the same team, request and usage, say)
// points to one. A try writes one word of the task, among the fields it
// reads anyway, instead of a 120-byte copy into lines of its own, and a
// pending task carries 8 bytes of reason instead of 120
// (docs/BENCHMARKS.md, "The wait reason as a shared record"). Readers copy
// the value out (reason); the visibility API and the events read the same
// values as when each task kept its own copy.

// reasonTableMax bounds the intern table. When full it is emptied: the
// records tasks hold stay valid, and later reasons are interned afresh.
const reasonTableMax = 4096

// record is the interned record of w.
func (s *Scheduler) record(w model.WaitReason) *model.WaitReason {
	if r, ok := s.reasons[w]; ok {
		return r
	}
	if s.reasons == nil || len(s.reasons) >= reasonTableMax {
		s.reasons = make(map[model.WaitReason]*model.WaitReason)
	}
	r := new(model.WaitReason)
	*r = w
	s.reasons[w] = r
	return r
}

// setWait makes w t's reason; a task whose reason is unchanged keeps its
// record without a lookup.
func (s *Scheduler) setWait(t *task, w model.WaitReason) {
	if t.wait == nil || *t.wait != w {
		t.wait = s.record(w)
	}
}

// reason is the reason t's last try recorded, or the zero reason if none.
func (t *task) reason() model.WaitReason {
	if t.wait == nil {
		return model.WaitReason{}
	}
	return *t.wait
}
