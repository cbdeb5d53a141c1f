package sim

import (
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// BenchmarkReplay replays a synthetic trace on 1,000 GPUs (125 nodes of 8,
// 4 teams, 70% offered load). TASKGOV_SIM_JOBS sets the trace size
// (default 100,000, the scale target).
func BenchmarkReplay(b *testing.B) {
	n := 100000
	if v, err := strconv.Atoi(os.Getenv("TASKGOV_SIM_JOBS")); err == nil && v > 0 {
		n = v
	}
	cluster, jobs := Generate(GenOptions{Seed: 1, Teams: 4, Jobs: n, GPUs: 1000, Load: 0.7})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Run(jobs, Options{Cluster: cluster, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.Tasks.Completed), "completed")
		b.ReportMetric(float64(r.Scheduler.Decisions), "decisions")
		b.ReportMetric(float64(r.Scheduler.TasksTried)/float64(r.Scheduler.Decisions), "tried/cycle")
		b.ReportMetric(r.Scheduler.WallS, "wall-s")
		b.ReportMetric(float64(r.Preemptions.Count), "preemptions")
		reportCauses(b, r)
	}
}

// BenchmarkReplayBacklog replays a deep-backlog trace on the same cluster:
// whole-node jobs and 2- and 4-node gangs, a third of the gangs with a
// required topology and a third preferred (MixNodes;
// TASKGOV_SIM_BACKLOG_MIX=all for BenchmarkReplay's mix, whose small jobs
// pass the queue so that only the large gangs wait), a backlog queued at
// time 0 (TASKGOV_SIM_BACKLOG_DEPTH jobs, default a tenth of the trace),
// then arrivals at 110% offered load (TASKGOV_SIM_BACKLOG_LOAD, in percent),
// so the queue stays deep through the run and grows.
// TASKGOV_SIM_BACKLOG_JOBS sets the trace size (default 10,000; the issue's
// target is 100,000). It reports the number pending over the run's timeline
// (evenly spaced in simulated time): 10th percentile, median, peak, and the
// share of the run with at least 10,000 pending. The full sub-benchmark
// replays the same trace with the core's full-rescan reference mode, with
// the same decisions; TASKGOV_SIM_BACKLOG_FULL=0 leaves it out (it is the
// slow one).
func BenchmarkReplayBacklog(b *testing.B) {
	n, load := 10000, 110
	if v, err := strconv.Atoi(os.Getenv("TASKGOV_SIM_BACKLOG_JOBS")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.Atoi(os.Getenv("TASKGOV_SIM_BACKLOG_LOAD")); err == nil && v > 0 {
		load = v
	}
	depth := n / 10
	if v, err := strconv.Atoi(os.Getenv("TASKGOV_SIM_BACKLOG_DEPTH")); err == nil && v >= 0 {
		depth = v
	}
	mix := MixNodes
	if v := os.Getenv("TASKGOV_SIM_BACKLOG_MIX"); v != "" {
		mix = v
	}
	cluster, jobs := Generate(GenOptions{Seed: 1, Teams: 4, Jobs: n, GPUs: 1000, Load: float64(load) / 100, Backlog: depth, Mix: mix})
	b.Run("incremental", func(b *testing.B) { replayBacklog(b, cluster, jobs, false) })
	if os.Getenv("TASKGOV_SIM_BACKLOG_FULL") != "0" {
		b.Run("full", func(b *testing.B) { replayBacklog(b, cluster, jobs, true) })
	}
}

func replayBacklog(b *testing.B, cluster model.Cluster, jobs []Job, full bool) {
	for i := 0; i < b.N; i++ {
		r, err := Run(jobs, Options{Cluster: cluster, Seed: 1, FullRescan: full})
		if err != nil {
			b.Fatal(err)
		}
		pend := make([]int, 0, len(r.Timeline))
		deep := 0
		for _, s := range r.Timeline {
			pend = append(pend, s.Pending)
			if s.Pending >= 10000 {
				deep++
			}
		}
		sort.Ints(pend)
		if len(pend) > 0 {
			b.ReportMetric(float64(pend[len(pend)/10]), "p10-pending")
			b.ReportMetric(float64(pend[len(pend)/2]), "median-pending")
			b.ReportMetric(float64(pend[len(pend)-1]), "peak-pending")
			b.ReportMetric(100*float64(deep)/float64(len(pend)), "%run-10k-pending")
		}
		b.ReportMetric(float64(r.Scheduler.Decisions), "decisions")
		b.ReportMetric(float64(r.Scheduler.TasksTried)/float64(r.Scheduler.Decisions), "tried/cycle")
		b.ReportMetric(r.Scheduler.WallS, "wall-s")
		b.ReportMetric(float64(r.Preemptions.Count), "preemptions")
		reportCauses(b, r)
	}
}

// reportCauses reports the cycles by what set them off (cycles.go): how
// many, how many changed something, and the tasks each tried on average.
func reportCauses(b *testing.B, r *Report) {
	for _, c := range r.Scheduler.Causes {
		b.ReportMetric(float64(c.Cycles), c.Cause+"-cycles")
		b.ReportMetric(float64(c.Changed), c.Cause+"-changed")
		b.ReportMetric(float64(c.TasksTried)/float64(max(c.Cycles, 1)), c.Cause+"-tried/cycle")
	}
}
