package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is Linux's USER_HZ, the unit of /proc/PID/stat's CPU times (100
// on every Linux architecture Go supports).
const clockTick = 10 * time.Millisecond

// reapedCPU is the CPU time (user and system) a process has used, with that
// of its children it has waited for (cpuTime leaves those out).
func reapedCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: fields start after it.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 15 {
		return 0, fmt.Errorf("/proc/%d/stat is short", pid)
	}
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} { // utime, stime, cutime, cstime
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// treeCPU is reapedCPU of pid and of its living children (a postmaster and
// its backends; a backend that exited counts in its parent's figure).
func treeCPU(pid int) (time.Duration, error) {
	total, err := reapedCPU(pid)
	if err != nil {
		return 0, err
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(pid) {
			continue
		}
		child, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if d, err := reapedCPU(child); err == nil {
			total += d
		}
	}
	return total, nil
}

// cpuMeter reports the CPU time processes used during a phase.
type cpuMeter struct {
	names []string
	read  []func() (time.Duration, error)
	start []time.Duration
}

func (m *cpuMeter) add(name string, read func() (time.Duration, error)) {
	m.names, m.read = append(m.names, name), append(m.read, read)
}

func (m *cpuMeter) begin() {
	m.start = make([]time.Duration, len(m.read))
	for i, r := range m.read {
		m.start[i], _ = r()
	}
}

// report says how much CPU each used since begin, per 1,000 operations.
func (m *cpuMeter) report(ops int) string {
	var parts []string
	for i, r := range m.read {
		d, err := r()
		if err != nil {
			parts = append(parts, m.names[i]+" unknown")
			continue
		}
		d -= m.start[i]
		parts = append(parts, fmt.Sprintf("%s %.2f s (%.0f ms per 1,000)", m.names[i], d.Seconds(), float64(d.Milliseconds())*1000/float64(ops)))
	}
	return strings.Join(parts, ", ")
}

// engineSums are the server's counts and sums of its commit and cycle
// histograms (from /metrics), to say where a phase's time went.
type engineSums struct {
	commits, commitSec, ops, cycles, cycleSec float64
	fastCommits                               float64 // commits of at most slowCommit
	gcs                                       float64 // garbage collections the server completed
	gcCPU, assistCPU                          float64 // CPU seconds its collector used, and of them in assists
	liveHeap                                  float64 // the server's live heap at its last collection, bytes
}

// slowCommit is a commit histogram bucket's bound: a commit slower than
// this delays every submission in its batch and the next one past half of
// the 50 ms p99 target.
const slowCommit = "0.0256"

func scrapeEngine(base, token string) (engineSums, error) {
	req, err := http.NewRequest("GET", base+"/metrics", nil)
	if err != nil {
		return engineSums{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return engineSums{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return engineSums{}, err
	}
	var s engineSums
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "taskgov_store_commit_seconds_count":
			s.commits = v
		case "taskgov_store_commit_seconds_sum":
			s.commitSec = v
		case "taskgov_commit_batch_ops_sum":
			s.ops = v
		case "taskgov_scheduling_cycle_seconds_count":
			s.cycles = v
		case "taskgov_scheduling_cycle_seconds_sum":
			s.cycleSec = v
		case `taskgov_store_commit_seconds_bucket{le="` + slowCommit + `"}`:
			s.fastCommits = v
		case "go_gc_duration_seconds_count":
			s.gcs = v
		case "go_gc_heap_live_bytes":
			s.liveHeap = v
		case "go_cpu_classes_gc_total_cpu_seconds_total":
			s.gcCPU = v
		case "go_cpu_classes_gc_mark_assist_cpu_seconds_total":
			s.assistCPU = v
		}
	}
	return s, nil
}

// since says what the server's loop did between two scrapes.
func (s engineSums) since(before engineSums) string {
	n := s.commits - before.commits
	if n <= 0 {
		return "no commits"
	}
	cycles := max(s.cycles-before.cycles, 1)
	slow := n - (s.fastCommits - before.fastCommits)
	return fmt.Sprintf("%.0f commits of %.1f inputs on average, a commit %.2f ms and a cycle %.2f ms on average; %.0f commits over %s s; %.0f garbage collections (%.0f ms of CPU, %.0f ms of it in assists)",
		n, (s.ops-before.ops)/n, (s.commitSec-before.commitSec)*1000/n, (s.cycleSec-before.cycleSec)*1000/cycles, slow, slowCommit,
		s.gcs-before.gcs, (s.gcCPU-before.gcCPU)*1000, (s.assistCPU-before.assistCPU)*1000)
}

// scraper reads /metrics every interval until stopped, as a Prometheus
// server would during the timed phase.
type scraper struct {
	quit chan struct{}
	done chan []time.Duration
}

// scrapeDuring starts a scraper; with every <= 0 it reads nothing.
func scrapeDuring(base, token string, every time.Duration) *scraper {
	s := &scraper{quit: make(chan struct{}), done: make(chan []time.Duration, 1)}
	go func() {
		var took []time.Duration
		defer func() { s.done <- took }()
		if every <= 0 {
			return
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-s.quit:
				return
			case <-tick.C:
				start := time.Now()
				if _, err := scrapeEngine(base, token); err == nil {
					took = append(took, time.Since(start))
				}
			}
		}
	}()
	return s
}

// stop ends the scraper and says how many reads it made and how long they
// took.
func (s *scraper) stop() string {
	close(s.quit)
	took := <-s.done
	if len(took) == 0 {
		return "no /metrics reads"
	}
	var sum, most time.Duration
	for _, d := range took {
		sum += d
		most = max(most, d)
	}
	return fmt.Sprintf("%d /metrics reads, %.1f ms on average, %.1f ms at most", len(took), ms(sum/time.Duration(len(took))), ms(most))
}
