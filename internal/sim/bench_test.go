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
	}
}

// BenchmarkReplayBacklog replays a deep-backlog trace: the same cluster at
// 110% offered load (TASKGOV_SIM_BACKLOG_LOAD, in percent, sets another),
// so the queue grows through the run (with topology and gangs, as in
// BenchmarkReplay). TASKGOV_SIM_BACKLOG_JOBS sets the trace size (default
// 10,000; the target is 100,000). It reports the median and peak
// number pending over the run's timeline. The full sub-benchmark replays
// the same trace with the core's full-rescan reference mode, with the same
// decisions; TASKGOV_SIM_BACKLOG_FULL=0 leaves it out (it is the slow one).
func BenchmarkReplayBacklog(b *testing.B) {
	n, load := 10000, 110
	if v, err := strconv.Atoi(os.Getenv("TASKGOV_SIM_BACKLOG_JOBS")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.Atoi(os.Getenv("TASKGOV_SIM_BACKLOG_LOAD")); err == nil && v > 0 {
		load = v
	}
	cluster, jobs := Generate(GenOptions{Seed: 1, Teams: 4, Jobs: n, GPUs: 1000, Load: float64(load) / 100})
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
		for _, s := range r.Timeline {
			pend = append(pend, s.Pending)
		}
		sort.Ints(pend)
		if len(pend) > 0 {
			b.ReportMetric(float64(pend[len(pend)/2]), "median-pending")
			b.ReportMetric(float64(pend[len(pend)-1]), "peak-pending")
		}
		b.ReportMetric(float64(r.Scheduler.Decisions), "decisions")
		b.ReportMetric(float64(r.Scheduler.TasksTried)/float64(r.Scheduler.Decisions), "tried/cycle")
		b.ReportMetric(r.Scheduler.WallS, "wall-s")
	}
}
