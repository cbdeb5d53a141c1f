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
	return applyAmount(resource.Vector{}, q.GPUs, q.VCPU, q.MemoryGiB, &it)
}

// applyAmount sets v's resources that an amount names: GPUs, and, when it
// is given and has GPUs, vCPU and memory by its ratio to them; an explicit
// vCPU or memory wins over the derived one. What it does not name stays.
func applyAmount(v resource.Vector, gpus *int64, vcpu, mem *float64, it *InstanceType) resource.Vector {
	if gpus != nil {
		v.GPUs = *gpus
		if it != nil && it.GPUs > 0 {
			v.MilliCPU = int64(float64(*gpus) * it.VCPU * 1000 / float64(it.GPUs))
			v.MemMiB = int64(float64(*gpus) * it.MemoryGiB * 1024 / float64(it.GPUs))
		}
	}
	if vcpu != nil {
		v.MilliCPU = resource.New(0, *vcpu, 0).MilliCPU
	}
	if mem != nil {
		v.MemMiB = resource.New(0, 0, *mem).MemMiB
	}
	return v
}

// BorrowCapVector resolves an optional absolute borrow cap; unset components
// are unlimited.
func BorrowCapVector(a *Amount) resource.Vector {
	if a == nil {
		return resource.Infinite
	}
	return applyAmount(resource.Infinite, a.GPUs, a.VCPU, a.MemoryGiB, nil)
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
