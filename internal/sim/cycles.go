package sim

// Which cycles a replay runs, by what set them off: where a deep backlog's
// scheduling work goes (BENCHMARKS.md, the deep-backlog replay).

// The causes of a cycle, in the order the report lists them.
const (
	// CauseRelease: a job completed, or a node failed or came back, since
	// the last cycle (with or without submissions).
	CauseRelease = "release"
	// CauseSubmit: jobs were submitted since the last cycle, and nothing else.
	CauseSubmit = "submit"
	// CauseWake: no input; the core asked to be woken (a time-based rule of
	// a type fell due: starvation bound, backoff, preemption delay, fair
	// share's minimum runtime, a tick of rule 10's cost clock).
	CauseWake = "wake"
)

// CycleCause counts the cycles of one cause.
type CycleCause struct {
	Cause  string `json:"cause"`
	Cycles int    `json:"cycles"`
	// Changed: cycles that admitted or preempted.
	Changed int `json:"changed"`
	// TasksTried: pending tasks tried by these cycles (the core's count).
	TasksTried uint64 `json:"tasks_tried"`
}

// cycleCauses accumulates CycleCause per cause.
type cycleCauses struct {
	by [3]CycleCause
}

// note counts one cycle: released and submitted say what came before it,
// tried is what the core tried in it, changed whether it decided anything.
func (c *cycleCauses) note(released, submitted bool, tried uint64, changed bool) {
	k := 2
	switch {
	case released:
		k = 0
	case submitted:
		k = 1
	}
	e := &c.by[k]
	e.Cycles++
	e.TasksTried += tried
	if changed {
		e.Changed++
	}
}

func (c *cycleCauses) list() []CycleCause {
	out := make([]CycleCause, 0, len(c.by))
	for k, name := range []string{CauseRelease, CauseSubmit, CauseWake} {
		e := c.by[k]
		e.Cause = name
		out = append(out, e)
	}
	return out
}
