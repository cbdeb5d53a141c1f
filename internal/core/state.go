package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

type taskState uint8

const (
	pending taskState = iota
	running
	suspended // held by a user: neither queued nor running
	gone      // completed, failed for good, or cancelled
)

// task is the core's view of one submitted task. Every pending task is one
// of these (a million at giant scale), so the layout counts: the allocator
// rounds it up to its size class (512, 576, 640 bytes), and a field that
// pushes it past 576 costs 64 bytes a task (TestTaskFitsItsSizeClass).
// Small fields are grouped at the end; counters that cannot reach 2^31 are
// int32.
type task struct {
	// Read by every try and by the walk's skips (pushNext): together at
	// the start, so that a try touches a few cache lines of the task, not
	// its whole 520 bytes (a deep queue does not fit the cache).
	state        taskState
	queued       bool   // it has an entry in its team's pending list (maybe a stale one, queue.go)
	backfill     bool   // started while a higher-priority task of its team waited (immediate.go)
	priorityLost int32  // within-team priority preemptions since this core began (immediate.go); not stored
	touchedIn    uint64 // cycle in which it was admitted or preempted
	team         *team
	typ          *itype
	seq          uint64          // submission order, the final tie-break
	rank         int             // priority-class weight under TaskRanking, else 0
	total        resource.Vector // pod × nodes
	pod          resource.Vector // one pod's request
	reqLevel     int             // level index of its required topology, -1 if none
	sel          string          // its nodeSelector (model.SelectorString); "" if none
	notBefore    time.Time       // after a failure: no restart before (retry backoff)
	pendingSince time.Time       // when it last entered the queue
	// wait is the reason its last try recorded, nil if none: a shared,
	// immutable record (waitreason.go), so a try writes one word here.
	wait *model.WaitReason

	spec model.TaskSpec

	pods    []placedPod
	placed  uint64 // Scheduler.placements when it was last assigned (hold.go's spare room)
	runPos  int32  // index in team.run[typ.idx] while running
	resumes int32  // times requeued after running

	startedAt    time.Time
	checkpointAt time.Time // last reported checkpoint; zero if none
	retries      int
}

// holds reports whether t holds nodes against starvation (hold.go).
func (t *task) holds() bool { return t.typ.holder == t }

// heldNodes are the nodes t holds, if any.
func (t *task) heldNodes() []int32 {
	if t.holds() {
		return t.typ.held
	}
	return nil
}

type placedPod struct {
	node int32
	gpus uint64 // mask of GPU indices
}

// itype is one instance type with its nodes and free-capacity index.
type itype struct {
	idx      int
	spec     model.InstanceType
	capacity resource.Vector // of one node
	nodes    []int32         // all nodes of this type, by global index
	sched    resource.Vector // total capacity of schedulable nodes
	index    nodeIndex
	topo     topoIndex
	holder   *task   // the one task holding nodes of this type, or nil
	held     []int32 // the nodes holder holds (hold.go)
	heldAt   uint64  // Scheduler.placements when the hold was taken
}

// node is one machine.
type node struct {
	idx         int32 // in Scheduler.nodes
	pos         int32 // in typ.nodes and typ.index
	spec        model.Node
	typ         *itype
	schedulable bool // healthy and not cordoned
	healthy     bool
	capacity    resource.Vector // the type's, or less (model.Node.Allocatable)
	free        resource.Vector
	freeGPUs    uint64  // mask of free GPU indices
	dom         []int32 // its domain at each topology level, -1 if unlabelled
	heldFor     *task
	// afterHold: the pods of other tasks placed on it since heldFor's hold
	// was taken (hold.go); zero when not held.
	afterHold resource.Vector
}

// team is one compute allocation and its queue.
type team struct {
	idx       int
	spec      model.Team // with defaults applied
	group     *group
	quota     []resource.Vector // per instance type
	borrowCap []resource.Vector // absolute caps, Infinite if none
	lendCap   []resource.Vector // lending limits (model.LendingLimitVector), Infinite if none
	usage     []resource.Vector
	lendC     []resource.Vector // what it contributes to its group's lend pool
	borC      []resource.Vector // what it borrows from its group
	// shareListed: in Scheduler.shareTeams (sharemoved.go).
	shareListed bool
	run         [][]*task // running tasks per instance type
	// fresh is, per type, the usage of tasks admitted in cycle freshCycle.
	fresh      []resource.Vector
	freshCycle uint64

	pending     []*task // queue; may hold stale entries (stale counts those left by admissions)
	stale       int     // entries of pending no longer pending, since the last full sort (dropped)
	queueSorted bool
	tailOnly    bool       // since the last sort only tasks were queued, at pending's end
	sortedLen   int        // pending's length at the last sort
	byType      [][]*task  // pending split per instance type, rebuilt with each sort
	cursors     []int      // the cycle's position in each byType list
	liveFrom    []int      // per type: byType's entries before it are no longer pending (livestart.go)
	aggs        []queueAgg // bounds over each byType list, for the early stop (stop.go)
	viewed      []bool     // per type: a deferred try's view covers the byType list's array (deferview.go)
	// Test only: a task leaving the queue takes nothing off its list's counts (aggcount.go).
	breakCount bool
	// Test only: insertTail files a task one entry past its place (queueinsert.go).
	breakInsert bool
	inserts     uint64 // tails filed in place by insertTail (a measure)
	// lists counts the rewrites of the byType lists (splitByType,
	// insertTail): a position read before one may hold another task after
	// it (stopwake.go's dueMemo).
	lists uint64
}

// group is a lending group (cohort) and its per-type pools.
type group struct {
	name     string
	lend     []resource.Vector // idle quota its lenders offer
	borrowed []resource.Vector // quota its borrowers exceed by
	overflow []resource.Vector // max(0, borrowed - lend): drawn from unallocated
	lenderQ  []resource.Vector // what its lenders may lend at most (lendable), for fair share
	// limited counts, per type, its lenders whose lending limit keeps part
	// of their quota (a wait reason says so; it changes only with SetTeam).
	limited []int
}

// Scheduler is the scheduling core. Build it with New.
type Scheduler struct {
	// unpaid, per instance type: its last evaluation left a victim search
	// failing or a task waiting for its payback (payback.go). A checkpoint
	// changes victims' costs, hence their order, and the greedy search (with
	// stillBorrows) or the payback may then succeed: it marks the type.
	unpaid []bool
	seed   int64
	policy model.Policy // with defaults
	levels []string     // topology label keys, top layer first
	// firstFit places gangs on the lowest-positioned free nodes, ignoring
	// topology. It exists only to measure best fit against it in tests.
	firstFit bool
	catalog  model.Catalog

	types   []*itype
	typeIdx map[string]int
	nodes   []*node
	nodeIdx map[string]int32
	teams   []*team // sorted by name
	teamIdx map[string]int
	groups  map[string]*group
	tasks   map[string]*task
	seq     uint64

	quotaSum      []resource.Vector // all teams' quotas per type
	overflowTotal []resource.Vector // sum of groups' overflow per type

	now         time.Time  // the time of the cycle in progress
	cc          cycleCache // scratch of the cycle in progress
	cycle       uint64
	tried       uint64 // tasks tried in full cycles, for measuring cycle work
	passed      uint64 // of those, repeats passed without the heap (passrepeat.go), a measure
	dirty       bool   // an input arrived since the last full cycle
	limitsDirty bool   // quotas or policy changed: re-check over-limit teams
	// quietLog: renderType makes tries whose memo notes are logged already (holdtaker.go).
	quietLog    bool
	holdChanges uint64 // holds made or dropped, so a cycle that changed one is not the last
	placements  uint64 // assignments made so far (task.placed, itype.heldAt)
	nextWake    time.Time
	lastWaiting []model.Waiting    // the last list built (waiting.go)
	waitBuilt   uint64             // the cycle it was built in
	lazyWaiting bool               // cycles leave Decision.Waiting nil (waiting.go)
	evictions   []model.Preemption // node losses, reported by the next cycle

	// Incremental cycles (dirty.go).
	fullRescan bool                       // evaluate every type in every cycle (reference mode)
	allDirty   bool                       // an input may change any type's outcomes
	typeDirty  []bool                     // per type: changed since its last evaluation
	typeAdded  [][]*task                  // per clean type: tasks queued since its last evaluation (blocked.go)
	probing    bool                       // a queued task is tried alone (blocked.go)
	probeHit   bool                       // that try would change more than its own wait reason
	breakProbe bool                       // test only: a probe ignores victim searches, to prove the differential test sees it
	probed     uint64                     // cycles whose queued tasks were all settled by probes (a measure)
	memoLog    map[attemptKey][]memoEntry // victim-search memo writes of each type's last walk (blocked.go)
	selIDs     map[string]uint32          // node selectors numbered for the memo's keys (memokey.go)
	typeWake   []time.Time                // per type (and one for all): its earliest time-based rule
	work       []bool                     // per type: evaluated by the cycle in progress
	curType    int                        // type of the task being tried, -1 outside tryTask
	breakMarks bool                       // test only: drop per-type marks, to prove the differential test sees it
	shareSnap  []resource.Vector          // what weighted shares read, as of the last check (dirty.go)
	shareEpoch uint64                     // the quota memo's epoch when shareSnap was taken (sharemoved.go)
	shareTeams []*team                    // teams whose borrowing was written since shareMoved's last pass (sharemoved.go)
	shareAll   bool                       // the team list or a team's record changed: the next pass reads every team (sharemoved.go)
	workList   []int                      // the types this cycle evaluates, in order (sharemoved.go: workTypes)
	settle     settleState                // when to settle a spent type in bulk (settle.go)
	stops      stopState                  // early stops of walks and their deferred tries (stop.go)
	jump       jumpState                  // walks that go on only for the hold's taker (holdjump.go)
	rendering  bool                       // deferred tries are made to write their reasons (stop.go)
	qm         quotaMemo                  // quota answers by request (quotamemo.go)
	breakStop  bool                       // test only: the stop ignores the no-admission bound, to prove the differential test sees it

	// Test only: the stop's check passes a strict team that still has a
	// head (strictfifo.go).
	breakStrictStop bool
	// Test only: the stop ignores a within-quota task's victim search.
	breakStopSearch bool
	// Test only: the stop leaves out the tail's starvation wake-ups (stopwake.go).
	breakStopWake bool
	// Test only: tailDue's memo ignores the team's usage (stopwake.go).
	breakDueMemo bool
	// Test only: tailDue's memo is kept across a rewrite of its list (stopwake.go).
	breakDueLists bool
	// Test only: tailDue's memo kept from an earlier cycle is not read from
	// the tail's new start (stopwake.go).
	breakDueFrom bool
	// Test only: tailDue's memo is kept when its team's usage fell (stopwake.go).
	breakDueFall bool
	// Test only: an entry pending again is not read into tailDue's memo (stopwake.go).
	breakDueRevived bool
	// Test only: a preemption in the walk keeps mayAdmit's place (stopcheck.go).
	breakNoAdmitGen bool
	// Test only: the bound with holds in place leaves out the holder's own
	// nodes for the holder too (stopheld.go).
	breakHeldOwn bool
	// Test only: the stop passes with a holder not yet tried (stophold.go).
	breakStopHold bool
	// Test only: shareMoved skips its pass whatever moved (sharemoved.go).
	breakShareEpoch bool
	// Test only: shareMoved's pass leaves out the teams it lists (sharemoved.go).
	breakShareList bool
	// Test only: the stop ignores own cheap lower-priority victims (stoprank.go).
	breakStopRank bool
	// Test only: the stop leaves out the tick its tail's searches ask for (stoprank.go).
	breakStopTick bool
	// Test only: the stop leaves out the fair-share wake-up its tail asks for (stopfair.go).
	breakStopFair bool
	// Test only: called with every borrowing preemption's task and victims
	// (still removed, the task not yet admitted), to check rule 5's
	// strategies (fairstrategy_test.go).
	onBorrowVictims func(t *task, victims []victim)
	// Test only: called with every task as it starts, before its backfill
	// mark is noted, to check the mark's walk (backfill_test.go).
	onStart func(t *task)
	// Test only: the stop takes other teams' cheap fair-share candidates as dear (stopfair.go).
	breakStopDear bool
	// Test only: the stop takes any failed-search memo entry as covering (stopskip.go).
	breakStopSkip bool
	// Test only: a try made ahead that would change something counts as changing nothing (stoptrial.go).
	breakTrial bool
	// trialing: the early stop's check makes a try ahead (stoptrial.go).
	trialing bool
	// Test only: the hold jump defers tails whose reasons read the hold (holdjump.go).
	breakJumpBlind bool
	// Test only: a requeued entry's place is left out of liveFrom (queuekeep.go).
	breakRepend bool
	// refuse: teams a walk goes on without, refused by their quota (refusejump.go).
	refuse refuseState
	// Test only: a preemption leaves every team the refusal jump deferred deferred (refusejump.go).
	breakRefuse bool
	// Test only: putBack compares with the preemptor's head alone (refusejump.go).
	breakRefuseLog bool
	// Test only: deferred views leave their lists unmarked, so a writer rewrites them in place (deferview.go).
	breakViews bool
	// Test only: the hold jump skips the rest of holdBlind for a team with rank preemption (holdrank.go).
	breakJumpRank bool
	// Test only: the drop jump leaves the holder's team out of the takers (holddrop.go).
	breakDropJump bool
	// Test only: the lone taker's scan misses the taker (holdtaker.go).
	breakTakerAlone bool
	// Test only: the repeat pass takes every search as skipped by the memo (passrepeat.go).
	breakPass bool
	// Test only: the repeat pass leaves out the heap's order (passrepeat.go).
	breakPassOrder bool
	// reasons: the wait-reason records made lately, by value (waitreason.go).
	reasons map[model.WaitReason]*model.WaitReason
}
