package sim

import (
	"os"
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
