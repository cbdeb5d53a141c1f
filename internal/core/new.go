package core

import (
	"fmt"
	"sort"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// New builds a Scheduler from a cluster file. It validates c and refuses it
// with every problem listed. seed is kept for randomized tie-breaks; today's
// rules break every tie by submission order and name, so it changes nothing.
func New(c model.Cluster, seed int64) (*Scheduler, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	s := &Scheduler{
		seed:    seed,
		policy:  c.Policy.WithDefaults(),
		levels:  c.Levels(),
		catalog: model.NewCatalog(c.InstanceTypes),
		typeIdx: map[string]int{},
		nodeIdx: map[string]int32{},
		teamIdx: map[string]int{},
		groups:  map[string]*group{},
		tasks:   map[string]*task{},
		dirty:   true,
		curType: -1,
	}
	for _, name := range s.catalog.Names() {
		it := s.catalog[name]
		t := &itype{idx: len(s.types), spec: it, capacity: it.Capacity()}
		t.index = newNodeIndex(t.keys())
		s.typeIdx[name] = t.idx
		s.types = append(s.types, t)
	}
	s.quotaSum = make([]resource.Vector, len(s.types))
	s.overflowTotal = make([]resource.Vector, len(s.types))
	for _, n := range c.ExpandNodes() {
		if err := s.AddNode(n); err != nil {
			return nil, err
		}
	}
	for _, t := range c.Teams {
		if err := s.SetTeam(t); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// AddNode adds a healthy, schedulable (unless marked) node.
func (s *Scheduler) AddNode(spec model.Node) error {
	ti, ok := s.typeIdx[spec.InstanceType]
	if !ok {
		return &model.FieldError{Field: "instanceType", Problem: fmt.Sprintf("unknown instance type %q", spec.InstanceType),
			Fix: "declare it under instanceTypes in the cluster file"}
	}
	if _, dup := s.nodeIdx[spec.Name]; dup || spec.Name == "" {
		return &model.FieldError{Field: "name", Problem: fmt.Sprintf("node %q already exists or is empty", spec.Name), Fix: "use a new, unique node name"}
	}
	it := s.types[ti]
	capacity, err := nodeCapacity(spec.Name, it.capacity, spec.Allocatable)
	if err != nil {
		return err
	}
	n := &node{idx: int32(len(s.nodes)), pos: int32(len(it.nodes)), spec: spec, typ: it, healthy: true,
		capacity: capacity, free: capacity, freeGPUs: fullMask(capacity.GPUs)}
	s.nodes = append(s.nodes, n)
	s.nodeIdx[spec.Name] = n.idx
	it.nodes = append(it.nodes, n.idx)
	it.index.addPosition()
	s.addToTopology(n)
	s.setSchedulable(n, !spec.Unschedulable)
	s.touchUsage(it.idx)
	return nil
}

func fullMask(gpus int64) uint64 {
	if gpus >= 64 {
		return ^uint64(0)
	}
	return (uint64(1) << uint(gpus)) - 1
}

func (s *Scheduler) groupOf(name string) *group {
	g := s.groups[name]
	if g == nil {
		n := len(s.types)
		g = &group{name: name, lend: make([]resource.Vector, n), borrowed: make([]resource.Vector, n),
			overflow: make([]resource.Vector, n), lenderQ: make([]resource.Vector, n), limited: make([]int, n)}
		s.groups[name] = g
	}
	return g
}

// SetTeam creates a team or replaces an existing team's settings, live.
// Running tasks keep running; if a quota falls below what the team runs, the
// next cycle preempts the excess (reason QuotaReduced).
func (s *Scheduler) SetTeam(spec model.Team) error {
	if errs := model.ValidateTeam("team", spec, s.catalog); len(errs) > 0 {
		return errs
	}
	spec = spec.WithDefaults()
	t, exists := s.teamByName(spec.Name)
	if !exists {
		n := len(s.types)
		t = &team{spec: spec, quota: make([]resource.Vector, n), borrowCap: make([]resource.Vector, n), lendCap: make([]resource.Vector, n),
			usage: make([]resource.Vector, n), lendC: make([]resource.Vector, n), borC: make([]resource.Vector, n),
			run: make([][]*task, n)}
		s.teams = append(s.teams, t)
		sort.Slice(s.teams, func(a, b int) bool { return s.teams[a].spec.Name < s.teams[b].spec.Name })
		for i, tt := range s.teams {
			tt.idx = i
			s.teamIdx[tt.spec.Name] = i
		}
	} else {
		s.detachTeam(t)
	}
	t.spec = spec
	for i := range t.quota {
		t.quota[i], t.borrowCap[i], t.lendCap[i] = resource.Zero, resource.Infinite, resource.Infinite
	}
	for _, q := range spec.Quotas {
		i := s.typeIdx[q.InstanceType]
		t.quota[i] = model.QuotaVector(q, s.types[i].spec)
		t.borrowCap[i] = model.BorrowCapVector(q.BorrowCap)
		t.lendCap[i] = model.LendingLimitVector(q.LendingLimit, s.types[i].spec)
	}
	s.attachTeam(t)
	s.limitsDirty = true
	s.touch()
	return nil
}

// detachTeam removes t's quota and contributions from its group and the sums.
func (s *Scheduler) detachTeam(t *team) {
	s.qm.bump()
	s.shareAll = true // sharemoved.go
	g := t.group
	for i := range s.types {
		s.quotaSum[i] = s.quotaSum[i].Sub(t.quota[i])
		if t.spec.Lending.Lends() {
			g.lenderQ[i] = g.lenderQ[i].Sub(t.lendable(i))
			if t.lendable(i) != t.quota[i] {
				g.limited[i]--
			}
		}
		g.lend[i] = g.lend[i].Sub(t.lendC[i])
		g.borrowed[i] = g.borrowed[i].Sub(t.borC[i])
		t.lendC[i], t.borC[i] = resource.Zero, resource.Zero
		ov := g.borrowed[i].SubClamped(g.lend[i])
		s.overflowTotal[i] = s.overflowTotal[i].Sub(g.overflow[i]).Add(ov)
		g.overflow[i] = ov
	}
}

// attachTeam adds t's quota and contributions to its (possibly new) group.
func (s *Scheduler) attachTeam(t *team) {
	defer s.qm.bump()
	s.shareAll = true // sharemoved.go
	t.group = s.groupOf(t.spec.Group)
	for i := range s.types {
		s.quotaSum[i] = s.quotaSum[i].Add(t.quota[i])
		if t.spec.Lending.Lends() {
			t.group.lenderQ[i] = t.group.lenderQ[i].Add(t.lendable(i))
			if t.lendable(i) != t.quota[i] {
				t.group.limited[i]++
			}
		}
		s.refreshTeamType(t, i)
	}
}

// DeleteTeam removes a team that has no live tasks.
func (s *Scheduler) DeleteTeam(name string) error {
	t, ok := s.teamByName(name)
	if !ok {
		return fmt.Errorf("team %q: %w", name, model.ErrNotFound)
	}
	for _, tk := range s.tasks {
		if tk.team == t {
			return fmt.Errorf("team %q still has task %q; cancel its tasks first: %w", name, tk.spec.Name, model.ErrConflict)
		}
	}
	s.detachTeam(t)
	s.teams = append(s.teams[:t.idx], s.teams[t.idx+1:]...)
	delete(s.teamIdx, name)
	for i, tt := range s.teams {
		tt.idx = i
		s.teamIdx[tt.spec.Name] = i
	}
	s.touch()
	return nil
}

func (s *Scheduler) teamByName(name string) (*team, bool) {
	i, ok := s.teamIdx[name]
	if !ok {
		return nil, false
	}
	return s.teams[i], true
}

// SetPolicy replaces the cluster policy, live. Priority classes still used by
// live tasks must remain.
func (s *Scheduler) SetPolicy(p model.Policy) error {
	c := model.Cluster{Policy: p}
	if err := c.Validate(); err != nil {
		return err
	}
	for _, tk := range s.sortedTasks() {
		if tk.spec.Priority == "" {
			continue
		}
		if _, ok := p.ClassWeight(tk.spec.Priority); !ok {
			return &model.FieldError{Field: "policy.priorityClasses", Problem: fmt.Sprintf("class %q is used by task %q", tk.spec.Priority, tk.spec.Name),
				Fix: "keep the class until its tasks finish, or cancel them"}
		}
	}
	s.policy = p.WithDefaults()
	s.qm.bump()
	for _, tk := range s.tasks {
		tk.rank = s.rankOf(tk.spec.Priority)
	}
	for _, t := range s.teams {
		t.unsort()
	}
	s.limitsDirty = true
	s.touch()
	return nil
}

// Policy returns the policy in force, with defaults filled.
func (s *Scheduler) Policy() model.Policy { return s.policy }

func (s *Scheduler) rankOf(class string) int {
	if s.policy.TaskPrioritization != model.TaskRanking {
		return 0
	}
	w, _ := s.policy.ClassWeight(class)
	return w
}

// sortedTasks returns live tasks in submission order, for deterministic scans.
func (s *Scheduler) sortedTasks() []*task {
	out := make([]*task, 0, len(s.tasks))
	for _, t := range s.tasks {
		out = append(out, t)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].seq < out[b].seq })
	return out
}
