package model

import "time"

// StartEstimate is what can honestly be said about when a waiting task
// starts. NotBefore is set only where the task's wait reason names a time
// before which it cannot start (a payback, a protection or a preemption
// delay that ends); it is an earliest start, not a prediction. Basis is the
// sentence saying what the estimate rests on, or why none can be made.
// taskgov never extrapolates a start from running tasks: tasks declare no
// end or expected runtime, so when GPUs free up is not known.
type StartEstimate struct {
	NotBefore time.Time `json:"notBefore,omitzero"`
	Basis     string    `json:"basis"`
}

// noEnd is why a start cannot be foretold from the tasks that hold the
// GPUs it needs.
const noEnd = "the running tasks declare no end time, so when GPUs free up is not known"

// EstimateStart is r's start estimate.
func EstimateStart(r WaitReason) StartEstimate {
	at := time.Time{}
	if r.At > 0 {
		at = time.Unix(r.At, 0).UTC()
	}
	switch {
	case r.Code == WaitingForPayback && !at.IsZero():
		return StartEstimate{at, "its wait will have paid for preempting the tasks in its way by then (preemption payback); it starts then only if they still hold the GPUs and nothing ahead of it takes them, and sooner if GPUs free up"}
	case r.Code == VictimProtected && !at.IsZero():
		return StartEstimate{at, "the tasks it would preempt are protected until then; it may preempt them then, or start sooner if GPUs free up"}
	case !at.IsZero(): // NoCapacity, and quota or topology refusals that may preempt once the delay ends
		return StartEstimate{at, "the policy's preemption delay ends then and it may preempt; it starts sooner if GPUs free up"}
	}
	why := map[WaitCode]string{
		QuotaExhausted:  "it starts when its team's own tasks free quota, and " + noEnd,
		BorrowLimit:     "it starts when its team borrows less, and " + noEnd,
		NoIdleCompute:   "it starts when quota or idle compute frees up, and " + noEnd,
		NoCapacity:      "it starts when enough nodes have room, and " + noEnd,
		NoTopologyFit:   "it starts when one network domain has room, and " + noEnd,
		NoMatchingNodes: "it starts when enough nodes with its labels have room, and " + noEnd,
		HeldForOther:    "free nodes are held for a task that has waited longer, which starts first; " + noEnd,
		QueuedForHold:   "it waits behind a task that nodes are held for; " + noEnd,
		Draining:        "nodes are draining for it; it starts when the tasks on them stop, after their grace period, which depends on them",
		NoNodes:         "no node of its type takes work; it starts only when one does, which an administrator decides",
		BackingOff:      "it retries after its backoff from its last failure, if capacity allows then",
		Preempted:       "it was just preempted and is requeued; " + noEnd,
		BehindHead:      "its team queues StrictFIFO, so it starts only after the task ahead of it does; " + noEnd,
	}[r.Code]
	if why == "" {
		why = noEnd
	}
	return StartEstimate{Basis: "no estimate: " + why}
}
