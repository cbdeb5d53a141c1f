package model

import (
	"fmt"
	"strings"
)

// TopoDomain is one network node of the topology tree, or a node (machine)
// at its leaves, with its GPU occupancy.
type TopoDomain struct {
	// Level is the label key of the level, or "node" for a machine.
	Level string `json:"level"`
	Name  string `json:"name"`
	Nodes int    `json:"nodes"`
	GPUs  int64  `json:"gpus"`
	// FreeGPUs is, for a domain, the idle GPUs of its schedulable nodes
	// (what new tasks can use); for a machine, its idle GPUs, schedulable
	// or not.
	FreeGPUs int64 `json:"freeGPUs"`
	// For machines only.
	InstanceType string   `json:"instanceType,omitempty"`
	Schedulable  bool     `json:"schedulable,omitempty"`
	Tasks        []string `json:"tasks,omitempty"`
	// HeldFor names the starving task the machine drains for, if any.
	HeldFor string `json:"heldFor,omitempty"`

	Children []*TopoDomain `json:"children,omitempty"`
}

// TopologyView is the whole tree: layer 1 at the roots, machines at the
// leaves. Nodes without a label at some level sit under a domain named
// "(unlabelled)".
type TopologyView struct {
	Levels []string      `json:"levels"`
	Roots  []*TopoDomain `json:"roots"`
}

// Unlabelled names the domain of nodes that lack a level's label.
const Unlabelled = "(unlabelled)"

// Text renders the tree for a terminal, one line per domain or machine, at
// most width columns wide (task lists are cut with "…").
func (v TopologyView) Text(width int) string {
	var b strings.Builder
	var walk func(d *TopoDomain, depth int)
	walk = func(d *TopoDomain, depth int) {
		indent := strings.Repeat("  ", depth)
		var line string
		if d.Level == "node" {
			state := ""
			if !d.Schedulable {
				state = " unschedulable"
			}
			if d.HeldFor != "" {
				state += " held for " + d.HeldFor
			}
			line = fmt.Sprintf("%s%-*s %-20s %5s GPUs used%s  %s", indent, max(1, 28-len(indent)), d.Name, d.InstanceType,
				fmt.Sprintf("%d/%d", d.GPUs-d.FreeGPUs, d.GPUs), state, strings.Join(d.Tasks, ","))
		} else {
			line = fmt.Sprintf("%s%-*s %5d nodes %6d GPUs %6d free", indent, max(1, 40-len(indent)), shortLevel(d.Level)+" "+d.Name,
				d.Nodes, d.GPUs, d.FreeGPUs)
		}
		line = strings.TrimRight(line, " ")
		if r := []rune(line); len(r) > width {
			line = string(r[:width-1]) + "…"
		}
		b.WriteString(line + "\n")
		for _, c := range d.Children {
			walk(c, depth+1)
		}
	}
	for _, r := range v.Roots {
		walk(r, 0)
	}
	return b.String()
}

// shortLevel turns "topology.k8s.aws/network-node-layer-1" into "layer-1".
func shortLevel(key string) string {
	if i := strings.LastIndex(key, "/"); i >= 0 {
		key = key[i+1:]
	}
	return strings.TrimPrefix(key, "network-node-")
}
