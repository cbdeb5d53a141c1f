package model

import (
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/resource"
)

func TestQuotaAndPodDerivation(t *testing.T) {
	p4d := NewCatalog(nil)["ml.p4d.24xlarge"] // 8 GPUs, 96 vCPU, 1152 GiB
	g := int64(12)
	if got := QuotaVector(Quota{GPUs: &g}, p4d); got != resource.New(12, 144, 1728) {
		t.Fatalf("GPU-only quota: %v", got)
	}
	v := 10.0
	if got := QuotaVector(Quota{GPUs: &g, VCPU: &v}, p4d); got != resource.New(12, 10, 1728) {
		t.Fatalf("explicit vCPU must win: %v", got)
	}
	if got := PodVector(Request{}, p4d); got != p4d.Capacity() {
		t.Fatalf("empty request is the whole node: %v", got)
	}
	if got := PodVector(Request{GPUs: 2}, p4d); got != resource.New(2, 24, 288) {
		t.Fatalf("GPU-only pod: %v", got)
	}
	if got := BorrowCapVector(&Amount{GPUs: &g}); got.GPUs != 12 || got.MilliCPU != resource.Unlimited {
		t.Fatalf("borrow cap: %v", got)
	}
}

func TestCatalogOverride(t *testing.T) {
	c := NewCatalog([]InstanceType{{Name: "ml.p5.48xlarge", GPUs: 4, VCPU: 10, MemoryGiB: 10}, {Name: "custom", GPUs: 2, VCPU: 8, MemoryGiB: 32}})
	if c["ml.p5.48xlarge"].GPUs != 4 || c["custom"].GPUs != 2 {
		t.Fatal("cluster file instance types must extend and override the catalog")
	}
}

func TestValidateTaskRefusals(t *testing.T) {
	cat := NewCatalog(nil)
	teams := func(n string) bool { return n == "a" }
	nodes := func(it string) int {
		if it == "ml.p5.48xlarge" {
			return 4
		}
		return 0
	}
	p := Policy{PriorityClasses: []PriorityClass{{Name: "training", Weight: 50}}}
	cases := map[string]TaskSpec{
		"instanceType: unknown instance type":          {Name: "x", Team: "a", InstanceType: "ml.nope"},
		"priority: unknown priority class":             {Name: "x", Team: "a", InstanceType: "ml.p5.48xlarge", Priority: "urgent"},
		"team: unknown team":                           {Name: "x", Team: "b", InstanceType: "ml.p5.48xlarge"},
		"nodes: the gang needs 5":                      {Name: "x", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 5},
		"perNode: needs more GPUs than one node":       {Name: "x", Team: "a", InstanceType: "ml.p5.48xlarge", PerNode: Request{GPUs: 9}},
		"type: unknown task type":                      {Name: "x", Team: "a", InstanceType: "ml.p5.48xlarge", Type: "batch"},
		"nodeSelector: key \"a b\" is not a label key": {Name: "x", Team: "a", InstanceType: "ml.p5.48xlarge", NodeSelector: map[string]string{"a b": "c"}},
		"nodeSelector: value \"x=y\" of k":             {Name: "x", Team: "a", InstanceType: "ml.p5.48xlarge", NodeSelector: map[string]string{"k": "x=y"}},
	}
	for want, spec := range cases {
		err := ValidateTask(spec.WithDefaults(), cat, teams, p, nodes, DefaultTopologyLevels)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
	ok := TaskSpec{Name: "x", Team: "a", InstanceType: "ml.p6-b200.48xlarge", Nodes: 16}
	if err := ValidateTask(ok, cat, teams, p, nodes, DefaultTopologyLevels); err != nil {
		t.Fatalf("a type with no nodes yet must be accepted (it waits): %v", err)
	}
}

func TestWaitMessagesAreSentences(t *testing.T) {
	r := WaitReason{Code: NoIdleCompute, InstanceType: "ml.p5.48xlarge", Kind: resource.GPU, Used: 16, Limit: 16, Need: 8}
	if got := r.Message(); got != "waiting: team quota for ml.p5.48xlarge is used (16/16 GPUs) and no idle compute can be borrowed" {
		t.Fatalf("message: %q", got)
	}
	for _, c := range []WaitCode{QuotaExhausted, BorrowLimit, NoIdleCompute, NoNodes, NoCapacity, HeldForOther, Draining, QueuedForHold, Preempted, NoTopologyFit, NoMatchingNodes, WaitingForPayback, VictimProtected} {
		if m := (WaitReason{Code: c, InstanceType: "x"}).Message(); !strings.HasPrefix(m, "waiting: ") || len(m) < 30 {
			t.Errorf("%s: %q is not a sentence", c, m)
		}
	}
}

func TestVictimProtectedMessage(t *testing.T) {
	at := time.Date(2026, 1, 1, 1, 30, 0, 0, time.UTC).Unix()
	one := WaitReason{Code: VictimProtected, InstanceType: "ml.p5.48xlarge", Detail: "eval", Need: 1, At: at}
	want := "waiting: will preempt lower-priority task eval of its own team on ml.p5.48xlarge, but it already lost its work to priority once and is protected until this task has waited the starvation bound (preemption Immediate); it can be taken at 2026-01-01 01:30:00 UTC"
	if got := one.Message(); got != want {
		t.Errorf("one victim:\n got %q\nwant %q", got, want)
	}
	two := WaitReason{Code: VictimProtected, InstanceType: "ml.p5.48xlarge", Need: 2, At: at}
	if got := two.Message(); !strings.Contains(got, "lower-priority tasks of its own team") || !strings.Contains(got, "they can be taken at 2026-01-01 01:30:00 UTC") || strings.Contains(got, "a lower-priority tasks") {
		t.Errorf("two hidden victims: %q", got)
	}
}
