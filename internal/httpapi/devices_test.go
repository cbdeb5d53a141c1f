package httpapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

type devicesView struct {
	Available bool
	Reason    string
	GPUs      []struct{ Index, UtilPercent int }
	Tasks     []struct {
		Task, Team      string
		GPUs            []int
		MeanUtilPercent int
	}
}

const twoTeamsOneNodeEach = `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 2}]
policy: {priorityClasses: [{name: training, weight: 70}]}
teams:
- {name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}
- {name: beta, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}
`

func TestDevicesUnavailableWithoutNvidiaSmi(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir) // nothing on PATH, so no nvidia-smi
	e := newEnv(t, twoTeamsOneNodeEach)
	var v devicesView
	e.mustDo("GET", "/api/v1/devices", e.admin, nil, 200, &v)
	if v.Available || !strings.Contains(v.Reason, "nvidia-smi") || len(v.GPUs) != 0 {
		t.Fatalf("devices = %+v, want unavailable with a reason naming nvidia-smi", v)
	}
}

// A stand-in nvidia-smi on PATH (this host has no GPUs) reports eight
// devices; each running task is credited the mean over its pods' indices,
// and a member sees only their own team's tasks.
func TestDevicesAttributeRunningTasks(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	for i := range 8 {
		csv.WriteString("echo \"" + string(rune('0'+i)) + ", NVIDIA H100 80GB HBM3, " + []string{"10", "20", "30", "40", "50", "60", "70", "80"}[i] + ", 1000, 81559\"\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte("#!/bin/sh\n"+csv.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	e := newEnv(t, twoTeamsOneNodeEach)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("a", "alpha", "sleep", "30"), 201, nil)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("b", "beta", "sleep", "30"), 201, nil)
	e.waitState("a", model.StateRunning, 5*time.Second)
	e.waitState("b", model.StateRunning, 5*time.Second)
	var v devicesView
	e.mustDo("GET", "/api/v1/devices", e.admin, nil, 200, &v)
	if !v.Available || len(v.GPUs) != 8 || len(v.Tasks) != 2 {
		t.Fatalf("devices = %+v", v)
	}
	for _, tu := range v.Tasks {
		if len(tu.GPUs) != 8 || tu.MeanUtilPercent != 45 { // all 8 GPUs of a p5: mean of 10..80
			t.Fatalf("task use = %+v, want 8 GPUs at a mean of 45%%", tu)
		}
	}
	var mine devicesView
	e.mustDo("GET", "/api/v1/devices", e.token(model.RoleMember, "beta"), nil, 200, &mine)
	if len(mine.Tasks) != 1 || mine.Tasks[0].Task != "b" {
		t.Fatalf("beta's member saw %+v, want only task b", mine.Tasks)
	}
}
