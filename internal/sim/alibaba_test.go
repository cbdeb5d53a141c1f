package sim

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestImportAlibabaRealFile imports the real trace in ../shared/traces and
// checks its counts against the trace's README.
func TestImportAlibabaRealFile(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "traces", "alibaba-gpu-v2023")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the shared trace is not beside the repository: %v", err)
	}
	c, jobs, st, err := ImportAlibaba(dir, 6, 1)
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
	// 3,078 fractional, 897 pending at the end.
	if st.Nodes != 1213 || gpus != 6212 || st.Pods != 8152 || st.SkippedCPUOnly != 1088 || st.Imported != 8152-1088 {
		t.Fatalf("counts: %+v, %d GPUs", st, gpus)
	}
	if st.FractionalRounds != 3078 || st.Pending != 897 {
		t.Fatalf("fractional %d (want 3078), pending %d (want 897)", st.FractionalRounds, st.Pending)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(jobs) != st.Imported || jobs[0].SubmitS > jobs[len(jobs)-1].SubmitS {
		t.Fatal("jobs not sorted by submit time")
	}
	again, jobs2, _, _ := ImportAlibaba(dir, 6, 1)
	if len(again.NodeGroups) != len(c.NodeGroups) || jobs2[100] != jobs[100] {
		t.Fatal("the import is not deterministic")
	}
}
