package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSageMakerJSONTypeErrors: a ComputeQuota or ClusterSchedulerConfig
// document with a value of the wrong kind is refused (exit 2) naming the
// file, the SageMaker field's path with its index, what was given and
// what it must be, never a Go type (it printed "cannot unmarshal string
// into Go struct field smResource.ComputeQuotaConfig.ComputeQuotaResources.Accelerators
// of type int64"); a file that is not JSON gets its line and column; the
// teams and policy are unchanged. The API says the same of a team body.
func TestSageMakerJSONTypeErrors(t *testing.T) {
	dir := cliServer(t)
	before := liveConfig(t)
	for _, c := range []struct{ doc, want string }{
		{`{"ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 1}, {"InstanceType": "ml.g5.12xlarge", "Accelerators": "eight"}]},
		  "ComputeQuotaTarget": {"TeamName": "product"}}`,
			`q.json.ComputeQuotaConfig.ComputeQuotaResources[1].Accelerators: must be a whole number, not "eight"`},
		{`{"ComputeQuotaConfig": {"ComputeQuotaResources": [], "ResourceSharingConfig": {"Strategy": "Lend", "BorrowLimit": 50.5}},
		  "ComputeQuotaTarget": {"TeamName": "product"}}`,
			`q.json.ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit: must be a whole number, not 50.5`},
		{`{"SchedulerConfig": {"PriorityClasses": [{"Name": "a", "Weight": "high"}]}}`,
			`q.json.SchedulerConfig.PriorityClasses[0].Weight: must be a whole number, not "high"`},
		{"{\n  \"SchedulerConfig\": {\n    \"FairShare\": Enabled\n  }\n}",
			`q.json: is not valid JSON: line 3, column 18: invalid character 'E'`},
	} {
		f := filepath.Join(dir, "q.json")
		if err := os.WriteFile(f, []byte(c.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errs, code := cli(t, "apply", "-f", f)
		if code != exitInput || !strings.Contains(errs, c.want) {
			t.Errorf("apply -f %s:\nexit %d: %s\nwant %q", c.doc, code, errs, c.want)
		}
		for _, leak := range []string{"Go struct", "int64", "unmarshal", "smResource"} {
			if strings.Contains(errs, leak) {
				t.Errorf("the error names Go (%q): %s", leak, errs)
			}
		}
	}
	if after := liveConfig(t); after != before {
		t.Fatalf("a refused document changed the server:\n%s", after)
	}
}
