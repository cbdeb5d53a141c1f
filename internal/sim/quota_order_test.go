package sim

import (
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestWaitByQuotaOrder: team a owns one node of two and may borrow b's.
// Its low-class task runs on its quota; its high-class task then fits a's
// quota only in class order (it borrows b's idle node at once); a second
// task of each class is over a's quota even in class order and waits for
// a node. Each standing's share adds up to its class's mean wait.
func TestWaitByQuotaOrder(t *testing.T) {
	c := tinyCluster(2, 1, 1)
	pct := 100
	c.Teams[0].BorrowLimitPercent = &pct
	c.Policy.TaskPrioritization = model.TaskRanking
	c.Policy.PriorityClasses = []model.PriorityClass{{Name: "hi", Weight: 90}, {Name: "lo", Weight: 10}}
	jobs := []Job{
		{SubmitS: 0, Name: "lo1", Team: "a", Priority: "lo", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 1000},
		{SubmitS: 10, Name: "hi1", Team: "a", Priority: "hi", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 500},
		{SubmitS: 20, Name: "lo2", Team: "a", Priority: "lo", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 100},
		{SubmitS: 200, Name: "hi2", Team: "a", Priority: "hi", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 100},
	}
	r, err := Run(jobs, Options{Cluster: c, WaitReasons: true})
	if err != nil {
		t.Fatal(err)
	}
	q := r.WaitByQuotaOrder
	hi, lo := q["hi"], q["lo"]
	// hi2 comes while hi1 runs: a's high-class work alone fills its quota.
	// It waits from 200 until hi1 ends at 510.
	if len(hi) != 2 || hi[qoClassOrder].Jobs != 1 || hi[qoClassOrder].WaitMeanS != 0 || hi[qoOver].Jobs != 1 ||
		hi[qoOver].WaitMeanS != 310 || hi[qoOver].PerJobOfClassS != 155 {
		t.Fatalf("hi: in class order %+v, over %+v; want hi1 at once, hi2 310 s (155 per job of the class)", hi[qoClassOrder], hi[qoOver])
	}
	// lo2 waits from 20 until hi2 ends at 610.
	if len(lo) != 2 || lo[qoFits].Jobs != 1 || lo[qoFits].WaitMeanS != 0 || lo[qoOver].Jobs != 1 ||
		lo[qoOver].WaitMeanS != 590 || lo[qoOver].PerJobOfClassS != 295 {
		t.Fatalf("lo: fits %+v, over %+v; want lo1 at once, lo2 590 s (295 per job of the class)", lo[qoFits], lo[qoOver])
	}
}
