package sim

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// Job is one trace entry.
type Job struct {
	SubmitS             float64 `json:"submit_time_s"`
	Name                string  `json:"name"`
	Team                string  `json:"team"`
	Priority            string  `json:"priority"`
	InstanceType        string  `json:"instance_type"`
	Nodes               int     `json:"nodes"`
	GPUsPerNode         int64   `json:"gpus_per_node"`
	DurationS           float64 `json:"duration_s"`
	CheckpointIntervalS float64 `json:"checkpoint_interval_s"`
	// Topology is "", "required:<label>" or "preferred:<label>".
	Topology string `json:"topology"`
	// VCPUPerNode, if set, requests vCPU instead of GPUs (CPU-only types).
	VCPUPerNode float64 `json:"vcpu_per_node,omitempty"`
}

// CSVHeader is the generic trace format's column list; keep it stable.
var CSVHeader = []string{"submit_time_s", "name", "team", "priority", "instance_type", "nodes", "gpus_per_node",
	"duration_s", "checkpoint_interval_s", "topology"}

// ReadTrace reads a CSV (by header) or JSONL (.jsonl) trace file.
func ReadTrace(path string) ([]Job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if strings.HasSuffix(path, ".jsonl") {
		return readJSONL(f)
	}
	return readCSV(f)
}

func readJSONL(r io.Reader) ([]Job, error) {
	var out []Job
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var j Job
		if err := dec.Decode(&j); err != nil {
			return nil, fmt.Errorf("trace line %d: %v; use the fields %s: %w", line, err, strings.Join(CSVHeader, ", "), model.ErrInvalid)
		}
		if err := j.check(line); err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, sc.Err()
}

func readCSV(r io.Reader) ([]Job, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("trace: reading the header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	for _, h := range CSVHeader {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("trace: the header lacks column %q; the columns are %s: %w", h, strings.Join(CSVHeader, ","), model.ErrInvalid)
		}
	}
	var out []Job
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("trace line %d: %w", line, err)
		}
		get := func(h string) string {
			if i := col[h]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		num := func(h string) (float64, error) {
			v, err := strconv.ParseFloat(get(h), 64)
			if err != nil {
				return 0, fmt.Errorf("trace line %d: %s %q is not a number: %w", line, h, get(h), model.ErrInvalid)
			}
			return v, nil
		}
		var j Job
		var nodes, gpus float64
		if j.SubmitS, err = num("submit_time_s"); err != nil {
			return nil, err
		}
		if nodes, err = num("nodes"); err != nil {
			return nil, err
		}
		if gpus, err = num("gpus_per_node"); err != nil {
			return nil, err
		}
		if j.DurationS, err = num("duration_s"); err != nil {
			return nil, err
		}
		if get("checkpoint_interval_s") != "" {
			if j.CheckpointIntervalS, err = num("checkpoint_interval_s"); err != nil {
				return nil, err
			}
		}
		for k, v := range []float64{nodes, gpus} {
			if v != math.Trunc(v) || v < 0 || v > 1e6 {
				h := []string{"nodes", "gpus_per_node"}[k]
				return nil, fmt.Errorf("trace line %d: %s %q must be a whole number from 0 to 1000000: %w", line, h, get(h), model.ErrInvalid)
			}
		}
		j.Name, j.Team, j.Priority, j.InstanceType, j.Topology = get("name"), get("team"), get("priority"), get("instance_type"), get("topology")
		j.Nodes, j.GPUsPerNode = int(nodes), int64(gpus)
		if err := j.check(line); err != nil {
			return nil, err
		}
		out = append(out, j)
	}
}

// maxSeconds bounds every time in a trace (about 31 years), so that virtual
// times stay well inside time.Duration.
const maxSeconds = 1e9

func (j Job) check(line int) error {
	bad := func(what string) error {
		return fmt.Errorf("trace line %d (%s): %s: %w", line, j.Name, what, model.ErrInvalid)
	}
	for _, v := range []float64{j.SubmitS, j.DurationS, j.CheckpointIntervalS, j.VCPUPerNode} {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxSeconds {
			return bad(fmt.Sprintf("%v is not a usable number: times and sizes must be finite and at most %g", v, maxSeconds))
		}
	}
	switch {
	case j.Name == "" || j.Team == "" || j.InstanceType == "":
		return bad("name, team and instance_type are required")
	case j.SubmitS < 0 || j.DurationS <= 0:
		return bad("submit_time_s must be >= 0 and duration_s > 0")
	case j.Nodes < 1 || j.GPUsPerNode < 0 || j.CheckpointIntervalS < 0:
		return bad("nodes must be >= 1, gpus_per_node and checkpoint_interval_s >= 0")
	}
	if j.Topology != "" && !strings.HasPrefix(j.Topology, "required:") && !strings.HasPrefix(j.Topology, "preferred:") {
		return bad(`topology must be empty, "required:<label>" or "preferred:<label>"`)
	}
	return nil
}

// WriteCSV writes jobs in the generic CSV format.
func WriteCSV(w io.Writer, jobs []Job) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(CSVHeader)
	for _, j := range jobs {
		_ = cw.Write([]string{ftoa(j.SubmitS), j.Name, j.Team, j.Priority, j.InstanceType, strconv.Itoa(j.Nodes),
			strconv.FormatInt(j.GPUsPerNode, 10), ftoa(j.DurationS), ftoa(j.CheckpointIntervalS), j.Topology})
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSONL writes jobs one JSON object per line, the form that also carries
// vcpu_per_node (CPU-only requests).
func WriteJSONL(w io.Writer, jobs []Job) error {
	enc := json.NewEncoder(w)
	for _, j := range jobs {
		if err := enc.Encode(j); err != nil {
			return err
		}
	}
	return nil
}

// WriteTrace writes jobs to path: JSONL if it ends in .jsonl, else CSV. The
// CSV form has no vCPU column, so a CPU-only job there is an error that says
// to use .jsonl.
func WriteTrace(path string, jobs []Job) error {
	jsonl := strings.HasSuffix(path, ".jsonl")
	if !jsonl {
		for _, j := range jobs {
			if j.VCPUPerNode > 0 {
				return &model.FieldError{Field: "--trace", Problem: fmt.Sprintf("job %s requests vCPU, which the CSV form cannot hold", j.Name),
					Fix: "write a .jsonl trace instead"}
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if jsonl {
		err = WriteJSONL(f, jobs)
	} else {
		err = WriteCSV(f, jobs)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// spec turns a job into a task spec for the core.
func (j Job) spec() model.TaskSpec {
	s := model.TaskSpec{Name: j.Name, Team: j.Team, Priority: j.Priority, InstanceType: j.InstanceType, Nodes: j.Nodes}
	if j.GPUsPerNode > 0 || j.VCPUPerNode > 0 {
		s.PerNode = model.Request{GPUs: j.GPUsPerNode, VCPU: j.VCPUPerNode}
	}
	if kind, label, ok := strings.Cut(j.Topology, ":"); ok {
		if kind == "required" {
			s.RequiredTopology = label
		} else {
			s.PreferredTopology = label
		}
	}
	return s
}
