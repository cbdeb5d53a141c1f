package kube

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/taskgov/taskgov/internal/model"
)

// pendingCapRecheck is how often a workload held by the pending cap is
// looked at again (a look reads the engine's View and writes nothing).
const pendingCapRecheck = 5 * time.Second

// reasonPendingCap is the Event reason of a workload held by the cap.
const reasonPendingCap = "PendingCap"

// pendingCapFix says what a workload's author can do about the cap.
const pendingCapFix = "it is queued by itself once the team has fewer pending tasks: wait for some to start, or delete some of the team's workloads (or cancel its tasks); an admin can raise the cap with `taskgov policy set --max-pending-per-team N`"

// overPendingCap leaves a workload whose team has the policy's
// maxPendingPerTeam pending tasks as an API submission past it is left:
// no task is made. It stays held (suspended, its pods gated), its status
// annotation names the cap and the fix, a Warning Event says so once, and
// it is looked at again every pendingCapRecheck until the team is under
// the cap, when it is submitted as any new workload. Nothing of it is
// lost: the object is the submission, and a restarted server finds it
// again as new.
func (w *Workloads) overPendingCap(ctx context.Context, k wkey, u *unstructured.Unstructured, capped *model.PendingCapError) error {
	w.mu.Lock()
	seen := w.warned[u.GetUID()] == reasonPendingCap
	w.warned[u.GetUID()] = reasonPendingCap
	w.mu.Unlock()
	if !seen {
		w.event(ctx, u, corev1.EventTypeWarning, reasonPendingCap, capped.Error()+"; "+pendingCapFix)
	}
	if err := w.hold(ctx, k, u, model.DefaultGracePeriodSeconds); err != nil {
		return err
	}
	w.queue.AddAfter(k, pendingCapRecheck)
	return w.setStatus(ctx, k, u, fmt.Sprintf("Held: team %s has the most pending tasks the cluster's policy lets one team queue (maxPendingPerTeam %d), so no task was made; %s",
		capped.Team, capped.Cap, pendingCapFix), true)
}
