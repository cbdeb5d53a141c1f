package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeOpenB writes a small trace in the openb format (the two CSV files of
// the Alibaba v2023 trace) and returns its folder.
func writeOpenB(t *testing.T, nodes, pods string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"openb_node_list_gpu_node.csv": "sn,cpu_milli,memory_mib,gpu,model\n" + nodes,
		"openb_pod_list_default.csv": "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase," +
			"creation_time,deletion_time,scheduled_time\n" + pods,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestImportAlibabaMapping checks the importer against the trace's README:
// a pod never scheduled (no scheduled_time, phase Pending) never ran, so it
// is left out rather than imported as running for its pending time; a pod
// that ran lasts from its scheduling to its deletion; and every team may
// borrow its type's idle compute, as any pod could in the source cluster,
// which had no quotas.
func TestImportAlibabaMapping(t *testing.T) {
	nodes := strings.Repeat("n,64000,262144,2,P100\n", 6)
	dir := writeOpenB(t, nodes, ""+
		"ran,6000,12288,1,1000,,LS,Running,100,900,400\n"+
		"frac,6000,12288,1,460,,BE,Failed,200,260,210\n"+
		"never,6000,12288,1,1000,,LS,Pending,300,420,\n"+
		"never-cpu,6000,12288,0,0,,BE,Pending,300,420,\n"+
		"cpu,6000,12288,0,0,,BE,Succeeded,300,420,310\n")
	c, jobs, st, err := ImportAlibaba(dir, 3, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pods != 5 || st.Imported != 2 || st.SkippedPending != 1 || st.SkippedCPUOnly != 2 || st.Pending != 2 || st.FractionalRounds != 1 {
		t.Fatalf("counts: %+v", st)
	}
	if len(jobs) != 2 || jobs[0].Name != "ran" || jobs[0].DurationS != 500 || jobs[0].SubmitS != 100 ||
		jobs[1].Name != "frac" || jobs[1].DurationS != 50 || jobs[1].GPUsPerNode != 1 {
		t.Fatalf("jobs: %+v", jobs)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tm := range c.Teams {
		q := *tm.Quotas[0].Count
		if *tm.BorrowLimitPercent != 200 || q+q*int64(*tm.BorrowLimitPercent)/100 != 6 {
			t.Fatalf("%s: quota %d, borrow limit %d%%: it cannot use the type's 6 nodes", tm.Name, q, *tm.BorrowLimitPercent)
		}
	}
	// More teams than the model's 500% allows for: the limit stays at 500.
	c, _, _, err = ImportAlibaba(dir, 8, 1, 1)
	if err != nil || *c.Teams[0].BorrowLimitPercent != 500 || c.Validate() != nil {
		t.Fatalf("8 teams: %v, limit %d%%", err, *c.Teams[0].BorrowLimitPercent)
	}

	// A scheduled_time that is not a number is refused, naming the pod.
	bad := writeOpenB(t, nodes, "odd,6000,12288,1,1000,,LS,Running,100,900,soon\n")
	if _, _, _, err := ImportAlibaba(bad, 3, 1, 1); err == nil || !strings.Contains(err.Error(), "odd") {
		t.Fatalf("a bad scheduled_time: %v", err)
	}
}
