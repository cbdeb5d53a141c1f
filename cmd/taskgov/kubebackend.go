package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/model"
)

// kubeBackend runs taskgov against a Kubernetes cluster: nodes come from
// the API server and tasks run as pods.
type kubeBackend struct {
	client kubernetes.Interface
	nodes  *kube.NodeSource
	exec   *kube.Executor
	// workloads governs Kueue-labelled Jobs and the like; nil when off.
	workloads *kube.Workloads
	log       *slog.Logger
	// requests counts API calls (taskgov_kubernetes_requests_total).
	requests *kube.RequestCounter
}

// openKube connects with kubeconfig (or the in-cluster config when it is
// empty) and waits for the node, pod and managed-pod caches.
func openKube(ctx context.Context, kubeconfig, image string, qps float32, ckpt kube.Checkpoints, retention time.Duration, workloads, teamNamespaces bool, log *slog.Logger) (*kubeBackend, error) {
	var cfg *rest.Config
	var err error
	if kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	} else if cfg, err = rest.InClusterConfig(); err != nil {
		return nil, &model.FieldError{Field: "--kubeconfig", Problem: "not given, and taskgov is not running inside a cluster (" + err.Error() + ")",
			Fix: "pass --kubeconfig ~/.kube/config, or run taskgov as a pod with its service account"}
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes: reading %s: %w", kubeconfig, err)
	}
	// client-go's default (5 requests/s, bursts of 10) would throttle a
	// burst of admissions to minutes; each pod costs a create and a bind.
	cfg.QPS, cfg.Burst = qps, int(2*qps)
	requests := kube.NewRequestCounter()
	cfg.Wrap(requests.Wrap)
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	b := &kubeBackend{client: client, nodes: kube.NewNodeSource(client, 0), exec: kube.NewExecutor(client, image), log: log, requests: requests}
	b.exec.KubeletReady = b.nodes.KubeletReady
	b.exec.Checkpoints = ckpt
	b.exec.Retention = retention
	if err := b.nodes.Start(ctx); err != nil {
		return nil, fmt.Errorf("kubernetes at %s: %w", cfg.Host, err)
	}
	if err := b.exec.Run(ctx); err != nil {
		return nil, err
	}
	if workloads {
		dyn, err := dynamic.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		kinds := kube.ServedKinds(client)
		b.workloads = kube.NewWorkloads(client, dyn, b.exec, kinds)
		b.workloads.Log = log
		if teamNamespaces {
			b.workloads.GovernTeamNamespaces()
		}
		if err := b.workloads.Sync(ctx); err != nil {
			return nil, fmt.Errorf("kubernetes at %s: %w", cfg.Host, err)
		}
		names := make([]string, len(kinds))
		for i, k := range kinds {
			names[i] = k.Name
		}
		log.Info("governing Kubernetes workloads with Kueue's queue label", "kinds", names, "teamNamespaces", teamNamespaces)
	}
	return b, nil
}

// statuses is the current node list for the engine; nodes that cannot be
// used are logged with the fix.
func (b *kubeBackend) statuses() []engine.NodeStatus {
	obs, errs := b.nodes.Snapshot()
	for _, err := range errs {
		b.log.Warn("kubernetes node left out", "err", err)
	}
	out := make([]engine.NodeStatus, len(obs))
	for i, o := range obs {
		out[i] = engine.NodeStatus{Spec: o.Node, Healthy: o.Healthy}
	}
	return out
}

// resyncNodes is how often nodes are synced without a change.
const resyncNodes = 30 * time.Second

// syncNodes feeds node changes to the engine until ctx ends, and every
// resyncNodes besides, so that an allocatable change deferred while its node
// was busy is applied once the node is idle.
func (b *kubeBackend) syncNodes(ctx context.Context, eng *engine.Engine) {
	tick := time.NewTicker(resyncNodes)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.nodes.Changed:
		case <-tick.C:
		}
		if n, err := eng.SyncNodes(ctx, b.statuses()); err != nil {
			b.log.Warn("syncing kubernetes nodes", "err", err)
		} else if n > 0 {
			b.log.Info("kubernetes nodes changed", "changes", n)
		}
	}
}
