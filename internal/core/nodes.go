package core

import (
	"fmt"
	"math/bits"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// primary is the bucket key of an amount on instance type it.
func (it *itype) primary(v resource.Vector) int {
	if it.capacity.GPUs > 0 {
		return int(v.GPUs)
	}
	return int(v.MilliCPU / 1000)
}

// needKey is the smallest bucket that can hold pod (rounding vCPU up).
func (it *itype) needKey(pod resource.Vector) int {
	if it.capacity.GPUs > 0 {
		return int(pod.GPUs)
	}
	return int((pod.MilliCPU + 999) / 1000)
}

func (it *itype) keys() int { return it.primary(it.capacity) + 1 }

// reindex puts n in the bucket its free capacity says, or out when it cannot
// take pods.
func (s *Scheduler) reindex(n *node) {
	k := -1
	if n.schedulable {
		k = n.typ.primary(n.free)
	}
	old := int(n.typ.index.key[n.pos])
	if old != k {
		n.typ.index.update(int(n.pos), k)
		s.moveInDomains(n, old, k)
	}
}

// setSchedulable changes whether n takes new pods and keeps the type's
// schedulable capacity and the unallocated pool in step.
func (s *Scheduler) setSchedulable(n *node, on bool) {
	if n.schedulable == on {
		return
	}
	n.schedulable = on
	s.qm.bump()
	if on {
		n.typ.sched = n.typ.sched.Add(n.capacity)
	} else {
		n.typ.sched = n.typ.sched.Sub(n.capacity)
	}
	s.reindex(n)
}

// takeGPUs removes the lowest k free GPU indices of n and returns their mask.
func takeGPUs(n *node, k int64) uint64 {
	var m uint64
	for ; k > 0; k-- {
		b := n.freeGPUs & -n.freeGPUs
		m |= b
		n.freeGPUs &^= b
	}
	return m
}

// gpuList renders a mask as sorted indices.
func gpuList(m uint64) []int {
	out := make([]int, 0, bits.OnesCount64(m))
	for m != 0 {
		out = append(out, bits.TrailingZeros64(m))
		m &= m - 1
	}
	return out
}

// SetNodeAllocatable changes what a node offers (on Kubernetes: allocatable
// less what other pods request); nil means the instance type's capacity.
// Only an idle node changes at once, so that running pods keep exactly what
// they were given; for a busy node it returns applied false and the caller
// tries again later.
func (s *Scheduler) SetNodeAllocatable(name string, a *resource.Vector) (applied bool, err error) {
	n, err := s.nodeByName(name)
	if err != nil {
		return false, err
	}
	capacity, err := nodeCapacity(name, n.typ.capacity, a)
	if err != nil {
		return false, err
	}
	if capacity == n.capacity {
		return true, nil
	}
	if n.free != n.capacity || n.freeGPUs != fullMask(n.capacity.GPUs) {
		return false, nil
	}
	on := n.schedulable
	s.setSchedulable(n, false)
	n.capacity, n.free, n.freeGPUs = capacity, capacity, fullMask(capacity.GPUs)
	n.spec.Allocatable = a
	s.setSchedulable(n, on)
	s.touchUsage(n.typ.idx)
	return true, nil
}

// nodeCapacity is what a node of a type with typeCap offers when it reports
// allocatable a (nil: all of it); more than the type is capped.
func nodeCapacity(name string, typeCap resource.Vector, a *resource.Vector) (resource.Vector, error) {
	if a == nil {
		return typeCap, nil
	}
	if !resource.Zero.LessEq(*a) {
		return resource.Vector{}, &model.FieldError{Field: "allocatable", Problem: fmt.Sprintf("node %q has negative allocatable %v", name, *a),
			Fix: "report what the node can hold, zero or more of each resource"}
	}
	return a.Min(typeCap), nil
}

// NodeCapacity is what the named node offers now (zero if unknown).
func (s *Scheduler) NodeCapacity(name string) resource.Vector {
	if i, ok := s.nodeIdx[name]; ok {
		return s.nodes[i].capacity
	}
	return resource.Vector{}
}
