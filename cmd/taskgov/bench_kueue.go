package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sim"
)

func benchCmd() *cobra.Command {
	c := &cobra.Command{Use: "bench", Short: "Benchmarks against a real server"}
	var delay float64
	kb := &cobra.Command{Use: "kueue-baseline", Short: "Kueue's baseline workload in real time through the API of a fresh local server", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return benchKueue(cmd.Context(), cmd.OutOrStdout(), delay) }}
	kb.Flags().Float64Var(&delay, "preemption-delay", 1, "policy preemptionDelaySeconds")
	c.AddCommand(kb)
	return c
}

// benchKueue starts a server child process with the baseline's cluster,
// submits the 15,000 workloads through the API at their arrival times (each
// runs `sleep <duration>`), waits for all to finish, and reports Kueue's
// measures from the stored task records.
func benchKueue(ctx context.Context, out io.Writer, delay float64) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cl, jobs := sim.KueueBaseline(false)
	cl.Policy.PreemptionDelaySeconds = delay
	b, err := yaml.Marshal(cl)
	if err != nil {
		return err
	}
	srv, err := startChildServer("taskgov-kueue-", b)
	if err != nil {
		return err
	}
	defer srv.stop()
	c := client.New(srv.base, srv.token)
	c.HTTP = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}, Timeout: time.Minute}
	fmt.Fprintf(out, "submitting %d workloads at their arrival times...\n", len(jobs))
	start := time.Now()
	work := make(chan sim.Job, 256)
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				spec := model.TaskSpec{Name: j.Name, Team: j.Team, Priority: j.Priority, InstanceType: j.InstanceType,
					PerNode: model.Request{VCPU: j.VCPUPerNode}, Command: []string{"sleep", strconv.FormatFloat(j.DurationS, 'f', -1, 64)}}
				if _, err := c.Submit(ctx, spec); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range jobs {
		if d := time.Until(start.Add(time.Duration(j.SubmitS * float64(time.Second)))); d > 0 {
			time.Sleep(d)
		}
		work <- j
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	for {
		page, err := c.TasksPage(ctx, client.TaskQuery{States: []string{string(model.StatePending), string(model.StateRunning)}}, 1, 0)
		if err != nil {
			return err
		}
		if len(page.Tasks) == 0 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	all, err := c.Tasks(ctx, client.TaskQuery{})
	if err != nil {
		return err
	}
	f := kueueFigures(all)
	kueueTable(out, fmt.Sprintf("taskgov, real time via the API (preemption delay %gs)", delay), f)
	return nil
}

// kueueFigures computes Kueue's measures from task records: wall time from
// the first submission to the last finish; time to admission from
// submission to the start of the last run; usage per queue from the last
// runs (earlier, evicted runs are not in the records, so usage is a lower
// bound); evictions from resume counts.
func kueueFigures(ts []apitypes.Task) sim.KueueFigures {
	f := sim.KueueFigures{AdmitS: map[string]float64{}, BoundS: sim.KueueCohortBound()}
	first, last := math.Inf(1), 0.0
	admit, n := map[string]float64{}, map[string]int{}
	type span struct{ area, first, last float64 }
	queues := map[string]*span{}
	base := ts[0].SubmittedAt
	for _, t := range ts {
		sub := t.SubmittedAt.Sub(base).Seconds()
		st := t.StartedAt.Sub(base).Seconds()
		fin := t.FinishedAt.Sub(base).Seconds()
		first, last = math.Min(first, sub), math.Max(last, fin)
		admit[t.Spec.Priority] += st - sub
		n[t.Spec.Priority]++
		f.Evictions += t.Resumes
		q := queues[t.Team]
		if q == nil {
			q = &span{first: sub, last: fin}
			queues[t.Team] = q
		}
		q.first, q.last = math.Min(q.first, sub), math.Max(q.last, fin)
		q.area += t.Spec.PerNode.VCPU * (fin - st)
	}
	f.WallS = last - first
	for class, total := range admit {
		f.AdmitS[class] = total / float64(n[class])
	}
	var usage []float64
	for name, q := range queues {
		if strings.HasPrefix(name, "cq-") && q.last > q.first {
			usage = append(usage, q.area/(20*(q.last-q.first)))
		}
	}
	sort.Float64s(usage)
	sum := 0.0
	for _, u := range usage {
		sum += u
	}
	if len(usage) > 0 {
		f.UsagePct = 100 * sum / float64(len(usage))
	}
	return f
}
