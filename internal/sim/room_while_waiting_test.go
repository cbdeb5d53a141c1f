package sim

import (
	"testing"
)

// TestRoomWhileWaiting: on four nodes, b's 2-node gang borrows one of a's
// two nodes of quota and c runs two 1-node tasks, the second borrowed. a's
// 2-node task, within its quota, waits out rule 10's payback for the gang
// (its only reclaimable victim once c1 ends at 900 s and c is back within
// its quota). The node c1 frees is too little for it; c's 2-GPU task c2
// borrows 2 GPUs of it in that cycle, which room_while_waiting counts for
// a's wait as another team's borrower of the same class (every job here has
// none), and nothing else: no other cycle admits anything while a1 waits.
func TestRoomWhileWaiting(t *testing.T) {
	c := tinyCluster(4, 2, 1, 1)
	pct := 100
	c.Teams[1].BorrowLimitPercent = &pct
	c.Teams[2].BorrowLimitPercent = &pct
	it := "ml.p5.48xlarge"
	jobs := []Job{
		{SubmitS: 0, Name: "b1", Team: "b", InstanceType: it, Nodes: 2, DurationS: 100000},
		{SubmitS: 0, Name: "c1", Team: "c", InstanceType: it, Nodes: 1, DurationS: 900},
		{SubmitS: 1, Name: "c0", Team: "c", InstanceType: it, Nodes: 1, DurationS: 100000},
		{SubmitS: 600, Name: "a1", Team: "a", InstanceType: it, Nodes: 2, DurationS: 100},
		{SubmitS: 700, Name: "c2", Team: "c", InstanceType: it, Nodes: 1, GPUsPerNode: 2, DurationS: 100},
	}
	r, err := Run(jobs, Options{Cluster: c, WaitReasons: true})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]float64{}
	for _, o := range r.Jobs {
		first[o.Name] = o.FirstAdmitS
	}
	if first["c2"] != 900 || first["a1"] <= 900 {
		t.Fatalf("c2 admitted at %v, a1 at %v; want c2 at 900 while a1 still waits", first["c2"], first["a1"])
	}
	if len(r.RoomWhileWaiting) != 1 {
		t.Fatalf("room_while_waiting %v; want the reclaim wait alone", r.RoomWhileWaiting)
	}
	st := r.RoomWhileWaiting[rwReclaim]
	if st == nil || st.WaiterCycles == 0 || len(st.GPUs) != 1 || st.GPUs[rwSame] != 2 {
		t.Fatalf("reclaim wait %+v; want c2's 2 borrowed GPUs as another team's borrower of the same class", st)
	}
	if plain, err := Run(jobs, Options{Cluster: c}); err != nil || plain.RoomWhileWaiting != nil {
		t.Fatalf("without WaitReasons: %v, %v; want no room_while_waiting", err, plain.RoomWhileWaiting)
	}
}
