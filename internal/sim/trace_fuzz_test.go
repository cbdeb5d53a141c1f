package sim

import (
	"bytes"
	"io"
	"math"
	"testing"
)

// fuzzCluster is where accepted fuzz traces are replayed: small, so that a
// replay takes microseconds.
var fuzzCluster = tinyCluster(2, 2)

// checkAccepted replays a trace the reader accepted: every job must be sane
// (finite numbers, whole nodes) and the replay must end without a panic.
func checkAccepted(t *testing.T, jobs []Job) {
	for _, j := range jobs {
		for _, v := range []float64{j.SubmitS, j.DurationS, j.CheckpointIntervalS, j.VCPUPerNode} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted a job with a non-finite number: %+v", j)
			}
		}
		if j.Nodes < 1 || j.DurationS <= 0 || j.SubmitS < 0 {
			t.Fatalf("accepted a job that check should refuse: %+v", j)
		}
	}
	if len(jobs) > 50 {
		return // a replay of many fuzzed jobs adds nothing but time
	}
	if _, err := Run(jobs, Options{Cluster: fuzzCluster}); err != nil {
		return // refusals (unknown types, duplicate names) are errors, not panics
	}
}

// FuzzReadCSV: no CSV input panics the reader or a replay, and whatever is
// accepted is sane. `go test` runs the seeds; `go test -fuzz FuzzReadCSV`
// searches further.
func FuzzReadCSV(f *testing.F) {
	head := "submit_time_s,name,team,priority,instance_type,nodes,gpus_per_node,duration_s,checkpoint_interval_s,topology\n"
	for _, s := range []string{
		head + "0,j1,a,,ml.p5.48xlarge,1,8,100,0,\n10,j2,a,,ml.p5.48xlarge,2,0,50,10,required:topology.k8s.aws/network-node-layer-3\n",
		head + "NaN,j1,a,,ml.p5.48xlarge,1,8,100,0,\n",
		head + "0,j1,a,,ml.p5.48xlarge,1.5,8,100,0,\n",
		head + "0,j1,a,,ml.p5.48xlarge,1,8,Inf,0,\n",
		head + "0,j1,a,,ml.p5.48xlarge,1e300,8,100,0,\n",
		head,
		"name,team\n",
		"",
	} {
		f.Add([]byte(s))
	}
	fuzzReader(f, readCSV)
}

// FuzzReadJSONL: the same for the JSON-lines form.
func FuzzReadJSONL(f *testing.F) {
	for _, s := range []string{
		`{"submit_time_s":0,"name":"j1","team":"a","priority":"","instance_type":"ml.p5.48xlarge","nodes":1,"gpus_per_node":8,"duration_s":100,"checkpoint_interval_s":0,"topology":""}` + "\n",
		`{"submit_time_s":0,"name":"j1","team":"a","instance_type":"ml.p5.48xlarge","nodes":1,"duration_s":1e400}` + "\n",
		`{"name":"j1","nodes":-1}` + "\n",
		"\n\n",
		"{",
	} {
		f.Add([]byte(s))
	}
	fuzzReader(f, readJSONL)
}

// fuzzReader checks every input read accepts (checkAccepted).
func fuzzReader(f *testing.F, read func(io.Reader) ([]Job, error)) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if jobs, err := read(bytes.NewReader(data)); err == nil {
			checkAccepted(t, jobs)
		}
	})
}
