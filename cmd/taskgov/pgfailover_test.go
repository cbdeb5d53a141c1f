package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startPGReplica starts `taskgov server --store-dsn-file ... --leader-elect`
// with the local executor; tasks run as the server's user.
func startPGReplica(t *testing.T, bin, dir, dsn, cfg string, args ...string) *replica {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	dsnFile := filepath.Join(dir, "..", filepath.Base(dir)+".dsn")
	if err := os.WriteFile(dsnFile, []byte(dsn+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := anyPort
	cmd := exec.Command(bin, append([]string{"server", "--data-dir", dir, "--listen", addr, "--config", cfg, "--task-user", "server",
		"--store-dsn-file", dsnFile, "--leader-elect"}, args...)...)
	logf, _ := os.Create(dir + ".log")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr = boundAddr(t, logf.Name(), 0, 30*time.Second)
	r := &replica{serverProc: &serverProc{t: t, cmd: cmd, url: "http://" + addr}, addr: addr}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("replica %s log:\n%s", dir, tail(string(b), 4000))
		}
	})
	r.waitStatus(t, "/healthz", 200, 30*time.Second)
	return r
}

// beatScript is a task that appends "beat TASK DATA_DIR NANOS" to log
// every 50 ms for n beats, then "end TASK DATA_DIR NANOS": which replica
// ran which task when.
func beatScript(log string, n int) []string {
	return []string{"sh", "-c", fmt.Sprintf(`i=0; while [ $i -lt %d ]; do echo "beat $TASKGOV_TASK $TASKGOV_DATA_DIR $(date +%%s%%N)" >> %s; sleep 0.05; i=$((i+1)); done; echo "end $TASKGOV_TASK $TASKGOV_DATA_DIR $(date +%%s%%N)" >> %s`, n, log, log)}
}

type beat struct {
	kind, task, replica string
	at                  time.Time
}

func readBeats(t *testing.T, path string) []beat {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []beat
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 4 {
			continue // a line cut by a kill
		}
		ns, err := strconv.ParseInt(fs[3], 10, 64)
		if err != nil {
			continue
		}
		out = append(out, beat{fs[0], fs[1], fs[2], time.Unix(0, ns)})
	}
	return out
}

// checkNoOverlap: no task ever ran on two replicas at once.
func checkNoOverlap(t *testing.T, beats []beat) (moved int) {
	t.Helper()
	type span struct{ first, last time.Time }
	spans := map[string]map[string]*span{}
	for _, b := range beats {
		if spans[b.task] == nil {
			spans[b.task] = map[string]*span{}
		}
		s := spans[b.task][b.replica]
		if s == nil {
			s = &span{b.at, b.at}
			spans[b.task][b.replica] = s
		}
		if b.at.Before(s.first) {
			s.first = b.at
		}
		if b.at.After(s.last) {
			s.last = b.at
		}
	}
	for task, byReplica := range spans {
		if len(byReplica) < 2 {
			continue
		}
		moved++
		var ss []*span
		for _, s := range byReplica {
			ss = append(ss, s)
		}
		for i := range ss {
			for j := range ss {
				if i != j && !ss[i].last.Before(ss[j].first) && !ss[j].last.Before(ss[i].first) {
					t.Errorf("task %s ran on two replicas at once: %v-%v and %v-%v", task, ss[i].first, ss[i].last, ss[j].first, ss[j].last)
				}
			}
		}
	}
	return moved
}

// TestPostgresFailoverUnderLoad: two replicas share PostgreSQL with the
// local executor and the default lease (5 s). The leader is killed -9 in
// the middle of a burst of concurrent submissions. Every acknowledged task
// is then stored exactly once and runs to the end, the standby takes over
// and acts within the lease time (plus its retry period and recovery), and
// no task ever ran on two replicas at once.
func TestPostgresFailoverUnderLoad(t *testing.T) {
	f := newPGFixture(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 4}]
teams: [{name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 4}]}]
`)
	beats := filepath.Join(f.dir, "beats.log")
	a, b := f.startPair(t, f.dsn)

	// The burst: 8 clients submit through either replica (the standby
	// forwards), retrying on another when one fails, each submission with
	// its own Idempotency-Key; a name counts as acknowledged only on a 201,
	// which names the record (its seq). A try whose answer was lost (the
	// kill) was stored or not; either way its retries get one task.
	const clients, perClient = 8, 40
	var mu sync.Mutex
	acked := map[string]int64{} // name: the acknowledged record's seq
	var refused []string        // names whose retry got 409
	var killedAt time.Time
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perClient; i++ {
				name := fmt.Sprintf("c%d-%d", c, i)
				body := map[string]any{"name": name, "team": "alpha", "instanceType": "ml.p5.48xlarge",
					"perNode": map[string]int{"gpus": 1}, "command": beatScript(beats, 6)}
				for try := 0; try < 200; try++ {
					via := []*replica{a, b}[(c+try)%2]
					var got struct{ Seq int64 }
					code, err := via.callWith("POST", "/api/v1/tasks", body, &got, http.Header{"Idempotency-Key": {"key-" + name}})
					if err == nil && code == 201 {
						mu.Lock()
						acked[name] = got.Seq
						mu.Unlock()
						break
					}
					if err == nil && code == 409 {
						mu.Lock()
						refused = append(refused, name)
						mu.Unlock()
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	time.Sleep(time.Second)
	killedAt = time.Now()
	_ = a.cmd.Process.Kill() // kill -9, mid-burst
	_ = a.cmd.Wait()
	b.waitStatus(t, "/readyz", 200, 15*time.Second)
	readyAfter := time.Since(killedAt)
	wg.Wait()
	t.Logf("burst of %d submissions in %.1f s; %d acknowledged; leader killed at %.1f s; standby ready %.2f s after the kill",
		clients*perClient, time.Since(start).Seconds(), len(acked), killedAt.Sub(start).Seconds(), readyAfter.Seconds())

	// Every acknowledged task is stored exactly once and runs to the end.
	deadline := time.Now().Add(90 * time.Second)
	for {
		var list struct {
			Tasks []struct {
				Name, State string
				Seq         int64
			} `json:"tasks"`
		}
		code, err := b.call("GET", "/api/v1/tasks?limit=1000", nil, &list)
		if err != nil || code != 200 {
			t.Fatalf("listing: %d %v", code, err)
		}
		// With the key, a retry after a lost answer gets the task its
		// first try stored, live or finished: each name is stored once,
		// as the record its 201 named.
		if len(refused) > 0 {
			t.Fatalf("retries refused with 409 despite their key: %v", refused)
		}
		count := map[string]int{}
		done := 0
		for _, x := range list.Tasks {
			count[x.Name]++
			if x.State == "Succeeded" {
				done++
			}
			if seq, ok := acked[x.Name]; !ok || x.Seq != seq {
				t.Fatalf("task %s: record %d (%s), but its acknowledged record is %d (%v)", x.Name, x.Seq, x.State, seq, ok)
			}
		}
		for name, seq := range acked {
			if count[name] != 1 {
				t.Fatalf("acknowledged task %s (record %d) is stored %d times", name, seq, count[name])
			}
		}
		if done == len(list.Tasks) {
			t.Logf("%d tasks stored (%d acknowledged), every one Succeeded", len(list.Tasks), len(acked))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d tasks succeeded after 90 s", done, len(list.Tasks))
		}
		time.Sleep(500 * time.Millisecond)
	}
	all := readBeats(t, beats)
	var firstB time.Time
	for _, x := range all {
		if x.replica != filepath.Join(f.dir, "a") && strings.HasPrefix(x.replica, filepath.Join(f.dir, "b")) && x.at.After(killedAt) && (firstB.IsZero() || x.at.Before(firstB)) {
			firstB = x.at
		}
	}
	if firstB.IsZero() {
		t.Fatal("the new leader never ran a task")
	}
	acted := firstB.Sub(killedAt)
	t.Logf("failover: the new leader's first task ran %.2f s after the kill (lease 5 s); %d tasks ran on both replicas, never at once", acted.Seconds(), checkNoOverlap(t, all))
	if acted > 5*time.Second+2*time.Second {
		t.Fatalf("the new leader acted %s after the kill", acted)
	}
}

// TestPostgresPartition: the leader's connection to PostgreSQL is cut (a
// proxy between them closes every connection and refuses new ones) while
// the standby still reaches the database. The old leader stops acting:
// it kills its task processes and exits non-zero before the standby can
// take over; the standby takes over and runs the task again, never while
// the old leader's copy still runs. (The database's refusal of the old
// leader's late commits is TestPGLeasePartition's.)
func TestPostgresPartition(t *testing.T) {
	f := newPGFixture(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 2}]
teams: [{name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}]
`)
	pg, dsn, dir := f.pg, f.dsn, f.dir
	proxy := startProxy(t, fmt.Sprintf("127.0.0.1:%d", pg.Port))
	viaProxy := strings.Replace(dsn, fmt.Sprintf(":%d/", pg.Port), ":"+strings.Split(proxy.addr, ":")[1]+"/", 1)
	beats := filepath.Join(dir, "beats.log")
	const lease = 3 * time.Second
	a, b := f.startPair(t, viaProxy, "--leader-elect-lease-duration", lease.String())
	long := map[string]any{"name": "long", "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": beatScript(beats, 200)}
	if code, err := a.call("POST", "/api/v1/tasks", long, nil); err != nil || code != 201 {
		t.Fatalf("submit: %d %v", code, err)
	}
	aDir := filepath.Join(dir, "a")
	waitFor(t, 10*time.Second, func() bool {
		for _, x := range readBeats(t, beats) {
			if strings.HasPrefix(x.replica, aDir) {
				return true
			}
		}
		return false
	})

	cutAt := time.Now()
	proxy.cut()
	exited := make(chan error, 1)
	go func() { exited <- a.cmd.Wait() }()
	var exitErr error
	select {
	case exitErr = <-exited:
	case <-time.After(2 * lease):
		t.Fatal("the cut-off leader did not exit")
	}
	aGone := time.Since(cutAt)
	if exitErr == nil {
		t.Fatal("the deposed leader exited 0")
	}
	b.waitStatus(t, "/readyz", 200, 3*lease) // stretched by load: the bound itself is asserted below
	bReady := time.Since(cutAt)
	if bReady > 3*lease {
		t.Fatalf("the standby was ready %s after the cut, over 3 leases (%s)", bReady, 3*lease)
	}
	waitFor(t, 10*time.Second, func() bool {
		for _, x := range readBeats(t, beats) {
			if !strings.HasPrefix(x.replica, aDir) {
				return true
			}
		}
		return false
	})
	all := readBeats(t, beats)
	var lastA, firstB time.Time
	for _, x := range all {
		if strings.HasPrefix(x.replica, aDir) {
			if x.at.After(lastA) {
				lastA = x.at
			}
		} else if firstB.IsZero() || x.at.Before(firstB) {
			firstB = x.at
		}
	}
	t.Logf("partition: the old leader exited %.2f s after the cut (%v), its task's last beat %.2f s after it; the standby was ready after %.2f s and ran the task from %.2f s (lease %s)",
		aGone.Seconds(), exitErr, lastA.Sub(cutAt).Seconds(), bReady.Seconds(), firstB.Sub(cutAt).Seconds(), lease)
	if checkNoOverlap(t, all) != 1 {
		t.Fatal("the task did not run on both replicas")
	}
	if aGone > lease*2/3+time.Second {
		t.Fatalf("the old leader went on %s after the cut", aGone)
	}
}
