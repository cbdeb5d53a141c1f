package model

import (
	"fmt"
	"math"
	"strings"
)

// ValidateTask checks a submitted task against the catalog, the teams, the
// policy's priority classes and how many nodes of its type exist
// (nodesOfType; a type with no nodes yet is accepted and waits).
func ValidateTask(s TaskSpec, cat Catalog, teamExists func(string) bool, p Policy, nodesOfType func(string) int, levels []string) error {
	var errs Errors
	for field, label := range map[string]string{"requiredTopology": s.RequiredTopology, "preferredTopology": s.PreferredTopology} {
		if label != "" && !contains(levels, label) {
			errs = append(errs, fieldErr(field, "use one of the cluster's topology labels: "+strings.Join(levels, ", "), "unknown topology label %q", label))
		}
	}
	// Both may be given, as HyperPod's CLI allows: the required level bounds
	// the placement, and within it the tightest level that fits is tried
	// first, which is what the preferred level asks for.
	if !ValidName(s.Name) {
		errs = append(errs, fieldErr("name", "use 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit (a Kubernetes DNS label)", "%q is not a valid task name", s.Name))
	}
	if !teamExists(s.Team) {
		errs = append(errs, fieldErr("team", "submit to an existing team (see the cluster file's teams)", "unknown team %q", s.Team))
	}
	switch s.Type {
	case "", Training, FineTuning, Evaluation, Inference:
	default:
		errs = append(errs, fieldErr("type", "use training, fine-tuning, evaluation or inference", "unknown task type %q", s.Type))
	}
	if s.Priority != "" {
		if _, ok := p.ClassWeight(s.Priority); !ok {
			names := make([]string, len(p.PriorityClasses))
			for i, c := range p.PriorityClasses {
				names[i] = c.Name
			}
			errs = append(errs, fieldErr("priority", "use one of the policy's priority classes: "+strings.Join(names, ", "), "unknown priority class %q", s.Priority))
		}
	}
	errs = append(errs, validateSelector(s.NodeSelector)...)
	if s.GracePeriodSeconds < 0 || s.GracePeriodSeconds > 3600 {
		errs = append(errs, fieldErr("gracePeriodSeconds", "use 0 (the default, 30 s) to 3600 seconds", "is %d", s.GracePeriodSeconds))
	}
	if s.Nodes < 0 || s.Nodes > 10000 {
		errs = append(errs, fieldErr("nodes", "ask for 1 to 10000 nodes", "is %d", s.Nodes))
	}
	if s.MaxRetry < 0 || s.MaxRetry > MaxRetry {
		errs = append(errs, fieldErr("maxRetry", fmt.Sprintf("use 0 to %d retries", MaxRetry), "is %d", s.MaxRetry))
	}
	it, ok := cat[s.InstanceType]
	if !ok {
		errs = append(errs, checkInstanceType("instanceType", s.InstanceType, cat)...)
		return errs.orNil()
	}
	r := s.PerNode
	if r.GPUs < 0 || r.VCPU < 0 || r.MemoryGiB < 0 || math.IsNaN(r.VCPU) || math.IsNaN(r.MemoryGiB) {
		errs = append(errs, fieldErr("perNode", "requests cannot be negative", "has a negative amount"))
		return errs.orNil()
	}
	if fe := checkFloors(r); fe != nil {
		return append(errs, fe)
	}
	// Compared before converting to whole units, which could overflow.
	for _, over := range []struct {
		kind string
		bad  bool
	}{{"GPUs", r.GPUs > it.GPUs}, {"vCPU", r.VCPU > it.VCPU}, {"memory", r.MemoryGiB > it.MemoryGiB}} {
		if over.bad {
			errs = append(errs, fieldErr("perNode", fmt.Sprintf("ask for at most one %s per pod: %s", it.Name, it.Capacity()),
				"needs more %s than one node has", over.kind))
			return errs.orNil()
		}
	}
	pod := PodVector(r, it)
	if k, over := pod.Exceeded(it.Capacity()); over {
		errs = append(errs, fieldErr("perNode", fmt.Sprintf("ask for at most one %s per pod: %s", it.Name, it.Capacity()),
			"needs more %s than one node has", k))
	}
	if n := nodesOfType(s.InstanceType); n > 0 && s.Nodes > n {
		errs = append(errs, fieldErr("nodes", fmt.Sprintf("ask for at most %d nodes, or add %s nodes to the cluster", n, it.Name),
			"the gang needs %d %s nodes but the cluster has %d", s.Nodes, it.Name, n))
	}
	return errs.orNil()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ValidName reports whether s is a Kubernetes DNS-1123 label: 1-63 characters
// of lowercase letters, digits and '-', starting and ending alphanumeric.
// Task names become pod and service names, so they must be one.
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
		if !alnum && (c != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// MaxSelectorLabels bounds a task's nodeSelector.
const MaxSelectorLabels = 16

// validateSelector checks a nodeSelector's size and that each key and value
// could be a Kubernetes label's (keys up to 317 characters with a prefix,
// values up to 63).
func validateSelector(sel map[string]string) Errors {
	var errs Errors
	if len(sel) > MaxSelectorLabels {
		errs = append(errs, fieldErr("nodeSelector", fmt.Sprintf("select on at most %d labels", MaxSelectorLabels), "has %d labels", len(sel)))
		return errs
	}
	for _, k := range sortedKeys(sel) {
		v := sel[k]
		if k == "" || len(k) > 317 || strings.ContainsAny(k, " =,\t\n") {
			errs = append(errs, fieldErr("nodeSelector", "use Kubernetes label keys ([prefix/]name)", "key %q is not a label key", k))
		}
		if len(v) > 63 || strings.ContainsAny(v, " =,/\t\n") {
			errs = append(errs, fieldErr("nodeSelector", "use Kubernetes label values (up to 63 letters, digits, '-', '_' and '.')", "value %q of %s is not a label value", v, k))
		}
	}
	return errs
}

// SelectorString renders a nodeSelector as key=value pairs in key order
// ("" when empty): how wait reasons and placement memos name it.
func SelectorString(sel map[string]string) string {
	var b strings.Builder
	for i, k := range sortedKeys(sel) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + sel[k])
	}
	return b.String()
}
