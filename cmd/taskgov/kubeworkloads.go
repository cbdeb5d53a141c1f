package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/model"
)

// workloadActor is the audit log's actor for what the workload controller
// does on behalf of a kubectl apply or delete.
const workloadActor = "kubernetes"

// engineGovernor gives kube.Workloads the engine's public methods, as the
// HTTP API uses them: a workload's task is submitted, deleted and read
// like any other.
type engineGovernor struct{ eng *engine.Engine }

func (g engineGovernor) Submit(ctx context.Context, spec model.TaskSpec, key string) error {
	_, _, err := g.eng.SubmitOnce(ctx, workloadActor, spec, key)
	return err
}

func (g engineGovernor) AtPendingCap(team string) error { return g.eng.View().AtPendingCap(team) }

func (g engineGovernor) WorkloadTasks() map[string]string {
	out := map[string]string{}
	g.eng.View().EachLive(func(r model.TaskRecord) bool {
		if kube.IsWorkloadTask(r.Name, r.IdempotencyKey, r.Spec.Command, r.Spec.Image) {
			out[r.Name] = r.IdempotencyKey
		}
		return true
	})
	return out
}

func (g engineGovernor) Delete(ctx context.Context, task string) error {
	_, err := g.eng.DeleteTask(ctx, workloadActor, task)
	return err
}

func (g engineGovernor) Status(ctx context.Context, task string) (kube.TaskStatus, bool, error) {
	t, err := g.eng.Task(ctx, task)
	if errors.Is(err, model.ErrNotFound) {
		return kube.TaskStatus{}, false, nil
	}
	if err != nil {
		return kube.TaskStatus{}, false, err
	}
	// The annotation is read by whoever reads the namespace, the task's own
	// team: it shows what the API shows that team's members.
	ownTeam := func(team string) bool { return team == t.Team }
	visible := func(name string) bool {
		o, err := g.eng.Task(ctx, name)
		return err == nil && o.Team == t.Team
	}
	st := kube.TaskStatus{State: string(t.State), Priority: t.Spec.Priority, Deleted: t.Deleted(), Position: t.Position, Why: t.Why,
		Message: model.HidePreemptor(t.Message, visible)}
	if t.Reason != nil {
		reason := *t.Reason
		if reason.Hide(ownTeam, visible) {
			st.Why = reason.Message()
		}
		st.Code = string(reason.Code)
	}
	if t.State == model.StateRunning && len(t.Placement) > 0 {
		nodes := make([]string, len(t.Placement))
		for i, p := range t.Placement {
			nodes[i] = p.Node
		}
		st.Message = fmt.Sprintf("run %d on %s", t.Resumes+1, strings.Join(nodes, ", "))
	}
	return st, true, nil
}

func (g engineGovernor) SetPriority(ctx context.Context, task, class string) error {
	_, err := g.eng.TaskAction(ctx, workloadActor, task, engine.ActPriority, class)
	return err
}

func (g engineGovernor) Classes() []string {
	var out []string
	for _, c := range g.eng.View().Policy().PriorityClasses {
		out = append(out, c.Name)
	}
	return out
}

// InstanceTypes are the types a team's workload may default to: its
// quota's, else (a team without quota borrows) the cluster's nodes'.
func (g engineGovernor) InstanceTypes(team string) []string {
	view := g.eng.View()
	seen := map[string]bool{}
	var out []string
	for _, t := range view.Teams() {
		if t.Name != team {
			continue
		}
		for _, q := range t.Quotas {
			if !seen[q.InstanceType] {
				seen[q.InstanceType] = true
				out = append(out, q.InstanceType)
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, n := range view.Nodes() {
		if !seen[n.Spec.InstanceType] {
			seen[n.Spec.InstanceType] = true
			out = append(out, n.Spec.InstanceType)
		}
	}
	sort.Strings(out)
	return out
}

// TeamNamespaces maps each team's namespaces to it: hyperpod-ns-<team>, and
// the namespace the team configures (which wins should another team's
// default name be the same).
func (g engineGovernor) TeamNamespaces() map[string]string {
	out := map[string]string{}
	teams := g.eng.View().Teams()
	for _, t := range teams {
		out[model.NamespacePrefix+t.Name] = t.Name
	}
	for _, t := range teams {
		if ns := t.WithDefaults().Namespace; ns != "" {
			out[ns] = t.Name
		}
	}
	return out
}

var _ kube.Governor = engineGovernor{}
