package core

import "github.com/taskgov/taskgov/internal/model"

// A listed reason (Waiting, Task) is the recorded one, completed with what
// the state at the time of listing says: for NoIdleCompute, how many of
// the task's nodes its quota and the idle compute it may borrow would hold
// now (model.WaitReason's Nodes and Fit). Tries never compute it: a tried
// reason reads the team's usage, quota and borrow limit only, so that tries
// made at different states of one walk agree (refusejump.go, stop.go); the
// listing reads the walk's end state, the same in the full rescan.

// fitMemo keeps, for one listing, what it learnt of how many pods of a
// request each team may run more on a type: the count does not depend on
// the gang's size (a refusal is upward-closed in the request, refusejump.go),
// so the tasks of one team and pod size share one search.
type fitMemo map[fitKey]fitRange

type fitKey struct {
	tm  *team
	i   int
	pod podKey
}

// podKey is a pod's request, comparable.
type podKey [3]int64

// fitRange: lo pods are admitted; hi pods are refused (0: no refused count
// known yet).
type fitRange struct{ lo, hi int }

// fillFit completes r, t's reason being listed, with what the state says
// now; m, if not nil, is the listing's memo.
func (s *Scheduler) fillFit(t *task, r *model.WaitReason, m fitMemo) {
	n := t.spec.Nodes
	if r.Code != model.NoIdleCompute || n < 2 {
		return
	}
	k := fitKey{tm: t.team, i: t.typ.idx, pod: podKey{t.pod.GPUs, t.pod.MilliCPU, t.pod.MemMiB}}
	fr := s.borrowFit(t, m[k], n)
	if m != nil {
		m[k] = fr
	}
	r.Nodes, r.Fit = int32(n), int32(min(fr.lo, n))
}

// borrowFit narrows fr, what is known for t's team, type and pod, until it
// tells how many of t's pods, up to n, the team's quota, borrow limit and
// the idle compute it may borrow would admit now: a binary search between
// the largest count known admitted and the smallest known refused (or n+1).
func (s *Scheduler) borrowFit(t *task, fr fitRange, n int) fitRange {
	tm, i := t.team, t.typ.idx
	top, refused := n+1, false // top is refused, or past what this query needs
	if fr.hi != 0 && fr.hi <= top {
		top, refused = fr.hi, true
	}
	for top-fr.lo > 1 {
		mid := fr.lo + (top-fr.lo)/2
		if v, _ := s.quotaValue(tm, i, t.pod.Mul(int64(mid)), tm.usage[i], true); v.ok {
			fr.lo = mid
		} else {
			top, refused = mid, true
		}
	}
	if refused {
		fr.hi = top
	}
	return fr
}
