package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/model"
)

// HyperPod task governance is configured through the SageMaker API:
// CreateClusterSchedulerConfig (priority classes, fair share) and
// CreateComputeQuota (a team's quota, lending, borrow limit, preemption).
// These are the JSON shapes `aws sagemaker describe-...` prints and
// `create-... --cli-input-json` takes; taskgov maps them onto its policy
// and teams, and reports every field it cannot honour.

type smResource struct {
	InstanceType         string          `json:"InstanceType"`
	Count                *int64          `json:"Count,omitempty"`
	Accelerators         *int64          `json:"Accelerators,omitempty"`
	VCpu                 *float64        `json:"VCpu,omitempty"`
	MemoryInGiB          *float64        `json:"MemoryInGiB,omitempty"`
	AcceleratorPartition json.RawMessage `json:"AcceleratorPartition,omitempty"`
}

type smSharing struct {
	Strategy             string       `json:"Strategy"`
	BorrowLimit          *int         `json:"BorrowLimit,omitempty"`
	AbsoluteBorrowLimits []smResource `json:"AbsoluteBorrowLimits,omitempty"`
}

type smQuotaConfig struct {
	ComputeQuotaResources []smResource `json:"ComputeQuotaResources"`
	ResourceSharingConfig *smSharing   `json:"ResourceSharingConfig,omitempty"`
	PreemptTeamTasks      string       `json:"PreemptTeamTasks,omitempty"`
}

type smTarget struct {
	TeamName        string `json:"TeamName"`
	FairShareWeight *int   `json:"FairShareWeight,omitempty"`
}

// smComputeQuota is a CreateComputeQuota request (or the matching part of
// a DescribeComputeQuota answer).
type smComputeQuota struct {
	Name               string        `json:"Name"`
	Description        string        `json:"Description,omitempty"`
	ClusterArn         string        `json:"ClusterArn"`
	ComputeQuotaConfig smQuotaConfig `json:"ComputeQuotaConfig"`
	ComputeQuotaTarget smTarget      `json:"ComputeQuotaTarget"`
	ActivationState    string        `json:"ActivationState,omitempty"`
	Tags               []any         `json:"Tags,omitempty"`
}

type smPriorityClass struct {
	Name   string `json:"Name"`
	Weight int    `json:"Weight"`
}

type smSchedulerConfig struct {
	PriorityClasses     []smPriorityClass `json:"PriorityClasses,omitempty"`
	FairShare           string            `json:"FairShare,omitempty"`
	IdleResourceSharing string            `json:"IdleResourceSharing,omitempty"`
}

// smClusterSchedulerConfig is a CreateClusterSchedulerConfig request (or
// the matching part of a DescribeClusterSchedulerConfig answer).
type smClusterSchedulerConfig struct {
	Name            string            `json:"Name"`
	ClusterArn      string            `json:"ClusterArn"`
	SchedulerConfig smSchedulerConfig `json:"SchedulerConfig"`
	Description     string            `json:"Description,omitempty"`
	Tags            []any             `json:"Tags,omitempty"`
}

// smDocs is what one or more files held.
type smDocs struct {
	quotas    []smComputeQuota
	scheduler []smClusterSchedulerConfig
	notes     []string // fields taskgov does not honour, "where: what"
}

// describeOnly are the fields a describe answer adds that say where the
// object lives in AWS; they have no meaning in taskgov.
var describeOnly = map[string]bool{"ComputeQuotaArn": true, "ComputeQuotaId": true, "ComputeQuotaVersion": true,
	"ClusterSchedulerConfigArn": true, "ClusterSchedulerConfigId": true, "ClusterSchedulerConfigVersion": true,
	"Status": true, "FailureReason": true, "CreationTime": true, "CreatedBy": true, "LastModifiedTime": true, "LastModifiedBy": true,
	"ClusterArn": true, "Name": true, "Description": true, "Tags": true}

// inRequest are the describeOnly fields a create request also has.
var inRequest = map[string]bool{"ClusterArn": true, "Name": true, "Description": true, "Tags": true}

// kebab writes ComputeQuota as compute-quota.
func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// readSageMaker decodes a file's documents: one object, an array of them,
// several objects one after another, or a list answer
// ({"ComputeQuotaSummaries": [...]}).
func readSageMaker(name string, b []byte, into *smDocs) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	for i := 0; ; i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return nil
		} else if err != nil {
			problem := "not JSON: " + err.Error()
			if p, ok := config.DescribeJSON(b, err); ok {
				problem = p.Message
			}
			return &model.FieldError{Field: name, Problem: problem, Fix: "use the JSON `aws sagemaker describe-compute-quota` or `describe-cluster-scheduler-config` prints"}
		}
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) == nil {
			for j, d := range arr {
				if err := readDoc(fmt.Sprintf("%s[%d]", name, j), d, into); err != nil {
					return err
				}
			}
			continue
		}
		if err := readDoc(name, raw, into); err != nil {
			return err
		}
	}
}

func readDoc(where string, raw json.RawMessage, into *smDocs) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return &model.FieldError{Field: where, Problem: "not a JSON object", Fix: "give ComputeQuota or ClusterSchedulerConfig documents"}
	}
	if list, ok := top["ComputeQuotaSummaries"]; ok {
		var docs []json.RawMessage
		if err := json.Unmarshal(list, &docs); err != nil {
			return &model.FieldError{Field: where + ".ComputeQuotaSummaries", Problem: err.Error(), Fix: "give the list-compute-quotas answer as printed"}
		}
		for i, d := range docs {
			if err := readDoc(fmt.Sprintf("%s.ComputeQuotaSummaries[%d]", where, i), d, into); err != nil {
				return err
			}
		}
		return nil
	}
	strict := func(v any, kind string) error {
		trimmed := map[string]json.RawMessage{}
		for k, val := range top {
			if !describeOnly[k] || inRequest[k] {
				trimmed[k] = val
			}
		}
		b, _ := json.Marshal(trimmed)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			fix := "use the fields of the SageMaker API's " + kind + " (aws sagemaker describe-" + kebab(kind) + ")"
			if p, ok := config.DescribeJSON(b, err); ok && p.Path != "" {
				return &model.FieldError{Field: where + "." + p.Path, Problem: p.Message, Fix: fix}
			}
			return &model.FieldError{Field: where, Problem: fmt.Sprintf("not a %s document: %s", kind, strings.TrimPrefix(err.Error(), "json: ")), Fix: fix}
		}
		return nil
	}
	switch {
	case top["SchedulerConfig"] != nil:
		var d smClusterSchedulerConfig
		if err := strict(&d, "ClusterSchedulerConfig"); err != nil {
			return err
		}
		into.scheduler = append(into.scheduler, d)
	case top["ComputeQuotaConfig"] != nil || top["ComputeQuotaTarget"] != nil:
		var d smComputeQuota
		if err := strict(&d, "ComputeQuota"); err != nil {
			return err
		}
		into.quotas = append(into.quotas, d)
	default:
		keys := make([]string, 0, len(top))
		for k := range top {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return &model.FieldError{Field: where, Problem: "neither a ComputeQuota nor a ClusterSchedulerConfig (fields: " + strings.Join(keys, ", ") + ")",
			Fix: "a ComputeQuota has ComputeQuotaConfig and ComputeQuotaTarget; a ClusterSchedulerConfig has SchedulerConfig"}
	}
	var ignored []string
	for k := range top {
		if describeOnly[k] && k != "Name" {
			ignored = append(ignored, k)
		}
	}
	if len(ignored) > 0 {
		sort.Strings(ignored)
		into.notes = append(into.notes, fmt.Sprintf("%s: %s not used (AWS bookkeeping: taskgov has one cluster and keeps no tags)", where, strings.Join(ignored, ", ")))
	}
	return nil
}
