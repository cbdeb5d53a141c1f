package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// pressureOptions are the loadtest's hostile-client phases: connections
// that send nothing, connections that trickle a request body, and open
// event streams, held open while /healthz and submissions are measured.
type pressureOptions struct {
	idle, slow, sse int
	sseTeam, sseEnc string
	probes, rounds  int
	profileDir      string
}

func (p pressureOptions) on() bool { return p.idle > 0 || p.slow > 0 || p.sse > 0 }

func pressureFlags(c *cobra.Command, p *pressureOptions) {
	f := c.Flags()
	f.IntVar(&p.idle, "idle-conns", 0, "a phase with this many connections open that send nothing (dialled again when the server closes them)")
	f.IntVar(&p.slow, "slow-conns", 0, "in the same phase, this many connections that send a request body one byte every 5 s")
	f.IntVar(&p.sse, "sse-streams", 0, "a phase with this many event streams open")
	f.StringVar(&p.sseTeam, "sse-team", "both", "the team the streams' viewer tokens read: watch (another team: the streams receive none of the load's events), load (each stream receives every submission's event) or both (a phase each)")
	f.StringVar(&p.sseEnc, "sse-encoding", "gzip", "what the streams accept: gzip (as browsers; the server compresses each batch once, the streams count the bytes and only the first decodes them) or identity")
	f.IntVar(&p.probes, "health-probes", 500, "/healthz requests timed in each phase")
	f.IntVar(&p.rounds, "rounds", 3, "rounds of phases; each round runs every phase once, the order rotated, and each phase is compared with the same round's no-pressure phase")
	f.StringVar(&p.profileDir, "profile-dir", "", "write CPU profiles of the server and of the load tool during each phase's submissions to this directory (go tool pprof)")
}

// pressureTasks is the submissions of each phase unless --tasks says
// otherwise: enough that a phase lasts seconds, so that the first quarter
// (left out of the rate) covers the streams' first batches.
const pressureTasks = 15000

// phase is one condition under which submissions are timed: setup opens
// its pressure and returns it; the phase will submit tasks t<first> on.
type phase struct {
	name  string
	setup func(first int) (pressure, error)
}

// pressure is a phase's hostile clients. settle runs right after the last
// submission's answer, inside the phase's CPU measurement: it waits until
// the pressure has had all the server owes it for the submissions (every
// stream has every event), so that the server's CPU per submission counts
// that work too. close ends the pressure after the /healthz probes; each
// returns a note for the report.
type pressure struct {
	settle func(last time.Time, elapsed time.Duration) (string, error)
	close  func() string
}

type phaseResult struct {
	rate               float64
	lat, health        []time.Duration // sorted
	serverCPU, toolCPU time.Duration   // per submission
	note, profiles     string
}

// pressureRun is what every phase of one loadtest shares.
type pressureRun struct {
	cl                     *client.Client
	srv                    *childServer
	clients, tasks, probes int
	n                      int // tasks submitted so far
	profileDir             string
	prof                   profiler // the load tool's own profiles
}

// profile starts or ends the CPU profiles of the server and of the load
// tool, and returns their paths once ended.
func (run *pressureRun) profile() string {
	if run.profileDir == "" {
		return ""
	}
	ending := run.prof.running()
	own := run.prof.toggle(run.profileDir, "loadtest")
	server := filepath.Join(run.profileDir, "server-"+strings.TrimPrefix(filepath.Base(own), "loadtest-"))
	marker := server
	if ending {
		marker = strings.TrimSuffix(server, ".prof") + ".heap"
	}
	signalProfile(run.srv.cmd.Process, marker)
	return server + " " + own
}

// loadtestPressure measures submissions and /healthz with no pressure, with
// the idle and slow connections open, and with the event streams open, in
// interleaved rounds. Every phase starts from the same state: the tasks a
// phase submitted are cancelled before the next one, so that no phase pays
// for a deeper queue than another (before, each phase found the previous
// phases' tasks pending, and the scheduler's cycle over them, not the
// hostile clients, took most of the drop).
func loadtestPressure(out io.Writer, clients, tasks int, p pressureOptions, serverArgs ...string) error {
	if p.rounds < 1 {
		return fmt.Errorf("--rounds must be at least 1")
	}
	if p.sse > 0 && p.sseTeam != "watch" && p.sseTeam != "load" && p.sseTeam != "both" {
		return fmt.Errorf("--sse-team must be watch, load or both")
	}
	if p.sse > 0 && p.sseEnc != "gzip" && p.sseEnc != "identity" {
		return fmt.Errorf("--sse-encoding must be gzip or identity")
	}
	raiseFileLimit(p.idle + p.slow + 2*p.sse + clients + 1024)
	if p.profileDir != "" {
		dir, err := filepath.Abs(p.profileDir)
		if err == nil {
			err = os.MkdirAll(dir, 0o755)
		}
		if err != nil {
			return err
		}
		p.profileDir = dir
		serverArgs = append(serverArgs, "--cpu-profile-dir", dir)
	}
	srv, err := startChildServer("taskgov-loadtest-", []byte("nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]\n"+
		"teams: [{name: load, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}, {name: watch}]\n"), serverArgs...)
	if err != nil {
		return err
	}
	defer srv.stop()
	cl := client.New(srv.base, srv.token)
	cl.HTTP = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	phases := pressurePhases(cl, srv, p, tasks)
	fmt.Fprintf(out, "%d rounds of %d phases, %d submissions each from %d clients; server %s\n", p.rounds, len(phases), tasks, clients, srv.base)
	results := make([][]phaseResult, len(phases))
	run := &pressureRun{cl: cl, srv: srv, clients: clients, tasks: tasks, probes: p.probes, profileDir: p.profileDir}
	for r := 0; r < p.rounds; r++ {
		for k := range phases {
			i := (k + r) % len(phases)
			res, err := run.phase(phases[i])
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, phases[i].name, err)
			}
			results[i] = append(results[i], res)
			fmt.Fprintf(out, "round %d %-34s submissions %6.0f/s (p50 %5.1f ms, p99 %6.1f ms), server CPU %.3f ms and load tool %.3f ms per submission; /healthz p50 %4.1f ms, p99 %5.1f ms%s\n",
				r+1, phases[i].name+":", res.rate, ms(pct(res.lat, 50)), ms(pct(res.lat, 99)), ms(res.serverCPU), ms(res.toolCPU),
				ms(pct(res.health, 50)), ms(pct(res.health, 99)), res.note)
			if res.profiles != "" {
				fmt.Fprintf(out, "        profiles: %s\n", res.profiles)
			}
		}
	}
	fmt.Fprintf(out, "summary (each ratio against the same round's no-pressure phase; median of %d):\n", p.rounds)
	for i := 1; i < len(phases); i++ {
		var ratios, cpu []float64
		var ratioText []string
		var health99 time.Duration
		for r, res := range results[i] {
			base := results[0][r]
			ratios = append(ratios, res.rate/base.rate)
			cpu = append(cpu, float64(res.serverCPU)/float64(base.serverCPU))
			ratioText = append(ratioText, fmt.Sprintf("%.0f%%", 100*res.rate/base.rate))
			health99 = max(health99, pct(res.health, 99))
		}
		fmt.Fprintf(out, "  %-34s submissions at %3.0f%% of no pressure (rounds: %s); server CPU per submission ×%.2f; /healthz p99 at most %.1f ms\n",
			phases[i].name+":", 100*median(ratios), strings.Join(ratioText, ", "), median(cpu), ms(health99))
	}
	return nil
}

// pressurePhases lists the phases: no pressure first, then each hostile
// condition asked for.
func pressurePhases(cl *client.Client, srv *childServer, p pressureOptions, tasks int) []phase {
	phases := []phase{{name: "no pressure"}}
	if p.idle > 0 || p.slow > 0 {
		u, _ := url.Parse(srv.base)
		submitURL, _ := url.Parse(cl.URL("tasks"))
		// A valid token, so that the server reads the body (a bad one is
		// answered 401 at once).
		head := []byte("POST " + submitURL.Path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + srv.token +
			"\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{")
		phases = append(phases, phase{name: fmt.Sprintf("%d idle + %d slow-body conns", p.idle, p.slow),
			setup: func(int) (pressure, error) {
				h, err := openHostile(u.Host, p.idle, p.slow, head)
				if err != nil {
					return pressure{}, err
				}
				return pressure{close: func() string {
					open, redials := h.open(), h.redials.Load()
					h.close()
					return fmt.Sprintf("; %d open at the end, %d dialled again", open, redials)
				}}, nil
			}})
	}
	if p.sse > 0 {
		for _, team := range []string{"watch", "load"} {
			if p.sseTeam != team && p.sseTeam != "both" {
				continue
			}
			phases = append(phases, phase{name: fmt.Sprintf("%d event streams (team %s)", p.sse, team),
				setup: func(first int) (pressure, error) {
					expect := 0 // each submission's event, on the loaded team's streams
					if team == "load" {
						expect = tasks
					}
					es, err := openStreams(cl, srv.base, p.sse, team, p.sseEnc, first, expect)
					if err != nil {
						return pressure{}, err
					}
					return pressure{settle: func(last time.Time, elapsed time.Duration) (string, error) {
						got, err := es.settle(last)
						return fmt.Sprintf("; streams read %.1f MB/s", float64(es.bytes.Load())/1e6/elapsed.Seconds()) + got, err
					}, close: func() string { es.close(); return "" }}, nil
				}})
		}
	}
	return phases
}

// phase opens the phase's pressure, times the submissions and the /healthz
// probes, closes the pressure and cancels the submitted tasks.
//
// The rate leaves out the first quarter of the answers: it is the steady
// rate, once the streams' batches (sealed up to 250 ms after their first
// event) reach them while submissions go on, as they would under a
// sustained load; the first batches of a phase otherwise come for free.
// The CPU per submission counts from the first submission until the
// pressure has settled (every stream has every event).
func (run *pressureRun) phase(ph phase) (phaseResult, error) {
	cl, srv, clients, tasks := run.cl, run.srv, run.clients, run.tasks
	var res phaseResult
	first := run.n
	run.n += tasks
	var pr pressure
	if ph.setup != nil {
		var err error
		if pr, err = ph.setup(first); err != nil {
			return res, err
		}
	}
	answered := make([]time.Time, tasks)
	submit := func(i int) (time.Duration, error) {
		start := time.Now()
		_, err := cl.Submit(context.Background(), model.TaskSpec{Name: fmt.Sprintf("t%d", first+i), Team: "load", InstanceType: "ml.p5.48xlarge",
			PerNode: model.Request{GPUs: 1}, Command: []string{"true"}})
		answered[i] = time.Now()
		return answered[i].Sub(start), err
	}
	pid := srv.cmd.Process.Pid
	s0, err0 := cpuTime(pid)
	t0, _ := cpuTime(0)
	run.profile()
	lat, elapsed, err := parallel(clients, 0, tasks, submit)
	last := time.Now()
	if err == nil && pr.settle != nil {
		res.note, err = pr.settle(last, elapsed)
	}
	res.profiles = run.profile()
	s1, err1 := cpuTime(pid)
	t1, _ := cpuTime(0)
	if err == nil {
		res.health, err = healthLatency(srv.base, run.probes)
	}
	if pr.close != nil {
		res.note += pr.close()
	}
	if err != nil {
		return res, err
	}
	if err0 != nil || err1 != nil {
		return res, fmt.Errorf("reading the server's CPU time: %v %v", err0, err1)
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	res.lat, res.rate = lat, steadyRate(answered)
	res.serverCPU, res.toolCPU = (s1-s0)/time.Duration(tasks), (t1-t0)/time.Duration(tasks)
	// Untimed: the next phase starts with no pending task again.
	_, _, err = parallel(clients, first, first+tasks, func(i int) (time.Duration, error) {
		_, err := cl.TaskAction(context.Background(), fmt.Sprintf("t%d", i), client.ActionCancel)
		return 0, err
	})
	return res, err
}

// steadyRate is the rate of the answers after the first quarter.
func steadyRate(answered []time.Time) float64 {
	t := append([]time.Time(nil), answered...)
	sort.Slice(t, func(a, b int) bool { return t[a].Before(t[b]) })
	k := len(t) / 4
	if len(t)-k < 2 {
		return 0
	}
	return float64(len(t)-1-k) / t[len(t)-1].Sub(t[k]).Seconds()
}

// pct is the q-th percentile of sorted durations.
func pct(sorted []time.Duration, q int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*q/100)]
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
