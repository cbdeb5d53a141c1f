package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestDevicesFromPrometheus: with a Prometheus URL, the devices endpoint
// reads DCGM_FI_DEV_GPU_UTIL from a real HTTP server that answers as
// Prometheus does, credits each running task with the GPUs its pods use,
// and hides other teams' pods from a member; an unreachable Prometheus is
// "unavailable" with the reason.
func TestDevicesFromPrometheus(t *testing.T) {
	e := newEnv(t, testCluster)
	s := spec("a-train", "alpha", "sleep", "30")
	s.Nodes = 2
	e.mustDo("POST", "/api/v1/tasks", e.admin, s, 201, nil)
	e.waitState("a-train", model.StateRunning, 10*time.Second)
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"success","data":{"resultType":"vector","result":[
		 {"metric":{"gpu":"3","Hostname":"p5-0","namespace":"hyperpod-ns-alpha","pod":"a-train-0-run0"},"value":[1,"80"]},
		 {"metric":{"gpu":"5","Hostname":"p5-1","namespace":"hyperpod-ns-alpha","pod":"a-train-1-run0"},"value":[1,"61"]},
		 {"metric":{"gpu":"0","Hostname":"p5-2","namespace":"hyperpod-ns-beta","pod":"b-secret-0-run0"},"value":[1,"99"]}]}}`)
	}))
	defer prom.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	api := httptest.NewServer(New(e.eng, log, func() bool { return true }).WithPrometheus(prom.URL))
	defer api.Close()
	member := e.token(model.RoleMember, "alpha")
	var got struct {
		Available bool
		GPUs      []struct{ Node, Pod string }
		Tasks     []dcgmTaskUse
	}
	dcgmGet(t, api.URL+"/api/v1/devices", member, &got)
	if !got.Available || len(got.Tasks) != 1 || got.Tasks[0].MeanUtilPercent != 71 || len(got.Tasks[0].GPUs) != 2 || got.Tasks[0].InstanceType != "ml.p5.48xlarge" {
		t.Fatalf("member of alpha: %+v", got)
	}
	if len(got.GPUs) != 3 || got.GPUs[2].Pod != "(other team)" || got.GPUs[0].Pod != "a-train-0-run0" {
		t.Errorf("GPUs as alpha's member sees them: %+v", got.GPUs)
	}
	prom.Close()
	down := httptest.NewServer(New(e.eng, log, func() bool { return true }).WithPrometheus(prom.URL))
	defer down.Close()
	var off struct {
		Available bool
		Reason    string
	}
	dcgmGet(t, down.URL+"/api/v1/devices", e.admin, &off)
	if off.Available || off.Reason == "" {
		t.Errorf("Prometheus down: %+v", off)
	}
}

func dcgmGet(t *testing.T, url, token string, out any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}
