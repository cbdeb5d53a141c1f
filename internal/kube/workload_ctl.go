package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listerv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

// Governor is what the workload controller asks of taskgov's engine, through
// the same public methods the HTTP API uses.
type Governor interface {
	// Submit queues a workload's task with its idempotency key
	// (WorkloadKey), which names the object's UID in the task's record.
	Submit(ctx context.Context, spec model.TaskSpec, key string) error
	// AtPendingCap is the *model.PendingCapError a submission to team
	// would get now, or nil; it writes nothing (Submit decides, and audits
	// a refusal).
	AtPendingCap(team string) error
	// WorkloadTasks maps each live workload task (IsWorkloadTask) to its
	// key: a WorkloadKey, or "" for a task submitted before those.
	WorkloadTasks() map[string]string
	// Delete deletes a task as the API's DELETE does (a live one is
	// cancelled, and it is marked deleted: gone from lists, history
	// kept); a task already deleted, or never known, is model.ErrNotFound.
	Delete(ctx context.Context, task string) error
	// Status returns a task's state, queue position and wait sentence;
	// found is false when taskgov never had the task (live or finished).
	Status(ctx context.Context, task string) (st TaskStatus, found bool, err error)
	// Classes lists the policy's priority classes.
	Classes() []string
	// SetPriority changes a live task's priority class as the API's
	// priority action does; an unknown class is model.ErrInvalid.
	SetPriority(ctx context.Context, task, class string) error
	// TeamNamespaces maps each team's namespaces (hyperpod-ns-<team>, and
	// its configured one) to the team.
	TeamNamespaces() map[string]string
}

// TaskStatus is a task as the object's status annotation shows it.
type TaskStatus struct {
	State    string // Pending, Running, Succeeded, Failed, Cancelled, Suspended
	Priority string // the task's priority class ("" for none)
	Deleted  bool   // the task was deleted (DELETE /api/v1/tasks/{name})
	Position int
	Why      string // wait reason with the fix, when pending
	Code     string // the wait reason's code (model.WaitCode), when pending
	Message  string
	Nodes    []string
}

// workers reconcile different objects concurrently (one object is never
// reconciled by two at once); each reconcile is a few API round trips.
const workers = 8

// wkey names one governed object.
type wkey struct {
	kind      *Kind
	namespace string
	name      string
}

func (k wkey) String() string { return k.kind.Name + " " + k.namespace + "/" + k.name }

// Workloads governs Kubernetes workloads (Kinds) that carry Kueue's queue
// label: each becomes a task; it is held (suspended, its pods gated) until
// admitted, its pods are placed on the admitted nodes, and it is suspended
// (or its pods deleted) when preempted. It wraps the pod Executor, so the
// engine runs API tasks and workloads through one executor.Executor.
type Workloads struct {
	*Executor
	client  kubernetes.Interface
	dyn     dynamic.Interface
	Mapping Mapping
	Log     *slog.Logger

	kinds   []*Kind
	factory dynamicinformer.DynamicSharedInformerFactory
	objects map[*Kind]cache.GenericLister
	pods    listerv1.PodLister
	podInf  cache.SharedIndexInformer
	pf      informers.SharedInformerFactory
	synced  []cache.InformerSynced
	queue   workqueue.TypedRateLimitingInterface[wkey]
	gov     Governor
	events  chan executor.Event

	// Per object, pruned when it is deleted (gone) or its task has ended
	// (forgetObject), so that they hold only what the cluster holds.
	mu        sync.Mutex
	byTask    map[string]wkey
	uids      map[string]types.UID // task -> its object's UID
	runs      map[string]*wrun
	rejected  map[types.UID]string    // the last bad-input message evented
	warned    map[types.UID]string    // the last wait warning evented
	statusAt  map[types.UID]time.Time // the last status annotation write
	retry     map[types.UID]refused   // refused objects: when last tried
	seenClass map[types.UID]string    // the priority-class label last seen (workload_priority.go)

	teamNS *teamNamespaces // nil unless GovernTeamNamespaces
}

// NewWorkloads watches the given kinds (those the API server serves; see
// ServedKinds) and the pods carrying Kueue's queue label.
func NewWorkloads(client kubernetes.Interface, dyn dynamic.Interface, pods *Executor, kinds []*Kind) *Workloads {
	w := &Workloads{Executor: pods, client: client, dyn: dyn, kinds: kinds, Log: slog.Default(),
		factory: dynamicinformer.NewDynamicSharedInformerFactory(dyn, 10*time.Second), objects: map[*Kind]cache.GenericLister{},
		queue:  workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[wkey]()),
		events: make(chan executor.Event, 1024), byTask: map[string]wkey{}, uids: map[string]types.UID{}, runs: map[string]*wrun{}, rejected: map[types.UID]string{}, warned: map[types.UID]string{}, statusAt: map[types.UID]time.Time{}, retry: map[types.UID]refused{},
		seenClass: map[types.UID]string{}}
	for _, k := range kinds {
		gi := w.factory.ForResource(k.GVR)
		w.objects[k] = gi.Lister()
		kind := k
		enqueue := func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			if u, ok := o.(*unstructured.Unstructured); ok {
				w.queue.Add(wkey{kind, u.GetNamespace(), u.GetName()})
			}
		}
		if _, err := gi.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: enqueue,
			UpdateFunc: func(_, o any) { enqueue(o) }, DeleteFunc: enqueue}); err != nil {
			panic(err) // only fails on a stopped informer
		}
		w.synced = append(w.synced, gi.Informer().HasSynced)
	}
	w.pf = informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = LabelQueueName
	}))
	pi := w.pf.Core().V1().Pods()
	w.pods, w.podInf = pi.Lister(), pi.Informer()
	onPod := func(o any) {
		if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
			o = t.Obj
		}
		if p, ok := o.(*corev1.Pod); ok {
			if k, ok := w.ownerOf(p); ok {
				w.queue.Add(k)
			}
		}
	}
	if _, err := w.podInf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onPod,
		UpdateFunc: func(_, o any) { onPod(o) }, DeleteFunc: onPod}); err != nil {
		panic(err)
	}
	w.synced = append(w.synced, w.podInf.HasSynced)
	return w
}

// ServedKinds returns the kinds whose resources the API server serves
// (batch/v1 Jobs always; the others once their CRDs are installed).
func ServedKinds(client kubernetes.Interface) []*Kind {
	var out []*Kind
	for _, k := range Kinds {
		list, err := client.Discovery().ServerResourcesForGroupVersion(k.GVR.GroupVersion().String())
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			if r.Name == k.GVR.Resource {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// Sync runs the informers and waits for their first lists, so that the
// engine's recovery can ask Alive about workloads. Decisions wait for Run.
// The pod Executor is run by its owner.
func (w *Workloads) Sync(ctx context.Context) error {
	w.factory.Start(ctx.Done())
	w.pf.Start(ctx.Done())
	if w.teamNS != nil {
		w.teamNS.factory.Start(ctx.Done())
	}
	if err := waitSynced(ctx, "workload", w.synced...); err != nil {
		return err
	}
	for _, k := range w.kinds {
		objs, _ := w.objects[k].List(everything)
		for _, o := range objs {
			if u, ok := o.(*unstructured.Unstructured); ok {
				if _, gov := w.Mapping.Team(u); gov {
					w.mu.Lock()
					w.byTask[TaskName(u)] = wkey{k, u.GetNamespace(), u.GetName()}
					w.mu.Unlock()
				}
			}
		}
	}
	go func() {
		for ev := range w.Executor.Events() {
			w.events <- ev
		}
	}()
	return nil
}

// Run reconciles workloads with gov (the engine) on Workers workers until
// ctx ends. Only the leader calls it.
func (w *Workloads) Run(ctx context.Context, gov Governor) {
	w.gov = gov
	if w.Mapping.NamespaceTeams == nil {
		w.Mapping.NamespaceTeams = gov.TeamNamespaces
	}
	if w.Mapping.Classes == nil {
		w.Mapping.Classes = gov.Classes
	}
	if it, ok := gov.(interface{ InstanceTypes(team string) []string }); ok && w.Mapping.InstanceTypes == nil {
		w.Mapping.InstanceTypes = it.InstanceTypes
	}
	go func() { <-ctx.Done(); w.queue.ShutDown() }()
	w.sweep(ctx)
	if w.teamNS != nil {
		go w.teamNS.run(ctx, gov.TeamNamespaces, w.Log.Warn)
	}
	for range workers {
		go func() {
			for {
				k, quit := w.queue.Get()
				if quit {
					return
				}
				if err := w.reconcile(ctx, k); err != nil {
					w.Log.Warn("kubernetes workload", "object", k.String(), "err", err)
					w.queue.AddRateLimited(k)
				} else {
					w.queue.Forget(k)
				}
				w.queue.Done(k)
			}
		}()
	}
}

// Events delivers pod exits of API tasks and workload ends.
func (w *Workloads) Events() <-chan executor.Event { return w.events }

// object returns the cached object of k, or nil when it is gone.
func (w *Workloads) object(k wkey) *unstructured.Unstructured {
	o, err := w.objects[k.kind].ByNamespace(k.namespace).Get(k.name)
	if err != nil {
		return nil
	}
	u, _ := o.(*unstructured.Unstructured)
	return u
}

// ownerOf finds the governed object a pod belongs to: its controller, or
// for a JobSet's pods, the controller of their Job.
func (w *Workloads) ownerOf(p *corev1.Pod) (wkey, bool) {
	ref := metav1.GetControllerOf(p)
	for depth := 0; ref != nil && depth < 2; depth++ {
		var kind *Kind
		for _, k := range w.kinds {
			if k.Name == ref.Kind && strings.HasPrefix(ref.APIVersion, groupPrefix(k)) {
				kind = k
			}
		}
		if kind == nil {
			return wkey{}, false
		}
		key := wkey{kind, p.Namespace, ref.Name}
		u := w.object(key)
		switch {
		case u == nil:
			return key, true // gone, or not cached yet: its reconcile decides
		case u.GetUID() != ref.UID:
			return wkey{}, false // an earlier object of that name
		}
		if _, gov := w.Mapping.Team(u); gov {
			return key, true
		}
		ref = metav1.GetControllerOf(u) // a JobSet's Job: try the JobSet
	}
	return wkey{}, false
}

func groupPrefix(k *Kind) string {
	if k.GVR.Group == "" {
		return k.GVR.Version
	}
	return k.GVR.Group + "/"
}

// podsOf lists a workload's pods from the cache, by name.
func (w *Workloads) podsOf(k wkey) []*corev1.Pod {
	ps, _ := w.pods.Pods(k.namespace).List(everything)
	var out []*corev1.Pod
	for _, p := range ps {
		if o, ok := w.ownerOf(p); ok && o == k {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// event records a Kubernetes Event on the object, for kubectl describe.
func (w *Workloads) event(ctx context.Context, u *unstructured.Unstructured, typ, reason, msg string) {
	now := metav1.NewTime(time.Now())
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{GenerateName: u.GetName() + ".", Namespace: u.GetNamespace()},
		InvolvedObject: corev1.ObjectReference{Kind: u.GetKind(), APIVersion: u.GetAPIVersion(), Namespace: u.GetNamespace(), Name: u.GetName(), UID: u.GetUID()},
		Type:           typ, Reason: reason, Message: msg, FirstTimestamp: now, LastTimestamp: now, Count: 1,
		Source: corev1.EventSource{Component: "taskgov"}, ReportingController: "taskgov.io/taskgov", ReportingInstance: "taskgov"}
	if _, err := w.client.CoreV1().Events(u.GetNamespace()).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		w.Log.Warn("kubernetes event", "object", u.GetName(), "reason", reason, "err", err)
	}
}

// patch applies a merge patch to the object.
func (w *Workloads) patch(ctx context.Context, k wkey, body []byte) error {
	_, err := w.dyn.Resource(k.kind.GVR).Namespace(k.namespace).Patch(ctx, k.name, types.MergePatchType, body, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("patching %s: %w", k, err)
	}
	return nil
}

// isInvalid reports whether err is bad input (to show on the object)
// rather than a failure to retry.
func isInvalid(err error) bool { return errors.Is(err, model.ErrInvalid) }
