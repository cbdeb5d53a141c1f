package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuotaWarningsInTheCLI: quotas the cluster cannot back were accepted
// without a word, and `team describe` showed a quota for an instance type
// the cluster has no nodes of as GPUs lent. `team create` and `apply -f`
// now print the server's warnings (the team is stored all the same), and
// `team describe` says the type is not present.
func TestQuotaWarningsInTheCLI(t *testing.T) {
	dir := cliServer(t)
	out, errs, code := cli(t, "team", "create", "gpuless", "--quota", "ml.g5.12xlarge=2")
	if code != 0 || !strings.Contains(out, "team gpuless created") ||
		!strings.Contains(errs, "warning: team gpuless, quota for ml.g5.12xlarge: the cluster has no nodes of this type") {
		t.Fatalf("team create for an absent type: exit %d\n%s\n%s", code, out, errs)
	}
	if o := mustCLI(t, "team", "describe", "gpuless"); !strings.Contains(o, "not present (the cluster has no nodes of this type)") {
		t.Fatalf("team describe of an absent type:\n%s", o)
	}
	doc := filepath.Join(dir, "cpu-only.json")
	_ = os.WriteFile(doc, []byte(`{"Name": "cpu-only", "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "VCpu": 96}],
  "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 0}}, "ComputeQuotaTarget": {"TeamName": "cpu-only", "FairShareWeight": 1}}`), 0o644)
	o := mustCLI(t, "apply", "-f", doc)
	for _, want := range []string{"team cpu-only created", "warning: team cpu-only, quota for ml.p5.48xlarge: gives vCPU or memory but no GPUs",
		"warning: team cpu-only: lending LendAndBorrow with a borrow limit of 0% borrows no idle compute"} {
		if !strings.Contains(o, want) {
			t.Fatalf("apply -f of a vCPU-only quota with BorrowLimit 0 lacks %q:\n%s", want, o)
		}
	}
}
