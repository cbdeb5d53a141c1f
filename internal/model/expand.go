package model

import (
	"fmt"

	"github.com/taskgov/taskgov/internal/resource"
)

// ExpandNodes returns the explicit nodes followed by every node group's nodes,
// named <group>-<index>. A group with a topology gets generated network-node
// labels: layer-3 domains of NodesPerLayer3 nodes, and so on upward.
func (c *Cluster) ExpandNodes() []Node {
	out := make([]Node, 0, len(c.Nodes))
	out = append(out, c.Nodes...)
	for _, g := range c.NodeGroups {
		for i := 0; i < g.Count; i++ {
			labels := make(map[string]string, len(g.Labels)+3)
			for k, v := range g.Labels {
				labels[k] = v
			}
			if t := g.Topology; t != nil {
				l3 := i / t.NodesPerLayer3
				l2 := l3 / t.Layer3PerLayer2
				l1 := l2 / t.Layer2PerLayer1
				labels[LabelLayer1] = fmt.Sprintf("%s-nn1-%d", g.Name, l1)
				labels[LabelLayer2] = fmt.Sprintf("%s-nn2-%d", g.Name, l2)
				labels[LabelLayer3] = fmt.Sprintf("%s-nn3-%d", g.Name, l3)
			}
			out = append(out, Node{Name: fmt.Sprintf("%s-%d", g.Name, i), InstanceType: g.InstanceType, Labels: labels})
		}
	}
	return out
}

// QuotaVector resolves a quota entry to an amount. A count gives count whole
// instances; GPUs alone derive vCPU and memory by the instance's ratio; any
// explicit vCPU or memory wins over the derived one.
func QuotaVector(q Quota, it InstanceType) resource.Vector {
	if q.Count != nil {
		return it.Capacity().Mul(*q.Count)
	}
	var v resource.Vector
	if q.GPUs != nil {
		v.GPUs = *q.GPUs
		if it.GPUs > 0 {
			v.MilliCPU = int64(float64(*q.GPUs) * it.VCPU * 1000 / float64(it.GPUs))
			v.MemMiB = int64(float64(*q.GPUs) * it.MemoryGiB * 1024 / float64(it.GPUs))
		}
	}
	if q.VCPU != nil {
		v.MilliCPU = resource.New(0, *q.VCPU, 0).MilliCPU
	}
	if q.MemoryGiB != nil {
		v.MemMiB = resource.New(0, 0, *q.MemoryGiB).MemMiB
	}
	return v
}

// BorrowCapVector resolves an optional absolute borrow cap; unset components
// are unlimited.
func BorrowCapVector(a *Amount) resource.Vector {
	v := resource.Infinite
	if a == nil {
		return v
	}
	if a.GPUs != nil {
		v.GPUs = *a.GPUs
	}
	if a.VCPU != nil {
		v.MilliCPU = resource.New(0, *a.VCPU, 0).MilliCPU
	}
	if a.MemoryGiB != nil {
		v.MemMiB = resource.New(0, 0, *a.MemoryGiB).MemMiB
	}
	return v
}

// PodVector resolves a per-node request on an instance type: the whole node
// when empty, GPUs alone scaled by the instance's ratio, explicit vCPU and
// memory otherwise.
func PodVector(r Request, it InstanceType) resource.Vector {
	if r.WholeNode() {
		return it.Capacity()
	}
	v := resource.New(r.GPUs, r.VCPU, r.MemoryGiB)
	if r.GPUs > 0 && it.GPUs > 0 {
		if r.VCPU == 0 {
			v.MilliCPU = int64(float64(r.GPUs) * it.VCPU * 1000 / float64(it.GPUs))
		}
		if r.MemoryGiB == 0 {
			v.MemMiB = int64(float64(r.GPUs) * it.MemoryGiB * 1024 / float64(it.GPUs))
		}
	}
	return v
}
