package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// The binary speaks HyperPod's CLIs through links: named "hyperpod" it
// takes the v2 `hyperpod` verbs and prints their JSON shapes by default;
// named "hyp" it is the `hyp` CLI (hyp_*.go).
var (
	hyperpodMode = filepath.Base(os.Args[0]) == "hyperpod"
	hypMode      = filepath.Base(os.Args[0]) == "hyp"
)

func defaultOutput() string {
	if hyperpodMode {
		return "json"
	}
	return "table"
}

// boolValueFlags are HyperPod's click BOOL options, which take a value
// (`--auto-resume true`); bare, they mean true, as in HyperPod's README.
var boolValueFlags = map[string]bool{"--auto-resume": true, "--deep-health-check-passed-nodes-only": true}

// normalizeArgs joins a BOOL option and its value (`--auto-resume true`
// becomes `--auto-resume=true`), taking the literals click takes; any
// other word after it is joined too, and refused as not a boolean.
func normalizeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if boolValueFlags[a] && i+1 < len(args) {
			if v, ok := clickBool(args[i+1]); ok {
				out = append(out, a+"="+v)
				i++
				continue
			}
			// Another word is a bad value, as click reads it (the commands
			// with these options take no arguments): the parser refuses it
			// as not a boolean, where it was taken for a command.
			if !strings.HasPrefix(args[i+1], "-") {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

func clickBool(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "true", "1", "yes", "y", "t", "on":
		return "true", true
	case "false", "0", "no", "n", "f", "off":
		return "false", true
	}
	return "", false
}

// HyperPod's PyTorchJob condition types, as its CLIs show a job's state.
// Three share a taskgov state's name; they are HyperPod's words all the
// same, mapped from taskgov's states by hyperpodState.
const (
	hpSuspended = "Suspended"
	hpRunning   = "Running"
	hpSucceeded = "Succeeded"
	hpFailed    = "Failed"
)

// hyperpodState is the state HyperPod shows for a task: its PyTorchJob's
// latest condition. Kueue keeps a job that is not admitted (queued or
// preempted) suspended, so taskgov's Pending shows as Suspended.
func hyperpodState(t apitypes.Task) string {
	switch t.State {
	case model.StatePending, model.StateInterrupted, model.StateSuspended:
		return hpSuspended
	case model.StateRunning:
		return hpRunning
	case model.StateSucceeded:
		return hpSucceeded
	case model.StateCancelled, model.StateFailed:
		return hpFailed
	}
	return string(t.State)
}

// hyperpodListed reports whether HyperPod would still list the job: its
// cancel-job deletes the job, so cancelled tasks are gone.
func hyperpodListed(t apitypes.Task) bool { return t.State != model.StateCancelled }

// hyperpodJob is one entry of HyperPod's list-jobs JSON: CreationTime is
// the job's start time (null before it starts), priority only when set.
type hyperpodJob struct {
	Name         string  `json:"Name"`
	Namespace    string  `json:"Namespace"`
	CreationTime *string `json:"CreationTime"`
	State        string  `json:"State"`
	Priority     string  `json:"priority,omitempty"`
}

func k8sTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05Z")
	return &s
}

func hyperpodJobs(r *resolver, ts []apitypes.Task) map[string][]hyperpodJob {
	out := []hyperpodJob{}
	for _, t := range ts {
		if !hyperpodListed(t) {
			continue
		}
		out = append(out, hyperpodJob{Name: t.Name, Namespace: r.namespaceOf(t.Team), CreationTime: k8sTime(t.StartedAt),
			State: hyperpodState(t), Priority: workloadPriorityClass(t.Spec.Priority)})
	}
	return map[string][]hyperpodJob{"jobs": out}
}

// writeIndented writes v as JSON indented by n spaces, as Python's
// json.dumps(indent=n) does.
func writeIndented(w io.Writer, v any, n int) error {
	b, err := json.MarshalIndent(v, "", strings.Repeat(" ", n))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// presto writes a table as Python's tabulate(tablefmt="presto") does.
func presto(w io.Writer, headers []string, rows [][]string) {
	width := make([]int, len(headers))
	for i, h := range headers {
		width[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	line := func(cells []string) {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = " " + c + strings.Repeat(" ", width[i]-len(c)) + " "
		}
		fmt.Fprintln(w, strings.TrimRight(strings.Join(parts, "|"), " "))
	}
	line(headers)
	seps := make([]string, len(headers))
	for i := range headers {
		seps[i] = strings.Repeat("-", width[i]+2)
	}
	fmt.Fprintln(w, strings.Join(seps, "+"))
	for _, r := range rows {
		line(r)
	}
}

// consoleURL is where the job's page is on taskgov's dashboard; it stands
// in for HyperPod's console link.
func consoleURL(cl *client.Client, task string) string {
	if task == "" {
		return cl.Server + "/ui/"
	}
	return cl.Server + "/ui/#task/" + task
}

// hyperpodPodName is the pod name HyperPod's v2 CLI shows (its
// PyTorchJob's worker replicas); hyp's jobs name theirs <job>-pod-<rank>.
func hyperpodPodName(task string, rank int) string { return fmt.Sprintf("%s-worker-%d", task, rank) }
func hypPodName(task string, rank int) string      { return fmt.Sprintf("%s-pod-%d", task, rank) }

// pythonTime is str() of a Python datetime with a zone, as HyperPod's
// list-pods prints pod creation times.
func pythonTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05+00:00") }
