package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// Early stop: a walk ends when what is left of a type's queue can change
// nothing.
//
// A walk of an instance type tries its pending tasks one head per team at a
// time (cycle.go). Once the walk has used up what an input freed, the rest
// of the queue only records wait reasons: every try fails and changes no
// state. stoppable checks, every so often during the walk, that this holds
// for every task still to be tried in the type (its tail); when it does, the
// walk drops the type's heads and keeps the tail's tasks in deferred: their
// tries are made later, only to write their wait reasons, when someone reads
// the reasons (Waiting, renderDeferred). A cycle after one completion or one
// node failure then costs the tasks up to the stop, not the queue.
//
// Why the full walk decides the same. Let S be the state when the walk
// stops. The tail is every pending task of the type not yet tried (for each
// team with tasks of the type, byType[i] from the head in the heap on, less
// the cycle's victims, which wait for the next cycle in both walks). The
// check reads aggregates over each team's whole byType[i] list (queueAgg: the
// smallest request, key and gang, the earliest pendingSince, the latest
// notBefore), a superset of the team's tail, so each bound below holds for
// every tail task t of the team:
//   - No admission. checkQuota's refusal is upward-closed in the request
//     (usage, borrow limit and pool overflow only grow with it), so a refusal
//     of the team's smallest request refuses every t; otherwise fewer nodes
//     reach the smallest key than the smallest gang needs, so place fails at
//     its count check for every t; otherwise mayAdmit makes both checks for
//     each task of the team's tail in turn, and with a hold that stands,
//     heldRefuses counts only the nodes place may use (stopheld.go).
//   - No hold taken or dropped. Without a holder, a hold is taken only by a
//     task within quota whose starvation bound has passed: either no t fits
//     the team's quota, or the earliest pendingSince plus the bound is still
//     ahead. With a holder, only its own try may move the hold: the check
//     wants it tried already, or its try to keep the hold (stophold.go has
//     the conditions and the argument).
//   - No preemption. Own lower-priority victims exist only under rank
//     preemption: stoprank.go bounds what they can do (under Payback, none
//     cheap and the type already unpaid), and stopskip.go a tail whose
//     searches the failed-search memo skips, whatever its candidates (it is
//     checked first, and the bounds below are then not needed). Other teams' victims come from
//     cycleBorrowed; if it holds none of another team, no search has
//     candidates. A within-quota (guaranteed) search that has candidates
//     blocks the stop: it takes cheap borrowed victims at once, without
//     waiting for their price (cheapReclaim, rule 10). For a fair-share
//     search that has candidates, the stop needs preemption Payback, a positive
//     restart cost, victims and tails with at least one GPU each (their
//     weight, weight.go, is then their GPUs), and tails whose wait has not
//     yet paid one restart by the next tick (next cost-clock tick minus the earliest pendingSince, times
//     the largest GPU count): a victim costs at least its weight times the
//     restart cost (victimCost of riskedWork, and paybackPrice's price at the
//     wait's start), so no victim set is paid for (paidBack) and every search
//     ends unpaid or failed, with the state restored. A reclaim of cheap
//     victims alone needs no payback (cheapReclaim), so a tail within its
//     quota blocks the stop while another team has a cheap candidate, unless
//     too few nodes would reach the team's smallest bucket with every cheap
//     candidate gone (roomBound's count over all of them, cheapReach): then
//     every such search fails at roomBound. Under preemption delay, tails
//     not yet ready never search.
//   - Nothing else changes: the type's wake-up and unpaid mark. A tail try
//     can ask for a wake-up at: its backoff's end (the check wants no task
//     backing off); its starvation due (only if within quota: the check
//     computes the earliest such due over the tail when it could come
//     before the wake-up collected so far, and the stop asks for it:
//     stopwake.go); its preemption delay (the check wants every task
//     ready, or the earliest at or after the wake-up);
//     a not-yet-ready fair-share victim's minimum runtime (at or after the
//     earliest over cycleBorrowed); the next cost-clock tick (after a search
//     with candidates). The check wants each at or after the wake-up the walk
//     has collected so far, and the unpaid mark already set when a search
//     with candidates can happen; then the tail leaves both as they are,
//     but for the starvation due the stop asks for itself.
//   - So S is the state after the cycle for this type, and the full walk,
//     which would try the tail at S (in an order that no longer matters, as
//     nothing changes), decides what the stopped walk decided.
//
// The wait reasons. In the full walk each tail task's reason is what its try
// at S records. renderType makes exactly those tries later, at S, and writes
// only their reasons: per team in queue order, starting from the victim
// -search memo the walk held at the stop (the memo is per team; other
// teams' tries do not touch it; the placement memo records facts about S). S
// holds until an input touches the type or its wake-up passes, and either
// makes the next cycle walk the type and drop the deferred tries; the
// cycle's fresh admissions matter to the tries (they are not victims) only
// in the cycle that made them, and a type whose cycle admitted is walked
// again in the next. A render in a later cycle runs at that cycle's time,
// still before the type's wake-up, so every time-based rule a try reads
// (backoff, starvation due, preemption delay, minimum runtime, the cost
// clock's tick) stands where the check bounded it. Waiting renders before it
// lists, so the list is what the full walk would list; a reason read through
// Task may be older.
// Under FairShare with several types, a borrower's search compares shares
// that other types' admissions later in the same cycle may move; a tail that
// may make such a search blocks the stop.
//
// Probes (blocked.go) seed their memo from the memo log, which lacks the
// deferred tries' writes until they are rendered: a probe may then search
// where the walk's memo would skip. A search with candidates joins the walk;
// one without fails as the skip would, and its wake-ups are among those the
// check bounded (minimum runtimes over the same cycleBorrowed).
//
// renderType checks its own tries: any that would admit, preempt, hold, or
// move the type's wake-up or unpaid mark counts in renderHits, which the
// differential test requires to stay zero. breakStop (test only) ignores the
// no-admission bound, the injected bug the differential test must catch.

// queueAgg bounds one team's byType list of one type.
type queueAgg struct {
	n        int       // entries of the list read (pending ones folded in); -1: fold again from the start
	folded   int       // tasks folded in
	loose    bool      // the last task folded in at one of the bounds left the queue: fold again (aggcount.go)
	at       attainers // the tasks at each bound (aggcount.go)
	minTotal resource.Vector
	maxGPUs  int64
	minKey   int
	minNodes int
	minPS    time.Time
	maxPS    time.Time // loose while at.maxPS <= 0: read it through tightPS (aggcount.go)
	maxNB    time.Time
	shape    shapeAgg // what the victim-search memo reads (stopskip.go)
}

// agg returns tm's aggregate over byType[i], folding in tasks appended since
// it was last read.
func (tm *team) agg(i int) *queueAgg {
	if len(tm.aggs) != len(tm.byType) {
		tm.aggs = make([]queueAgg, len(tm.byType))
		for k := range tm.aggs {
			tm.aggs[k].n = -1
		}
	}
	a, q := &tm.aggs[i], tm.byType[i]
	if a.n < 0 || a.n > len(q) || a.loose {
		*a = queueAgg{}
		if i < len(tm.liveFrom) && tm.liveFrom[i] <= len(q) {
			a.n = tm.liveFrom[i] // none pending before it (livestart.go)
		}
	}
	for _, t := range q[a.n:] {
		if t.state == pending {
			a.foldOne(t)
		}
		a.n++
	}
	return a
}

// bounds reports whether the aggregate bounds t (a test's check).
func (a *queueAgg) bounds(t *task) bool {
	sh := &a.shape
	return a.minTotal.LessEq(t.total) && t.total.GPUs <= a.maxGPUs && a.minKey <= keyFor(t) &&
		a.minNodes <= t.spec.Nodes && !t.pendingSince.Before(a.minPS) && !t.pendingSince.After(a.maxPS) &&
		!t.notBefore.After(a.maxNB) && sh.minPod.LessEq(t.pod) && t.total.LessEq(sh.maxTotal) &&
		sh.minReq <= t.reqLevel && (sh.anySel || t.sel == "")
}

// invalidateAggs forgets tm's aggregates (its per-type lists were rebuilt).
func (tm *team) invalidateAggs() {
	for k := range tm.aggs {
		tm.aggs[k].n = -1
	}
}

// borSummary is what the check needs of cycleBorrowed(i).
type borSummary struct {
	list    []*task // the cycleBorrowed slice it was made from
	team    *team   // the one team in the list, or nil if none or several
	many    bool    // tasks of several teams
	zeroGPU bool    // a task without GPUs
	cheap   *team   // the one team with a cheap task in the list (cheapVictims), or nil
	cheaps  bool    // cheap tasks of several teams
	// reach[k]: nodes whose free bucket would reach k were every cheap task
	// of the list gone (roomBound's count, over all of them at once).
	reach []int
	ready bool // a task past its fair-share minimum runtime
	wake  time.Time
}

func (s *Scheduler) borrowSummary(i int) *borSummary {
	list := s.cycleBorrowed(i)
	b := &s.stops.bor[i]
	if b.cycle == s.cycle && len(b.s.list) == len(list) && (len(list) == 0 || &b.s.list[0] == &list[0]) {
		return &b.s
	}
	sum := borSummary{list: list, wake: never}
	minRun := secs(*s.policy.FairShareMinRuntimeSeconds)
	at := s.costClock()
	for _, v := range list {
		if s.cheap(v, at) {
			if sum.cheap == nil && !sum.cheaps {
				sum.cheap = v.team
			} else if v.team != sum.cheap {
				sum.cheap, sum.cheaps = nil, true
			}
		}
		if sum.team == nil && !sum.many {
			sum.team = v.team
		} else if v.team != sum.team {
			sum.team, sum.many = nil, true
		}
		sum.zeroGPU = sum.zeroGPU || v.total.GPUs < 1
		if ready := v.startedAt.Add(minRun); s.now.Before(ready) {
			if ready.Before(sum.wake) {
				sum.wake = ready
			}
		} else {
			sum.ready = true
		}
	}
	if sum.cheap != nil || sum.cheaps {
		sum.reach = s.cheapReach(i, list, at)
	}
	b.cycle, b.s = s.cycle, sum
	return &b.s
}

// cheapReach counts, per bucket k, the schedulable nodes of type i whose
// key would reach k with every cheap task of list gone: a node's key plus
// its cheap pods' keys (roomBound's bound), at least its own key.
func (s *Scheduler) cheapReach(i int, list []*task, at time.Time) []int {
	it := s.types[i]
	ix := &it.index
	gain := map[int32]int{}
	for _, v := range list {
		if !s.cheap(v, at) {
			continue
		}
		for _, p := range v.pods {
			n := s.nodes[p.node]
			if ix.key[n.pos] >= 0 {
				gain[p.node] += it.needKey(v.podOn(n))
			}
		}
	}
	return s.reachAfter(ix, gain)
}

// reachAfter counts, per bucket k, the schedulable nodes of an index whose
// key reaches k once each node n in gain has gained gain[n] buckets (its
// key at most the last bucket): the suffix sums of the moved counts.
func (s *Scheduler) reachAfter(ix *nodeIndex, gain map[int32]int) []int {
	reach := make([]int, len(ix.counts)+1)
	copy(reach, ix.counts)
	for ni, g := range gain {
		k := int(ix.key[s.nodes[ni].pos])
		reach[k]--
		reach[min(k+g, len(ix.counts)-1)]++
	}
	for k := len(ix.counts) - 2; k >= 0; k-- {
		reach[k] += reach[k+1]
	}
	return reach
}

// othersThan reports whether the list holds a task of a team other than tm.
func (b *borSummary) othersThan(tm *team) bool {
	return b.many || (b.team != nil && b.team != tm)
}

// cheapOthersThan reports whether it holds a cheap task of a team other
// than tm.
func (b *borSummary) cheapOthersThan(tm *team) bool {
	return b.cheaps || (b.cheap != nil && b.cheap != tm)
}

// stopState is the early stop's per-cycle scratch and its deferred tries.
type stopState struct {
	stopped   []bool                         // per type: the walk stopped this cycle
	tries     []int                          // per type: tasks tried this cycle
	next      []int                          // per type: the try count at which to check next
	step      []int                          // per type: the current interval between checks
	deferred  [][]deferSeg                   // per type: the deferred tries, views of the teams' lists (deferview.go)
	deferredN []int                          // per type: the tasks in deferred
	memo      []map[attemptKey]failedAttempt // per type: the victim-search memo at the stop
	cycle     []uint64                       // per type: the cycle of the stop
	bor       []struct {
		cycle uint64
		s     borSummary
	}
	stops uint64 // walks stopped early (a measure)
	wakes uint64 // of them, stops that asked for their tail's starvation wake-up (a measure)
	// dueKept counts tailDue's answers from a memo of an earlier cycle (a measure).
	dueKept uint64
	held    uint64 // of them, stops with a holder in place (stophold.go; a measure)
	// holderTried[i]: the task that held nodes of type i after its try in
	// this walk (stophold.go).
	holderTried []*task
	// The walk's heap while it runs, and the head settleRest popped and
	// checks before trying it: which teams still have a tail (stopwake.go).
	heads  *heads
	popped head
	wake   time.Time   // the tail's starvation wake-up, from the last check
	dues   [][]dueMemo // per type and team: tailDue's last answer
	// gen counts the walks' changes (admissions, preemptions, holds);
	// freed counts the cycles and the preemptions committed in them
	// (afterPreempt); admitScans[i][team] is how far mayAdmit read the
	// team's tail of type i since the last of them.
	gen         uint64
	freed       uint64
	admitScans  [][]admitScan
	heldScans   [][]admitScan                // per type and team: how far heldRefuses read (stopheld.go)
	rankScans   [][]rankScan                 // per type and team: how far ownCheapFail read (stoprank.go)
	fairScans   [][]fairScan                 // per type and team: how far tailBorrowSearch read (stopfair.go)
	ownCheap    []*task                      // scratch of rankBlocks
	blocker     []*team                      // per type: the team that held its last check back
	live        []int                        // per type: its heads in the walk's heap (stoptypes.go)
	shareStop   []bool                       // per type: its stop relied on trials under FairShare with other types (stoptypes.go)
	trials      [][]trialScan                // per type and team: the tries the check made ahead (stoptrial.go)
	trialed     bool                         // the last check that passed made tries ahead
	trialFailed map[attemptKey]failedAttempt // scratch of trial
	trialNoRoom map[placeKey]bool            // scratch of trial
	trialsMade  uint64                       // tries made ahead (a measure)
	trialRuns   []runOrder                   // running lists a trial's searches reordered (stoptrial.go)
	renderHits  uint64                       // deferred tries that would have changed something: must stay 0
	prefix      []prefixRange                // per type: a taker's deferred stretch of its list (holdtaker.go)
}

// startStops readies the check for a cycle's walk and drops the deferred
// tries of the types it walks (the walk tries them again).
func (s *Scheduler) startStops() {
	n := len(s.types)
	st := &s.stops
	st.gen++   // a new cycle: no memo of the scans kept while the walk changes nothing
	st.freed++ // nor of mayAdmit's scans
	if len(st.stopped) != n {
		st.stopped, st.tries, st.next, st.step = make([]bool, n), make([]int, n), make([]int, n), make([]int, n)
		st.deferred, st.memo, st.cycle = make([][]deferSeg, n), make([]map[attemptKey]failedAttempt, n), make([]uint64, n)
		st.deferredN = make([]int, n)
		st.dues, st.admitScans, st.blocker = make([][]dueMemo, n), make([][]admitScan, n), make([]*team, n)
		st.holderTried = make([]*task, n)
		st.heldScans = make([][]admitScan, n)
		st.prefix = make([]prefixRange, n)
		st.live, st.shareStop, st.trials = make([]int, n), make([]bool, n), make([][]trialScan, n)
		st.rankScans = make([][]rankScan, n)
		st.fairScans = make([][]fairScan, n)
		st.bor = make([]struct {
			cycle uint64
			s     borSummary
		}, n)
	}
	for i := range st.stopped {
		st.stopped[i], st.tries[i], st.next[i], st.step[i], st.blocker[i] = false, 0, 1, 1, nil
		st.holderTried[i], st.live[i] = nil, 0
		if s.work[i] {
			s.dropDeferred(i) // the walk tries them again (deferview.go)
		}
	}
}

// afterTry counts a try of type i and, every so often (after a change, at
// once; otherwise at doubling intervals), checks whether its walk may stop.
func (s *Scheduler) afterTry(i int, changed bool) {
	st := &s.stops
	st.tries[i]++
	if changed {
		st.step[i], st.next[i] = 1, st.tries[i]
		st.gen++
	}
	if st.tries[i] < st.next[i] {
		return
	}
	if s.stoppable(i) {
		s.stopType(i)
		return
	}
	s.refuseJump(i) // the teams its quota refuses wait for the end (refusejump.go)
	st.step[i] *= 2
	st.next[i] = st.tries[i] + st.step[i]
}

// stopType stops type i's walk: its heads are deferred from now on (the
// walk's victim-search memo of the type is kept for their rendering), and
// the type wakes at the tail's starvation due if that comes first
// (stopwake.go).
func (s *Scheduler) stopType(i int) {
	st := &s.stops
	st.stopped[i] = true
	if st.wake.Before(s.typeWake[i]) && !s.breakStopWake {
		s.typeWake[i] = st.wake
		st.wakes++
	}
	st.cycle[i] = s.cycle
	st.shareStop[i] = st.trialed && len(s.types) > 1
	st.stops++
	if s.types[i].holder != nil {
		st.held++
	}
	memo := map[attemptKey]failedAttempt{}
	for k, f := range s.cc.failed {
		if k.typ() == i {
			memo[k] = f
		}
	}
	st.memo[i] = memo
}

// deferTail keeps, for a stopped type, the popped head and the rest of its
// team's list (what pushNext would have pushed) as deferred tries.
func (s *Scheduler) deferTail(e head) {
	// A view of the list, not a walk over the tasks nor a copy
	// (deferview.go): renderType skips those no longer pending and those
	// the cycle preempted (pushNext's rule: a victim waits for the next
	// cycle).
	q, c := e.tm.byType[e.i], e.tm.cursors[e.i]
	if c > 0 && c <= len(q) && q[c-1] == e.t {
		s.deferView(e.i, e.tm, q[c-1:]) // the head is the entry before the cursor
	} else {
		s.deferOwn(e.i, e.t)
		s.deferView(e.i, e.tm, q[min(c, len(q)):])
	}
	e.tm.cursors[e.i] = len(q)
}

// renderDeferred makes every deferred try, writing the wait reasons the
// walks left for later.
func (s *Scheduler) renderDeferred() {
	for i, list := range s.stops.deferred {
		if len(list) > 0 {
			s.renderType(i)
		}
	}
}

// renderType makes type i's deferred tries at the state the walk stopped at
// (unchanged since), with the memo the walk held then, and keeps only their
// wait reasons (and memo log entries).
func (s *Scheduler) renderType(i int) {
	st := &s.stops
	list := st.deferred[i]
	failed, noRoom, payback := s.cc.failed, s.cc.noRoom, s.cc.payback
	s.cc.failed, s.cc.noRoom = st.memo[i], map[placeKey]bool{}
	if s.cc.failed == nil {
		s.cc.failed = map[attemptKey]failedAttempt{}
	}
	if len(s.cc.borrowed) == len(s.types) {
		s.cc.borrowed[i] = nil
	}
	wake := s.typeWake[i]
	unpaid := i < len(s.unpaid) && s.unpaid[i]
	s.rendering, s.curType = true, i
	holds := s.holdChanges
	var d model.Decision
	k := 0
	for _, g := range list {
		for j, t := range g.q {
			s.prefixAt(i, k) // a taker's deferred stretch (holdtaker.go)
			k++
			if j%readAhead == 0 {
				s.readAhead(g.q[j:min(j+readAhead, len(g.q))])
			}
			if t.state != pending || t.touchedIn == st.cycle[i] {
				continue
			}
			s.tryTask(t, &d)
		}
	}
	s.prefixAt(i, k)
	if s.holdChanges != holds {
		st.renderHits++ // a deferred try never takes or drops a hold (stophold.go)
	}
	s.rendering, s.curType = false, -1
	if !s.typeWake[i].Equal(wake) {
		st.renderHits++
		s.typeWake[i] = wake
	}
	if i < len(s.unpaid) && s.unpaid[i] != unpaid {
		st.renderHits++
		s.unpaid[i] = unpaid
	}
	if len(d.Admissions)+len(d.Preemptions) > 0 {
		st.renderHits++
	}
	s.cc.failed, s.cc.noRoom, s.cc.payback = failed, noRoom, payback
	if len(s.cc.borrowed) == len(s.types) {
		s.cc.borrowed[i] = nil
	}
	s.dropDeferred(i)
}
