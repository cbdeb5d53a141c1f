package main

import (
	"context"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestDashboardPreemptedTaskAsMember is a data scientist of ml-engineers
// looking at a job that was preempted, in headless Chromium against a real
// server: the job checkpointed (five times, through its checkpoint file)
// shortly before product reclaimed the node it borrowed. Its page says what the
// preemption cost, telling the work since the checkpoint (a few seconds of
// 24 GPUs) from the restart the policy charges (24 GPUs × restartCostSeconds),
// where one figure called both "since its last checkpoint"; says where it
// is in its team's queue ("position 1 of 1 in the queue of team
// ml-engineers"); and folds the checkpoints into one timeline row. Its
// row on the Tasks page starts with where and why it waits.
func TestDashboardPreemptedTaskAsMember(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser")
	}
	cliServer(t)
	member := strings.TrimSpace(mustCLI(t, "token", "create", "--role", "member", "--team", "ml-engineers"))
	// It checkpoints five times, 0.6 s apart, through its checkpoint file.
	mustCLI(t, "start-job", "--job-name", "big-train", "-n", "ml-engineers", "--node-count", "3", "--priority", "training",
		"--command", `for i in 1 2 3 4 5; do touch "$TASKGOV_CHECKPOINT_DIR/.taskgov-checkpoint"; sleep 0.6; done; exec sleep 3600`, "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "big-train", "Running")
	cl, _ := apiClient()
	ctx := context.Background()
	// Two checkpoints seen before the preemption (a fixed 4 s wait for them
	// is not enough where the shell's loop runs slowly).
	waitFor(t, 20*time.Second, func() bool {
		var evs struct{ Events []model.Event }
		n := 0
		if cl.Do(ctx, "GET", "/api/v1/tasks/big-train/events", nil, &evs) == nil {
			for _, e := range evs.Events {
				if e.Kind == "Checkpoint" {
					n++
				}
			}
		}
		return n >= 2
	})
	mustCLI(t, "start-job", "--job-name", "serve", "-n", "product", "--node-count", "2", "--priority", "inference",
		"--command", "sleep 3600", "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "big-train", "Pending")
	var evs struct{ Events []model.Event }
	if err := cl.Do(ctx, "GET", "/api/v1/tasks/big-train/events", nil, &evs); err != nil {
		t.Fatal(err)
	}
	checkpoints, lastCheckpoint, preemptedAt := 0, time.Time{}, time.Time{}
	for _, e := range evs.Events {
		switch e.Kind {
		case "Checkpoint":
			checkpoints, lastCheckpoint = checkpoints+1, e.At
		case "Preempted":
			preemptedAt = e.At
		}
	}
	if checkpoints < 2 || preemptedAt.IsZero() {
		t.Fatalf("%d checkpoint events and preempted at %v: want 2 or more, then a preemption (%+v)", checkpoints, preemptedAt, evs.Events)
	}
	since := preemptedAt.Sub(lastCheckpoint).Seconds()
	var pol model.Policy
	if err := cl.Do(ctx, "GET", "/api/v1/policy", nil, &pol); err != nil {
		t.Fatal(err)
	}
	restart := int64(model.DefaultRestartCostSeconds)
	if pol.RestartCostSeconds != nil {
		restart = *pol.RestartCostSeconds
	}

	b := newBrowser(t, os.Getenv("TASKGOV_SERVER"), 60*time.Second)
	b.login(member)
	b.open("task/big-train", "#task-message")
	msg := b.text("#task-message")
	m := regexp.MustCompile(`^preempted \(Reclaim\) for another team's task, (\d+) GPU·s of work since its last checkpoint lost, and (\d+) GPU·s to restart \((\d+) s per GPU\); requeued in its place$`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("message %q: want the work since the checkpoint and the restart told apart", msg)
	}
	work, _ := strconv.ParseFloat(m[1], 64)
	if math.Abs(work-24*since) > 24*1.5 {
		t.Errorf("work lost %v GPU·s; the job's last checkpoint event was %.1f s before its preemption on 24 GPUs", work, since)
	}
	if m[2] != strconv.FormatInt(24*restart, 10) || m[3] != strconv.FormatInt(restart, 10) {
		t.Errorf("restart %s GPU·s at %s s per GPU; the policy charges %d s per GPU on 24 GPUs", m[2], m[3], restart)
	}
	if got := b.text("#task-queue"); !strings.HasPrefix(got, "position 1 of 1 in the queue of team ml-engineers: ") {
		t.Errorf("queue line %q", got)
	}
	rows := eval[[]string](b, `[...document.querySelectorAll('#events-table tbody tr')].map(r => r.querySelector('.kind').textContent + ': ' + r.lastElementChild.textContent)`)
	var ckpt []string
	for _, r := range rows {
		if strings.HasPrefix(r, "Checkpoint: ") {
			ckpt = append(ckpt, r)
		}
	}
	if want := strconv.Itoa(checkpoints) + " × checkpoint saved, the first at "; len(ckpt) != 1 || !strings.Contains(ckpt[0], want) {
		t.Errorf("checkpoint rows %q; want one that says %q (timeline %q)", ckpt, want, rows)
	}
	// When will it start: nothing in its wait names a time, so the page
	// says there is no estimate and why, never a number.
	if got := b.text("#task-start"); !strings.HasPrefix(got, "No estimate Basis: ") || !strings.Contains(got, "declare no end time") {
		t.Errorf("start line %q: want no estimate and its basis", got)
	}
	b.a11y("member-task-preempted")
	b.shots("member-task-preempted")
	// The task list says the same in its row: where and why it waits, then
	// what happened to it.
	b.open("tasks", `tr[data-task="big-train"]`)
	b.until("big-train's row says why it waits", `(m => m.startsWith("#1 in the queue of team ml-engineers: the task needs 24 GPUs") && m.includes("preempted (Reclaim) for another team's task"))(document.querySelector('tr[data-task="big-train"] td.msg').textContent)`, 10*time.Second)
	// Its queue row says when it may start on the same basis; the recent
	// preemptions list it, with the other team's task and team hidden and
	// the cost told apart as on its page.
	b.until("its queue row's start", `document.querySelector('tr[data-key="q-big-train"] .start-cell')?.textContent.startsWith('No estimate Basis: ')`, 10*time.Second)
	b.until("recent preemptions", exists(`#preemptions-table tr[data-preemption="big-train"]`), 10*time.Second)
	row := eval[[]string](b, `[...document.querySelector('#preemptions-table tr[data-preemption="big-train"]').cells].map(c => c.textContent.trim())`)
	if len(row) != 8 || row[2] != "ml-engineers" || row[3] != "another team's task" || row[4] != "another team" || row[5] != "Reclaim" || row[6] != "24" ||
		row[7] != commas(int(work))+" GPU·s work + "+commas(int(24*restart))+" GPU·s restart" {
		t.Errorf("recent preemption row %q: want big-train of ml-engineers, for another team's task, Reclaim, 24 GPUs, %v GPU·s work + %d restart", row, work, 24*restart)
	}
	if n := eval[int](b, `document.querySelectorAll('#preemptions-table tbody tr').length`); n != 1 {
		t.Errorf("%d recent preemptions shown to ml-engineers; one concerns it", n)
	}
	b.shots("member-tasks-preempted")
}
