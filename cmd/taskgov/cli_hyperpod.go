package main

import (
	"os"
	"path/filepath"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// hyperpodMode is set when the binary runs through a link named "hyperpod":
// it then prints HyperPod's JSON shapes by default.
var hyperpodMode = filepath.Base(os.Args[0]) == "hyperpod"

func defaultOutput() string {
	if hyperpodMode {
		return "json"
	}
	return "table"
}

// hyperpodJob is one entry of HyperPod's list-jobs JSON.
type hyperpodJob struct {
	Name         string `json:"Name"`
	Namespace    string `json:"Namespace"`
	CreationTime string `json:"CreationTime"`
	State        string `json:"State"`
	Priority     string `json:"Priority"`
}

// hyperpodState maps taskgov states to HyperPod's job states.
var hyperpodState = map[string]string{
	"Pending": "Pending", "Running": "Running", "Suspended": "Suspended",
	"Succeeded": "Succeeded", "Failed": "Failed", "Cancelled": "Failed",
}

func hyperpodJobs(ts []apitypes.Task) map[string][]hyperpodJob {
	out := []hyperpodJob{}
	for _, t := range ts {
		out = append(out, hyperpodJob{Name: t.Name, Namespace: model.NamespacePrefix + t.Team,
			CreationTime: t.SubmittedAt.UTC().Format(time.RFC3339), State: hyperpodState[t.State], Priority: t.Spec.Priority})
	}
	return map[string][]hyperpodJob{"jobs": out}
}
