package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// nodesFile is a cluster file that lists n nodes one by one, plus a
// group of extra nodes when extra > 0.
func nodesFile(n, extra int) string {
	var b strings.Builder
	b.WriteString("nodes:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: n%d, instanceType: ml.p5.48xlarge}\n", i)
	}
	if extra > 0 {
		fmt.Fprintf(&b, "nodeGroups: [{name: g, instanceType: ml.p5.48xlarge, count: %d}]\n", extra)
	}
	return b.String()
}

// TestListedNodesAreBounded: the bound on the nodes a file declares
// (SCHEDULING.md: at most 100,000 in all) holds for nodes listed one by
// one, not only for node groups' counts. Before, a file listing 100,001
// nodes loaded, with no group or (since the groups' check reports only the
// group that crosses the bound) with a group after them.
func TestListedNodesAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes a 100,001-node file")
	}
	_, err := LoadCluster(writeFile(t, nodesFile(model.MaxNodes+1, 0)))
	want := fmt.Sprintf("nodes: lists %d nodes; declare at most %d nodes in all", model.MaxNodes+1, model.MaxNodes)
	if !errors.Is(err, model.ErrInvalid) || !strings.Contains(fmt.Sprint(err), want) {
		t.Fatalf("a file listing %d nodes: %v; want %q", model.MaxNodes+1, err, want)
	}
	// Past the bound by the listed nodes, a group after them is not
	// blamed too: one error, on the nodes (the groups' check counts from
	// the listed nodes and reports only the group that crosses the bound).
	_, err = LoadCluster(writeFile(t, nodesFile(model.MaxNodes+1, 5)))
	if !strings.Contains(fmt.Sprint(err), want) || strings.Contains(fmt.Sprint(err), "nodeGroups[0].count") {
		t.Fatalf("%d listed nodes and a group of 5: %v; want only %q", model.MaxNodes+1, err, want)
	}
	// At the bound, listed nodes and a group together load.
	if _, err := LoadCluster(writeFile(t, nodesFile(model.MaxNodes-1, 1))); err != nil {
		t.Fatalf("a file of exactly %d nodes: %v", model.MaxNodes, err)
	}
}
