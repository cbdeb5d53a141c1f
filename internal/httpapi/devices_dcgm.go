package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/taskgov/taskgov/internal/dcgm"
	"github.com/taskgov/taskgov/internal/model"
)

// dcgmMaxAge is how long one Prometheus answer serves the devices endpoint.
const dcgmMaxAge = 5 * time.Second

// dcgmSource is measured GPU utilisation on Kubernetes, from the DCGM
// exporter through Prometheus, cached for dcgmMaxAge.
type dcgmSource struct {
	client *dcgm.Client
	mu     sync.Mutex
	at     time.Time
	gpus   []dcgm.GPU
	err    error
}

func (d *dcgmSource) sample(ctx context.Context, now time.Time) ([]dcgm.GPU, time.Time, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.at.IsZero() || now.Sub(d.at) >= dcgmMaxAge {
		d.gpus, d.err = d.client.GPUs(ctx, now)
		d.at = now
	}
	return d.gpus, d.at, d.err
}

// WithPrometheus makes GET /api/v1/devices read per-pod GPU utilisation from
// the DCGM exporter's DCGM_FI_DEV_GPU_UTIL through the Prometheus at url,
// instead of running nvidia-smi on the server's host.
func (s *Server) WithPrometheus(url string) *Server {
	if url != "" {
		s.dcgm = &dcgmSource{client: &dcgm.Client{URL: url}}
	}
	return s
}

// dcgmTaskUse is a running task's measured GPUs.
type dcgmTaskUse struct {
	Task            string `json:"task"`
	Team            string `json:"team"`
	InstanceType    string `json:"instanceType"`
	GPUs            []int  `json:"gpus"` // device indices on their nodes, one per measured GPU
	MeanUtilPercent int    `json:"meanUtilPercent"`
}

// dcgmUse serves the devices endpoint from Prometheus: every GPU (the pod
// on it named only when the caller may read that pod's team) and each
// readable running task's mean over the GPUs its pods (task-rank-runN) use.
func (s *Server) dcgmUse(w http.ResponseWriter, r *http.Request, p principal) error {
	gpus, at, err := s.dcgm.sample(r.Context(), time.Now())
	if err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"available": false, "source": "prometheus",
			"reason": "device utilisation is unavailable: " + err.Error(), "gpus": []dcgm.GPU{}, "tasks": []dcgmTaskUse{}})
		return nil
	}
	f := model.TaskFilter{States: []string{string(model.StateRunning)}, Limit: 10000}
	if allowed := p.readableTeams(); allowed != nil {
		for t := range allowed {
			f.Teams = append(f.Teams, t)
		}
	}
	recs, err := s.st.ListTasks(r.Context(), f)
	if err != nil {
		return err
	}
	byPod := map[string]*dcgmTaskUse{}
	uses := make([]*dcgmTaskUse, len(recs))
	for i, rec := range recs {
		uses[i] = &dcgmTaskUse{Task: rec.Name, Team: rec.Team, InstanceType: rec.Spec.InstanceType, GPUs: []int{}, MeanUtilPercent: -1}
		for rank := range max(rec.Spec.Nodes, 1) {
			byPod[fmt.Sprintf("%s-%d-run%d", rec.Name, rank, rec.Resumes)] = uses[i]
		}
	}
	teamOf := map[string]string{}
	for _, t := range s.eng.View().Teams() {
		teamOf[t.Namespace] = t.Name
	}
	sum := map[*dcgmTaskUse]int{}
	shown := make([]dcgm.GPU, len(gpus))
	for i, g := range gpus {
		if u := byPod[g.Pod]; u != nil {
			u.GPUs = append(u.GPUs, g.Index)
			sum[u] += g.UtilPercent
		}
		if team, ok := teamOf[g.Namespace]; g.Pod != "" && (!ok || !p.canRead(team)) {
			g.Pod, g.Namespace = "(other team)", ""
		}
		shown[i] = g
	}
	tasks := make([]dcgmTaskUse, len(uses))
	for i, u := range uses {
		if n := len(u.GPUs); n > 0 {
			u.MeanUtilPercent = (sum[u] + n/2) / n
		}
		tasks[i] = *u
	}
	writeJSON(w, http.StatusOK, map[string]any{"available": true, "source": "Prometheus (" + dcgm.Metric + ")", "sampledAt": at,
		"gpus": shown, "tasks": tasks})
	return nil
}
