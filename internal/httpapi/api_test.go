package httpapi

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestTaskLifecycle: a two-pod task runs as real processes with the
// documented environment, completes, and its events and logs are served.
func TestTaskLifecycle(t *testing.T) {
	e := newEnv(t, testCluster)
	s := spec("hello", "alpha", "sh", "-c", `echo "task=$TASKGOV_TASK team=$TASKGOV_TEAM rank=$TASKGOV_NODE_RANK/$TASKGOV_NUM_NODES world=$WORLD_SIZE rank=$RANK master=$MASTER_ADDR:$MASTER_PORT gpus=$CUDA_VISIBLE_DEVICES resume=$TASKGOV_RESUME_COUNT ckpt=$TASKGOV_CHECKPOINT_DIR"`)
	s.Nodes = 2
	e.mustDo("POST", "/api/v1/tasks", e.admin, s, 201, nil)
	v := e.waitState("hello", model.StateSucceeded, 10*time.Second)
	if len(v.Placement) != 2 {
		t.Fatalf("placement %v", v.Placement)
	}
	_, logs := e.do("GET", "/api/v1/tasks/hello/logs?rank=1", e.admin, nil)
	for _, want := range []string{"task=hello team=alpha rank=1/2 world=2 rank=1 master=127.0.0.1:", "gpus=0,1,2,3,4,5,6,7", "resume=0", "ckpt=/"} {
		if !strings.Contains(string(logs), want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
	var evs struct{ Events []model.Event }
	e.mustDo("GET", "/api/v1/tasks/hello/events", e.admin, nil, 200, &evs)
	var kinds []string
	for _, ev := range evs.Events {
		kinds = append(kinds, ev.Kind)
	}
	if got := strings.Join(kinds, ","); got != "Submitted,Admitted,Started,Succeeded" {
		t.Fatalf("events %s", got)
	}
}

// TestFailureAutoResume: a failing task is retried up to maxRetry, then fails.
func TestFailureAutoResume(t *testing.T) {
	e := newEnv(t, testCluster)
	s := spec("flaky", "alpha", "sh", "-c", "echo attempt $TASKGOV_RESUME_COUNT; exit 3")
	s.AutoResume, s.MaxRetry = true, 1
	e.mustDo("POST", "/api/v1/tasks", e.admin, s, 201, nil)
	v := e.waitState("flaky", model.StateFailed, 10*time.Second)
	if v.Retries != 1 || !strings.Contains(v.Message, "exited with code 3") {
		t.Fatalf("retries %d, message %q", v.Retries, v.Message)
	}
	_, logs := e.do("GET", "/api/v1/tasks/flaky/logs", e.admin, nil)
	if !strings.Contains(string(logs), "attempt 0") || !strings.Contains(string(logs), "attempt 1") {
		t.Fatalf("want two attempts in the logs:\n%s", logs)
	}
}

// TestPreemptionResumesFromCheckpoint runs the shipped example training
// script: preempted by a higher-priority task, it saves a checkpoint within
// its grace period, and the resumed run continues from that step.
func TestPreemptionResumesFromCheckpoint(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed; the example script needs it")
	}
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "examples", "train.py")
	e := newEnv(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
policy:
  taskPrioritization: TaskRanking
  preemption: Immediate
  priorityClasses: [{name: inference, weight: 90}, {name: training, weight: 70}]
teams: [{name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}]
`)
	train := spec("train", "alpha", py, script, "--steps", "30", "--step-seconds", "0.1", "--checkpoint-every", "5")
	e.mustDo("POST", "/api/v1/tasks", e.admin, train, 201, nil)
	e.waitState("train", model.StateRunning, 5*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var v struct{ CheckpointAt time.Time }
		e.mustDo("GET", "/api/v1/tasks/train", e.admin, nil, 200, &v)
		_, logs := e.do("GET", "/api/v1/tasks/train/logs", e.admin, nil)
		if !v.CheckpointAt.IsZero() && strings.Contains(string(logs), "checkpoint saved at step 10") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint reported:\n%s", logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	serve := spec("serve", "alpha", "sh", "-c", "sleep 0.5")
	serve.Priority = "inference"
	e.mustDo("POST", "/api/v1/tasks", e.admin, serve, 201, nil)
	e.waitState("serve", model.StateSucceeded, 15*time.Second)
	v := e.waitState("train", model.StateSucceeded, 20*time.Second)
	if v.Resumes != 1 {
		t.Fatalf("resumes %d, want 1", v.Resumes)
	}
	_, logs := e.do("GET", "/api/v1/tasks/train/logs", e.admin, nil)
	text := string(logs)
	i := strings.Index(text, "preempted: checkpoint saved at step ")
	if i < 0 {
		t.Fatalf("the script did not checkpoint on SIGTERM:\n%s", text)
	}
	var saved int
	_, _ = fmt.Sscanf(text[i:], "preempted: checkpoint saved at step %d", &saved)
	if saved < 10 || !strings.Contains(text, "resuming from checkpoint at step "+strconv.Itoa(saved)) || !strings.Contains(text, "training finished at step 30") {
		t.Fatalf("the resumed run did not continue from step %d:\n%s", saved, text)
	}
}

// TestAuditTrailIsSearchable: calls and scheduling decisions are in the
// audit log, searchable by task, team and actor.
func TestAuditTrailIsSearchable(t *testing.T) {
	e := newEnv(t, testCluster)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("audited", "alpha", "true"), 201, nil)
	e.waitState("audited", model.StateSucceeded, 10*time.Second)
	var out struct{ Entries []model.AuditEntry }
	e.mustDo("GET", "/api/v1/audit?task=audited", e.admin, nil, 200, &out)
	var actions []string
	for _, a := range out.Entries {
		actions = append(actions, a.Actor+":"+a.Action)
	}
	if len(out.Entries) != 2 || out.Entries[0].Action != "task.submit" || out.Entries[1].Actor != "scheduler" || out.Entries[1].Action != "admit" ||
		out.Entries[1].Team != "alpha" {
		t.Fatalf("entries for the task: %v", actions)
	}
	e.mustDo("GET", "/api/v1/audit?actor=scheduler&team=beta", e.admin, nil, 200, &out)
	if len(out.Entries) != 0 {
		t.Fatalf("team filter: %+v", out.Entries)
	}
	if code, body := e.do("GET", "/api/v1/audit?from=yesterday", e.admin, nil); code != 400 || !strings.Contains(string(body), "from") {
		t.Fatalf("bad from: %d %s", code, body)
	}
}

// TestPreviewChangesNothing: a preview of switching to TaskRanking shows the
// within-team preemption it would cause, and the server state is unchanged.
func TestPreviewChangesNothing(t *testing.T) {
	e := newEnv(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
policy:
  taskPrioritization: FirstComeFirstServe
  priorityClasses: [{name: inference, weight: 90}, {name: training, weight: 70}]
teams: [{name: alpha, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}]
`)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("train", "alpha", "sleep", "30"), 201, nil)
	e.waitState("train", model.StateRunning, 5*time.Second)
	serve := spec("serve", "alpha", "sleep", "30")
	serve.Priority = "inference"
	e.mustDo("POST", "/api/v1/tasks", e.admin, serve, 201, nil)
	e.waitState("serve", model.StatePending, 5*time.Second)
	var prev struct {
		Preemptions []struct{ Task, Reason, For string }
	}
	body := map[string]any{"policy": map[string]any{"taskPrioritization": "TaskRanking", "preemption": "Immediate",
		"priorityClasses": []any{map[string]any{"name": "inference", "weight": 90}, map[string]any{"name": "training", "weight": 70}}}}
	e.mustDo("POST", "/api/v1/preview", e.admin, body, 200, &prev)
	if len(prev.Preemptions) != 1 || prev.Preemptions[0].Task != "train" || prev.Preemptions[0].Reason != "WithinTeamPriority" || prev.Preemptions[0].For != "serve" {
		t.Fatalf("preview %+v", prev.Preemptions)
	}
	time.Sleep(200 * time.Millisecond)
	e.waitState("train", model.StateRunning, time.Second)
	var pol struct{ TaskPrioritization string }
	e.mustDo("GET", "/api/v1/policy", e.admin, nil, 200, &pol)
	if pol.TaskPrioritization != "FirstComeFirstServe" {
		t.Fatalf("the preview changed the policy: %s", pol.TaskPrioritization)
	}
	member := e.token(model.RoleMember, "alpha")
	if code, _ := e.do("POST", "/api/v1/preview", member, body); code != 403 {
		t.Fatalf("a member previewed: %d", code)
	}
}
