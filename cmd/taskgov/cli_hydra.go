package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/model"
)

// HyperPod's v2 `start-job --config-file` takes a Hydra YAML: training_cfg
// (entry script, its arguments, run name, nodes, tasks per node), cluster
// (instance type and a cluster_config of Kubernetes settings), container
// and env_vars. hydraFile is that shape; unknown fields are refused.
type hydraFile struct {
	Defaults   []any             `yaml:"defaults"`
	Hydra      map[string]any    `yaml:"hydra"`
	Training   hydraTraining     `yaml:"training_cfg"`
	Cluster    hydraCluster      `yaml:"cluster"`
	ResultsDir string            `yaml:"base_results_dir"`
	Container  string            `yaml:"container"`
	EnvVars    map[string]string `yaml:"env_vars"`
}

type hydraTraining struct {
	EntryScript string   `yaml:"entry_script"`
	ScriptArgs  []any    `yaml:"script_args"`
	PreScript   []string `yaml:"pre_script"`
	PostScript  []string `yaml:"post_script"`
	Run         struct {
		Name          string `yaml:"name"`
		Nodes         int    `yaml:"nodes"`
		NTasksPerNode int    `yaml:"ntasks_per_node"`
	} `yaml:"run"`
}

type hydraCluster struct {
	ClusterType   string `yaml:"cluster_type"`
	InstanceType  string `yaml:"instance_type"`
	ClusterConfig struct {
		Annotations            map[string]any    `yaml:"annotations"`
		ServiceAccountName     string            `yaml:"service_account_name"`
		PersistentVolumeClaims []map[string]any  `yaml:"persistent_volume_claims"`
		Namespace              string            `yaml:"namespace"`
		CustomLabels           map[string]string `yaml:"custom_labels"`
		PriorityClassName      string            `yaml:"priority_class_name"`
		Volumes                []map[string]any  `yaml:"volumes"`
		LabelSelector          map[string]any    `yaml:"label_selector"`
		PullPolicy             string            `yaml:"pullPolicy"`
		RestartPolicy          string            `yaml:"restartPolicy"`
		SchedulerType          string            `yaml:"scheduler_type"`
	} `yaml:"cluster_config"`
}

// HyperPod's labels and annotations in a Hydra job.
const (
	labelQueueName     = "kueue.x-k8s.io/queue-name"
	labelPriorityClass = "kueue.x-k8s.io/priority-class"
	annotAutoResume    = "sagemaker.amazonaws.com/enable-job-auto-resume"
	annotMaxRetry      = "sagemaker.amazonaws.com/job-max-retry-count"
)

// isHydra reports whether a config file is HyperPod's Hydra job YAML.
func isHydra(b []byte) bool {
	var top map[string]any
	if yaml.Unmarshal(b, &top) != nil {
		return false
	}
	_, t := top["training_cfg"]
	_, c := top["cluster"]
	return t || c
}

// hydraSpec is a Hydra job turned into a task, with what names its team
// and what it runs.
type hydraSpec struct {
	spec             model.TaskSpec
	namespace, queue string
	cmd              jobCommand
}

// hydraJob maps a Hydra job file onto a task. Settings taskgov does not use
// are noted on w; labels it cannot honour are refused.
func hydraJob(b []byte, w io.Writer) (hydraSpec, error) {
	var h hydraFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&h); err != nil {
		return hydraSpec{}, &model.FieldError{Field: "--config-file", Problem: "not a HyperPod job file: " + config.Describe(b, &h, err),
			Fix: "use the fields of HyperPod's start-job config (training_cfg, cluster, container, env_vars)"}
	}
	cc := h.Cluster.ClusterConfig
	if h.Cluster.ClusterType != "" && h.Cluster.ClusterType != "k8s" {
		return hydraSpec{}, &model.FieldError{Field: "cluster.cluster_type", Problem: fmt.Sprintf("%q is not supported", h.Cluster.ClusterType), Fix: "use k8s"}
	}
	out := hydraSpec{namespace: cc.Namespace, queue: cc.CustomLabels[labelQueueName]}
	s := &out.spec
	s.Name, s.Nodes, s.InstanceType, s.Image = h.Training.Run.Name, h.Training.Run.Nodes, h.Cluster.InstanceType, h.Container
	s.Priority = cc.PriorityClassName
	s.ImagePullPolicy = h.Cluster.ClusterConfig.PullPolicy
	if p := cc.CustomLabels[labelPriorityClass]; p != "" {
		s.Priority = p
	}
	if len(h.EnvVars) > 0 {
		s.Env = map[string]string{}
		for k, v := range h.EnvVars {
			s.Env[k] = v
		}
	}
	if n := h.Training.Run.NTasksPerNode; n > 0 {
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env["NPROC_PER_NODE"] = strconv.Itoa(n)
	}
	if on, _ := strconv.ParseBool(fmt.Sprint(cc.Annotations[annotAutoResume])); on {
		s.AutoResume = true
		s.MaxRetry, _ = strconv.Atoi(fmt.Sprint(cc.Annotations[annotMaxRetry]))
	}
	if len(cc.LabelSelector) > 0 {
		it, err := selectorTerms(cc.LabelSelector)
		if err != nil {
			return hydraSpec{}, err
		}
		if s.InstanceType == "" {
			s.InstanceType = it
		}
	}
	out.cmd = jobCommand{entry: h.Training.EntryScript, args: hydraArgs(h.Training.ScriptArgs),
		pre: h.Training.PreScript, post: h.Training.PostScript}
	if len(cc.Volumes) > 0 || len(cc.PersistentVolumeClaims) > 0 {
		notUsed(w, "cluster_config volumes and persistent_volume_claims", "taskgov's executors mount no volumes")
	}
	if cc.ServiceAccountName != "" {
		notUsed(w, "cluster_config.service_account_name", "taskgov's pods run with the namespace's default service account")
	}
	return out, nil
}

// hydraArgs renders script_args: strings as they are, and one-key maps
// ({--steps: 5}) as "--steps 5", in order.
func hydraArgs(items []any) string {
	var parts []string
	for _, it := range items {
		switch x := it.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				parts = append(parts, shellQuote(k), shellQuote(fmt.Sprint(x[k])))
			}
		default:
			parts = append(parts, shellQuote(fmt.Sprint(x)))
		}
	}
	return strings.Join(parts, " ")
}
