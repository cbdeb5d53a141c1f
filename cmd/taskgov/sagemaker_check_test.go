package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestApplySageMakerRefusedChangesNothing applies a directory of HyperPod
// documents of which one is refused: nothing is written (before, the
// policy and the teams of the documents before it were), and each problem
// is named by its document and the SageMaker field the user wrote.
func TestApplySageMakerRefusedChangesNothing(t *testing.T) {
	dir := cliServer(t)
	cl, _ := apiClient()
	ctx := context.Background()
	policy0, _ := cl.Policy(ctx)
	teams0, _ := cl.Teams(ctx)

	docs := filepath.Join(dir, "docs")
	_ = os.MkdirAll(docs, 0o755)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a-policy.json", `{"Name": "pol", "SchedulerConfig": {"PriorityClasses": [{"Name": "inference", "Weight": 90}], "FairShare": "Disabled"}}`)
	write("b-good.json", `{"Name": "good-quota", "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 1}],
  "ResourceSharingConfig": {"Strategy": "Lend"}}, "ComputeQuotaTarget": {"TeamName": "product", "FairShareWeight": 7}}`)
	write("c-bad.json", `{"Name": "bad-quota", "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": -1}],
  "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 10001,
    "AbsoluteBorrowLimits": [{"InstanceType": "ml.p5.48xlarge", "Accelerators": -8}, {"InstanceType": "ml.g5.12xlarge", "Accelerators": -2}]},
  "PreemptTeamTasks": "Always"}, "ComputeQuotaTarget": {"TeamName": "ml-engineers", "FairShareWeight": 101}}`)

	errs := mustFail(t, exitInput, "ComputeQuota bad-quota.ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit: 10001 is out of range", "apply", "-f", docs)
	for _, want := range []string{
		"ComputeQuota bad-quota.ComputeQuotaTarget.FairShareWeight: 101 is out of range",
		"ComputeQuota bad-quota.ComputeQuotaConfig.PreemptTeamTasks: unknown value \"Always\"",
		"ComputeQuota bad-quota.ComputeQuotaConfig.ComputeQuotaResources[0].Count: is negative",
		"ComputeQuota bad-quota.ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits[0].Accelerators: is negative",
		"ComputeQuota bad-quota.ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits[1].Accelerators: is negative",
	} {
		if !strings.Contains(errs, want) {
			t.Fatalf("apply's refusal lacks %q:\n%s", want, errs)
		}
	}
	policy1, _ := cl.Policy(ctx)
	teams1, _ := cl.Teams(ctx)
	if !reflect.DeepEqual(policy0, policy1) || !reflect.DeepEqual(teams0, teams1) {
		t.Fatalf("a refused apply changed the server:\npolicy %+v\n    -> %+v\nteams %+v\n   -> %+v", policy0, policy1, teams0, teams1)
	}

	// A ClusterSchedulerConfig the server would refuse is named too.
	_ = os.Remove(filepath.Join(docs, "c-bad.json"))
	write("a-policy.json", `{"Name": "pol", "SchedulerConfig": {"FairShare": "Sometimes"}}`)
	mustFail(t, exitInput, `ClusterSchedulerConfig pol.SchedulerConfig.FairShare: unknown value "Sometimes"; use Enabled or Disabled`, "apply", "-f", docs)
	// IdleResourceSharing was ignored when it was neither Enabled nor Disabled.
	write("a-policy.json", `{"Name": "pol", "SchedulerConfig": {"IdleResourceSharing": "On"}}`)
	mustFail(t, exitInput, `ClusterSchedulerConfig pol.SchedulerConfig.IdleResourceSharing: unknown value "On"`, "apply", "-f", docs)
	write("a-policy.json", `{"Name": "pol", "SchedulerConfig": {"PriorityClasses": [{"Name": "inference", "Weight": 101}]}}`)
	mustFail(t, exitInput, "ClusterSchedulerConfig pol.SchedulerConfig.PriorityClasses[0].Weight: 101 is out of range", "apply", "-f", docs)
	if policy1, _ = cl.Policy(ctx); !reflect.DeepEqual(policy0, policy1) {
		t.Fatal("a refused ClusterSchedulerConfig changed the policy")
	}
	if teams1, _ = cl.Teams(ctx); !reflect.DeepEqual(teams0, teams1) {
		t.Fatal("a refused ClusterSchedulerConfig let its directory's ComputeQuota through")
	}

	// SageMaker's API shape gives BorrowLimit 0 to 10000 (taskgov refused
	// 501 to 10000): the largest is applied as written.
	_ = os.Remove(filepath.Join(docs, "a-policy.json"))
	write("b-good.json", `{"Name": "good-quota", "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 1}],
  "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 10000}}, "ComputeQuotaTarget": {"TeamName": "product", "FairShareWeight": 7}}`)
	mustCLI(t, "apply", "-f", docs)
	teams2, _ := cl.Teams(ctx)
	for _, tm := range teams2 {
		if tm.Name == "product" && (tm.BorrowLimitPercent == nil || *tm.BorrowLimitPercent != 10000) {
			t.Fatalf("BorrowLimit 10000 applied as %v", tm.BorrowLimitPercent)
		}
	}
}
