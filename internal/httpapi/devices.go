package httpapi

import (
	"net/http"
	"time"

	"github.com/taskgov/taskgov/internal/devices"
	"github.com/taskgov/taskgov/internal/model"
)

// deviceUse serves GET /api/v1/devices: nvidia-smi's per-GPU utilisation and
// each readable running task's share, or available=false with the reason.
// With WithPrometheus it reads the DCGM exporter instead (dcgmUse).
func (s *Server) deviceUse(w http.ResponseWriter, r *http.Request, p principal) error {
	if s.dcgm != nil {
		return s.dcgmUse(w, r, p)
	}
	snap := s.devices.Sample(r.Context(), time.Now())
	tasks := []devices.TaskUse{}
	if snap.Available {
		f := model.TaskFilter{States: []string{string(model.StateRunning)}, Limit: 1000}
		if allowed := p.readableTeams(); allowed != nil {
			for t := range allowed {
				f.Teams = append(f.Teams, t)
			}
		}
		recs, err := s.st.ListTasks(r.Context(), f)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			tasks = append(tasks, devices.Attribute(snap, rec.Name, rec.Team, rec.Placement))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"available": snap.Available, "reason": snap.Reason,
		"sampledAt": snap.SampledAt, "gpus": snap.GPUs, "tasks": tasks})
	return nil
}
