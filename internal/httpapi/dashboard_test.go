package httpapi

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/trends"
)

// TestDashboardReads covers the small reads the dashboard needs: the
// favicon, a week's trend before the first hour is downsampled, and vCPU
// and memory in usage and nodes.
func TestDashboardReads(t *testing.T) {
	e := newEnv(t, testCluster)
	for _, path := range []string{"/favicon.ico", "/ui/favicon.ico"} {
		code, body := e.do("GET", path, "", nil)
		if code != 200 || !bytes.HasPrefix(body, []byte{0, 0, 1, 0, 1, 0}) || !bytes.Contains(body, []byte("PNG")) {
			t.Errorf("%s: %d, %d bytes, not an icon", path, code, len(body))
		}
	}
	now := time.Now().UTC()
	var fine []model.Sample
	for i := range 20 {
		fine = append(fine, model.Sample{At: now.Add(-time.Duration(20-i) * time.Minute), InstanceType: "ml.p5.48xlarge", GPUs: 32, GPUsUsed: 16})
	}
	if err := e.st.AddSamples(context.Background(), trends.Fine, fine); err != nil {
		t.Fatal(err)
	}
	var week struct{ Samples []model.Sample }
	e.mustDo("GET", "/api/v1/trends?window=1w", e.admin, nil, 200, &week)
	if len(week.Samples) == 0 || week.Samples[0].GPUsUsed != 16 {
		t.Errorf("a week's trend with 20 minutes of fine samples and no hourly ones: %+v", week.Samples)
	}
	big := spec("big", "alpha", "sleep", "30")
	big.Nodes = 3
	e.mustDo("POST", "/api/v1/tasks", e.admin, big, 201, nil)
	e.waitState("big", model.StateRunning, 10*time.Second)
	var u struct{ Usage []apitypes.Usage }
	e.mustDo("GET", "/api/v1/usage", e.admin, nil, 200, &u)
	for _, row := range u.Usage {
		if row.Team == "alpha" && (row.UsedVCPU != 3*192 || row.BorrowedVCPU != 192 || row.QuotaMemGiB != 2*2048 || row.BorrowedMemGiB != 2048) {
			t.Errorf("alpha on p5 with 3 nodes for a 2-node quota: %+v", row)
		}
	}
	var n struct{ Nodes []apitypes.Node }
	e.mustDo("GET", "/api/v1/nodes", e.admin, nil, 200, &n)
	if len(n.Nodes) == 0 || n.Nodes[0].VCPU != 192 || n.Nodes[0].MemGiB != 2048 {
		t.Errorf("nodes: %+v", n.Nodes)
	}
}
