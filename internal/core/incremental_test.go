package core

import (
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// diffPair is the incremental core and the full-rescan reference, driven
// through the same inputs.
type diffPair struct{ inc, ref *Scheduler }

// newDiffPair starts both cores on c with seed 1.
func newDiffPair(t *testing.T, c model.Cluster) diffPair {
	t.Helper()
	inc, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := New(c, 1)
	ref.SetFullRescan(true)
	return diffPair{inc, ref}
}

// both applies an input to both cores; they must agree on its error.
func (p diffPair) both(f func(s *Scheduler) error) error {
	a, b := f(p.inc), f(p.ref)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		return fmt.Errorf("the cores answered an input differently: %v / %v", a, b)
	}
	return nil
}

// differentialRun drives one seed through ops random inputs of every kind
// (submissions, completions, failures, cancellations, checkpoints, suspend
// and resume, priority changes, node loss and return, cordons, allocatable
// changes, new nodes with topology labels, team and policy changes, fair
// share on or off) and runs a cycle on both cores after each. It returns the
// first difference in decisions, wait reasons, queue positions, dirtiness
// or wake-up time, or nil.
func differentialRun(seed int64, ops int, bug string) error {
	r := rand.New(rand.NewSource(seed))
	c := randomCluster(r)
	inc, err := New(c, seed)
	if err != nil {
		return err
	}
	ref, _ := New(c, seed)
	ref.SetFullRescan(true)
	inc.breakMarks = bug == "marks"
	inc.breakProbe = bug == "probe"
	inc.settle.broken = bug == "settle"
	inc.breakStop = bug == "stop"
	inc.breakStrictStop = bug == "strictstop"
	inc.settle.brokenStrict = bug == "strictsettle"
	inc.breakStopWake = bug == "stopwake"
	inc.breakStopHold = bug == "stophold"
	inc.settle.brokenFit = bug == "settlefit"
	inc.breakStopRank = bug == "stoprank"
	inc.breakStopTick = bug == "stoptick"
	inc.breakStopFair = bug == "stopfair"
	inc.breakStopDear = bug == "stopdear"
	inc.breakStopSkip = bug == "stopskip"
	inc.breakTrial = bug == "trial"
	inc.breakHeldOwn = bug == "heldown"
	inc.breakJumpBlind = bug == "jumpblind"
	inc.breakRefuse = bug == "refuse"
	inc.breakPass = bug == "pass"
	inc.breakPassOrder = bug == "passorder"
	inc.breakRefuseLog = bug == "refuselog"
	inc.breakDropJump = bug == "dropjump"
	inc.breakTakerAlone = bug == "takeralone"
	inc.breakViews = bug == "views"
	inc.breakDueLists = bug == "duelists"
	inc.breakDueFrom = bug == "duefrom"
	inc.breakDueFall = bug == "duefall"
	inc.breakDueRevived = bug == "duerevived"
	inc.qm.broken = bug == "quotamemo"
	inc.SetLazyWaiting(seed%2 == 1) // odd seeds compare the list built on demand (waiting.go)
	defer func() {
		stats.probed, stats.settled = stats.probed+int(inc.probed), stats.settled+int(inc.settle.count)
		stats.stopped += int(inc.stops.stops)
		stats.stopWakes += int(inc.stops.wakes)
		stats.stopHolds += int(inc.stops.held)
		stats.trials += int(inc.stops.trialsMade)
		stats.dueKept += int(inc.stops.dueKept)
		stats.jumps += int(inc.jump.jumps)
		stats.drops += int(inc.jump.drops)
		stats.alone += int(inc.jump.alone)
		stats.passed += int(inc.passed)
	}()
	var fairErr error // rule 5's strategies, checked on the reference (fairstrategy_test.go)
	ref.onBorrowVictims = func(tk *task, vs []victim) {
		if err := checkFairStrategies(ref, tk, vs); err != nil && fairErr == nil {
			fairErr = err
		}
	}
	p := diffPair{inc, ref}
	nodes := c.ExpandNodes()
	if withSelectors {
		if err := labelSome(r, p, nodes); err != nil {
			return fmt.Errorf("seed %d: %w", seed, err)
		}
	}
	now, next, added := epoch, 0, 0
	cycles := inc.cycle
	for op := 0; op < ops; op++ {
		// A third of the steps are under a minute: the cost clock's ticks,
		// a wait shorter than a restart and a checkpoint just before a
		// submission fall between them.
		step := r.Intn(300)
		if r.Intn(3) == 0 {
			step = r.Intn(20)
		}
		now = now.Add(time.Duration(step) * time.Second)
		k := r.Intn(100)
		var names []string
		if k >= 38 && k < 79 {
			names = liveNames(ref)
		}
		pick := func() string { return names[r.Intn(len(names))] }
		var err error
		switch {
		case k < 38:
			next++
			spec := randomTask(r, fmt.Sprintf("j%d", next), &c)
			err = p.both(func(s *Scheduler) error { return s.Submit(spec, now) })
			for burst := r.Intn(4); burst > 1 && err == nil; burst-- {
				// More of the same at once: tasks of one team meet the
				// same victims in one cycle.
				next++
				more := spec
				more.Name = fmt.Sprintf("j%d", next)
				err = p.both(func(s *Scheduler) error { return s.Submit(more, now) })
			}
		case k < 50 && len(names) > 0:
			n := pick()
			err = p.both(func(s *Scheduler) error { return s.Complete(n) })
		case k < 56 && len(names) > 0:
			n := pick()
			err = p.both(func(s *Scheduler) error { _, e := s.Fail(n, now); return e })
		case k < 60 && len(names) > 0:
			n := pick()
			err = p.both(func(s *Scheduler) error { return s.Cancel(n) })
		case k < 68 && len(names) > 0:
			n := pick()
			err = p.both(func(s *Scheduler) error { return s.Checkpoint(n, now) })
			if r.Intn(3) == 0 {
				// Every live task checkpoints: all are cheap victims a
				// moment later.
				for _, o := range names {
					if err == nil && o != n {
						err = p.both(func(s *Scheduler) error { return s.Checkpoint(o, now) })
					}
				}
			}
		case k < 72 && len(names) > 0:
			n := pick()
			err = p.both(func(s *Scheduler) error { return s.Suspend(n, now) })
		case k < 76 && len(names) > 0:
			n := pick()
			err = p.both(func(s *Scheduler) error { return s.Resume(n, now) })
		case k < 79 && len(names) > 0:
			n, class := pick(), []string{"high", "mid", "low", ""}[r.Intn(4)]
			err = p.both(func(s *Scheduler) error { return s.SetPriority(n, class) })
		case k < 84:
			n, h := nodes[r.Intn(len(nodes))].Name, r.Intn(2) == 0
			err = p.both(func(s *Scheduler) error { return s.SetNodeHealth(n, h, now) })
		case k < 87:
			n, on := nodes[r.Intn(len(nodes))].Name, r.Intn(2) == 0
			err = p.both(func(s *Scheduler) error { return s.Cordon(n, on) })
		case k < 89:
			n := nodes[r.Intn(len(nodes))]
			err = p.both(func(s *Scheduler) error { _, e := s.SetNodeAllocatable(n.Name, nil); return e })
		case k < 91 && added < 6:
			// A new node in the labelled domains of an existing one.
			n := nodes[r.Intn(len(nodes))]
			n.Name = fmt.Sprintf("added-%d", added)
			added++
			nodes = append(nodes, n)
			err = p.both(func(s *Scheduler) error { return s.AddNode(n) })
		case k < 94:
			pol := randomPolicy(r)
			err = p.both(func(s *Scheduler) error { return s.SetPolicy(pol) })
		default:
			tm := randomTeam(r, c.Teams[r.Intn(len(c.Teams))].Name)
			err = p.both(func(s *Scheduler) error { return s.SetTeam(tm) })
		}
		if err == nil && withSelectors && r.Intn(8) == 0 {
			err = relabel(r, p, nodes)
		}
		if err != nil {
			return fmt.Errorf("seed %d op %d: %w", seed, op, err)
		}
		a, b := inc.Schedule(now), ref.Schedule(now)
		if fairErr != nil {
			return fmt.Errorf("seed %d op %d: %w", seed, op, fairErr)
		}
		if inc.lazyWaiting {
			if a.Waiting != nil {
				return fmt.Errorf("seed %d op %d: a lazy cycle listed the waiting tasks", seed, op)
			}
			if a.Waiting = inc.Waiting(); len(a.Waiting) == 0 && len(b.Waiting) == 0 {
				a.Waiting = b.Waiting // empty either way
			}
			if inc.Pending() != len(b.Waiting) {
				return fmt.Errorf("seed %d op %d: %d pending, %d waiting", seed, op, inc.Pending(), len(b.Waiting))
			}
		}
		if !reflect.DeepEqual(a, b) {
			return fmt.Errorf("seed %d op %d: incremental and full-rescan cycles differ:\n%s", seed, op, firstDiff(a, b))
		}
		// Both cores may make the same wrong decision (a placement on a
		// full node): the state itself must hold too (the full rescan's
		// decisions are the same, so the incremental core's state is checked).
		if err := inc.CheckInvariants(); err != nil {
			return fmt.Errorf("seed %d op %d: %w", seed, op, err)
		}
		if h := inc.stops.renderHits; h > 0 {
			return fmt.Errorf("seed %d op %d: %d deferred tries of early-stopped walks would have changed something (stop.go)", seed, op, h)
		}
		if inc.Dirty() != ref.Dirty() || !inc.nextWake.Equal(ref.nextWake) {
			return fmt.Errorf("seed %d op %d: dirty %v/%v, next wake %v/%v", seed, op, inc.Dirty(), ref.Dirty(), inc.nextWake, ref.nextWake)
		}
		if inc.cycle != cycles {
			cycles = inc.cycle
			stats.selTails += selectorTails(inc)
			for _, on := range inc.work {
				if !on {
					stats.skipped++
					break
				}
			}
			stats.cycles++
		}
	}
	return nil
}

// stats counts, over differential runs, cycles that ran, cycles that left at
// least one instance type unevaluated, and types settled by probes alone
// (blocked.go), types settled in bulk (settle.go) and walks stopped early
// (stop.go), so that the test is not vacuous.
var stats struct {
	cycles, skipped, probed, settled, stopped, stopWakes, stopHolds, selTails, jumps, drops, alone, trials, passed, dueKept int
}

func firstDiff(a, b model.Decision) string {
	switch {
	case !reflect.DeepEqual(a.Admissions, b.Admissions):
		return fmt.Sprintf("admissions %v\n      vs %v", a.Admissions, b.Admissions)
	case !reflect.DeepEqual(a.Preemptions, b.Preemptions):
		return fmt.Sprintf("preemptions %v\n       vs %v", a.Preemptions, b.Preemptions)
	case len(a.Waiting) != len(b.Waiting):
		return fmt.Sprintf("%d waiting vs %d", len(a.Waiting), len(b.Waiting))
	}
	for i := range a.Waiting {
		if a.Waiting[i] != b.Waiting[i] {
			return fmt.Sprintf("waiting %+v\n   vs %+v", a.Waiting[i], b.Waiting[i])
		}
	}
	return fmt.Sprintf("%+v\nvs %+v", a, b)
}

// TestIncrementalMatchesFullRescan is the differential test: 30 seeds of
// 2,000 random inputs each, every cycle compared. TASKGOV_DIFF_SEEDS and
// TASKGOV_DIFF_OPS run a longer variant.
func TestIncrementalMatchesFullRescan(t *testing.T) {
	seeds, ops := envInt("TASKGOV_DIFF_SEEDS", 30), envInt("TASKGOV_DIFF_OPS", 2000)
	if testing.Short() {
		seeds = 8 // 2,000 inputs each: fewer leave bulk settling unexercised
	}
	for seed := 1; seed <= seeds; seed++ {
		if err := differentialRun(int64(seed), ops, ""); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d cycles ran, %d of them evaluated only some instance types; probes alone settled a type %d times; "+
		"a spent type was settled in bulk %d times; %d walks stopped early, %d of them asking for their tail's starvation wake-up, "+
		"%d with a hold in place; %d walks went on only for the hold's taker or its holder's drop (holdjump.go), %d of them for a drop (holddrop.go); %d deferred a lone taker's tries before it (holdtaker.go); %d tries were repeats passed without the heap (passrepeat.go)",
		stats.cycles, stats.skipped, stats.probed, stats.settled, stats.stopped, stats.stopWakes, stats.stopHolds, stats.jumps, stats.drops, stats.alone, stats.passed)
	if stats.skipped < stats.cycles/10 {
		t.Fatalf("only %d of %d cycles were incremental: the test would not exercise the dirty marks", stats.skipped, stats.cycles)
	}
	if stats.stopped < stats.cycles/20 {
		t.Fatalf("only %d walks of %d cycles stopped early: the test would not exercise the early stop", stats.stopped, stats.cycles)
	}
	if stats.probed < stats.cycles/20 {
		t.Fatalf("probes settled a type only %d times in %d cycles: the test would not exercise them", stats.probed, stats.cycles)
	}
	if stats.settled < stats.cycles/50 { // an early stop (stop.go), where it applies, comes first
		t.Fatalf("a spent type was settled in bulk only %d times in %d cycles: the test would not exercise it", stats.settled, stats.cycles)
	}
	if stats.passed < stats.cycles/50 {
		t.Fatalf("only %d repeats were passed in %d cycles: the test would not exercise the repeat pass", stats.passed, stats.cycles)
	}
}

// TestIncrementalMatchesFullRescanKueueKnobs is the differential test with
// lending limits and borrowWithinGroup among the draws (kueueKnobs): the
// incremental core's shortcuts (early stop, hold jump, memo, probes) must
// decide as the full rescan with them too. The gate's -run pattern
// (TestIncrementalMatchesFullRescan) runs it, TASKGOV_DIFF_SEEDS seeds.
func TestIncrementalMatchesFullRescanKueueKnobs(t *testing.T) {
	kueueKnobs = true
	defer func() { kueueKnobs = false }()
	seeds, ops := envInt("TASKGOV_DIFF_SEEDS", 30), envInt("TASKGOV_DIFF_OPS", 2000)
	if testing.Short() {
		seeds, ops = 8, 500
	}
	for seed := 1; seed <= seeds; seed++ {
		if err := differentialRun(int64(2000+seed), ops, ""); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIncrementalMatchesFullRescanQueueKnobs is the differential test with
// the team's queue settings among the draws (queueKnobs: preemptTeamTasks
// LowerOrNewerEqualPriority). The gate's -run pattern runs it,
// TASKGOV_DIFF_SEEDS seeds.
func TestIncrementalMatchesFullRescanQueueKnobs(t *testing.T) {
	queueKnobs = true
	defer func() { queueKnobs = false }()
	seeds, ops := envInt("TASKGOV_DIFF_SEEDS", 30), envInt("TASKGOV_DIFF_OPS", 2000)
	if testing.Short() {
		seeds, ops = 8, 500
	}
	for seed := 1; seed <= seeds; seed++ {
		if err := differentialRun(int64(3000+seed), ops, ""); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIncrementalMatchesFullRescanMixedShapes is the differential test with
// gangs of partial nodes (whose pods may interleave across topology domains)
// and tasks without GPUs (rule 10's weights) among the draws.
func TestIncrementalMatchesFullRescanMixedShapes(t *testing.T) {
	mixedShapes = true
	defer func() { mixedShapes = false }()
	seeds, ops := envInt("TASKGOV_DIFF_SEEDS", 15), envInt("TASKGOV_DIFF_OPS", 2000)
	if testing.Short() {
		seeds, ops = 4, 500
	}
	for seed := 1; seed <= seeds; seed++ {
		if err := differentialRun(int64(1000+seed), ops, ""); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDifferentialCatchesBrokenSettling injects a bug into bulk settling
// (settle.go): a type counts as spent even when its tasks have victims, a
// starvation hold exists or one is due, so tries that change things leave
// the heap's order. The differential test must see it.
func TestDifferentialCatchesBrokenSettling(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "settle"); err != nil {
			t.Logf("caught, as it must be: %v", err)
			return
		}
	}
	t.Fatal("with bulk settling of types that are not spent, the differential test found no difference")
}

// TestDifferentialCatchesBrokenMarks injects a bug (queue changes no longer
// mark their instance type) and requires the differential test to see it.
func TestDifferentialCatchesBrokenMarks(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		if err := differentialRun(seed, 300, "marks"); err != nil {
			t.Logf("caught, as it must be: %v", err)
			return
		}
	}
	t.Fatal("with per-type dirty marks broken, the differential test found no difference")
}

// TestDifferentialCatchesBrokenProbes injects a bug into the probes of
// added tasks (blocked.go): a probe treats a victim search with candidates
// as failed instead of walking the type. The differential test must see it.
func TestDifferentialCatchesBrokenProbes(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "probe"); err != nil {
			t.Logf("caught, as it must be: %v", err)
			return
		}
	}
	t.Fatal("with probes that skip victim searches, the differential test found no difference")
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestDifferentialCatchesBrokenStop injects a bug into the early stop of
// walks (stop.go): the check ignores whether a task left in the walk could
// still be admitted. The differential test must see it.
func TestDifferentialCatchesBrokenStop(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "stop"); err != nil {
			t.Logf("caught, as it must be: %v", err)
			return
		}
	}
	t.Fatal("with an early stop that ignores admissible tasks, the differential test found no difference")
}

// TestDifferentialCatchesBrokenStopWake injects a bug into the early stop's
// wake-ups (stopwake.go): a stop no longer asks for the starvation wake-up
// its tail's tries would have asked for. The differential test must see it.
func TestDifferentialCatchesBrokenStopWake(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "stopwake"); err != nil {
			t.Logf("caught, as it must be: %v", err)
			return
		}
	}
	t.Fatal("with an early stop that leaves out its tail's starvation wake-ups, the differential test found no difference")
}

// TestDifferentialSeed100 keeps the seed that found a gang listed twice as
// a victim in one domain (its pods alternated between domains): the victim
// search freed its pods twice and the node index overflowed.
func TestDifferentialSeed100(t *testing.T) {
	if err := differentialRun(100, 2000, ""); err != nil {
		t.Fatal(err)
	}
}
