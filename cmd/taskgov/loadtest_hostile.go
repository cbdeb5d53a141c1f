package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The loadtest's hostile clients are built to cost the load tool little, so
// that on a shared machine the figures show what they cost the server: one
// goroutine per connection blocked in a read (no timer of its own), one
// goroutine for all the slow bodies' bytes, and connections opened once,
// dialled again only when the server closes them (after a pause, as a client
// would).

// hostileConns holds idle and slow-body connections open until stop.
type hostileConns struct {
	ctx      context.Context
	stop     context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]bool // open connections: true for a slow body
	dialled  atomic.Int64      // first dials done (opened or failed)
	redials  atomic.Int64      // connections dialled again after the server closed them
	dialGate chan struct{}     // bounds dials in flight (the listen backlog)
}

// openHostile dials idle connections that send nothing and slow ones that
// send head and then one byte every 5 s, and waits until each has been
// dialled once (below the server's --max-connections, until all are open).
func openHostile(addr string, idle, slow int, head []byte) (*hostileConns, error) {
	ctx, stop := context.WithCancel(context.Background())
	h := &hostileConns{ctx: ctx, stop: stop, conns: map[net.Conn]bool{}, dialGate: make(chan struct{}, 128)}
	for i := 0; i < idle+slow; i++ {
		var hd []byte
		if i >= idle {
			hd = head
		}
		h.wg.Add(1)
		go h.hold(addr, hd)
	}
	h.wg.Add(1)
	go h.trickle()
	deadline := time.Now().Add(30 * time.Second)
	for h.dialled.Load() < int64(idle+slow) {
		if time.Now().After(deadline) {
			h.close()
			return nil, fmt.Errorf("only %d of %d hostile connections dialled in 30 s", h.dialled.Load(), idle+slow)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return h, nil
}

// hold keeps one connection open: dial, send head, read until the server
// closes it, pause a second, dial again.
func (h *hostileConns) hold(addr string, head []byte) {
	defer h.wg.Done()
	buf := make([]byte, 512)
	for first := true; h.ctx.Err() == nil; first = false {
		if !first {
			h.redials.Add(1)
		}
		h.dialGate <- struct{}{}
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		<-h.dialGate
		if err == nil && head != nil {
			if _, err = c.Write(head); err != nil {
				c.Close()
			}
		}
		if err == nil {
			h.mu.Lock()
			h.conns[c] = head != nil
			h.mu.Unlock()
		}
		if first {
			h.dialled.Add(1)
		}
		if err == nil {
			if h.ctx.Err() != nil { // stop ran before the registration
				c.Close()
			}
			for err == nil {
				_, err = c.Read(buf)
			}
			h.mu.Lock()
			delete(h.conns, c)
			h.mu.Unlock()
			c.Close()
		}
		select {
		case <-h.ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// trickle sends every slow connection one more body byte every 5 s.
func (h *hostileConns) trickle() {
	defer h.wg.Done()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
		}
		h.mu.Lock()
		var slow []net.Conn
		for c, s := range h.conns {
			if s {
				slow = append(slow, c)
			}
		}
		h.mu.Unlock()
		for _, c := range slow {
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = c.Write([]byte("a"))
		}
	}
}

func (h *hostileConns) open() int { h.mu.Lock(); defer h.mu.Unlock(); return len(h.conns) }

// close closes every connection and waits for the goroutines.
func (h *hostileConns) close() {
	h.stop()
	h.mu.Lock()
	for c := range h.conns {
		c.Close()
	}
	h.mu.Unlock()
	h.wg.Wait()
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

// cpuTime is the user plus system CPU time of process pid so far (0: this
// process).
func cpuTime(pid int) (time.Duration, error) {
	if pid == 0 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			return 0, err
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command's closing parenthesis; utime and stime are
	// the 14th and 15th of the whole line, in clock ticks (100 a second on
	// Linux).
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	var ut, st int64
	if _, err := fmt.Sscan(f[11]+" "+f[12], &ut, &st); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
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
