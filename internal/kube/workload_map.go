package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/taskgov/taskgov/internal/model"
)

// Mapping turns a governed Kubernetes object into a taskgov task, as Kueue
// and HyperPod name things: the local queue "hyperpod-ns-<team>-localqueue"
// is the team, the priority class "<class>-priority" is the class.
type Mapping struct {
	// TeamOfNamespace, when set (--govern-team-namespaces), governs objects
	// without a queue-name label too when they are in a team's namespace
	// (hyperpod-ns-<team>, or the team's configured namespace): it names
	// the namespace's team.
	TeamOfNamespace func(namespace string) (team string, ok bool)
	// NamespaceTeams maps each team's namespaces to the team
	// (Governor.TeamNamespaces). When set, a queue label binds as a Kueue
	// LocalQueue does, only inside its team's namespaces: a Job in another
	// namespace cannot spend the team's quota by naming its queue.
	NamespaceTeams func() map[string]string
	// Classes are the policy's priority classes, so that "training-priority"
	// can mean the class "training" (and a class literally named
	// "training-priority" still means itself).
	Classes func() []string
	// InstanceTypes, when set, lists the instance types a team's job may
	// run on: its quota's, else the cluster's. A workload whose templates
	// name no instance type runs on the only one (Kueue gives it its
	// ClusterQueue's only flavor); with several, it must name one.
	InstanceTypes func(team string) []string
}

// Team returns the team that governs u, and false when taskgov leaves u
// alone: no queue-name label (and no team namespace, when enabled), or
// controlled by a workload of a governed kind (a JobSet's Jobs), which is
// governed through its owner. A Job another controller made (a CronJob's)
// is governed itself, as Kueue does.
func (m Mapping) Team(u *unstructured.Unstructured) (string, bool) {
	if ownedByWorkload(u) {
		return "", false
	}
	if q, ok := u.GetLabels()[LabelQueueName]; ok {
		return TeamOfQueue(q), true
	}
	if m.TeamOfNamespace != nil {
		return m.TeamOfNamespace(u.GetNamespace())
	}
	return "", false
}

// queueInNamespace refuses a queue label used outside its team's
// namespaces (nsTeams: namespace to team). A queue of no known team passes:
// the engine refuses the unknown team, with its own fix.
func queueInNamespace(queue, team, namespace, kind string, nsTeams map[string]string) error {
	if nsTeams[namespace] == team {
		return nil
	}
	var own []string
	for ns, t := range nsTeams {
		if t == team {
			own = append(own, ns)
		}
	}
	if len(own) == 0 {
		return nil
	}
	sort.Strings(own)
	fix := "create the " + kind + " in " + strings.Join(own, " or ")
	if other, ok := nsTeams[namespace]; ok {
		fix += ", or use this namespace's queue hyperpod-ns-" + other + "-localqueue"
	}
	return &model.FieldError{Field: "metadata.namespace",
		Problem: fmt.Sprintf("the queue %s is team %s's, which works in %s, not in %s", queue, team, strings.Join(own, " and "), namespace),
		Fix:     fix}
}

// ownedByWorkload reports whether u's controller is of a governed kind.
func ownedByWorkload(u *unstructured.Unstructured) bool {
	for _, o := range u.GetOwnerReferences() {
		if o.Controller == nil || !*o.Controller {
			continue
		}
		group, _, grouped := strings.Cut(o.APIVersion, "/")
		if !grouped {
			group = "" // the core group ("v1")
		}
		for _, k := range Kinds {
			if k.Name == o.Kind && k.GVR.Group == group {
				return true
			}
		}
	}
	return false
}

// TeamOfQueue maps a Kueue local queue name to a team:
// "hyperpod-ns-research-localqueue" and "research" both mean "research".
func TeamOfQueue(q string) string {
	return strings.TrimSuffix(strings.TrimPrefix(q, "hyperpod-ns-"), "-localqueue")
}

// Class maps a Kueue priority class name to one of the policy's classes.
func (m Mapping) Class(name string) string {
	if name == "" || m.Classes == nil {
		return strings.TrimSuffix(name, "-priority")
	}
	known := m.Classes()
	if contains(known, name) {
		return name
	}
	return strings.TrimSuffix(name, "-priority")
}

// TaskName is the task that governs an object: its name (dots become
// dashes, cut to 54 characters) and 8 characters of its UID, so that two
// teams' "train" Jobs, or a Job deleted and created again, never share one.
func TaskName(u *unstructured.Unstructured) string {
	base := strings.ToLower(strings.ReplaceAll(u.GetName(), ".", "-"))
	if len(base) > 54 {
		base = base[:54]
	}
	base = strings.TrimRight(base, "-")
	sum := sha256.Sum256([]byte(u.GetUID()))
	return base + "-" + hex.EncodeToString(sum[:4])
}

// TaskSpec maps a governed object to the task taskgov queues. Errors are
// model.FieldErrors naming the manifest's field and the fix; the engine
// checks the rest (team, class, instance type, topology label, gang size)
// when the task is submitted.
func (m Mapping) TaskSpec(k *Kind, u *unstructured.Unstructured) (model.TaskSpec, error) {
	team, _ := m.Team(u)
	if q, labelled := u.GetLabels()[LabelQueueName]; labelled && m.NamespaceTeams != nil {
		if err := queueInNamespace(q, team, u.GetNamespace(), k.Name, m.NamespaceTeams()); err != nil {
			return model.TaskSpec{Name: TaskName(u), Team: team}, err
		}
	}
	spec := model.TaskSpec{Name: TaskName(u), Team: team, Priority: m.Class(u.GetLabels()[LabelPriorityClass]), Type: model.Training}
	sets, err := k.PodSets(u)
	if err != nil {
		return spec, &model.FieldError{Field: "spec", Problem: err.Error(), Fix: "give the " + k.Name + " its pod template(s)"}
	}
	var errs model.Errors
	var untyped []string // pod sets that name no instance type
	req, grace := model.Request{}, int64(-1)
	ann := u.GetAnnotations()
	for _, ps := range sets {
		if ps.Count < 1 {
			errs = append(errs, &model.FieldError{Field: "spec (" + ps.Name + ")", Problem: fmt.Sprintf("asks for %d pods", ps.Count), Fix: "ask for 1 or more pods"})
			continue
		}
		spec.Nodes += ps.Count
		pod := &corev1.Pod{Spec: ps.Template.Spec}
		v := PodRequests(pod)
		req.GPUs = max(req.GPUs, v.GPUs)
		req.VCPU = max(req.VCPU, float64(v.MilliCPU)/1000)
		req.MemoryGiB = max(req.MemoryGiB, float64(v.MemMiB)/1024)
		it := ps.Template.Spec.NodeSelector[LabelInstanceType]
		switch {
		case it == "":
			untyped = append(untyped, ps.Name)
		case spec.InstanceType != "" && spec.InstanceType != it:
			errs = append(errs, &model.FieldError{Field: "nodeSelector (" + ps.Name + ")", Problem: fmt.Sprintf("asks for %s while another pod set asks for %s", it, spec.InstanceType),
				Fix: "give every pod set the same " + LabelInstanceType + "; a gang runs on one instance type"})
		default:
			spec.InstanceType = it
		}
		for _, key := range sortedNames(ps.Template.Spec.NodeSelector) {
			v := ps.Template.Spec.NodeSelector[key]
			if key == LabelInstanceType {
				continue
			}
			if have, ok := spec.NodeSelector[key]; ok && have != v {
				errs = append(errs, &model.FieldError{Field: "nodeSelector[" + key + "] (" + ps.Name + ")", Problem: fmt.Sprintf("is %q while another pod set asks for %q", v, have),
					Fix: "give every pod set the same nodeSelector; taskgov places the job as one gang"})
				continue
			}
			if spec.NodeSelector == nil {
				spec.NodeSelector = map[string]string{}
			}
			spec.NodeSelector[key] = v
		}
		if g := ps.Template.Spec.TerminationGracePeriodSeconds; g != nil && *g > grace {
			grace = *g
		}
		for key, into := range map[string]*string{AnnRequiredTopo: &spec.RequiredTopology, AnnPreferredTopo: &spec.PreferredTopology} {
			v := ps.Template.Annotations[key]
			if v == "" {
				v = ann[key] // HyperPod's CLI also writes them on the object
			}
			if v != "" && *into != "" && *into != v {
				errs = append(errs, &model.FieldError{Field: "annotations[" + key + "]", Problem: fmt.Sprintf("is %q on one pod set and %q on another", v, *into),
					Fix: "give one topology level for the whole job; taskgov places it as one gang"})
			} else if v != "" {
				*into = v
			}
		}
	}
	if spec.InstanceType == "" && len(untyped) > 0 {
		// Pod sets that name no type share the one another set names
		// (one gang, one type); if none names one, the team's only type.
		if err := m.defaultInstanceType(&spec, untyped); err != nil {
			errs = append(errs, err)
		}
	}
	if req.GPUs > 0 || req.VCPU > 0 || req.MemoryGiB > 0 {
		// What Kubernetes counts: a request the template leaves out is
		// (almost) nothing, not the instance's share per GPU, which the
		// core would derive from zero (and which a node's allocatable, a
		// little under the instance's, would then not hold).
		if req.VCPU == 0 {
			req.VCPU = 0.001
		}
		if req.MemoryGiB == 0 {
			req.MemoryGiB = 1.0 / 1024
		}
		spec.PerNode = req
	}
	if grace > 3600 {
		grace = 3600
	}
	if grace >= 0 {
		spec.GracePeriodSeconds = int(grace)
		if grace == 0 {
			spec.GracePeriodSeconds = 1 // 0 would mean the default
		}
	}
	if len(errs) > 0 {
		return spec, errs
	}
	return spec, nil
}

// defaultInstanceType gives spec the team's only instance type, or says
// which types the pod templates may name.
func (m Mapping) defaultInstanceType(spec *model.TaskSpec, untyped []string) *model.FieldError {
	fe := &model.FieldError{Field: "nodeSelector (" + strings.Join(untyped, ", ") + ")", Problem: "names no instance type",
		Fix: "add nodeSelector " + LabelInstanceType + ": <type> (for example ml.p5.48xlarge) to the pod template"}
	if m.InstanceTypes == nil {
		return fe
	}
	types := m.InstanceTypes(spec.Team)
	if len(types) == 1 {
		spec.InstanceType = types[0]
		return nil
	}
	if len(types) > 1 {
		fe.Problem = fmt.Sprintf("names no instance type, and team %s may use several (%s)", spec.Team, strings.Join(types, ", "))
		fe.Fix = "add nodeSelector " + LabelInstanceType + ": <one of them> to the pod template"
	}
	return fe
}

// ManifestError rewrites the engine's field names as the manifest's, so an
// Event on the object says which label or annotation to change.
func ManifestError(err error) error {
	rename := map[string]string{
		"team":              "metadata.labels[" + LabelQueueName + "]",
		"priority":          "metadata.labels[" + LabelPriorityClass + "]",
		"requiredTopology":  "annotations[" + AnnRequiredTopo + "]",
		"preferredTopology": "annotations[" + AnnPreferredTopo + "]",
		"instanceType":      "nodeSelector[" + LabelInstanceType + "]",
		"nodes":             "replicas/parallelism",
		"perNode":           "resources.requests",
		"nodeSelector":      "nodeSelector",
	}
	fix := func(fe *model.FieldError) *model.FieldError {
		c := *fe
		if f, ok := rename[c.Field]; ok {
			c.Field = f
		}
		if c.Field == "metadata.labels["+LabelQueueName+"]" {
			c.Fix = "use the queue hyperpod-ns-<team>-localqueue of an existing team (taskgov's cluster file lists them)"
		}
		return &c
	}
	var fe *model.FieldError
	var fes model.Errors
	switch {
	case errors.As(err, &fes):
		out := make(model.Errors, len(fes))
		for i, e := range fes {
			out[i] = fix(e)
		}
		return out
	case errors.As(err, &fe):
		return fix(fe)
	}
	return err
}
