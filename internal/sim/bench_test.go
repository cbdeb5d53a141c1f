package sim

import (
	"os"
	"sort"
	"strconv"
	"testing"
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
	}
}

// BenchmarkReplayBacklog replays a deep-backlog trace: the same cluster at
// 110% offered load, so the queue grows through the run (with topology and
// gangs, as in BenchmarkReplay). TASKGOV_SIM_BACKLOG_JOBS sets the trace
// size (default 10,000; the target is 100,000). It reports the
// median and peak number pending over the run's timeline.
func BenchmarkReplayBacklog(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("TASKGOV_SIM_BACKLOG_JOBS")); err == nil && v > 0 {
		n = v
	}
	cluster, jobs := Generate(GenOptions{Seed: 1, Teams: 4, Jobs: n, GPUs: 1000, Load: 1.1})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Run(jobs, Options{Cluster: cluster, Seed: 1})
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
	}
}
