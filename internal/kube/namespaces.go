package kube

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	listerv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// LabelTeam marks a team's namespace when taskgov governs the workloads
// there that carry no queue label (--govern-team-namespaces). taskgov sets
// it on each team's namespaces and takes it off the others; the admission
// policies (deploy/kubernetes/admission.yaml) read it to hold such
// workloads at creation, and the label's value names the team.
const LabelTeam = "taskgov.io/team"

// teamNamespaces keeps LabelTeam on exactly the namespaces of the teams
// taskgov has: hyperpod-ns-<team>, and the team's configured namespace.
// It labels namespaces that exist; one created later is labelled when it
// appears.
type teamNamespaces struct {
	client  nsPatcher
	lister  listerv1.NamespaceLister
	factory informers.SharedInformerFactory
	synced  cache.InformerSynced
	// changed is poked on every namespace change.
	changed chan struct{}
}

// nsPatcher is the part of the clientset the labeller uses.
type nsPatcher interface {
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*corev1.Namespace, error)
}

// GovernTeamNamespaces makes w govern, as their team's tasks, workloads
// without a queue label in the namespaces labelled LabelTeam, and keep that
// label on the teams' namespaces (Run). Call it before Sync.
func (w *Workloads) GovernTeamNamespaces() {
	f := informers.NewSharedInformerFactory(w.client, 0)
	ni := f.Core().V1().Namespaces()
	tn := &teamNamespaces{client: w.client.CoreV1().Namespaces(), lister: ni.Lister(), factory: f, synced: ni.Informer().HasSynced, changed: make(chan struct{}, 1)}
	poke := func(any) {
		select {
		case tn.changed <- struct{}{}:
		default:
		}
	}
	if _, err := ni.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: poke,
		UpdateFunc: func(_, o any) { poke(o) }, DeleteFunc: poke}); err != nil {
		panic(err) // only fails on a stopped informer
	}
	w.teamNS = tn
	w.synced = append(w.synced, tn.synced)
	w.Mapping.TeamOfNamespace = tn.teamOf
}

// teamOf names the team whose label the namespace carries.
func (tn *teamNamespaces) teamOf(namespace string) (string, bool) {
	ns, err := tn.lister.Get(namespace)
	if err != nil {
		return "", false
	}
	team, ok := ns.Labels[LabelTeam]
	return team, ok && team != ""
}

// teamNamespaceResync is how often the labels are checked without a
// namespace change (teams change through taskgov's API).
const teamNamespaceResync = 30 * time.Second

// run keeps the labels in line with want() until ctx ends. It writes only
// where a namespace's label differs.
func (tn *teamNamespaces) run(ctx context.Context, want func() map[string]string, log func(msg string, args ...any)) {
	tick := time.NewTicker(teamNamespaceResync)
	defer tick.Stop()
	for {
		if err := tn.sync(ctx, want()); err != nil {
			log("labelling team namespaces", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tn.changed:
		case <-tick.C:
		}
	}
}

// sync sets LabelTeam on the namespaces in want (namespace -> team) that
// exist, and removes it from every other namespace.
func (tn *teamNamespaces) sync(ctx context.Context, want map[string]string) error {
	all, err := tn.lister.List(everything)
	if err != nil {
		return err
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	var first error
	for _, ns := range all {
		have, labelled := ns.Labels[LabelTeam]
		team, governed := want[ns.Name]
		var body string
		switch {
		case governed && (!labelled || have != team):
			body = fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, LabelTeam, team)
		case !governed && labelled:
			body = fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, LabelTeam)
		default:
			continue
		}
		if _, err := tn.client.Patch(ctx, ns.Name, types.MergePatchType, []byte(body), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) && first == nil {
			first = fmt.Errorf("namespace %s: %w", ns.Name, err)
		}
	}
	return first
}

// label gives a workload governed for its namespace (it has no queue
// label) the label, so that from then on it is governed like any other:
// first the object, suspended in the same write; then, once suspended, a
// Job's pod template, so that the pods it makes are gated at creation. It
// reports whether it wrote. Finished objects are left as they are.
func (w *Workloads) label(ctx context.Context, k wkey, u *unstructured.Unstructured, team string) (bool, error) {
	if done, _, _ := k.kind.Finished(u); done {
		return false, nil
	}
	q, labelled := u.GetLabels()[LabelQueueName]
	if !labelled {
		body := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, LabelQueueName, team)
		if k.kind.SuspendPath != nil {
			body = fmt.Sprintf(`{"metadata":{"labels":{%q:%q}},%s`, LabelQueueName, team, k.kind.SuspendPatch(true)[1:])
		}
		return true, w.patch(ctx, k, []byte(body))
	}
	if k.kind.Name == "Job" && k.kind.Suspended(u) {
		if tl, _, _ := unstructured.NestedString(u.Object, "spec", "template", "metadata", "labels", LabelQueueName); tl == "" {
			body := fmt.Sprintf(`{"spec":{"template":{"metadata":{"labels":{%q:%q}}}}}`, LabelQueueName, q)
			err := w.patch(ctx, k, []byte(body))
			if apierrors.IsInvalid(err) {
				// A Job that ran before its namespace was labelled keeps
				// its template immutable until the Job controller has
				// seen the suspend (and reset status.startTime).
				w.Log.Debug("kubernetes workload: pod template not yet mutable", "object", k.String(), "err", err)
				w.queue.AddAfter(k, 2*time.Second)
				return true, nil
			}
			return true, err
		}
	}
	return false, nil
}
