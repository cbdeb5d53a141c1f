package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// preemptMode is why a pending task may preempt.
type preemptMode uint8

const (
	// modeGuaranteed: the task ends within its team's quota, after its own
	// team's lower-priority victims if need be; it may reclaim other teams'
	// borrowed tasks (borrowed before own).
	modeGuaranteed preemptMode = iota
	// modeBorrow: the task borrows. It may take its own team's lower-priority
	// tasks (TaskRanking with LowerPriority preemption), so a team's
	// borrowed compute goes to its most important work, and, under FairShare
	// rebalancing, borrowed tasks of teams of its group whose share stays at
	// or above its own, and, by its team's borrowWithinGroup, lower-priority
	// borrowed tasks of teams of its group (borrowOver); all in one search.
	modeBorrow
)

// attemptKey names one failed-search memo entry: a team, an instance type,
// a mode and a node selector (a selector confines the search: only equal
// ones compare), packed in a word so that the lookup made at nearly every
// try hashes 8 bytes, not a struct holding a string (memokey.go).
type attemptKey uint64

// failedAttempt remembers the smallest request whose preemption search failed
// this cycle, so that a larger one from the same team is not searched again.
type failedAttempt struct {
	pod   [3]int64
	nodes int
	req   int // required topology level; -1 (none) is the loosest
}

// covers reports whether t is at least as hard to place as the failed one:
// as large a pod, as many nodes, a constraint at least as tight.
func (f failedAttempt) covers(t *task) bool {
	return t.pod.GPUs >= f.pod[0] && t.pod.MilliCPU >= f.pod[1] && t.pod.MemMiB >= f.pod[2] && t.spec.Nodes >= f.nodes &&
		t.reqLevel >= f.req
}

// cycleCache holds what one cycle computes lazily and reuses.
type cycleCache struct {
	borrowed [][]*task // per type: reclaimable running tasks of every team; nil = not computed
	failed   map[attemptKey]failedAttempt
	buf      []int32
	// rejected: the victim search in progress skipped a candidate that
	// allowed() refused, so its outcome depends on the candidates' order.
	rejected bool
	// spared: the candidates last listed (candidates) left out a task
	// priorityVictim spares for the task being tried (immediate.go).
	spared bool
	// bestSpread is what the last place call found possible (see place).
	bestSpread int
	// noRoom remembers placements that failed this cycle (see place).
	noRoom map[placeKey]bool
	fits   []fitDomain // scratch of fitting
	heads  heads       // scratch of the cycle's order
	cands  []victim    // scratch of candidates
	cheap  []victim    // scratch of cheapVictims
	pass   []victim    // scratch of reclaimPass
	// presorted: chooseVictims takes the candidates in the order given
	// (cheaperByNodes' second search), their costs already set.
	presorted bool
	// blind: the victim search in progress is blindChoice's, the victims
	// of a preemption already decided, taken in Kueue's order
	// (victimOrder: MostRecentlyStarted) without reading checkpoints.
	blind bool
	// payback is the wait reason of the task being tried when a victim
	// search found victims its wait has not paid for (paybackWait); nil
	// otherwise. preemptFor resets it.
	payback *model.WaitReason
	// delayEnd is when the preemption delay of the task being tried ends,
	// when preemptFor found it within the delay; zero otherwise.
	// preemptFor resets it.
	delayEnd time.Time
	// delaySearches: within the delay, a victim search follows its end
	// (the rules let the task preempt, as preemptFor tries after it), so
	// a quota or topology refusal says when (delayAt).
	delaySearches bool
	// inQuota: the task being tried fits its team's quota (preemptFor), so
	// its payback is decided with the rent its wait will have paid by the
	// next tick (rentByNextLook).
	inQuota bool
	// gain and touched are roomBound's scratch: per node, the key its
	// candidates' pods would add; gain is all zero between calls.
	gain    []int
	touched []int32
	// teamDelta and deltaTeams are enoughWithout's scratch: per team, the
	// usage its candidates hold; teamDelta is all zero between calls.
	teamDelta  []resource.Vector
	deltaTeams []*team
	// memos keep the maps between cycles, empty, so each cycle does not
	// allocate its own.
	memos struct {
		failed map[attemptKey]failedAttempt
		noRoom map[placeKey]bool
	}
}

// startCycle empties the cache for a new cycle, keeping its allocations.
func (c *cycleCache) startCycle(types int) {
	if c.memos.failed == nil {
		c.memos.failed = map[attemptKey]failedAttempt{}
		c.memos.noRoom = map[placeKey]bool{}
	}
	clear(c.memos.failed)
	clear(c.memos.noRoom)
	if len(c.borrowed) != types {
		c.borrowed = make([][]*task, types)
	}
	clear(c.borrowed)
	c.failed, c.noRoom = c.memos.failed, c.memos.noRoom
	c.bestSpread = 0
}

func (s *Scheduler) cycleBorrowed(i int) []*task {
	c := &s.cc
	if c.borrowed[i] == nil {
		list := []*task{}
		for _, tm := range s.teams {
			list = append(list, s.reclaimable(tm, i)...)
		}
		c.borrowed[i] = list
	}
	return c.borrowed[i]
}

// tryPreempt looks for victims that let t start now. On success it has
// stopped the victims, requeued them, started t, and recorded both in d.
//
// Under preemption Payback (rule 10) the search runs on cheap candidates
// only (cheapVictims): a preemption throws away no more than a restart
// costs. A task that would end within its quota, finding none, may then
// reclaim other teams' borrowed tasks at any cost once its wait has paid
// their price (paidBack): its guarantee is bounded. Under Immediate the
// candidates are every task the rules allow (the price still orders them),
// except that fair-share victims (other teams' tasks taken to borrow) must
// be cheap: without that, borrowers took compute back and forth (8,000
// jobs at 85% offered load: 6.8 preemptions per job, 42% of GPU time
// redone).
func (s *Scheduler) tryPreempt(t *task, mode preemptMode, d *model.Decision) bool {
	key := s.taskKey(t, mode)
	if f, ok := s.cc.failed[key]; ok && f.covers(t) {
		return false
	}
	fail := func() bool {
		if !s.cc.spared { // a later task may take what t's search spared (immediate.go)
			s.noteFailed(key, t)
		}
		return false
	}
	all := s.candidates(t, mode)
	if len(all) == 0 {
		return fail()
	}
	if s.probing {
		// A search with candidates may succeed, or change later tasks'
		// searches through the memo: the type is walked in full (blocked.go).
		s.probeHit = !s.breakProbe
		return false
	}
	i := t.typ.idx
	var victims []victim
	var nodes []int32
	unpaid := false // victims were found, but t's wait has not paid for them
	if s.policy.Preemption == model.PreemptImmediate {
		cands := all
		if mode == modeBorrow {
			// Fair share moves idle compute between borrowers: only
			// cheap victims, as under Payback; priority at once.
			// A checkpoint makes a victim cheap; a cheap one turns dear as
			// the cost clock ticks.
			var dear bool
			if cands, dear = s.ownOrCheap(t, all); dear {
				s.markUnpaid(i)
			}
			s.wakeAt(s.nextTick())
		}
		victims, nodes = s.searchVictims(t, mode, cands)
	} else {
		cheap, dear, dearOthers := s.cheapVictims(t, all)
		if dear {
			// A checkpoint makes a victim cheap: it re-evaluates the type.
			s.markUnpaid(i)
		}
		if len(cheap) > 0 {
			// A cheap victim turns dear as the cost clock ticks.
			s.wakeAt(s.nextTick())
			victims, nodes = s.searchVictims(t, mode, cheap)
			found := victims != nil
			if !s.cheapReclaim(t, victims, mode) {
				victims = s.unlessUnpaid(t, victims, mode)
			}
			unpaid = found && victims == nil
		}
		if victims == nil && mode == modeGuaranteed && dearOthers {
			// The guarantee: other teams' borrowed tasks at any cost, once
			// paid for; own victims still only cheap ones.
			victims, nodes = s.searchVictims(t, mode, s.reclaimPass(t, all))
			found := victims != nil
			victims = s.unlessUnpaid(t, victims, mode)
			unpaid = unpaid || (found && victims == nil)
		}
	}
	if victims == nil && unpaid {
		// Whether a wait has paid is the task's own (its wait times its
		// size): a later task of the team may have paid, so this failure
		// is not noted for it (the memo would skip its search).
		return false
	}
	if victims == nil {
		return fail()
	}
	if s.rendering { // stop.go: a deferred try never preempts
		for k := len(victims) - 1; k >= 0; k-- {
			s.reassign(victims[k].t)
		}
		s.stops.renderHits++
		return false
	}
	if s.policy.VictimOrder == model.MostRecentlyStarted {
		victims, nodes = s.blindChoice(t, mode, all, victims, nodes)
	}
	if s.onBorrowVictims != nil && mode == modeBorrow {
		s.onBorrowVictims(t, victims)
	}
	wait := make([]string, 0, len(victims))
	for _, v := range victims {
		d.Preemptions = append(d.Preemptions, model.Preemption{Task: v.t.spec.Name, Team: v.t.spec.Team,
			Reason: s.preemptReason(t, mode, v), For: t.spec.Name, LostGPUSeconds: s.lostWork(v.t, s.now)})
		wait = append(wait, v.t.spec.Name)
		if v.t.team == t.team {
			v.t.priorityLost++ // preemptReason is WithinTeamPriority
		}
		s.afterPreempt(v.t)
	}
	s.cc.borrowed[i] = nil
	s.admit(t, nodes, d)
	d.Admissions[len(d.Admissions)-1].WaitFor = wait
	return true
}

// unlessUnpaid gives victims back, and returns nil, when t's wait has not
// yet paid their price (paidBack); it then looks again at the next tick of
// the cost clock, and keeps the first such wait of t's try as its payback
// reason (s.cc.payback, which tryTask reports).
func (s *Scheduler) unlessUnpaid(t *task, victims []victim, mode preemptMode) []victim {
	if victims == nil || s.paidBack(t, victims, mode == modeGuaranteed) {
		return victims
	}
	if s.cc.payback == nil {
		s.cc.payback = s.paybackWait(t, victims, mode)
	}
	for k := len(victims) - 1; k >= 0; k-- {
		s.reassign(victims[k].t)
	}
	s.wakeAt(s.nextTick())
	s.markUnpaid(t.typ.idx)
	return nil
}

// searchVictims chooses, among cands, victims that let t start now in this
// mode, and where it then places. It returns nil (and the state as before)
// when there are none; otherwise the victims are removed (simulated) and
// nodes is t's placement without them.
func (s *Scheduler) searchVictims(t *task, mode preemptMode, cands []victim) ([]victim, []int32) {
	if len(cands) == 0 {
		return nil, nil
	}
	refused := false
	victims, nodes := s.searchVictimsPass(t, mode, cands, false, &refused)
	if victims == nil && mode == modeBorrow && refused && s.hasSecondStrategy() {
		// The policy's second fair-share strategy (fairstrategy.go).
		victims, nodes = s.searchVictimsPass(t, mode, cands, true, &refused)
	}
	return victims, nodes
}

// searchVictimsPass is one pass of searchVictims: with the policy's first
// fair-share strategy, or also its second when second is set. It sets
// *refused when a candidate was refused on its share.
func (s *Scheduler) searchVictimsPass(t *task, mode preemptMode, cands []victim, second bool, refused *bool) ([]victim, []int32) {
	tm, i := t.team, t.typ.idx
	var nodes []int32
	var pm placeMode // quick while victims are searched; confined to a domain by chooseInDomain
	feasible := func() bool {
		v := s.checkQuota(tm, i, t.total)
		if !v.ok || (mode == modeGuaranteed && !v.inQuota) {
			return false
		}
		nodes, _ = s.place(t, pm)
		return nodes != nil
	}
	// A victim of another team goes only while that team still borrows;
	// under fair share, only while the policy's strategies allow it with
	// t's team's share with t (after the victims so far): by default, while
	// that share stays at or below the victim team's share after it
	// (fairstrategy.go). Own victims come first there, so they lower t's
	// team's share before other teams' tasks are weighed; fair keeps the
	// condition true when the reprieve gives an own victim back.
	allowed := func(v victim) bool {
		if v.t.team == tm {
			return true
		}
		if !s.stillBorrows(v.t) {
			return false
		}
		return mode != modeBorrow || s.borrowOver(t, v.t) || s.shareAllows(second, refused, tm, s.share(tm, i, t.total), v.t)
	}
	var fair func([]victim) bool
	if mode == modeBorrow {
		fair = func(out []victim) bool {
			mine := s.share(tm, i, t.total)
			var ignored bool
			for _, v := range out {
				if v.t.team != tm && !s.borrowOver(t, v.t) && !s.shareAllows(second, &ignored, tm, mine, v.t) {
					return false
				}
			}
			return true
		}
	}
	var victims []victim
	s.cc.rejected = false
	pm.quick = true
	switch {
	case mode == modeGuaranteed && !s.quotaWithout(t, cands):
	case !s.roomBound(t, cands, nil):
	case t.reqLevel >= 0 && t.typ.topo.labeled > 0:
		victims = s.chooseInDomain(t, cands, allowed, feasible, fair, &pm)
	default:
		victims = s.cheaperByNodes(t, nil, cands, s.chooseVictims(cands, allowed, feasible, fair), allowed, feasible, fair)
	}
	pm.quick = false
	if victims == nil {
		if s.cc.rejected && !s.cc.blind {
			// The greedy order decided; it may change when the cost clock ticks.
			s.markUnpaid(i)
			s.wakeAt(s.nextTick())
		}
		return nil, nil
	}
	clear(s.cc.noRoom) // victims freed room: earlier failures no longer hold
	if !feasible() {   // the final placement, with the victims gone
		panic("core: victims chosen but the task does not place")
	}
	return victims, nodes
}

// fairToTake is rule 5's share condition: team tm, whose share with its task
// (after its own victims) is mine, may take borrowed compute from team vt
// when mine stays at or below vt's share after the preemption, or when vt's
// weight is 0 and tm's is not: a team of weight 0 borrows last, only what no
// team of positive weight wants, so it yields all it borrows to one.
func (s *Scheduler) fairToTake(tm *team, mine float64, vt *team) bool {
	if *vt.spec.FairShareWeight == 0 && *tm.spec.FairShareWeight > 0 {
		return true
	}
	return mine <= s.share(vt, -1, resource.Zero)
}

// afterPreempt requeues a victim that chooseVictims already unassigned.
func (s *Scheduler) afterPreempt(v *task) {
	if !s.breakNoAdmitGen {
		s.stops.freed++ // mayAdmit's scans start again (stopcheck.go)
	}
	v.resumes++
	v.pendingSince = s.now
	v.touchedIn = s.cycle
	v.wait = s.record(model.WaitReason{Code: model.Preempted, InstanceType: v.typ.spec.Name})
	s.enqueue(v)
}

// candidates lists who t may preempt in this mode (chooseVictims orders
// them and fills in their lost work; preemptReason says how each victim's
// preemption is reported). To end within quota, other teams' borrowed tasks
// come first and the team's own lower-priority tasks second: a team short
// of quota takes back what it lent before it stops its own work, so a
// victim never preempts its way back. To borrow, the team's own
// lower-priority tasks come first: its borrowing goes to its most important
// work before it takes other teams' (fair share). The list is the cycle's
// scratch (s.cc.cands), valid until the next call; no call allocates once
// the scratch has grown (a closure per call cost about 1% of the deep
// backlog's replay).
func (s *Scheduler) candidates(t *task, mode preemptMode) []victim {
	tm, i := t.team, t.typ.idx
	out := s.cc.cands[:0]
	s.cc.spared = false
	minRun := *s.policy.FairShareMinRuntimeSeconds
	rebalance := s.policy.IdleComputeAllocation == model.FairShare && *s.policy.FairShareRebalance
	own, others := 1, 0
	if mode == modeBorrow {
		own, others = 0, 1
	}
	over := mode == modeBorrow && tm.spec.BorrowWithinGroup.Preempts()
	if mode == modeGuaranteed || rebalance || over {
		for _, v := range s.cycleBorrowed(i) {
			if v.team == tm || !s.mayReclaim(t, v) {
				continue
			}
			if mode == modeBorrow {
				if v.team.group != tm.group {
					continue
				}
				if over && s.borrowOver(t, v) {
					if v.touchedIn != s.cycle {
						out = append(out, victim{t: v, cat: others}) // for priority: no minimum runtime
					}
					continue
				}
				if !rebalance {
					continue
				}
				if ready := v.startedAt.Add(secs(minRun)); s.now.Before(ready) {
					s.wakeAt(ready)
					continue
				}
			}
			if v.touchedIn != s.cycle {
				out = append(out, victim{t: v, cat: others})
			}
		}
	}
	if s.rankPreemption(tm) {
		for _, v := range tm.run[i] {
			if ownVictim(t, v) && s.priorityVictim(t, v) && v.touchedIn != s.cycle {
				out = append(out, victim{t: v, cat: own})
			}
		}
	}
	s.cc.cands = out[:0]
	return out
}

// preemptReason is how the preemption of v, a candidate of task t in
// mode, is reported.
func (s *Scheduler) preemptReason(t *task, mode preemptMode, v victim) model.PreemptReason {
	switch {
	case v.t.team == t.team:
		return model.WithinTeamPriority
	case mode == modeBorrow && s.borrowOver(t, v.t):
		return model.BorrowWithinGroupReason
	case mode == modeBorrow:
		return model.FairShareReason
	default:
		return model.Reclaim
	}
}

// mayReclaim applies t's team's reclaimWithinGroup setting to v, a borrowed
// task of another team.
func (s *Scheduler) mayReclaim(t, v *task) bool {
	switch t.team.spec.ReclaimWithinGroup {
	case model.ReclaimNever:
		return false
	case model.ReclaimLowerPriority:
		return v.rank < t.rank
	}
	return true
}

// enforceLimits preempts, team by team, the tasks that keep a team above its
// quota plus borrow limit after a quota cut or policy change. It prefers
// lower priority and less lost work.
func (s *Scheduler) enforceLimits(d *model.Decision) {
	for _, tm := range s.teams {
		for i := range s.types {
			limit := tm.quota[i].Add(s.borrowLimit(tm, i))
			if tm.usage[i].LessEq(limit) {
				continue
			}
			var cands []victim
			for _, v := range tm.run[i] {
				cands = append(cands, victim{t: v, lost: s.lostWork(v, s.now)})
			}
			victims := s.chooseVictims(cands, nil, func() bool { return tm.usage[i].LessEq(limit) }, nil)
			for _, v := range victims {
				d.Preemptions = append(d.Preemptions, model.Preemption{Task: v.t.spec.Name, Team: tm.spec.Name,
					Reason: model.QuotaReduced, LostGPUSeconds: s.lostWork(v.t, s.costClock())})
				s.afterPreempt(v.t)
			}
		}
	}
}

// chooseInDomain is victim choice for a required-topology task: for every
// domain of the required level, the cheapest victims inside it that let the
// gang land there; the domain whose victims lose the least work wins; among
// equals, the one whose last victim in the victim order (category, then
// priority: topVictim) comes first, so a tie takes lower-priority work as
// Kueue does; then the lowest domain id (a total order: ids follow the
// node list). Victims stay concentrated in one domain, and nothing is
// chosen unless the gang then places. On success the winning victims are
// removed and pm.only confines the final placement to their domain (feasible
// places with pm).
func (s *Scheduler) chooseInDomain(t *task, cands []victim, allowed func(victim) bool, feasible func() bool, fair func([]victim) bool, pm *placeMode) []victim {
	l := t.reqLevel
	doms := t.typ.topo.levels[l]
	inDom := make([][]victim, len(doms))
	for _, v := range cands {
		// Once per domain, however its pods interleave across domains (a
		// gang placed tightest-first may lie in A, B, A): a victim listed
		// twice would be removed twice.
		for _, p := range v.t.pods {
			if id := s.nodes[p.node].dom[l]; id >= 0 && (len(inDom[id]) == 0 || inDom[id][len(inDom[id])-1].t != v.t) {
				inDom[id] = append(inDom[id], v)
			}
		}
	}
	best, bestCost, bestTop := -1, 0.0, victimKey{}
	for id, vs := range inDom {
		if len(vs) == 0 || len(doms[id].nodes) < t.spec.Nodes || !s.roomBound(t, vs, doms[id]) {
			continue
		}
		pm.only = doms[id]
		chosen := s.cheaperByNodes(t, doms[id], vs, s.chooseVictims(vs, allowed, feasible, fair), allowed, feasible, fair)
		if chosen == nil {
			continue
		}
		cost := 0.0
		for _, v := range chosen {
			cost += v.lost
			s.reassign(v.t)
		}
		top := topVictim(chosen)
		if best < 0 || cost < bestCost || (cost == bestCost && top.before(bestTop)) {
			best, bestCost, bestTop = id, cost, top
		}
	}
	if best < 0 {
		pm.only = nil
		return nil
	}
	pm.only = doms[best]
	vs := inDom[best]
	return s.cheaperByNodes(t, doms[best], vs, s.chooseVictims(vs, allowed, feasible, fair), allowed, feasible, fair)
}

// victimKey is where a victim comes in the victim order: its category,
// then its priority; lower comes first.
type victimKey struct{ cat, rank int }

func (k victimKey) before(o victimKey) bool {
	if k.cat != o.cat {
		return k.cat < o.cat
	}
	return k.rank < o.rank
}

// topVictim is the key of the victim among vs that the order takes last.
func topVictim(vs []victim) victimKey {
	var top victimKey
	for n, v := range vs {
		if k := (victimKey{v.cat, v.t.rank}); n == 0 || top.before(k) {
			top = k
		}
	}
	return top
}
