package sim

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

func TestTraceRoundTripAndErrors(t *testing.T) {
	jobs := []Job{{SubmitS: 1.5, Name: "a", Team: "t", Priority: "training", InstanceType: "ml.p5.48xlarge", Nodes: 2,
		GPUsPerNode: 8, DurationS: 60, CheckpointIntervalS: 10, Topology: "required:" + model.LabelLayer3}}
	var b bytes.Buffer
	if err := WriteCSV(&b, jobs); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv")
	_ = os.WriteFile(p, b.Bytes(), 0o644)
	got, err := ReadTrace(p)
	if err != nil || len(got) != 1 || got[0] != jobs[0] {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	jl := filepath.Join(dir, "t.jsonl")
	_ = os.WriteFile(jl, []byte(`{"submit_time_s": 0, "name": "b", "team": "t", "instance_type": "ml.p5.48xlarge", "nodes": 1, "gpus_per_node": 1, "duration_s": 5}`+"\n"), 0o644)
	if got, err := ReadTrace(jl); err != nil || got[0].Name != "b" {
		t.Fatalf("jsonl: %+v %v", got, err)
	}
	for name, body := range map[string]string{
		"missing column": "submit_time_s,name,team\n0,a,t\n",
		"bad number":     strings.Join(CSVHeader, ",") + "\nsoon,a,t,,ml.p5.48xlarge,1,8,60,0,\n",
		"zero duration":  strings.Join(CSVHeader, ",") + "\n0,a,t,,ml.p5.48xlarge,1,8,0,0,\n",
		"bad topology":   strings.Join(CSVHeader, ",") + "\n0,a,t,,ml.p5.48xlarge,1,8,60,0,rack:3\n",
	} {
		p := filepath.Join(dir, "bad.csv")
		_ = os.WriteFile(p, []byte(body), 0o644)
		if _, err := ReadTrace(p); err == nil || !errors.Is(err, model.ErrInvalid) {
			t.Errorf("%s: want an invalid-input error, got %v", name, err)
		}
	}
}
