package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadClusterSchema reads the schema the issue fixes and derives quotas.
func TestLoadClusterSchema(t *testing.T) {
	p := writeFile(t, `
instanceTypes: [{name: ml.p5.48xlarge, gpus: 8, vcpu: 192, memoryGiB: 2048}]
nodeGroups:
  - {name: p5, instanceType: ml.p5.48xlarge, count: 32,
     topology: {nodesPerLayer3: 4, layer3PerLayer2: 2, layer2PerLayer1: 2}}
policy:
  taskPrioritization: TaskRanking
  idleComputeAllocation: FairShare
  priorityClasses: [{name: inference, weight: 90}, {name: training, weight: 70}]
teams:
  - {name: ml-engineers, fairShareWeight: 50, lending: LendAndBorrow, borrowLimitPercent: 50,
     preemptTeamTasks: LowerPriority, quotas: [{instanceType: ml.p5.48xlarge, count: 8}]}
`)
	c, err := LoadCluster(p)
	if err != nil {
		t.Fatal(err)
	}
	nodes := c.ExpandNodes()
	if len(nodes) != 32 || nodes[31].Labels[model.LabelLayer3] != "p5-nn3-7" || nodes[31].Labels[model.LabelLayer1] != "p5-nn1-1" {
		t.Fatalf("expansion wrong: %d nodes, last %v", len(nodes), nodes[31].Labels)
	}
	q := model.QuotaVector(c.Teams[0].Quotas[0], model.NewCatalog(c.InstanceTypes)["ml.p5.48xlarge"])
	if q.GPUs != 64 || q.MilliCPU != 8*192000 || q.MemMiB != 8*2048*1024 {
		t.Fatalf("count quota derived %v", q)
	}
}

// TestBadConfigNamesFieldAndFix checks that each bad value is refused with
// its field path and a fix, and that all problems are reported at once.
func TestBadConfigNamesFieldAndFix(t *testing.T) {
	p := writeFile(t, `
instanceTypes: [{name: cpu.vast, gpus: 0, vcpu: 1e300, memoryGiB: 64}]
nodeGroups: [{name: p5, instanceType: ml.p9.huge, count: 2}, {name: typo, instanceType: ml.p5.48xlarge, count: 100000000}]
policy:
  taskPrioritization: Random
  starvationBoundSeconds: 99999999999
  priorityClasses: [{name: x, weight: 101}]
teams:
  - {name: a, fairShareWeight: 150, quotas: [{instanceType: ml.p5.48xlarge, count: -1}, {instanceType: ml.g5.xlarge, vcpu: 1e300}]}
  - {name: a, lending: Sometimes, borrowLimitPercent: 10001, quotas: [{instanceType: ml.p5.48xlarge, gpus: 8, count: 1}]}
`)
	_, err := LoadCluster(p)
	if err == nil || !errors.Is(err, model.ErrInvalid) {
		t.Fatalf("want ErrInvalid, got %v", err)
	}
	for _, want := range []string{
		`nodeGroups[0].instanceType: unknown instance type "ml.p9.huge"`,
		`nodeGroups[1].count: is 100000000; declare at most 100000 nodes in all`,
		`instanceTypes[0].vcpu: is 1e+300; give the vCPU count of one instance, above 0 and at most 1e+06`,
		`teams[0].quotas[1].vcpu: is 1e+300; give at most 1e+09`,
		`policy.taskPrioritization: unknown value "Random"; use FirstComeFirstServe or TaskRanking`,
		`policy.starvationBoundSeconds: is 99999999999; use 0 to 31536000 seconds (a year)`,
		`policy.priorityClasses[0].weight: 101 is out of range; use a whole number from 0 to 100`,
		`teams[0].fairShareWeight: 150 is out of range`,
		`teams[0].quotas[0].count: is negative; quotas cannot be negative`,
		`teams[1].lending: unknown value "Sometimes"`,
		`teams[1].borrowLimitPercent: 10001 is out of range; use a percentage of the team's quota from 0 to 10000`,
		`teams[1].quotas[0]: sets both; give either count or gpus/vcpu/memoryGiB, not both`,
		`teams[1].name: "a" is used twice; give each team a distinct name`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestUnknownFieldRefused makes sure a typo is not silently a default.
func TestUnknownFieldRefused(t *testing.T) {
	p := writeFile(t, "teams:\n  - {name: a, fairshareWeight: 5}\n")
	_, err := LoadCluster(p)
	if err == nil || !strings.Contains(err.Error(), "fairshareWeight") || !errors.Is(err, model.ErrInvalid) {
		t.Fatalf("want an error naming the unknown field, got %v", err)
	}
}

// TestUnknownFieldNamesSectionNotGoType: an unknown key is named with its
// place in the document and the keys allowed there; the decoder's own text
// named a Go type ("not found in type model.Policy").
func TestUnknownFieldNamesSectionNotGoType(t *testing.T) {
	p := writeFile(t, "policy:\n  priorityClasses: [{name: a, weight: 5, colour: red}]\n  bogusField: 3\nteams:\n  - {name: a, quotas: [{instanceType: x, cnt: 1}]}\n")
	_, err := LoadCluster(p)
	if err == nil || !errors.Is(err, model.ErrInvalid) {
		t.Fatalf("want an invalid-input error, got %v", err)
	}
	for _, want := range []string{
		`3 problems:`,
		`line 2: unknown field "colour" in policy.priorityClasses[0]; allowed there: gracePeriodSeconds, name, weight`,
		`line 3: unknown field "bogusField" in policy; allowed there: borrowUnallocated,`,
		`line 5: unknown field "cnt" in teams[0].quotas[0]; allowed there:`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "model.") || strings.Contains(err.Error(), "not found in type") {
		t.Errorf("error leaks a Go type name:\n%v", err)
	}
	_, err = LoadCluster(writeFile(t, "bogus: 1\n"))
	if err == nil || !strings.Contains(err.Error(), `yaml: line 1: unknown field "bogus" at the top level; allowed there: images, instanceTypes, name, nodeGroups, nodes, policy, teams, topologyLevels;`) {
		t.Errorf("top-level unknown field: %v", err)
	}
}

// TestNodeBoundNamesTheCrossingGroup: a cluster file over the node bound
// gets one error, on the group that exceeds it or brings the total past
// it; a small group after a huge one is not blamed (it was: "is 2;
// declare at most 100000 nodes in all").
func TestNodeBoundNamesTheCrossingGroup(t *testing.T) {
	for _, c := range []struct{ groups, want, not string }{
		{`[{name: a, instanceType: ml.p5.48xlarge, count: 999999999}, {name: b, instanceType: ml.g5.12xlarge, count: 2}]`,
			`nodeGroups[0].count: is 999999999; declare at most 100000`, `nodeGroups[1]`},
		{`[{name: a, instanceType: ml.p5.48xlarge, count: 60000}, {name: b, instanceType: ml.g5.12xlarge, count: 60000}, {name: c, instanceType: ml.g5.12xlarge, count: 1}]`,
			`nodeGroups[1].count: is 60000, which brings the nodes declared to 120000; declare at most 100000`, `nodeGroups[2]`},
	} {
		_, err := LoadCluster(writeFile(t, "nodeGroups: "+c.groups+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) ||
			strings.Count(err.Error(), "declare at most") != 1 {
			t.Errorf("%s:\n%v\nwant one error: %q", c.groups, err, c.want)
		}
	}
}
