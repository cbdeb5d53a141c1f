package sim

import (
	"encoding/csv"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// AlibabaStats counts what the importer took and left.
type AlibabaStats struct {
	Nodes, InstanceTypes             int
	Pods, Imported                   int
	SkippedCPUOnly, FractionalRounds int
	Pending                          int // pods never scheduled in the trace (all, GPU or not)
	SkippedPending                   int // pods with GPUs never scheduled, left out
}

// ImportAlibaba reads the Alibaba GPU cluster trace v2023 ("openb") in dir
// and returns a cluster and a trace. The mapping (docs/SIMULATOR.md):
//   - each distinct node shape (GPU model, GPUs, vCPU, memory) becomes an
//     instance type named openb.<model>.<gpus>g.<vcpu>c, one node group each;
//   - a pod needs num_gpu whole GPUs (a fractional gpu_milli rounds up to 1);
//     pods with no GPU are left out, and so are pods never scheduled
//     (no scheduled_time, phase Pending): the source cluster never ran
//     them, so the trace gives them no run time (they were imported as
//     running for their pending time, work that never existed);
//   - its instance type is drawn, seeded by the pod's name, among the types
//     with enough GPUs where its team holds quota, in proportion to their
//     GPU capacity;
//   - qos LS → class latency-sensitive (80), BE → best-effort (20), others →
//     standard (50);
//   - team = team-<fnv32(name, seed) mod teams>; teams share every type's
//     nodes equally as quota, the remainder going one node each to the
//     teams from the type's index on (mod teams), so a type's quotas add up
//     to its nodes;
//   - every team may borrow (teams − 1) × its quota (at most 500%, the
//     model's bound when this mapping was set, kept so that its figures
//     stay comparable; the model now allows 10000%): the source cluster had no teams or quotas, any pod
//     could use any idle GPU, so a team's quota plus its borrow limit
//     covers the type (with six teams or fewer, up to the remainder
//     nodes). The model's default, 50%, kept pods waiting at their team's
//     limit beside idle GPUs of their type, a wait the trace never had;
//   - scale (≤ 0 means 1) multiplies each type's node count (rounded, at
//     least one node) before the quotas are shared and the types drawn:
//     scaling the quotas after the import instead, each rounded up to a
//     node, gave six teams a node's quota each on one-node types, quotas
//     no cluster could honour;
//   - submit = creation_time; duration = deletion_time − scheduled_time,
//     at least 1 s.
func ImportAlibaba(dir string, teams int, seed int64, scale float64) (model.Cluster, []Job, AlibabaStats, error) {
	var st AlibabaStats
	if teams <= 0 {
		teams = 6
	}
	if scale <= 0 {
		scale = 1
	}
	nodes, err := readCSVFile(filepath.Join(dir, "openb_node_list_gpu_node.csv"))
	if err != nil {
		return model.Cluster{}, nil, st, err
	}
	type shape struct {
		model          string
		gpus           int64
		cpuMilli, memM int64
	}
	count := map[shape]int{}
	for _, n := range nodes {
		g, _ := strconv.ParseInt(n["gpu"], 10, 64)
		c, _ := strconv.ParseInt(n["cpu_milli"], 10, 64)
		m, _ := strconv.ParseInt(n["memory_mib"], 10, 64)
		count[shape{strings.ToLower(n["model"]), g, c, m}]++
	}
	for s, n := range count {
		st.Nodes += n
		count[s] = max(1, int(float64(n)*scale+0.5))
	}
	shapes := make([]shape, 0, len(count))
	for s := range count {
		shapes = append(shapes, s)
	}
	sort.Slice(shapes, func(a, b int) bool {
		return typeName(shapes[a].model, shapes[a].gpus, shapes[a].cpuMilli) < typeName(shapes[b].model, shapes[b].gpus, shapes[b].cpuMilli)
	})
	c := model.Cluster{Policy: model.Policy{TaskPrioritization: model.TaskRanking, IdleComputeAllocation: model.FairShare,
		PriorityClasses: []model.PriorityClass{{Name: "latency-sensitive", Weight: 80}, {Name: "standard", Weight: 50}, {Name: "best-effort", Weight: 20}}}}
	borrow := min(500, (teams-1)*100)
	for k := 0; k < teams; k++ {
		b := borrow
		c.Teams = append(c.Teams, model.Team{Name: fmt.Sprintf("team-%d", k), BorrowLimitPercent: &b})
	}
	// quota[i][k] is team k's share of shape i's nodes.
	quota := make([][]int64, len(shapes))
	for i, s := range shapes {
		quota[i] = make([]int64, teams)
		for k := range quota[i] {
			quota[i][k] = int64(count[s] / teams)
		}
		for j := 0; j < count[s]%teams; j++ {
			quota[i][(i+j)%teams]++
		}
	}
	for i, s := range shapes {
		name := typeName(s.model, s.gpus, s.cpuMilli)
		c.InstanceTypes = append(c.InstanceTypes, model.InstanceType{Name: name, GPUs: s.gpus, VCPU: float64(s.cpuMilli) / 1000, MemoryGiB: float64(s.memM) / 1024})
		c.NodeGroups = append(c.NodeGroups, model.NodeGroup{Name: strings.ReplaceAll(strings.TrimPrefix(name, "openb."), ".", "-"), InstanceType: name, Count: count[s]})
		for k := range c.Teams {
			q := quota[i][k]
			c.Teams[k].Quotas = append(c.Teams[k].Quotas, model.Quota{InstanceType: name, Count: &q})
		}
	}
	st.InstanceTypes = len(shapes)
	pods, err := readCSVFile(filepath.Join(dir, "openb_pod_list_default.csv"))
	if err != nil {
		return c, nil, st, err
	}
	st.Pods = len(pods)
	var jobs []Job
	for _, p := range pods {
		n, _ := strconv.ParseInt(p["num_gpu"], 10, 64)
		milli, _ := strconv.ParseInt(p["gpu_milli"], 10, 64)
		pending := p["scheduled_time"] == ""
		if pending {
			st.Pending++
		}
		if n == 0 {
			st.SkippedCPUOnly++
			continue
		}
		if pending {
			st.SkippedPending++
			continue
		}
		if milli > 0 && milli < 1000 {
			st.FractionalRounds++
		}
		created, _ := strconv.ParseFloat(p["creation_time"], 64)
		deleted, _ := strconv.ParseFloat(p["deletion_time"], 64)
		start, err := strconv.ParseFloat(p["scheduled_time"], 64)
		if err != nil {
			return c, nil, st, fmt.Errorf("alibaba trace: pod %s: scheduled_time %q is not a number", p["name"], p["scheduled_time"])
		}
		prio := map[string]string{"LS": "latency-sensitive", "BE": "best-effort"}[p["qos"]]
		if prio == "" {
			prio = "standard"
		}
		h := fnv.New32a()
		fmt.Fprintf(h, "%s/%d", p["name"], seed)
		sum := h.Sum32()
		// Pick a type with enough GPUs where the team holds quota (a team
		// cannot borrow what it has no quota for), weighted by GPU capacity.
		team := int(sum % uint32(teams))
		var fits []shape
		total := 0
		for i, s := range shapes {
			if s.gpus >= n && quota[i][team] > 0 {
				fits = append(fits, s)
				total += count[s] * int(s.gpus)
			}
		}
		if total == 0 {
			continue
		}
		x := int(sum>>8) % total
		pick := fits[len(fits)-1]
		for _, s := range fits {
			if x < count[s]*int(s.gpus) {
				pick = s
				break
			}
			x -= count[s] * int(s.gpus)
		}
		jobs = append(jobs, Job{SubmitS: created, Name: p["name"], Team: fmt.Sprintf("team-%d", team),
			Priority: prio, InstanceType: typeName(pick.model, pick.gpus, pick.cpuMilli), Nodes: 1, GPUsPerNode: n,
			DurationS: max(1, deleted-start)})
	}
	st.Imported = len(jobs)
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].SubmitS < jobs[b].SubmitS })
	return c, jobs, st, nil
}

func typeName(model string, gpus, cpuMilli int64) string {
	return fmt.Sprintf("openb.%s.%dg.%dc", model, gpus, cpuMilli/1000)
}

// readCSVFile reads a CSV with a header into maps.
func readCSVFile(path string) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the Alibaba trace: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []map[string]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		m := make(map[string]string, len(head))
		for i, h := range head {
			if i < len(rec) {
				m[h] = rec[i]
			}
		}
		out = append(out, m)
	}
}
