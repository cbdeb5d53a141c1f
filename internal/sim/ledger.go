package sim

import (
	"fmt"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// ledger is the simulator's own account of what runs on each node, kept
// from the decisions it applies and not read from the core: a placement on
// a node without room for the pod, or on a node the run has failed, ends
// the run with an error naming the task, the node and the shortfall. The
// core's books and its placements once disagreed (a task started on a full
// node, 15 times in a 70% trace) and the report showed nothing. The cost
// is one vector add and compare per pod placed, one subtract per pod
// released.
type ledger struct {
	index    map[string]int // node name → slot
	names    []string
	capacity []resource.Vector
	used     []resource.Vector
	down     []bool
	placed   map[string][]int // running job → the slot of each of its pods
}

func newLedger(s *core.Scheduler) *ledger {
	nodes := s.Nodes()
	l := &ledger{index: make(map[string]int, len(nodes)), names: make([]string, len(nodes)),
		capacity: make([]resource.Vector, len(nodes)), used: make([]resource.Vector, len(nodes)),
		down: make([]bool, len(nodes)), placed: map[string][]int{}}
	for i, n := range nodes {
		l.index[n.Spec.Name], l.names[i], l.capacity[i], l.down[i] = i, n.Spec.Name, n.Capacity, !n.Healthy
	}
	return l
}

// admit books j's pods on the nodes of its admission's placement, or says
// why one of them cannot be there.
func (l *ledger) admit(j *job, pods []model.PodPlacement) error {
	if _, running := l.placed[j.Name]; running {
		return fmt.Errorf("sim: task %s was admitted while it already holds nodes (admitted twice without a release)", j.Name)
	}
	pod := j.pod
	slots := make([]int, 0, len(pods))
	for _, p := range pods {
		name := p.Node
		i, ok := l.index[name]
		switch {
		case !ok:
			return fmt.Errorf("sim: task %s was placed on node %q, which the cluster does not have", j.Name, name)
		case l.down[i]:
			return fmt.Errorf("sim: task %s was placed on node %s, which is down", j.Name, name)
		}
		free := l.capacity[i].Sub(l.used[i])
		if k, over := pod.Exceeded(free); over {
			return fmt.Errorf("sim: task %s was placed on node %s without room for its pod: it needs %s, the node has %s free of %s (%s short)",
				j.Name, name, pod, free.Max(resource.Zero), l.capacity[i], resource.Format(k, pod.Get(k)-free.Get(k)))
		}
		l.used[i] = l.used[i].Add(pod)
		slots = append(slots, i)
	}
	l.placed[j.Name] = slots
	return nil
}

// release frees a job's pods when it completes or is preempted.
func (l *ledger) release(j *job) {
	for _, i := range l.placed[j.Name] {
		l.used[i] = l.used[i].Sub(j.pod)
	}
	delete(l.placed, j.Name)
}

// health records a node going down or coming back; its pods stay booked
// until the core's eviction of them is applied.
func (l *ledger) health(name string, up bool) {
	if i, ok := l.index[name]; ok {
		l.down[i] = !up
	}
}
