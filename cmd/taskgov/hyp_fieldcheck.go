package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The value constraints of the PyTorch job template's fields (schema 1.0
// and 1.1), worded as hyp's validation words them ("field: message"):
// `hyp configure` refuses a value that breaks them and writes nothing,
// `hyp validate` and `hyp create` list every field that breaks them.

// hypNamePattern is the template's pattern for job_name and queue_name.
var hypNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// hypFieldProblem is what is wrong with field key's value v (of the type
// its kind reads), or "".
func hypFieldProblem(key string, v any) string {
	switch key {
	case "job_name", "queue_name":
		s := fmt.Sprint(v)
		switch {
		case s == "":
			return "String should have at least 1 character"
		case len(s) > 63:
			return "String should have at most 63 characters"
		case !hypNamePattern.MatchString(s):
			return "String should match pattern '" + hypNamePattern.String() + "'"
		}
	case "image", "namespace", "pull_policy", "instance_type", "scheduler_type", "priority", "service_account_name":
		if fmt.Sprint(v) == "" {
			return "String should have at least 1 character"
		}
	case "node_count", "replica_count", "accelerator_partition_count", "accelerator_partition_limit",
		"elastic_replica_increment_step", "max_node_count", "max_replica_count":
		if n, ok := v.(int); ok && n < 1 {
			return "Input should be greater than or equal to 1"
		}
	case "efa", "efa_limit", "max_retry", "accelerators", "accelerators_limit":
		if n, ok := v.(int); ok && n < 0 {
			return "Input should be greater than or equal to 0"
		}
	case "vcpu", "memory", "vcpu_limit", "memory_limit":
		// The template's minimum is 0; NaN and infinities it passes on to
		// a manifest Kubernetes refuses, and taskgov could not send them.
		x, ok := hypNumber(v)
		switch {
		case ok && (math.IsNaN(x) || math.IsInf(x, 0)):
			return "Input should be a finite number"
		case ok && x < 0:
			return "Input should be greater than or equal to 0"
		}
	case "tasks_per_node":
		s := strings.ToLower(fmt.Sprint(v))
		if n, err := strconv.Atoi(s); (err != nil || n < 0) && s != "auto" && s != "gpu" && s != "cpu" {
			return "Value error, tasks_per_node must be 'auto', 'cpu', 'gpu', or a non-negative integer"
		}
	}
	return ""
}

// hypNumber reads a number field's value: a YAML number, or an option's
// text (`hyp create`'s flag values).
func hypNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case string:
		x, err := strconv.ParseFloat(n, 64)
		return x, err == nil
	}
	return 0, false
}
