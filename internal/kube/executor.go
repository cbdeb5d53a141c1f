package kube

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listerv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/taskgov/taskgov/internal/executor"
)

// Labels on the pods taskgov creates.
const (
	LabelTask = "taskgov.io/task"
	LabelRank = "taskgov.io/rank"
	LabelRun  = "taskgov.io/run"
	// SchedulerName marks pods that taskgov, not kube-scheduler, places.
	SchedulerName = "taskgov"
	// MasterPort is the rendezvous port behind the task's headless Service.
	MasterPort = 29500
)

// Namespace is the team's namespace, as HyperPod names it.
func Namespace(team string) string { return "hyperpod-ns-" + team }

// Executor runs task pods on Kubernetes: one pod per planned node, bound
// there through the binding subresource; a multi-pod task's rank 0 is behind
// a headless Service for MASTER_ADDR. Pod phases come back as executor events. It implements
// executor.Executor.
type Executor struct {
	client       kubernetes.Interface
	defaultImage string
	pods         listerv1.PodLister
	synced       cache.InformerSynced
	factory      informers.SharedInformerFactory
	events       chan executor.Event
	logIndex     *logIndex // where reads of pod logs can start (podLogs)

	// KubeletReady, if set, says whether a node's kubelet can carry out a
	// graceful delete; pods on other nodes are deleted at once.
	KubeletReady func(node string) bool
	// Checkpoints, if its Claim is set, gives every pod a checkpoint
	// directory that outlives its runs (see checkpoints.go).
	Checkpoints Checkpoints
	// Retention, if positive, deletes each finished pod (and its logs) that
	// long after it ended (see retention.go); 0 leaves them to Kubernetes.
	Retention time.Duration

	mu         sync.Mutex
	reported   map[string]bool // pod UIDs whose exit was sent
	namespaces map[string]*namespaceLock
}

// NewExecutor watches the pods taskgov manages. defaultImage runs tasks
// that name no image. Run must be called before Start.
func NewExecutor(client kubernetes.Interface, defaultImage string) *Executor {
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = LabelManagedBy + "=" + ManagedByValue
	}))
	pi := f.Core().V1().Pods()
	e := &Executor{client: client, defaultImage: defaultImage, pods: pi.Lister(), synced: pi.Informer().HasSynced,
		factory: f, events: make(chan executor.Event, 1024), logIndex: newLogIndex(), reported: map[string]bool{}, namespaces: map[string]*namespaceLock{}}
	_, err := pi.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { e.observe(o, false) },
		UpdateFunc: func(_, o any) { e.observe(o, false) },
		DeleteFunc: func(o any) { e.observe(o, true) },
	})
	if err != nil {
		panic(err) // only fails on a stopped informer, which a new one is not
	}
	return e
}

// Run starts the pod informer until ctx ends and waits up to SyncTimeout
// for its first list.
func (e *Executor) Run(ctx context.Context) error {
	e.factory.Start(ctx.Done())
	if err := waitSynced(ctx, "managed pod", e.synced); err != nil {
		return err
	}
	if e.Checkpoints.Root != "" {
		go e.watchCheckpoints(ctx)
	}
	if e.Retention > 0 {
		go e.pruneFinished(ctx)
	}
	return nil
}

// observe turns a terminal phase or a deletion into one Exited event per pod.
func (e *Executor) observe(o any, deleted bool) {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	p, ok := o.(*corev1.Pod)
	if !ok {
		return
	}
	code, done := exitCode(p)
	if !done && !deleted {
		return
	}
	if !done {
		code = -1 // gone before it finished: killed
	}
	e.mu.Lock()
	seen := e.reported[string(p.UID)]
	if deleted {
		delete(e.reported, string(p.UID)) // gone: no event will name it again
	} else {
		e.reported[string(p.UID)] = true
	}
	e.mu.Unlock()
	if seen {
		return
	}
	rank, _ := strconv.Atoi(p.Labels[LabelRank])
	run, _ := strconv.Atoi(p.Labels[LabelRun])
	e.events <- executor.Event{Task: p.Labels[LabelTask], Rank: rank, Run: run, At: time.Now(), Exited: true, ExitCode: code}
}

// exitCode reports a finished pod's exit code (its first container's).
func exitCode(p *corev1.Pod) (int, bool) {
	if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
		return 0, false
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Terminated != nil {
			return int(cs.State.Terminated.ExitCode), true
		}
	}
	if p.Status.Phase == corev1.PodSucceeded {
		return 0, true
	}
	return 1, true
}

// Start creates the team's namespace if missing, then each pod, binding it
// to its planned node. A multi-pod task gets a headless Service for
// MASTER_ADDR, made right after rank 0 and owned by it, so that Kubernetes'
// garbage collector removes it with that pod. On any failure it deletes the
// pods it made.
func (e *Executor) Start(spec executor.StartSpec) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := Namespace(spec.Team)
	if err := e.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	if err := e.Checkpoints.claim(ns, spec); err != nil {
		return err
	}
	var made []string
	for _, pod := range spec.Pods {
		p := e.podFor(spec, pod, ns)
		created, err := e.client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			e.remove(ns, made)
			return fmt.Errorf("kubernetes: creating pod %s/%s: %w", ns, p.Name, err)
		}
		made = append(made, p.Name)
		if pod.Rank == 0 && len(spec.Pods) > 1 {
			if err := e.createService(ctx, spec, created); err != nil {
				e.remove(ns, made)
				return err
			}
		}
		b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: ns},
			Target: corev1.ObjectReference{Kind: "Node", Name: pod.Node}}
		if err := e.client.CoreV1().Pods(ns).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
			e.remove(ns, made)
			return fmt.Errorf("kubernetes: binding pod %s/%s to node %s: %w", ns, p.Name, pod.Node, err)
		}
	}
	return nil
}

// ensureNamespace creates the team's namespace, labelled as taskgov's, once
// per server; concurrent starts for one team wait for the first.
func (e *Executor) ensureNamespace(ctx context.Context, ns string) error {
	e.mu.Lock()
	lock := e.namespaces[ns]
	if lock == nil {
		lock = &namespaceLock{}
		e.namespaces[ns] = lock
	}
	e.mu.Unlock()
	lock.Lock()
	defer lock.Unlock()
	if lock.made {
		return nil
	}
	n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{LabelManagedBy: ManagedByValue}}}
	if _, err := e.client.CoreV1().Namespaces().Create(ctx, n, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("kubernetes: creating namespace %s: %w", ns, err)
	}
	lock.made = true
	return nil
}

type namespaceLock struct {
	sync.Mutex
	made bool
}

// serviceName is the headless Service of one run of a multi-pod task.
func serviceName(spec executor.StartSpec) string {
	return fmt.Sprintf("%s-run%d", spec.Task, spec.Resumes)
}

// createService makes the run's headless Service, selecting its rank 0 and
// owned by that pod.
func (e *Executor) createService(ctx context.Context, spec executor.StartSpec, rank0 *corev1.Pod) error {
	name, run := serviceName(spec), strconv.Itoa(spec.Resumes)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: rank0.Namespace,
		Labels:          map[string]string{LabelManagedBy: ManagedByValue, LabelTask: spec.Task, LabelRun: run},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: rank0.Name, UID: rank0.UID}}},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{LabelTask: spec.Task, LabelRank: "0", LabelRun: run},
			Ports: []corev1.ServicePort{{Name: "rendezvous", Port: MasterPort}}}}
	if _, err := e.client.CoreV1().Services(rank0.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("kubernetes: creating service %s/%s: %w", rank0.Namespace, name, err)
	}
	return nil
}

// podFor builds one pod: taskgov's scheduler name, the local executor's
// environment, and a GPU request of the GPUs the core assigned. A task
// without a command leaves the container's command unset: the image's
// entrypoint runs, with the task's args.
func (e *Executor) podFor(spec executor.StartSpec, pod executor.Pod, ns string) *corev1.Pod {
	image := spec.Image
	if image == "" {
		image = e.defaultImage
	}
	master, subdomain := "localhost", ""
	if len(spec.Pods) > 1 {
		subdomain = serviceName(spec)
		master = subdomain + "." + ns + ".svc"
	}
	env := []corev1.EnvVar{
		{Name: "TASKGOV_TASK", Value: spec.Task}, {Name: "TASKGOV_TEAM", Value: spec.Team}, {Name: "TASKGOV_NODE", Value: pod.Node},
		{Name: "TASKGOV_NODE_RANK", Value: strconv.Itoa(pod.Rank)}, {Name: "TASKGOV_NUM_NODES", Value: strconv.Itoa(len(spec.Pods))},
		{Name: "TASKGOV_RESUME_COUNT", Value: strconv.Itoa(spec.Resumes)},
		{Name: "MASTER_ADDR", Value: master}, {Name: "MASTER_PORT", Value: strconv.Itoa(MasterPort)},
		{Name: "WORLD_SIZE", Value: strconv.Itoa(len(spec.Pods))}, {Name: "RANK", Value: strconv.Itoa(pod.Rank)}, {Name: "LOCAL_RANK", Value: "0"},
	}
	for _, k := range sortedNames(spec.Env) {
		env = append(env, corev1.EnvVar{Name: k, Value: spec.Env[k]})
	}
	c := corev1.Container{Name: "task", Image: image, Command: spec.Command, Args: spec.Args, Env: env, ImagePullPolicy: corev1.PullPolicy(spec.ImagePullPolicy)}
	if n := len(pod.GPUs); n > 0 {
		q := *apiresource.NewQuantity(int64(n), apiresource.DecimalSI)
		c.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{ResourceGPU: q}, Limits: corev1.ResourceList{ResourceGPU: q}}
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d-run%d", spec.Task, pod.Rank, spec.Resumes), Namespace: ns,
			Labels: map[string]string{LabelManagedBy: ManagedByValue, LabelTask: spec.Task, LabelRank: strconv.Itoa(pod.Rank), LabelRun: strconv.Itoa(spec.Resumes)}},
		Spec: corev1.PodSpec{SchedulerName: SchedulerName, RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{c},
			Hostname: fmt.Sprintf("%s-%d", spec.Task, pod.Rank), Subdomain: subdomain},
	}
	e.Checkpoints.mount(p, spec.Task)
	return p
}

// deleteGrace is the grace period for deleting a pod on node: secs, or 0
// when the node's kubelet is not Ready and so would never confirm it.
func (e *Executor) deleteGrace(node string, secs int64) int64 {
	if e.KubeletReady != nil && node != "" && !e.KubeletReady(node) {
		return 0
	}
	return secs
}

// remove deletes pods that never ran, at once.
func (e *Executor) remove(ns string, names []string) {
	zero := int64(0)
	for _, n := range names {
		_ = e.client.CoreV1().Pods(ns).Delete(context.Background(), n, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	}
}

// taskPods lists a task's pods from the cache, oldest run first.
func (e *Executor) taskPods(task string) []*corev1.Pod {
	ps, _ := e.pods.List(labels.SelectorFromSet(labels.Set{LabelTask: task}))
	sort.Slice(ps, func(i, j int) bool {
		ri, _ := strconv.Atoi(ps[i].Labels[LabelRun])
		rj, _ := strconv.Atoi(ps[j].Labels[LabelRun])
		if ri != rj {
			return ri < rj
		}
		return ps[i].Name < ps[j].Name
	})
	return ps
}

// Stop deletes the task's live pods gracefully: the kubelet sends SIGTERM
// and kills after grace. A pod on a node whose kubelet is not Ready is
// deleted at once, as no kubelet would ever confirm it and its task would
// wait forever to be requeued. Each pod reports Exited once it is gone.
func (e *Executor) Stop(task string, grace time.Duration) {
	for _, p := range e.taskPods(task) {
		if _, done := exitCode(p); done {
			continue
		}
		secs := e.deleteGrace(p.Spec.NodeName, int64(grace/time.Second))
		if secs != 0 && p.DeletionTimestamp != nil {
			continue // already stopping gracefully
		}
		_ = e.client.CoreV1().Pods(p.Namespace).Delete(context.Background(), p.Name, metav1.DeleteOptions{GracePeriodSeconds: &secs})
	}
}

// Logs returns one rank's logs across runs, read through the API server
// as they are read (podLogs: a reader asks only for the part it sends).
func (e *Executor) Logs(task string, rank int) (io.ReadCloser, error) {
	var pods []*corev1.Pod
	for _, p := range e.taskPods(task) {
		if p.Labels[LabelRank] == strconv.Itoa(rank) {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		if e.Retention > 0 {
			return nil, fmt.Errorf("kubernetes: no pods of task %s rank %d (finished pods are deleted, with their logs, %v after they end: --pod-retention)",
				task, rank, e.Retention)
		}
		return nil, fmt.Errorf("kubernetes: no pods of task %s rank %d", task, rank)
	}
	return newPodLogs(e.client, pods, e.logIndex), nil
}

// Handles returns nothing: Kubernetes pods are found again by label.
func (e *Executor) Handles(string) []int { return nil }

// Events delivers pod exits.
func (e *Executor) Events() <-chan executor.Event { return e.events }

var _ executor.Executor = (*Executor)(nil)
