package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
)

// jobDetail is what get-job prints; events come with --verbose.
type jobDetail struct {
	apitypes.Task
	Events []client.Event `json:"events,omitempty"`
}

// jobCondition is one PyTorchJob status condition, as HyperPod prints it.
type jobCondition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	LastTransitionTime string `json:"lastTransitionTime"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
}

// jobConditions renders a task's history as PyTorchJob conditions: Created
// at submission (not while suspended), Running from its start, Suspended
// while it is not admitted (queued, preempted or suspended), Succeeded or
// Failed at its end. The last condition whose status is "True" is the
// job's state.
func jobConditions(t apitypes.Task) []jobCondition {
	ts := func(at time.Time) string { return at.UTC().Format("2006-01-02T15:04:05Z") }
	state := hyperpodState(t)
	var conds []jobCondition
	if state != hpSuspended {
		// A suspended PyTorchJob shows no Created condition: hyp list then
		// shows its AGE as N/A (hypListAge), and hyp describe prints the
		// conditions as they are.
		conds = append(conds, jobCondition{Type: "Created", Status: "True", LastTransitionTime: ts(t.SubmittedAt), Reason: "PyTorchJobCreated",
			Message: "PyTorchJob " + t.Name + " is created."})
	}
	if !t.StartedAt.IsZero() {
		conds = append(conds, jobCondition{Type: hpRunning, Status: map[bool]string{true: "True", false: "False"}[state == hpRunning],
			LastTransitionTime: ts(t.StartedAt), Reason: "PyTorchJobRunning"})
	}
	switch state {
	case hpSuspended:
		at := t.SubmittedAt
		if t.CheckpointAt.After(at) {
			at = t.CheckpointAt
		}
		msg := t.Why
		if msg == "" {
			msg = t.Message
		}
		conds = append(conds, jobCondition{Type: hpSuspended, Status: "True", LastTransitionTime: ts(at), Reason: hpSuspended, Message: msg})
	case hpSucceeded, hpFailed:
		conds = append(conds, jobCondition{Type: state, Status: "True", LastTransitionTime: ts(t.FinishedAt), Reason: "PyTorchJob" + state, Message: t.Message})
	}
	return conds
}

// jobLabels are the labels HyperPod's job carries: its queue and priority.
func jobLabels(r *resolver, t apitypes.Task) map[string]string {
	l := map[string]string{labelQueueName: r.namespaceOf(t.Team) + "-localqueue"}
	if t.Spec.Priority != "" {
		l[labelPriorityClass] = workloadPriorityClass(t.Spec.Priority)
	}
	return l
}

// workloadPriorityClass is the Kueue WorkloadPriorityClass HyperPod names
// after a priority class: "training" is "training-priority" (the name its
// jobs' label and list-jobs show, and that --priority and -l take back).
func workloadPriorityClass(class string) string {
	if class == "" || strings.HasSuffix(class, "-priority") {
		return class
	}
	return class + "-priority"
}

func jobStatus(t apitypes.Task) map[string]any {
	st := map[string]any{"conditions": jobConditions(t)}
	if s := k8sTime(t.StartedAt); s != nil {
		st["startTime"] = *s
	}
	if s := k8sTime(t.FinishedAt); s != nil && t.Terminal() {
		st["completionTime"] = *s
	}
	return st
}

// hyperpodDescribe is HyperPod's get-job JSON: Name, Namespace, Label,
// CreationTimestamp, Status and ConsoleURL; --verbose adds Annotations,
// Metadata, Kind, ApiVersion and Spec (taskgov's task spec).
func hyperpodDescribe(cl *client.Client, r *resolver, t apitypes.Task, verbose bool) any {
	created := *k8sTime(t.SubmittedAt)
	if !verbose {
		return struct {
			Name              string            `json:"Name"`
			Namespace         string            `json:"Namespace"`
			Label             map[string]string `json:"Label"`
			CreationTimestamp string            `json:"CreationTimestamp"`
			Status            map[string]any    `json:"Status"`
			ConsoleURL        string            `json:"ConsoleURL"`
		}{t.Name, r.namespaceOf(t.Team), jobLabels(r, t), created, jobStatus(t), consoleURL(cl, t.Name)}
	}
	annotations := map[string]string{}
	if t.Spec.RequiredTopology != "" {
		annotations["kueue.x-k8s.io/podset-required-topology"] = t.Spec.RequiredTopology
	}
	if t.Spec.PreferredTopology != "" {
		annotations["kueue.x-k8s.io/podset-preferred-topology"] = t.Spec.PreferredTopology
	}
	type metadata struct {
		CreationTimestamp string `json:"CreationTimestamp"`
		Generation        int    `json:"Generation"`
		ResourceVersion   string `json:"ResourceVersion"`
		UID               string `json:"UID"`
	}
	return struct {
		Name        string            `json:"Name"`
		Namespace   string            `json:"Namespace"`
		Label       map[string]string `json:"Label"`
		Annotations map[string]string `json:"Annotations"`
		Metadata    metadata          `json:"Metadata"`
		Kind        string            `json:"Kind"`
		ApiVersion  string            `json:"ApiVersion"`
		Spec        any               `json:"Spec"`
		Status      map[string]any    `json:"Status"`
		ConsoleURL  string            `json:"ConsoleURL"`
	}{t.Name, r.namespaceOf(t.Team), jobLabels(r, t), annotations,
		metadata{created, t.Resumes + 1, "", "taskgov-" + itoa64(t.Seq)},
		"PyTorchJob", "kubeflow.org/v1", t.Spec, jobStatus(t), consoleURL(cl, t.Name)}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
