package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestImportHyperPod imports a ClusterSchedulerConfig and ComputeQuotas as
// `aws sagemaker describe-...` prints them, checks the policy and teams
// through the API, the fields reported as not honoured, that a second apply
// changes nothing, and that export writes them back the same.
func TestImportHyperPod(t *testing.T) {
	dir := cliServer(t)
	docs := filepath.Join(dir, "hyperpod")
	_ = os.MkdirAll(docs, 0o755)
	_ = os.WriteFile(filepath.Join(docs, "policy.json"), []byte(`{
  "ClusterSchedulerConfigArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster-scheduler-config/abc",
  "ClusterSchedulerConfigId": "abc", "Name": "example-policy", "ClusterSchedulerConfigVersion": 1, "Status": "Created",
  "ClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/xyz",
  "SchedulerConfig": {
    "PriorityClasses": [{"Name": "inference", "Weight": 90}, {"Name": "experimentation", "Weight": 80}, {"Name": "training", "Weight": 70}],
    "FairShare": "Disabled", "IdleResourceSharing": "Enabled"},
  "CreationTime": "2026-11-01T00:00:00Z"
}`), 0o644)
	// Two quotas in one file, as a JSON array of create requests.
	_ = os.WriteFile(filepath.Join(docs, "quotas.json"), []byte(`[
 {"Name": "ml-eng-quota", "ClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/xyz",
  "ComputeQuotaConfig": {
    "ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 3}],
    "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 100,
      "AbsoluteBorrowLimits": [{"InstanceType": "ml.p5.48xlarge", "Accelerators": 8}]},
    "PreemptTeamTasks": "Never"},
  "ComputeQuotaTarget": {"TeamName": "ml-engineers", "FairShareWeight": 80},
  "ActivationState": "Enabled", "Tags": [{"Key": "team", "Value": "ml"}]},
 {"Name": "research-quota", "ClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/xyz",
  "ComputeQuotaConfig": {
    "ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Accelerators": 4, "VCpu": 96, "MemoryInGiB": 1024,
      "AcceleratorPartition": {"Type": "mig-1g.10gb", "Count": 2}}],
    "ResourceSharingConfig": {"Strategy": "DontLend"}},
  "ComputeQuotaTarget": {"TeamName": "research", "FairShareWeight": 10}},
 {"Name": "off-quota", "ClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/xyz",
  "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 1}]},
  "ComputeQuotaTarget": {"TeamName": "dormant"}, "ActivationState": "Disabled"}
]`), 0o644)
	out := mustCLI(t, "apply", "-f", docs)
	for _, want := range []string{"policy configured (ClusterSchedulerConfig example-policy)", "team ml-engineers configured", "team research created",
		"not honoured: ComputeQuota research-quota.ComputeQuotaConfig.ComputeQuotaResources[0]: AcceleratorPartition",
		"not honoured: ComputeQuota off-quota: ActivationState Disabled", "Tags", "ClusterSchedulerConfigArn"} {
		if !strings.Contains(out, want) {
			t.Fatalf("apply lacks %q:\n%s", want, out)
		}
	}
	cl, _ := apiClient()
	ctx := context.Background()
	p, err := cl.Policy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// HyperPod's semantics: higher priority preempts lower at once.
	if p.Preemption != model.PreemptImmediate {
		t.Fatalf("preemption %q after applying a ClusterSchedulerConfig; want Immediate", p.Preemption)
	}
	if p.TaskPrioritization != model.TaskRanking || p.IdleComputeAllocation != model.IdleFirstComeFirstServe || !*p.BorrowUnallocated ||
		len(p.PriorityClasses) != 3 || p.PriorityClasses[1] != (model.PriorityClass{Name: "experimentation", Weight: 80}) {
		t.Fatalf("policy %+v", p)
	}
	teams, err := cl.Teams(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]model.Team{}
	for _, tm := range teams {
		byName[tm.Name] = tm
	}
	ml, rs := byName["ml-engineers"], byName["research"]
	if *ml.FairShareWeight != 80 || ml.Lending != model.LendAndBorrow || *ml.BorrowLimitPercent != 100 || ml.PreemptTeamTasks != model.PreemptNever ||
		len(ml.Quotas) != 1 || *ml.Quotas[0].Count != 3 || *ml.Quotas[0].BorrowCap.GPUs != 8 {
		t.Fatalf("ml-engineers %+v", ml)
	}
	if *rs.FairShareWeight != 10 || rs.Lending != model.DontLend || len(rs.Quotas) != 1 || *rs.Quotas[0].GPUs != 4 || *rs.Quotas[0].VCPU != 96 {
		t.Fatalf("research %+v", rs)
	}
	if _, ok := byName["dormant"]; ok {
		t.Fatal("a Disabled ComputeQuota created its team")
	}
	if again := mustCLI(t, "apply", "-f", docs); strings.Contains(again, "configured") || strings.Contains(again, "created") {
		t.Fatalf("a second apply changed something:\n%s", again)
	}
	// list-compute-quotas' answer imports as well.
	list := filepath.Join(dir, "list.json")
	_ = os.WriteFile(list, []byte(`{"ComputeQuotaSummaries": [{"ComputeQuotaArn": "arn:x", "ComputeQuotaId": "q1", "Name": "product-quota",
  "Status": "Created", "ClusterArn": "arn:y", "ActivationState": "Enabled", "CreationTime": "2026-11-01T00:00:00Z",
  "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 1}], "ResourceSharingConfig": {"Strategy": "Lend"}},
  "ComputeQuotaTarget": {"TeamName": "product", "FairShareWeight": 5}}], "NextToken": null}`), 0o644)
	if o := mustCLI(t, "apply", "-f", list); !strings.Contains(o, "team product configured") {
		t.Fatalf("apply of list-compute-quotas output:\n%s", o)
	}
	// A document taskgov cannot read is refused whole, naming the field.
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"ComputeQuotaConfig": {"ComputeQuotaResources": []}, "ComputeQuotaTarget": {"TeamName": "x"}, "Quota": 1}`), 0o644)
	mustFail(t, exitInput, `unknown field "Quota"`, "apply", "-f", bad)
	// A path that is not there names -f and how to get such a directory.
	mustFail(t, exitInput, "-f: hyperpod-config/ does not exist", "apply", "-f", "hyperpod-config/")

	// Export writes the same configuration back: applying it changes nothing.
	exported := filepath.Join(dir, "exported")
	mustCLI(t, "export", "--format", "hyperpod", "--out", exported, "--cluster-arn", "arn:aws:sagemaker:us-west-2:123456789012:cluster/xyz")
	if b, err := os.ReadFile(filepath.Join(exported, "compute-quota-ml-engineers.json")); err != nil || !strings.Contains(string(b), `"TeamName": "ml-engineers"`) ||
		!strings.Contains(string(b), `"Strategy": "LendAndBorrow"`) {
		t.Fatalf("exported quota: %s %v", b, err)
	}
	if again := mustCLI(t, "apply", "-f", exported); strings.Contains(again, "configured") || strings.Contains(again, "created") {
		t.Fatalf("applying the export changed something:\n%s", again)
	}
}
