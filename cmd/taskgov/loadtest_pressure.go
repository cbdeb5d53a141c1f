package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"syscall"
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
	sseTeam         string
	probes          int
}

func (p pressureOptions) on() bool { return p.idle > 0 || p.slow > 0 || p.sse > 0 }

func pressureFlags(c *cobra.Command, p *pressureOptions) {
	f := c.Flags()
	f.IntVar(&p.idle, "idle-conns", 0, "hold this many connections open that send nothing (redialled when the server closes them)")
	f.IntVar(&p.slow, "slow-conns", 0, "hold this many connections open that send a request body one byte every 5 s")
	f.IntVar(&p.sse, "sse-streams", 0, "hold this many event streams open")
	f.StringVar(&p.sseTeam, "sse-team", "watch", "the team the streams' viewer tokens read: watch (another team: the streams receive none of the load's events) or load (each stream receives every submission's event)")
	f.IntVar(&p.probes, "health-probes", 500, "/healthz requests timed in each phase")
}

// loadtestPressure measures submissions and /healthz with no pressure, with
// the idle and slow connections open, and with the event streams open, and
// reports each against the first.
func loadtestPressure(out io.Writer, clients, tasks int, p pressureOptions, serverArgs ...string) error {
	raiseFileLimit(p.idle + p.slow + p.sse + clients + 1024)
	srv, err := startChildServer("taskgov-loadtest-", []byte("nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]\n"+
		"teams: [{name: load, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}, {name: watch}]\n"), serverArgs...)
	if err != nil {
		return err
	}
	defer srv.stop()
	cl := client.New(srv.base, srv.token)
	cl.HTTP = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	n := 0
	phase := func(name string) (float64, error) {
		submit := func(i int) (time.Duration, error) {
			start := time.Now()
			_, err := cl.Submit(context.Background(), model.TaskSpec{Name: fmt.Sprintf("t%d", n+i), Team: "load", InstanceType: "ml.p5.48xlarge",
				PerNode: model.Request{GPUs: 1}, Command: []string{"true"}})
			return time.Since(start), err
		}
		lat, elapsed, err := parallel(clients, 0, tasks, submit)
		n += tasks
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
		health, err := healthLatency(srv.base, p.probes)
		if err != nil {
			return 0, fmt.Errorf("%s: /healthz: %w", name, err)
		}
		rate := float64(tasks) / elapsed.Seconds()
		fmt.Fprintf(out, "%-34s submissions %6.0f/s (p50 %5.1f ms, p99 %6.1f ms); /healthz p50 %5.1f ms, p99 %6.1f ms\n",
			name+":", rate, ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]), ms(health[len(health)/2]), ms(health[len(health)*99/100]))
		return rate, nil
	}
	base, err := phase("no pressure")
	if err != nil {
		return err
	}
	u, _ := url.Parse(srv.base)
	if p.idle > 0 || p.slow > 0 {
		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		open := holdConns(ctx, &wg, u.Host, p.idle, nil)
		// A valid token, so that the server reads the body (a bad one is
		// answered 401 at once).
		submitURL, _ := url.Parse(cl.URL("tasks"))
		slowOpen := holdConns(ctx, &wg, u.Host, p.slow, []byte("POST "+submitURL.Path+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+srv.token+
			"\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"))
		time.Sleep(2 * time.Second)
		rate, err := phase(fmt.Sprintf("%d idle + %d slow-body conns", p.idle, p.slow))
		fmt.Fprintf(out, "  held open at the end: %d idle, %d slow (dialled again when closed); submissions at %.0f%% of no pressure\n",
			open(), slowOpen(), 100*rate/base)
		stop()
		wg.Wait()
		if err != nil {
			return err
		}
	}
	if p.sse > 0 {
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		opened, err := openStreams(ctx, cl, srv.base, p.sse, p.sseTeam)
		if err != nil {
			return err
		}
		rate, err := phase(fmt.Sprintf("%d event streams (team %s)", opened, p.sseTeam))
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  submissions at %.0f%% of no pressure\n", 100*rate/base)
	}
	return nil
}

// healthLatency times n sequential GET /healthz on fresh connections.
func healthLatency(base string, n int) ([]time.Duration, error) {
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	out := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		start := time.Now()
		resp, err := hc.Get(base + "/healthz")
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		out = append(out, time.Since(start))
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out, nil
}

// holdConns keeps n connections to addr open until ctx ends; each sends
// head once (nothing if nil), then, if head was sent, one byte every 5 s.
// It returns a function counting those open now.
func holdConns(ctx context.Context, wg *sync.WaitGroup, addr string, n int, head []byte) func() int {
	var mu sync.Mutex
	open := 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				mu.Lock()
				open++
				mu.Unlock()
				done := make(chan struct{})
				go func() { _, _ = io.Copy(io.Discard, c); close(done) }() // until the server closes it
				if head != nil {
					_, _ = c.Write(head)
				}
				tick := time.NewTicker(5 * time.Second)
			hold:
				for {
					select {
					case <-ctx.Done():
						break hold
					case <-done:
						break hold
					case <-tick.C:
						if head != nil {
							_, _ = c.Write([]byte("a"))
						}
					}
				}
				tick.Stop()
				c.Close()
				mu.Lock()
				open--
				mu.Unlock()
				select { // as a client would, not in a tight loop
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}()
	}
	return func() int { mu.Lock(); defer mu.Unlock(); return open }
}

// openStreams opens n event streams with viewer tokens of team (as many
// tokens as the per-token cap needs), reading and discarding events.
func openStreams(ctx context.Context, cl *client.Client, base string, n int, team string) (int, error) {
	const perToken = 8 // the server's default --sse-per-token
	var tok string
	hc := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0}}
	opened := 0
	for i := 0; i < n; i++ {
		if i%perToken == 0 {
			t, err := cl.CreateToken(ctx, "viewer", team, "loadtest stream")
			if err != nil {
				return opened, err
			}
			tok = t.Token
		}
		sc := client.New(base, tok)
		sc.HTTP = hc
		body, err := sc.Events(ctx)
		if err != nil {
			return opened, fmt.Errorf("event stream %d: %w", i+1, err)
		}
		opened++
		go func() {
			defer body.Close()
			_, _ = io.Copy(io.Discard, bufio.NewReaderSize(body, 64<<10))
		}()
	}
	return opened, nil
}

// raiseFileLimit lifts this process's open-file limit to at least n (up to
// the hard limit), for the connections the loadtest holds.
func raiseFileLimit(n int) {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) != nil || rl.Cur >= uint64(n) {
		return
	}
	rl.Cur = min(uint64(n), rl.Max)
	_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
}
