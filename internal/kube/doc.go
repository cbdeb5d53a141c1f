// Package kube is the Kubernetes side of taskgov:
//
//   - nodes: it reads nodes (and the pods taskgov does not manage) from a
//     real API server through client-go informers and turns them into the
//     scheduler's model.Node (nodes.go, source.go);
//   - the pod executor: API tasks' pods, created and bound by taskgov
//     (executor.go, adopt.go, checkpoints.go, retention.go);
//   - workloads: Kueue-labelled Jobs, PyTorchJobs, JobSets and
//     HyperPodPyTorchJobs users apply, mapped to tasks (workload_map.go),
//     held until admitted, placed pod by pod on the admitted nodes and
//     stopped on preemption (workload_ctl.go, workload_reconcile.go,
//     workload_exec.go, workload_bind.go); a kubectl delete deletes the
//     task, a leader's start deletes those whose objects went while none
//     ran (workload_sweep.go), and the API's delete of a workload's task
//     leaves the object held (workload_delete.go); with GovernTeamNamespaces, also those without
//     the label in a team's namespace, which it labels taskgov.io/team
//     (namespaces.go). Workloads wraps the pod executor, so the engine
//     sees one executor.Executor; it reaches the engine only through the
//     Governor interface it declares.
//
// It imports model, resource and executor; the scheduling core never
// imports it, and it never imports core, engine or store.
package kube
