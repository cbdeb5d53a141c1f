package core

import (
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// BenchmarkGiant is the giant-scale setup, opt-in (TASKGOV_GIANT=1; it needs
// a few GiB of memory and minutes): 20,000 ml.p5.48xlarge nodes (160,000
// GPUs) in three topology layers (32 nodes per layer-3 node, 8 per layer 2,
// 8 per layer 1), 2,000 teams with 10-node quotas, 1,000,000 pending tasks
// (BenchmarkAdmitAll's mix). It reports the first cycle's admissions per
// second, the cycle after one more submission once settled, incremental and
// full rescan, and the live heap per pending task (with the waiting list
// built once, as a reader would hold it). The core builds the waiting list
// on demand (SetLazyWaiting), as the engine runs it; the full rescan also
// lists it in the decision, as the reference does. TASKGOV_GIANT_DIV=10
// divides every count by 10, for quick profiles. TASKGOV_GIANT_HEAPPROFILE=F
// writes the live heap, as measured, to F (go tool pprof -sample_index=
// inuse_space; -memprofile would be written after the state is gone).
func BenchmarkGiant(b *testing.B) {
	if os.Getenv("TASKGOV_GIANT") == "" {
		b.Skip("set TASKGOV_GIANT=1 to run the giant-scale benchmark")
	}
	nodes, teams, tasks := 20000, 2000, 1000000
	if f, err := strconv.Atoi(os.Getenv("TASKGOV_GIANT_DIV")); err == nil && f > 1 {
		// A scaled-down copy (for profiling): every count divided by f.
		nodes, teams, tasks = nodes/f, teams/f, tasks/f
	}
	for i := 0; i < b.N; i++ {
		base := liveHeap()
		c := benchCluster(nodes, teams)
		c.NodeGroups[0].Topology = &model.Topology{NodesPerLayer3: 32, Layer3PerLayer2: 8, Layer2PerLayer1: 8}
		s, err := New(c, 1)
		if err != nil {
			b.Fatal(err)
		}
		s.SetLazyWaiting(true) // as the engine runs it; the list is built below, once
		r := rand.New(rand.NewSource(1))
		for k := 0; k < tasks; k++ {
			if err := s.Submit(benchTask(r, k, teams), epoch); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC() // the submissions' garbage is not the cycle's (as in BenchmarkAdmitAll)
		cpu0 := processCPU()
		start := time.Now()
		d := s.Schedule(epoch)
		took := time.Since(start)
		cpu := processCPU() - cpu0
		b.ReportMetric(float64(len(d.Admissions)), "admitted")
		b.ReportMetric(float64(len(d.Admissions))/took.Seconds(), "admissions/s")
		// On a shared machine the wall time includes waiting for a CPU; the
		// process's CPU time (the core is one goroutine; the garbage
		// collector's own threads count too) does not.
		b.ReportMetric(float64(len(d.Admissions))/cpu.Seconds(), "admissions/cpu-s")
		settle(s, epoch)
		s.Waiting() // the list a reader would hold, counted in the heap as before
		heap := liveHeap()
		b.ReportMetric(float64(heap-base)/float64(tasks-len(runningTasks(s))), "B/pending")
		writeHeapProfile(b, os.Getenv("TASKGOV_GIANT_HEAPPROFILE"))
		now := epoch.Add(time.Second)
		for _, full := range []bool{false, true} {
			s.SetFullRescan(full)
			s.SetLazyWaiting(!full) // the reference lists every waiting task in each decision
			spec := benchTask(r, tasks+10+btoi(full), teams)
			if err := s.Submit(spec, now); err != nil {
				b.Fatal(err)
			}
			start = time.Now()
			s.Schedule(now)
			name := "ms/cycle-after-submit-incremental"
			if full {
				name = "ms/cycle-after-submit-full"
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000, name)
			settle(s, now)
		}
		runtime.KeepAlive(s)
		fmt.Fprintln(os.Stderr, "giant: first cycle", took, "cpu", cpu)
	}
}

// writeHeapProfile writes the heap profile of the last collection to path,
// if path is set.
func writeHeapProfile(b *testing.B, path string) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
