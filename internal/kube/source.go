package kube

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listerv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/taskgov/taskgov/internal/resource"
)

// NodeSource watches nodes and pods through shared informers and answers
// what the cluster offers taskgov now. Changed is signalled (without
// blocking) whenever a node or a pod changes, so the engine can re-read.
type NodeSource struct {
	factory informers.SharedInformerFactory
	nodes   listerv1.NodeLister
	pods    listerv1.PodLister
	synced  []cache.InformerSynced
	Changed chan struct{}
}

// NewNodeSource prepares informers on client; Start runs them.
func NewNodeSource(client kubernetes.Interface, resync time.Duration) *NodeSource {
	f := informers.NewSharedInformerFactory(client, resync)
	ni, pi := f.Core().V1().Nodes(), f.Core().V1().Pods()
	s := &NodeSource{factory: f, nodes: ni.Lister(), pods: pi.Lister(), Changed: make(chan struct{}, 1)}
	poke := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { s.poke() },
		UpdateFunc: func(any, any) { s.poke() },
		DeleteFunc: func(any) { s.poke() },
	}
	if _, err := ni.Informer().AddEventHandler(poke); err != nil {
		panic(err) // only fails on a stopped informer, which a new one is not
	}
	// taskgov's own pods do not change what a node offers it (Snapshot
	// skips them), and they change the most: they wake nothing.
	foreign := func(o any) bool {
		if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
			o = t.Obj
		}
		p, ok := o.(*corev1.Pod)
		return !ok || (p.Labels[LabelManagedBy] != ManagedByValue && p.Labels[LabelTask] == "")
	}
	if _, err := pi.Informer().AddEventHandler(cache.FilteringResourceEventHandler{FilterFunc: foreign, Handler: poke}); err != nil {
		panic(err)
	}
	s.synced = []cache.InformerSynced{ni.Informer().HasSynced, pi.Informer().HasSynced}
	return s
}

func (s *NodeSource) poke() {
	select {
	case s.Changed <- struct{}{}:
	default:
	}
}

// Start runs the informers until ctx ends and waits up to SyncTimeout for
// their first full list.
func (s *NodeSource) Start(ctx context.Context) error {
	s.factory.Start(ctx.Done())
	return waitSynced(ctx, "node and pod", s.synced...)
}

// SyncTimeout bounds the wait for an informer's first list.
const SyncTimeout = time.Minute

func waitSynced(ctx context.Context, what string, synced ...cache.InformerSynced) error {
	wait, cancel := context.WithTimeout(ctx, SyncTimeout)
	defer cancel()
	if !cache.WaitForCacheSync(wait.Done(), synced...) {
		return fmt.Errorf("kubernetes: the %s caches did not fill within %v (%v); check that the API server is reachable and taskgov may list and watch them", what, SyncTimeout, context.Cause(wait))
	}
	return nil
}

// KubeletReady reports whether the named node's kubelet is Ready (false for
// a node that is gone).
func (s *NodeSource) KubeletReady(name string) bool {
	n, err := s.nodes.Get(name)
	return err == nil && KubeletReady(n)
}

// Snapshot lists the nodes in name order as the scheduler should see them,
// and one error per node it had to leave out (with the fix). Safe from any
// goroutine: it reads the informers' thread-safe caches.
func (s *NodeSource) Snapshot() ([]Observed, []error) {
	nodes, err := s.nodes.List(labels.Everything())
	if err != nil {
		return nil, []error{err}
	}
	pods, err := s.pods.List(labels.Everything())
	if err != nil {
		return nil, []error{err}
	}
	others := map[string]resource.Vector{}
	for _, p := range pods {
		// Pods taskgov placed (its own, and governed workloads' pods,
		// labelled with their task when placed) are the core's to count.
		if p.Spec.NodeName == "" || p.Labels[LabelManagedBy] == ManagedByValue || p.Labels[LabelTask] != "" ||
			p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		others[p.Spec.NodeName] = others[p.Spec.NodeName].Add(PodRequests(p))
	}
	byName := map[string]*corev1.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	var out []Observed
	var errs []error
	for _, name := range sortedNames(byName) {
		n, err := NodeFromAPI(byName[name], others[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, n)
	}
	return out, errs
}
