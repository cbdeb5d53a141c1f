package httpapi

import (
	"net/http"
	"sort"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
)

// getCluster returns the cluster as the scheduler runs it now, in the
// cluster file's shape: every node with its labels (cordoned nodes marked
// unschedulable), the instance types nodes and quotas use, the policy and the
// teams. `taskgov sim export` writes it as a cluster file, so an admin can
// replay past work on this very cluster under another policy. Admin only:
// it names every team.
func (s *Server) getCluster(w http.ResponseWriter, r *http.Request, p principal) error {
	if !p.admin() {
		return errForbidden
	}
	v := s.eng.View()
	c := liveCluster(v)
	c.Name = v.ClusterName()
	writeJSON(w, http.StatusOK, c)
	return nil
}

// liveCluster renders the scheduler's current nodes, teams and policy as a
// cluster file.
func liveCluster(v *engine.View) model.Cluster {
	c := model.Cluster{TopologyLevels: v.Levels(), Policy: v.Policy(), Teams: v.Teams()}
	used := map[string]bool{}
	for _, n := range v.Nodes() {
		c.Nodes = append(c.Nodes, model.Node{Name: n.Spec.Name, InstanceType: n.Spec.InstanceType,
			Labels: n.Spec.Labels, Unschedulable: n.Spec.Unschedulable})
		used[n.Spec.InstanceType] = true
	}
	for _, t := range c.Teams {
		for _, q := range t.Quotas {
			used[q.InstanceType] = true
		}
	}
	cat := v.Catalog()
	for name := range used {
		if it, ok := cat[name]; ok {
			c.InstanceTypes = append(c.InstanceTypes, it)
		}
	}
	sort.Slice(c.InstanceTypes, func(a, b int) bool { return c.InstanceTypes[a].Name < c.InstanceTypes[b].Name })
	return c
}
