package core

import (
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// TeamUsage is one team's standing on one instance type.
type TeamUsage struct {
	Team         string
	InstanceType string
	Quota        resource.Vector
	Used         resource.Vector
	Borrowed     resource.Vector // used beyond quota
	Lent         resource.Vector // idle quota offered to the team's group
}

// Usage lists, for every team and every instance type it has quota for or
// uses, its quota, usage, borrowing and lending.
func (s *Scheduler) Usage() []TeamUsage {
	var out []TeamUsage
	for _, tm := range s.teams {
		for i, it := range s.types {
			if tm.quota[i].IsZero() && tm.usage[i].IsZero() {
				continue
			}
			out = append(out, TeamUsage{Team: tm.spec.Name, InstanceType: it.spec.Name, Quota: tm.quota[i],
				Used: tm.usage[i], Borrowed: tm.borC[i], Lent: tm.lendC[i]})
		}
	}
	return out
}

// Overflow is, per instance type, how much borrowing exceeds what groups lend
// (and so draws on unallocated capacity), and how much unallocated capacity
// borrowers may use.
func (s *Scheduler) Overflow(instanceType string) (used, allowed resource.Vector) {
	i, ok := s.typeIdx[instanceType]
	if !ok {
		return resource.Zero, resource.Zero
	}
	return s.overflowTotal[i], s.unallocatedAllowed(i)
}

// Catalog returns the instance types the scheduler knows.
func (s *Scheduler) Catalog() model.Catalog { return s.catalog }

// Running reports whether the named task is running.
func (s *Scheduler) Running(name string) bool {
	t, ok := s.tasks[name]
	return ok && t.state == running
}

// Resumes is how many times the named task was requeued after running.
func (s *Scheduler) Resumes(name string) int {
	if t, ok := s.tasks[name]; ok {
		return int(t.resumes)
	}
	return 0
}

// HoldChanges counts the starvation holds made or dropped so far; the
// engine republishes its view of the nodes when it moves.
func (s *Scheduler) HoldChanges() uint64 { return s.holdChanges }
