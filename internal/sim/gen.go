package sim

import (
	"fmt"
	"math"
	"math/rand"
	"sort"

	"github.com/taskgov/taskgov/internal/model"
)

// GenOptions shape a synthetic workload.
type GenOptions struct {
	Seed  int64
	Teams int
	Jobs  int
	// GPUs is the cluster size; nodes are ml.p5.48xlarge (8 GPUs) in a
	// three-layer topology.
	GPUs int
	// Load is the offered load: arriving GPU·s per second ÷ GPUs.
	Load float64
	// MaxNodes caps gang sizes (default 16).
	MaxNodes int
	// Backlog jobs (the trace's first) are all submitted at time 0, a queue
	// to start from; the rest arrive at the offered load after them.
	Backlog int
	// Mix is the job-size mix: MixAll (the default, "") or MixNodes.
	Mix string
}

// The size mixes Generate knows.
const (
	// MixAll: 1, 2 and 4 GPUs, a whole node, and gangs of 2 to 16 nodes.
	MixAll = "all"
	// MixNodes: whole-node work only, one node or a gang of 2 or 4 (half,
	// a third, a sixth of the jobs). With a queue behind a full cluster, a
	// node that frees goes to a waiting job, not to a few small jobs that
	// pass the queue, so the number pending follows the backlog of work:
	// the mix for a deep backlog by count.
	MixNodes = "nodes"
)

// Generate makes a cluster and a trace: diurnal arrivals (rate ±50% over a
// day), a size mix from 1 GPU to multi-node gangs, four priority classes,
// checkpoint intervals for training work, and preferred or required
// topology for some gangs. Teams get equal quotas and weights 10 to 50.
func Generate(o GenOptions) (model.Cluster, []Job) {
	if o.Mix != "" && o.Mix != MixAll && o.Mix != MixNodes {
		panic(fmt.Sprintf("sim: unknown size mix %q", o.Mix))
	}
	r := rand.New(rand.NewSource(o.Seed))
	if o.Teams <= 0 {
		o.Teams = 4
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = 16
	}
	nodes := max(o.GPUs/8, 1)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: "ml.p5.48xlarge", Count: nodes,
			Topology: &model.Topology{NodesPerLayer3: 16, Layer3PerLayer2: 4, Layer2PerLayer1: 4}}},
		Policy: model.Policy{TaskPrioritization: model.TaskRanking, IdleComputeAllocation: model.FairShare,
			PriorityClasses: []model.PriorityClass{{Name: "inference", Weight: 90}, {Name: "experimentation", Weight: 80},
				{Name: "training", Weight: 70}, {Name: "fine-tuning", Weight: 50}}},
	}
	for k := 0; k < o.Teams; k++ {
		q := int64(nodes / o.Teams)
		if k < nodes%o.Teams {
			q++
		}
		w := 10 + 10*(k%5)
		c.Teams = append(c.Teams, model.Team{Name: fmt.Sprintf("team-%d", k), FairShareWeight: &w,
			BorrowLimitPercent: ptrInt(200), Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &q}}})
	}
	type shape struct {
		nodes int
		gpus  int64
		p     float64
	}
	shapes := []shape{{1, 1, 0.25}, {1, 2, 0.15}, {1, 4, 0.15}, {1, 8, 0.15}, {2, 8, 0.12}, {4, 8, 0.1}, {8, 8, 0.05}, {16, 8, 0.03}}
	if o.Mix == MixNodes {
		shapes = []shape{{1, 8, 0.5}, {2, 8, 1.0 / 3}, {4, 8, 1.0 / 6}}
	}
	// A gang must fit every team's quota plus its 200% borrow limit.
	teamMax := 3 * (nodes / o.Teams)
	var sizes []shape
	for _, s := range shapes {
		if s.nodes <= o.MaxNodes && s.nodes <= nodes && s.nodes <= max(teamMax, 1) {
			sizes = append(sizes, s)
		}
	}
	draw := func() shape {
		total := 0.0
		for _, s := range sizes {
			total += s.p
		}
		x := r.Float64() * total
		for _, s := range sizes {
			if x < s.p {
				return s
			}
			x -= s.p
		}
		return sizes[len(sizes)-1]
	}
	classes := []string{"inference", "experimentation", "training", "fine-tuning"}
	jobs := make([]Job, 0, o.Jobs)
	meanWork := 0.0
	for i := 0; i < o.Jobs; i++ {
		s := draw()
		class := classes[r.Intn(len(classes))]
		dur := math.Exp(r.NormFloat64()*1.0 + math.Log(1800)) // median 30 min
		dur = math.Min(math.Max(dur, 60), 24*3600)
		j := Job{Name: fmt.Sprintf("job-%06d", i), Team: fmt.Sprintf("team-%d", r.Intn(o.Teams)), Priority: class,
			InstanceType: "ml.p5.48xlarge", Nodes: s.nodes, GPUsPerNode: s.gpus, DurationS: math.Round(dur)}
		if class == "training" || class == "fine-tuning" {
			j.CheckpointIntervalS = float64(300 * (1 + r.Intn(6)))
		}
		if s.nodes > 1 {
			switch r.Intn(3) {
			case 0:
				j.Topology = "preferred:" + model.LabelLayer3
			case 1:
				if s.nodes <= 16 {
					j.Topology = "required:" + model.LabelLayer2
				}
			}
		}
		meanWork += float64(int64(s.nodes)*s.gpus) * j.DurationS
		jobs = append(jobs, j)
	}
	meanWork /= float64(max(o.Jobs, 1))
	rate := o.Load * float64(nodes*8) / meanWork // jobs per second, on average
	t := 0.0
	for i := range jobs {
		if i < o.Backlog {
			jobs[i].SubmitS = 0
			continue
		}
		// Diurnal: the rate swings ±50% over a day.
		local := rate * (1 + 0.5*math.Sin(2*math.Pi*t/86400))
		t += r.ExpFloat64() / local
		jobs[i].SubmitS = math.Round(t)
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].SubmitS < jobs[b].SubmitS })
	return c, jobs
}

func ptrInt(v int) *int { return &v }
