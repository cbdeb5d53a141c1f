package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// resolver turns what HyperPod users type (a namespace, a queue name, a
// priority class with its -priority suffix) into taskgov's team and class
// names, reading the teams and the policy once.
type resolver struct {
	cl     *client.Client
	teams  []model.Team
	loaded bool
}

func newResolver(cl *client.Client) *resolver { return &resolver{cl: cl} }

func (r *resolver) load(ctx context.Context) error {
	if r.loaded {
		return nil
	}
	ts, err := r.cl.Teams(ctx)
	if err != nil {
		return err
	}
	r.teams, r.loaded = ts, true
	return nil
}

// errNoNamespace is returned when no namespace was given and none follows
// from the token or the login.
func errNoNamespace() error {
	return &model.FieldError{Field: "--namespace", Problem: "no namespace given, and this token may use more than one team",
		Fix: "pass -n hyperpod-ns-<team>, or set a default with `taskgov login --namespace NS` (HyperPod: connect-cluster --namespace NS)"}
}

// isDefaultNamespace says whether ns asks for the default namespace: none
// given, or hyp's default, "default".
func isDefaultNamespace(ns string) bool { return ns == "" || ns == "default" }

// defaultTeam is the team the default namespace names: the login's saved
// namespace; else the team configured with namespace "default" (Kueue's
// guides put their LocalQueue there); else the only team the token may
// see. ok is false when none applies: a token of several teams (an admin)
// with nothing saved.
func (r *resolver) defaultTeam(ctx context.Context) (team string, ok bool, err error) {
	if err := r.load(ctx); err != nil {
		return "", false, err
	}
	if def := readConfig().Namespace; def != "" && !isDefaultNamespace(def) {
		team, err := r.team(ctx, def)
		return team, err == nil, err
	}
	for _, t := range r.teams {
		if t.Namespace == "default" {
			return t.Name, true, nil
		}
	}
	if len(r.teams) == 1 {
		return r.teams[0].Name, true, nil
	}
	return "", false, nil
}

// submitTeam is the team a job submitted in the default namespace by a
// token of several teams goes to, so that hyp's default works without a
// question when the answer is not a guess: the only team with a quota of
// the job's instance type (of any type when none is given). Otherwise ok
// is false and candidates names the teams to choose from (every team when
// none has such a quota): a job is never charged to a team picked by name.
func (r *resolver) submitTeam(instanceType string) (team string, candidates []string, ok bool) {
	for _, t := range r.teams {
		for _, q := range t.Quotas {
			if instanceType == "" || q.InstanceType == instanceType {
				candidates = append(candidates, t.Name)
				break
			}
		}
	}
	if len(candidates) == 1 {
		return candidates[0], candidates, true
	}
	if len(candidates) == 0 {
		for _, t := range r.teams {
			candidates = append(candidates, t.Name)
		}
	}
	slices.Sort(candidates)
	return "", candidates, false
}

// team resolves a namespace to a team name. A namespace is a team's
// configured namespace, hyperpod-ns-<team>, or the team's name. "" and
// "default" (hyp's default) mean the default namespace (defaultTeam).
func (r *resolver) team(ctx context.Context, ns string) (string, error) {
	if err := r.load(ctx); err != nil {
		return "", err
	}
	if isDefaultNamespace(ns) {
		team, ok, err := r.defaultTeam(ctx)
		if err != nil || ok {
			return team, err
		}
		return "", errNoNamespace()
	}
	for _, t := range r.teams {
		if t.Namespace == ns {
			return t.Name, nil
		}
	}
	for _, t := range r.teams {
		if t.Name == ns || model.NamespacePrefix+t.Name == ns {
			return t.Name, nil
		}
	}
	return "", &client.Error{Status: 404, Field: "--namespace", Message: fmt.Sprintf("Namespace %s does not exist!", ns),
		Fix: "use the namespace of a team you may use (taskgov team list)"}
}

// namespaceOf is the namespace jobs of team show.
func (r *resolver) namespaceOf(team string) string {
	for _, t := range r.teams {
		if t.Name == team && t.Namespace != "" {
			return t.Namespace
		}
	}
	return model.NamespacePrefix + team
}

// queueTeam resolves HyperPod's local queue name, <namespace>-localqueue,
// to its team; taskgov has one queue per team.
func (r *resolver) queueTeam(ctx context.Context, queue string) (string, error) {
	ns, ok := strings.CutSuffix(queue, "-localqueue")
	if !ok {
		return "", &model.FieldError{Field: "--queue-name", Problem: fmt.Sprintf("%q is not a team's queue", queue),
			Fix: "taskgov has one queue per team, named <namespace>-localqueue, e.g. hyperpod-ns-ml-engineers-localqueue; or drop --queue-name and pass -n"}
	}
	return r.team(ctx, ns)
}

// jobTeam resolves the team of a submitted job from --namespace and
// --queue-name, which must agree when both are given.
func (r *resolver) jobTeam(ctx context.Context, ns, queue string) (string, error) {
	if queue == "" {
		return r.team(ctx, ns)
	}
	qt, err := r.queueTeam(ctx, queue)
	if err != nil {
		return "", err
	}
	if ns != "" && ns != "default" {
		nt, err := r.team(ctx, ns)
		if err != nil {
			return "", err
		}
		if nt != qt {
			return "", &model.FieldError{Field: "--queue-name", Problem: fmt.Sprintf("%s is team %s's queue, but --namespace %s is team %s", queue, qt, ns, nt),
				Fix: "give the queue of the job's namespace, or drop --queue-name"}
		}
	}
	return qt, nil
}

// priorityClass resolves HyperPod's <class>-priority names: a class that
// exists is kept, else the name without its -priority suffix is used when
// that class exists; anything else goes to the server, which lists the
// classes in its refusal.
func priorityClass(ctx context.Context, cl *client.Client, name string) (string, error) {
	base, ok := strings.CutSuffix(name, "-priority")
	if name == "" || !ok {
		return name, nil
	}
	p, err := cl.Policy(ctx)
	if err != nil {
		return "", err
	}
	if _, exists := p.ClassWeight(name); exists {
		return name, nil
	}
	if _, exists := p.ClassWeight(base); exists {
		return base, nil
	}
	return name, nil
}
