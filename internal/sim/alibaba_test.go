package sim

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// alibabaDir finds the shared trace beside the repository (or beside a
// worktree's parent folder), or skips the test.
func alibabaDir(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	for _, up := range []string{"../../..", "../../../.."} {
		dir := filepath.Join(filepath.Dir(file), up, "shared", "traces", "alibaba-gpu-v2023")
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
	}
	t.Skip("the shared trace is not beside the repository")
	return ""
}

// TestImportAlibabaRealFile imports the real trace in ../shared/traces and
// checks its counts against the trace's README.
func TestImportAlibabaRealFile(t *testing.T) {
	dir := alibabaDir(t)
	c, jobs, st, err := ImportAlibaba(dir, 6, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	gpus := 0
	for _, g := range c.NodeGroups {
		for _, it := range c.InstanceTypes {
			if it.Name == g.InstanceType {
				gpus += g.Count * int(it.GPUs)
			}
		}
	}
	// README: 1,213 GPU nodes, 6,212 GPUs; 8,152 pods, 1,088 without GPU,
	// 3,078 fractional, 897 pending at the end (861 of them with GPUs, left
	// out; 505 of those fractional).
	if st.Nodes != 1213 || gpus != 6212 || st.Pods != 8152 || st.SkippedCPUOnly != 1088 || st.SkippedPending != 861 ||
		st.Imported != 8152-1088-861 {
		t.Fatalf("counts: %+v, %d GPUs", st, gpus)
	}
	if st.FractionalRounds != 3078-505 || st.Pending != 897 {
		t.Fatalf("fractional %d (want 2573), pending %d (want 897)", st.FractionalRounds, st.Pending)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(jobs) != st.Imported || jobs[0].SubmitS > jobs[len(jobs)-1].SubmitS {
		t.Fatal("jobs not sorted by submit time")
	}
	again, jobs2, _, _ := ImportAlibaba(dir, 6, 1, 1)
	if len(again.NodeGroups) != len(c.NodeGroups) || jobs2[100] != jobs[100] {
		t.Fatal("the import is not deterministic")
	}
}

// TestImportAlibabaScaledQuotasFit: scaled, each type's quotas add up to its
// nodes (no team is promised a node another team is promised too), and every
// pod's team holds quota of the type drawn for it. Before, the quotas were
// scaled after the import, each rounded up to a node: six teams held a
// node's quota each on one-node types.
func TestImportAlibabaScaledQuotasFit(t *testing.T) {
	dir := alibabaDir(t)
	for _, scale := range []float64{1, 0.15} {
		c, jobs, st, err := ImportAlibaba(dir, 6, 1, scale)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		nodes := map[string]int64{}
		total := 0
		for _, g := range c.NodeGroups {
			nodes[g.InstanceType] += int64(g.Count)
			total += g.Count
		}
		if st.Nodes != 1213 || (scale == 1) != (total == 1213) || total < 15 {
			t.Fatalf("scale %v: %d nodes imported, %d in the cluster", scale, st.Nodes, total)
		}
		quota := map[string]int64{}
		held := map[[2]string]bool{}
		for _, tm := range c.Teams {
			for _, q := range tm.Quotas {
				quota[q.InstanceType] += *q.Count
				held[[2]string{tm.Name, q.InstanceType}] = *q.Count > 0
			}
		}
		for it, n := range nodes {
			if quota[it] != n {
				t.Fatalf("scale %v: %s has %d nodes and %d nodes of quota", scale, it, n, quota[it])
			}
		}
		if len(jobs) != 6203 {
			t.Fatalf("scale %v: %d pods imported", scale, len(jobs))
		}
		for _, j := range jobs {
			if !held[[2]string{j.Team, j.InstanceType}] {
				t.Fatalf("scale %v: %s of %s drawn on %s, where its team holds no quota", scale, j.Name, j.Team, j.InstanceType)
			}
		}
	}
}
