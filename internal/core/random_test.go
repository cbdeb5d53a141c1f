package core

import (
	"fmt"
	"hash/fnv"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ip(v int) *int      { return &v }
func i64(v int64) *int64 { return &v }
func bp(v bool) *bool    { return &v }

var randTypes = []string{"ml.p5.48xlarge", "ml.g5.12xlarge"}

// randomCluster builds a small random cluster: two instance types, a few
// teams in one or two groups with random strategies, limits and weights.
func randomCluster(r *rand.Rand) model.Cluster {
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{
			{Name: "p5", InstanceType: randTypes[0], Count: 4 + r.Intn(10),
				Topology: &model.Topology{NodesPerLayer3: 2 + r.Intn(3), Layer3PerLayer2: 1 + r.Intn(2), Layer2PerLayer1: 1 + r.Intn(2)}},
			{Name: "g5", InstanceType: randTypes[1], Count: 2 + r.Intn(6)},
		},
		Policy: randomPolicy(r),
	}
	for k := 0; k < 2+r.Intn(4); k++ {
		c.Teams = append(c.Teams, randomTeam(r, fmt.Sprintf("t%d", k)))
	}
	return c
}

func randomPolicy(r *rand.Rand) model.Policy {
	p := model.Policy{
		TaskPrioritization:         []model.TaskPrioritization{model.FirstComeFirstServe, model.TaskRanking}[r.Intn(2)],
		IdleComputeAllocation:      []model.IdleComputeAllocation{model.IdleFirstComeFirstServe, model.FairShare}[r.Intn(2)],
		PriorityClasses:            []model.PriorityClass{{Name: "high", Weight: 90}, {Name: "mid", Weight: 50}, {Name: "low", Weight: 10}},
		BorrowUnallocated:          bp(r.Intn(3) > 0),
		FairShareRebalance:         bp(r.Intn(4) > 0),
		FairShareMinRuntimeSeconds: i64(int64(r.Intn(3) * 300)),
		StarvationBoundSeconds:     i64(int64(600 + r.Intn(3)*600)),
		VictimOrder:                []model.VictimOrder{model.LeastLostWork, model.MostRecentlyStarted}[r.Intn(2)],
		PreemptionDelaySeconds:     float64(r.Intn(2) * 120),
		Preemption:                 []model.PreemptionTiming{model.PreemptImmediate, model.PreemptPayback}[r.Intn(2)],
		RestartCostSeconds:         i64([]int64{0, 60, 600}[r.Intn(3)]),
	}
	if fairKnobs {
		// nil (the default) or one of the lists allowed, drawn last so
		// that the draws above are those of the other tests' seeds. Fair
		// share with rebalancing and no minimum runtime, and victims cheap
		// for an hour after a start or checkpoint (rule 10), so that
		// rebalances happen: with the draws above they almost never do.
		if k := r.Intn(len(model.FairShareStrategySets) + 1); k > 0 {
			p.FairSharePreemption = model.FairShareStrategySets[k-1]
		}
		p.IdleComputeAllocation, p.FairShareRebalance = model.FairShare, bp(true)
		p.FairShareMinRuntimeSeconds, p.RestartCostSeconds = i64(0), i64(3600)
	}
	return p
}

func randomTeam(r *rand.Rand, name string) model.Team {
	t := model.Team{
		Name:               name,
		Group:              []string{"g1", "g2"}[r.Intn(2)],
		FairShareWeight:    ip(r.Intn(101)),
		Lending:            []model.Lending{model.LendAndBorrow, model.LendOnly, model.DontLend}[r.Intn(3)],
		BorrowLimitPercent: ip(r.Intn(201)),
		PreemptTeamTasks:   []model.PreemptTeamTasks{model.PreemptLowerPriority, model.PreemptNever}[r.Intn(2)],
		ReclaimWithinGroup: []model.ReclaimWithinGroup{model.ReclaimAny, model.ReclaimAny, model.ReclaimLowerPriority, model.ReclaimNever}[r.Intn(4)],
	}
	n := int64(r.Intn(5))
	t.Quotas = append(t.Quotas, model.Quota{InstanceType: randTypes[0], Count: &n})
	if r.Intn(2) == 0 {
		g := int64(r.Intn(12))
		q := model.Quota{InstanceType: randTypes[1], GPUs: &g}
		if r.Intn(3) == 0 {
			cap := int64(r.Intn(8))
			q.BorrowCap = &model.Amount{GPUs: &cap}
		}
		t.Quotas = append(t.Quotas, q)
	}
	if queueKnobs && t.PreemptTeamTasks == model.PreemptLowerPriority && r.Intn(2) == 0 {
		// Kueue's withinClusterQueue LowerOrNewerEqualPriority.
		t.PreemptTeamTasks = model.PreemptLowerOrNewerEqualPriority
	}
	if fairKnobs {
		// One group of teams that all lend and borrow, so that their
		// borrowing searches meet (with the draws above, rebalances almost
		// never happen).
		t.Group, t.Lending, t.BorrowLimitPercent, t.ReclaimWithinGroup = "g1", model.LendAndBorrow, ip(400), model.ReclaimAny
	}
	if queueKnobs && (*t.BorrowLimitPercent+len(name))%3 == 0 {
		// Kueue's queueingStrategy StrictFIFO, for a third of the teams,
		// chosen from draws already made: the seeds' later draws stay those
		// the LowerOrNewerEqualPriority runs were written for.
		t.QueueingStrategy = model.StrictFIFO
	}
	if !kueueKnobs {
		return t
	}
	if t.Lending.Borrows() && r.Intn(3) == 0 {
		// Kueue's borrowWithinCohort, with or without a threshold.
		t.BorrowWithinGroup = &model.BorrowWithinGroup{Policy: model.BorrowWithinGroupLowerPriority}
		if r.Intn(2) == 0 {
			t.BorrowWithinGroup.MaxPriorityWeight = ip([]int{10, 50, 90}[r.Intn(3)])
		}
	}
	if t.Lending.Lends() {
		// Kueue's lendingLimit: on some entries, lend at most part of the quota.
		for k := range t.Quotas {
			if r.Intn(2) == 0 {
				continue
			}
			q := &t.Quotas[k]
			most := int64(0)
			if q.Count != nil {
				most = *q.Count * 8 // only the p5 entry has a count: 8 GPUs a node
			} else if q.GPUs != nil {
				most = *q.GPUs
			}
			l := r.Int63n(most + 1)
			q.LendingLimit = &model.Amount{GPUs: &l}
		}
	}
	return t
}

// kueueKnobs makes randomTeam also draw lending limits and
// borrowWithinGroup (TestIncrementalMatchesFullRescanKueueKnobs,
// TestRandomInvariantsKueueKnobs); off, the draws are those the seeds of the
// other random tests (and the injected-bug tests' seed ranges) were written
// for.
var kueueKnobs bool

// queueKnobs makes randomTeam also draw the team's queue settings that
// order its own tasks: preemptTeamTasks LowerOrNewerEqualPriority and
// queueingStrategy StrictFIFO (TestIncrementalMatchesFullRescanQueueKnobs,
// TestRandomInvariantsQueueKnobs).
// Off, the draws are those of the seeds the other random tests were
// written for.
var queueKnobs bool

// randomNewerEqual counts within-team preemptions of equal priority in the
// random runs (checkCycle).
var randomNewerEqual int

// randomBehind counts tasks found waiting behind a strict queue's head
// after a cycle in the random runs (checkStrictQueues).
var randomBehind int

// mixedShapes makes randomTask also draw gangs of partial nodes and tasks
// without GPUs (TestIncrementalMatchesFullRescanMixedShapes); off, the
// draws are those the seeds of the other random tests were written for.
var mixedShapes bool

func randomTask(r *rand.Rand, name string, c *model.Cluster) model.TaskSpec {
	it := randTypes[r.Intn(2)]
	s := model.TaskSpec{Name: name, Team: c.Teams[r.Intn(len(c.Teams))].Name, InstanceType: it,
		Priority: []string{"high", "mid", "low", ""}[r.Intn(4)], Nodes: 1 + r.Intn(3),
		AutoResume: r.Intn(2) == 0, MaxRetry: r.Intn(3)}
	if mixedShapes {
		switch r.Intn(8) {
		case 0, 1, 2:
			s.Nodes = 1
			s.PerNode.GPUs = int64(1 + r.Intn(4))
		case 3:
			s.PerNode.GPUs = int64(1 + r.Intn(4)) // a gang of partial nodes
		case 4:
			s.PerNode.VCPU = float64(1 + r.Intn(64)) // no GPUs: rule 10 counts its weight
		}
	} else if r.Intn(2) == 0 {
		s.Nodes = 1
		s.PerNode.GPUs = int64(1 + r.Intn(4))
	}
	if withSelectors && r.Intn(3) == 0 {
		s.NodeSelector = map[string]string{selLabel: "Passed"}
	}
	switch r.Intn(4) {
	case 0:
		s.RequiredTopology = model.DefaultTopologyLevels[r.Intn(3)]
	case 1:
		s.PreferredTopology = model.DefaultTopologyLevels[r.Intn(3)]
	}
	return s
}

// randomRun drives one seed through ops operations and checks every
// invariant after every cycle. It returns a digest of all decisions.
func randomRun(t *testing.T, seed int64, ops int) uint64 { return randomRunKeep(t, seed, ops, nil) }

// randomRunKeep is randomRun that hands the final scheduler and time to keep.
func randomRunKeep(t *testing.T, seed int64, ops int, keep func(*Scheduler, time.Time)) uint64 {
	r := rand.New(rand.NewSource(seed))
	c := randomCluster(r)
	s, err := New(c, seed)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	s.onBorrowVictims = func(tk *task, vs []victim) {
		if err := checkFairStrategies(s, tk, vs); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	s.onStart = func(tk *task) {
		if err := checkOutranked(tk); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	nodes := c.ExpandNodes()
	now := epoch
	h := fnv.New64a()
	next := 0
	for op := 0; op < ops; op++ {
		now = now.Add(time.Duration(r.Intn(300)) * time.Second)
		names := liveNames(s)
		switch k := r.Intn(100); {
		case k < 40:
			next++
			_ = s.Submit(randomTask(r, fmt.Sprintf("j%d", next), &c), now)
		case k < 55 && len(names) > 0:
			n := names[r.Intn(len(names))]
			if s.Running(n) {
				_ = s.Complete(n)
			}
		case k < 62 && len(names) > 0:
			n := names[r.Intn(len(names))]
			if s.Running(n) {
				_, _ = s.Fail(n, now)
			}
		case k < 67 && len(names) > 0:
			_ = s.Cancel(names[r.Intn(len(names))])
		case k < 77 && len(names) > 0:
			_ = s.Checkpoint(names[r.Intn(len(names))], now)
		case k < 82:
			_ = s.SetNodeHealth(nodes[r.Intn(len(nodes))].Name, r.Intn(2) == 0, now)
		case k < 85:
			_ = s.Cordon(nodes[r.Intn(len(nodes))].Name, r.Intn(2) == 0)
		case k < 88:
			p := randomPolicy(r)
			_ = s.SetPolicy(p)
		case k < 94:
			tm := c.Teams[r.Intn(len(c.Teams))]
			nt := randomTeam(r, tm.Name)
			_ = s.SetTeam(nt)
		case k < 97 && len(names) > 0:
			_ = s.Suspend(names[r.Intn(len(names))], now)
		case len(names) > 0:
			_ = s.Resume(names[r.Intn(len(names))], now)
		}
		checkCycle(t, seed, op, s, now, h)
	}
	if keep != nil {
		keep(s, now)
	}
	return h.Sum64()
}

func liveNames(s *Scheduler) []string {
	out := make([]string, 0, len(s.tasks))
	for _, t := range s.sortedTasks() {
		out = append(out, t.spec.Name)
	}
	return out
}

// checkCycle runs one cycle and asserts the invariants around it.
func checkCycle(t *testing.T, seed int64, op int, s *Scheduler, now time.Time, h interface{ Write([]byte) (int, error) }) {
	t.Helper()
	usageBefore := refAllUsage(s)
	before := make([]resource.Vector, len(s.types))
	for i := range s.types {
		before[i] = refOverflow(s, i)
	}
	if op%10 == 0 {
		compareQuotaWithReference(t, seed, s)
	}
	d := s.Schedule(now)
	fmt.Fprintf(h, "%v|%v|%v\n", d.Admissions, d.Preemptions, len(d.Waiting))
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d op %d: %s", seed, op, fmt.Sprintf(format, args...))
	}
	if err := s.CheckInvariants(); err != nil {
		fail("%v", err)
	}
	if msg := checkStrictQueues(s); msg != "" {
		fail("%s", msg)
	}
	type teamType struct {
		tm *team
		i  int
	}
	reclaimed := map[teamType][]*task{}
	for _, p := range d.Preemptions {
		if p.Reason == model.BorrowWithinGroupReason {
			randomBorrowWithin++
		}
		if p.Reason == model.WithinTeamPriority {
			// The victim is of the preemptor's team, of a lower class, or of
			// its class and submitted later under LowerOrNewerEqualPriority.
			v, by := s.tasks[p.Task], s.tasks[p.For]
			if v == nil || by == nil || v.team != by.team || !refOwnVictim(by, v) {
				fail("%s preempted %s for %s, which its team's preemptTeamTasks does not allow", p.Reason, p.Task, p.For)
			}
			if v.rank == by.rank {
				randomNewerEqual++
			}
		}
		if p.Reason != model.Reclaim && p.Reason != model.FairShareReason && p.Reason != model.BorrowWithinGroupReason {
			continue
		}
		victim := s.tasks[p.Task]
		if victim == nil {
			fail("%s preempted %s, which is gone", p.Reason, p.Task)
		}
		k := teamType{victim.team, victim.typ.idx}
		reclaimed[k] = append(reclaimed[k], victim)
	}
	for k, vs := range reclaimed {
		if !refGivesOnlyBorrowed(k.tm, k.i, usageBefore[k.tm][k.i], vs) {
			fail("team %s gave back %d tasks, more than it borrowed (usage before %v, quota %v)",
				k.tm.spec.Name, len(vs), usageBefore[k.tm][k.i], k.tm.quota[k.i])
		}
	}
	// Borrowing never grows past what lenders and unallocated capacity offer.
	// Only a guaranteed (within-quota) admission may shrink a lender's offer
	// below what others already borrow; reclaim then happens when needed.
	guaranteed := make([]resource.Vector, len(s.types))
	for _, a := range d.Admissions {
		if tk := s.tasks[a.Task]; !a.Borrowed {
			guaranteed[tk.typ.idx] = guaranteed[tk.typ.idx].Add(tk.total)
		}
	}
	for i := range s.types {
		allowed := s.unallocatedAllowed(i).Max(before[i]).Add(guaranteed[i])
		after := refOverflow(s, i)
		if after != s.overflowTotal[i] {
			fail("type %s: overflow bookkeeping %v, recomputed %v", s.types[i].spec.Name, s.overflowTotal[i], after)
		}
		if !after.LessEq(allowed) {
			fail("type %s: borrowing beyond what lenders and unallocated capacity offer: %v > %v", s.types[i].spec.Name, after, allowed)
		}
	}
	for _, a := range d.Admissions {
		seen := map[string]bool{}
		tk := s.tasks[a.Task]
		if len(a.Pods) != tk.spec.Nodes {
			fail("gang %s admitted with %d of %d pods", a.Task, len(a.Pods), tk.spec.Nodes)
		}
		for _, p := range a.Pods {
			if seen[p.Node] {
				fail("gang %s has two pods on %s", a.Task, p.Node)
			}
			seen[p.Node] = true
		}
		if tk.reqLevel >= 0 && tk.typ.topo.labeled > 0 && a.Spread > len(s.levels)-tk.reqLevel {
			fail("gang %s requires %s but was placed at spread %d", a.Task, tk.spec.RequiredTopology, a.Spread)
		}
	}
	if !s.dirty {
		// The cycle reached a fixed point: the fast path must agree with a
		// forced full cycle.
		fast := s.Schedule(now)
		s.touch()
		full := s.Schedule(now)
		if len(full.Admissions)+len(full.Preemptions) != 0 || !sameWaiting(full.Waiting, fast.Waiting) {
			fail("the unchanged-state fast path disagrees with a full cycle: %v %v", full.Admissions, full.Preemptions)
		}
	}
}

// compareQuotaWithReference checks checkQuota and place against the simple
// reference versions for every pending task.
func compareQuotaWithReference(t *testing.T, seed int64, s *Scheduler) {
	t.Helper()
	s.cc.buf = nil
	for _, tk := range s.sortedTasks() {
		if tk.state != pending {
			continue
		}
		v := s.checkQuota(tk.team, tk.typ.idx, tk.total)
		ok, in := refQuotaOK(s, tk.team, tk.typ.idx, tk.total)
		if v.ok != ok || v.inQuota != in {
			t.Fatalf("seed %d task %s: checkQuota ok=%v inQuota=%v, reference ok=%v inQuota=%v", seed, tk.spec.Name, v.ok, v.inQuota, ok, in)
		}
		got, _ := s.place(tk, placeMode{})
		got = append([]int32(nil), got...)
		if tk.spec.Nodes == 1 || tk.typ.topo.labeled == 0 {
			if want := refPlace(s, tk); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("seed %d task %s: place %v, reference %v", seed, tk.spec.Name, got, want)
			}
			continue
		}
		// Topology: the placement's spread must be the lowest any set of
		// usable nodes allows, within the required level if there is one.
		want, ok := refBestSpread(s, tk)
		switch {
		case got == nil && ok:
			t.Fatalf("seed %d task %s: no placement, but spread %d was possible", seed, tk.spec.Name, want)
		case got != nil && !ok:
			t.Fatalf("seed %d task %s: placed %v where the reference finds no way", seed, tk.spec.Name, got)
		case got != nil && s.spreadOf(tk.typ, got) != want:
			t.Fatalf("seed %d task %s: spread %d, best possible %d", seed, tk.spec.Name, s.spreadOf(tk.typ, got), want)
		}
	}
}

// TestRandomInvariants runs many seeds of thousands of random operations
// (submit, complete, fail, cancel, checkpoint, node loss and return, cordon,
// policy and quota changes) and checks every invariant after every cycle.
func TestRandomInvariants(t *testing.T) {
	seeds, ops := 30, 2000
	if testing.Short() {
		seeds, ops = 8, 500
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		randomRun(t, seed, ops)
	}
}

// refOwnVictim is the rule for within-team priority victims, read from the
// specs: a lower class, or (LowerOrNewerEqualPriority) the same class
// submitted strictly later.
func refOwnVictim(by, v *task) bool {
	pv, pb := v.rank, by.rank
	if pv < pb {
		return true
	}
	return pv == pb && by.team.spec.PreemptTeamTasks == model.PreemptLowerOrNewerEqualPriority &&
		v.spec.SubmitTime.After(by.spec.SubmitTime)
}

// TestRandomInvariantsQueueKnobs is TestRandomInvariants with the team's
// queue settings among the draws (queueKnobs): every invariant after every
// cycle, and every within-team preemption allowed by its team's setting.
func TestRandomInvariantsQueueKnobs(t *testing.T) {
	queueKnobs = true
	defer func() { queueKnobs = false }()
	seeds, ops := 30, 2000
	if testing.Short() {
		seeds, ops = 8, 500
	}
	randomNewerEqual, randomBehind = 0, 0
	for seed := int64(3001); seed <= int64(3000+seeds); seed++ {
		randomRun(t, seed, ops)
	}
	if randomNewerEqual == 0 {
		t.Fatal("no within-team preemption of equal priority: the draws do not reach LowerOrNewerEqualPriority's victims")
	}
	if randomBehind == 0 {
		t.Fatal("no task waited behind a strict queue's head: the draws do not reach StrictFIFO")
	}
	t.Logf("%d within-team preemptions of equal priority, %d tasks found behind a strict head", randomNewerEqual, randomBehind)
}

// TestRandomInvariantsKueueKnobs is TestRandomInvariants with lending limits
// and borrowWithinGroup among the draws: every invariant, including the
// group pools and lending limits (checkGroupPools) and "victims taken to
// borrow are borrowed work", after every cycle.
func TestRandomInvariantsKueueKnobs(t *testing.T) {
	kueueKnobs = true
	defer func() { kueueKnobs = false }()
	seeds, ops := 30, 2000
	if testing.Short() {
		seeds, ops = 8, 500
	}
	randomBorrowWithin = 0
	for seed := int64(2001); seed <= int64(2000+seeds); seed++ {
		randomRun(t, seed, ops)
	}
	// The draws list borrowWithinGroup candidates in the searches (a probe
	// counted 281 in seeds 2001-2006), but so far only under Payback, where
	// they were dear: seeds 2001-2030 make no BorrowWithinGroup preemption,
	// so the scenario files (kueue/borrow-within-group-*) check its victims.
	t.Logf("%d BorrowWithinGroup preemptions", randomBorrowWithin)
}

// randomBorrowWithin counts checkCycle's BorrowWithinGroup preemptions.
var randomBorrowWithin int

// TestRandomDeterminism replays seeds twice and requires identical decisions.
func TestRandomDeterminism(t *testing.T) {
	for seed := int64(100); seed < 110; seed++ {
		a, b := randomRun(t, seed, 800), randomRun(t, seed, 800)
		if a != b {
			t.Fatalf("seed %d: two runs gave different decisions", seed)
		}
	}
}

func sameWaiting(a, b []model.Waiting) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkStrictQueues checks, read from the tasks and not from the walk's
// lists, what StrictFIFO promises after a cycle: in a strict team's queue
// of a type (queue order), the first pending task that is neither this
// cycle's victim nor backing off (the head) waits for a reason of its own,
// and every pending task after it but the cycle's victims waits
// BehindHead, naming the head, and holds no nodes. It returns what is
// wrong, or "".
func checkStrictQueues(s *Scheduler) string {
	for _, tm := range s.teams {
		if !tm.strict() {
			continue
		}
		byType := map[int][]*task{}
		for _, t := range s.tasks {
			if t.team == tm && t.state == pending {
				byType[t.typ.idx] = append(byType[t.typ.idx], t)
			}
		}
		for i, q := range byType {
			slices.SortFunc(q, queueCmp)
			var head *task
			for _, t := range q {
				r := t.reason()
				switch {
				case r.Code == model.Preempted:
					continue
				case head == nil && r.Code == model.BackingOff:
					continue
				case head == nil:
					if r.Code == model.BehindHead {
						return fmt.Sprintf("team %s type %d: %s heads the strict queue but waits behind %s", tm.spec.Name, i, t.spec.Name, r.Detail)
					}
					head = t
				case r.Code != model.BehindHead || r.Detail != head.spec.Name:
					return fmt.Sprintf("team %s type %d: %s is behind the strict queue's head %s but waits %s %q", tm.spec.Name, i, t.spec.Name, head.spec.Name, r.Code, r.Detail)
				case t.holds():
					return fmt.Sprintf("team %s type %d: %s waits behind the strict queue's head %s but holds nodes", tm.spec.Name, i, t.spec.Name, head.spec.Name)
				default:
					randomBehind++
				}
			}
		}
	}
	return ""
}
