package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// loadtestCmd measures the server the way users load it: durable task
// submissions over loopback HTTP from concurrent clients. It starts its own
// `taskgov server` child process on a fresh data directory.
func loadtestCmd() *cobra.Command {
	var clients, tasks, stored, pending, prefill int
	var storeArg string
	var maxConns int
	var leaderElect bool
	var scrapeEvery time.Duration
	var pressure pressureOptions
	c := &cobra.Command{
		Use:   "loadtest",
		Short: "Measure acknowledged (durable) submissions per second and latency against a fresh local server",
		Long: `Starts a taskgov server child process on a temporary data directory and a loopback port,
submits --tasks tasks from --clients concurrent clients, and reports throughput and p50/p99 latency of
acknowledged submissions (each acknowledged only after an fsynced commit).
With --prefill N, it first queues N tasks (all stay pending) and reports how long that took, so the timed
phase measures submissions against a deep queue, then reports the server's live heap after the prefill, the garbage
collections during the phase, and the server's resident memory. --scrape-every
reads /metrics during the timed phase, as Prometheus would, and reports how long the reads took.
With --store sqlite,postgres-temp --rounds 3 it measures SQLite and a throwaway PostgreSQL in turns, in the
same minutes, and prints the load average before each run and the CPU the server and PostgreSQL used.
With --stored, it then fills the database to --stored tasks, cancels all but --pending of them, and reports
the server's resident memory.
With --idle-conns, --slow-conns or --sse-streams it runs --rounds rounds of phases with and without those
hostile clients, each phase from an empty queue, and reports each against the same round's no-pressure
phase (the steady rate: the first quarter of each phase's answers left out), with the server's and its own CPU
per submission; each phase submits 15000 tasks unless --tasks says otherwise (docs/BENCHMARKS.md, "Hostile clients").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			// --rounds repeats the pressure phases; without pressure, it
			// repeats the stores in turns (once unless given).
			rounds := 1
			if !pressure.on() && cmd.Flags().Changed("rounds") {
				rounds = pressure.rounds
			}
			return loadtestStores(out, storeArg, rounds, func(run storeRun) error {
				args := run.serverArgs
				if maxConns > 0 {
					args = append(args, "--max-connections", strconv.Itoa(maxConns))
				}
				if leaderElect && run.postgres {
					args = append(args, "--leader-elect") // the lease row, and every commit fenced by its term
				}
				if pressure.on() {
					if !cmd.Flags().Changed("tasks") {
						tasks = pressureTasks
					}
					return loadtestPressure(out, clients, tasks, pressure, args...)
				}
				run.serverArgs = args
				return loadtest(out, clients, tasks, stored, pending, prefill, run, pressure.profileDir, scrapeEvery)
			})
		},
	}
	c.Flags().IntVar(&clients, "clients", 16, "concurrent clients")
	c.Flags().IntVar(&tasks, "tasks", 5000, "tasks to submit in the timed phase (in each phase with --idle-conns, --slow-conns or --sse-streams: 15000)")
	c.Flags().IntVar(&stored, "stored", 0, "then fill the database to this many tasks (0: skip the memory phase)")
	c.Flags().IntVar(&pending, "pending", 10000, "of which this many stay pending")
	c.Flags().IntVar(&prefill, "prefill", 0, "queue this many pending tasks before the timed phase")
	c.Flags().DurationVar(&scrapeEvery, "scrape-every", 0, "during the timed phase, read /metrics this often, as Prometheus would (it counts the pending tasks by reason), and report how long the reads took")
	c.Flags().IntVar(&maxConns, "max-connections", 0, "the server's --max-connections (0: its default), to measure the cap's eviction under --idle-conns")
	c.Flags().BoolVar(&leaderElect, "leader-elect", false, "on PostgreSQL, run the server as a replica with --leader-elect, as several replicas run: it takes the lease, and every commit checks its term")
	c.Flags().StringVar(&storeArg, "store", "sqlite", "the server's store: sqlite (in the temporary directory), "+tempPostgres+
		" (a throwaway local PostgreSQL cluster; needs its binaries: scripts/install-test-deps.sh), postgres://... (an empty database), or a comma-separated list, run in turns (--rounds times)")
	pressureFlags(c, &pressure)
	return c
}

// loadtest runs the submission phases against a server started with
// run.serverArgs; with profileDir, the server's CPU profile of the timed
// phase goes to profileDir/STORE-ROUND/server-1.prof.
func loadtest(out io.Writer, clients, tasks, stored, pending, prefill int, run storeRun, profileDir string, scrapeEvery time.Duration) error {
	serverArgs := run.serverArgs
	if profileDir != "" {
		dir, err := filepath.Abs(filepath.Join(profileDir, run.name))
		if err == nil {
			err = os.MkdirAll(dir, 0o755)
		}
		if err != nil {
			return err
		}
		profileDir = dir
		serverArgs = append(serverArgs, "--cpu-profile-dir", dir)
	}
	// One node and a team with no quota: every task stays pending, so the
	// figures measure the API, the scheduler cycle and storage, not processes.
	cluster := "nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]\n" +
		"teams: [{name: load, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}]\n"
	// The one team holds every task the run queues: past the default
	// pending cap, the run raises it, as an admin would for such a team.
	if queued := prefill + max(tasks, stored); queued > model.DefaultMaxPendingPerTeam {
		if queued > model.MaxMaxPendingPerTeam {
			return fmt.Errorf("--prefill plus --tasks (or --stored) queue %d tasks in one team, more than maxPendingPerTeam allows (%d)", queued, model.MaxMaxPendingPerTeam)
		}
		cluster += fmt.Sprintf("policy: {maxPendingPerTeam: %d}\n", queued)
	}
	srv, err := startChildServer("taskgov-loadtest-", []byte(cluster), serverArgs...)
	if err != nil {
		return err
	}
	defer srv.stop()
	cl := client.New(srv.base, srv.token)
	cl.HTTP = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	timed := func(call func(context.Context) error) (time.Duration, error) {
		start := time.Now()
		if err := call(context.Background()); err != nil {
			return 0, err
		}
		return time.Since(start), nil
	}
	submit := func(i int) (time.Duration, error) {
		return timed(func(ctx context.Context) error {
			_, err := cl.Submit(ctx, model.TaskSpec{Name: fmt.Sprintf("t%d", i), Team: "load", InstanceType: "ml.p5.48xlarge",
				PerNode: model.Request{GPUs: 1}, Command: []string{"true"}})
			return err
		})
	}
	if prefill > 0 {
		_, took, err := parallel(clients, 0, prefill, func(i int) (time.Duration, error) { return submit(1<<30 + i) })
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "prefill: %d pending tasks queued in %.1fs (%.0f/s)\n", prefill, took.Seconds(), float64(prefill)/took.Seconds())
	}
	var cpu cpuMeter
	cpu.add("server", func() (time.Duration, error) { return cpuTime(srv.cmd.Process.Pid) })
	if run.dbPID != 0 {
		cpu.add("PostgreSQL", func() (time.Duration, error) { return treeCPU(run.dbPID) })
	}
	scrapeStart := time.Now()
	sums, sumsErr := scrapeEngine(srv.base, srv.token)
	scrapeTook := time.Since(scrapeStart) // it lists every pending task's reason
	scrapes := scrapeDuring(srv.base, srv.token, scrapeEvery)
	cpu.begin()
	if profileDir != "" { // the server starts its profile, then ends it
		signalProfile(srv.cmd.Process, filepath.Join(profileDir, "server-1.prof"))
	}
	lat, elapsed, err := parallel(clients, 0, tasks, submit)
	scraped := scrapes.stop()
	if profileDir != "" {
		signalProfile(srv.cmd.Process, filepath.Join(profileDir, "server-1.heap"))
	}
	if err != nil {
		return err
	}
	cpuUsed := cpu.report(tasks)
	loop := "unknown"
	if after, err := scrapeEngine(srv.base, srv.token); err == nil && sumsErr == nil {
		loop = after.since(sums)
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	fmt.Fprintf(out, "submissions: %d from %d clients in %.2fs: %.0f acknowledged/s, latency p50 %.1f ms, p99 %.1f ms\n",
		tasks, clients, elapsed.Seconds(), float64(tasks)/elapsed.Seconds(),
		ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]))
	fmt.Fprintf(out, "CPU used meanwhile: %s\nthe server's loop meanwhile: %s\n", cpuUsed, loop)
	fmt.Fprintf(out, "a /metrics scrape before the phase (it counts the pending tasks by reason) took %.1f ms\n", ms(scrapeTook))
	if prefill > 0 && sumsErr == nil {
		fmt.Fprintf(out, "the server's live heap after the prefill (at its last collection): %.1f MiB\n", sums.liveHeap/(1<<20))
	}
	if scrapeEvery > 0 {
		fmt.Fprintf(out, "during the phase: %s\n", scraped)
	}
	if profileDir != "" {
		fmt.Fprintf(out, "server CPU profile: %s\n", filepath.Join(profileDir, "server-1.prof"))
	}
	if prefill > 0 {
		rss, err := residentKiB(srv.cmd.Process.Pid)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "memory: %d pending: server resident set %.1f MiB\n", prefill+tasks, float64(rss)/1024)
	}
	if profileDir != "" {
		heap := filepath.Join(profileDir, "server-1.heap")
		waitForFile(heap, 30*time.Second)
		fmt.Fprintf(out, "server heap profile (after the timed phase): %s\n", heap)
	}
	if stored <= 0 {
		return nil
	}
	if stored < tasks || pending > stored {
		return fmt.Errorf("--stored must be at least --tasks, and --pending at most --stored")
	}
	if _, _, err := parallel(clients, tasks, stored, submit); err != nil {
		return err
	}
	cancel := func(i int) (time.Duration, error) {
		return timed(func(ctx context.Context) error {
			_, err := cl.TaskAction(ctx, fmt.Sprintf("t%d", i), client.ActionCancel)
			return err
		})
	}
	if _, _, err := parallel(clients, 0, stored-pending, cancel); err != nil {
		return err
	}
	time.Sleep(time.Second)
	rss, err := residentKiB(srv.cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "memory: %d tasks stored, %d pending: server resident set %.1f MiB\n", stored, pending, float64(rss)/1024)
	return nil
}

// parallel runs fn(i) for i in [from, to) over n workers, returning each
// call's latency and the wall time.
func parallel(n, from, to int, fn func(int) (time.Duration, error)) ([]time.Duration, time.Duration, error) {
	var next atomic.Int64
	next.Store(int64(from))
	lat := make([]time.Duration, to-from)
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= to {
					return
				}
				d, err := fn(i)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				lat[i-from] = d
			}
		}()
	}
	wg.Wait()
	return lat, time.Since(start), firstErr
}

func waitReady(base, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				tok, err := os.ReadFile(filepath.Join(dir, "admin.token"))
				return strings.TrimSpace(string(tok)), err
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", fmt.Errorf("the server did not become ready")
}

func residentKiB(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			var kib int
			_, err := fmt.Sscan(f[1], &kib)
			return kib, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
