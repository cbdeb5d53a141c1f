package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/examples"
	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// demoCmd is the README's main command: a live server, a training job that
// checkpoints, a higher-priority job that preempts it, and the resume.
func demoCmd() *cobra.Command {
	var keep bool
	var dataDir string
	c := &cobra.Command{
		Use:   "demo",
		Short: "Start a server on a sample cluster and show preemption with checkpoint and resume, live",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), cmd.OutOrStdout(), dataDir, keep)
		},
	}
	c.Flags().BoolVar(&keep, "keep", false, "keep the server running after the story, until Ctrl-C")
	c.Flags().StringVar(&dataDir, "data-dir", "", "where to keep the demo's state (default: a new temporary directory)")
	return c
}

func runDemo(ctx context.Context, out io.Writer, dataDir string, keep bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if dataDir == "" {
		d, err := os.MkdirTemp("", "taskgov-demo-")
		if err != nil {
			return err
		}
		dataDir = d
	}
	cfg := filepath.Join(dataDir, "cluster.yaml")
	script := filepath.Join(dataDir, "train.py")
	if err := os.WriteFile(cfg, examples.DemoCluster, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(script, examples.TrainScript, 0o755); err != nil {
		return err
	}
	trainCmd := []string{"python3", script}
	if _, err := exec.LookPath("python3"); err != nil {
		self, _ := os.Executable()
		trainCmd = []string{self, "example-train"}
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	logf, err := os.OpenFile(filepath.Join(dataDir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	go func() {
		errc <- runServer(sctx, serverOptions{config: cfg, dataDir: dataDir, listen: "127.0.0.1:0", logTo: logf},
			func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-errc:
		return err
	}
	tok, err := os.ReadFile(filepath.Join(dataDir, "admin.token"))
	if err != nil {
		return err
	}
	d := &demo{out: out, cl: client.New("http://"+addr, strings.TrimSpace(string(tok))), start: time.Now()}
	d.cl.HTTP.Timeout = 0 // the event stream lasts the whole demo
	fmt.Fprintf(out, "taskgov demo: server at %s, state in %s\n", d.cl.Server, dataDir)
	fmt.Fprintf(out, "cluster: 4 ml.p5.48xlarge (3-layer topology), 2 ml.g5.12xlarge; teams research, product, platform;\n")
	fmt.Fprintf(out, "priority classes inference 90, experimentation 80, training 70, fine-tuning 50\n\n")
	go d.follow(sctx)

	d.say("1. research submits a 4-node training job at priority 'training'; it borrows product's idle nodes")
	train := append(append([]string{}, trainCmd...), "--steps", "40", "--step-seconds", "0.25", "--checkpoint-every", "4")
	if err := d.submit(model.TaskSpec{Name: "llama-pretrain", Team: "research", Priority: "training",
		InstanceType: "ml.p5.48xlarge", Nodes: 4, GracePeriodSeconds: 10, AutoResume: true, MaxRetry: 2,
		PreferredTopology: model.LabelLayer2, Command: train}); err != nil {
		return err
	}
	if err := d.waitLog("llama-pretrain", "checkpoint saved at step 8", 30*time.Second); err != nil {
		return err
	}
	d.say("2. the training job has checkpointed (step 8)")
	d.say("3. product submits a 2-node inference job at priority 'inference', within its own quota:")
	d.say("   product reclaims its lent nodes; the training gang is preempted (SIGTERM, grace period, checkpoint)")
	if err := d.submit(model.TaskSpec{Name: "chat-serving", Team: "product", Priority: "inference",
		InstanceType: "ml.p5.48xlarge", Nodes: 2, Command: []string{"sh", "-c", "echo serving; sleep 5; echo done"}}); err != nil {
		return err
	}
	if err := d.waitState("chat-serving", model.StateSucceeded, 60*time.Second); err != nil {
		return err
	}
	d.say("4. capacity is free again: the training job resumes from its checkpoint")
	if err := d.waitState("llama-pretrain", model.StateSucceeded, 90*time.Second); err != nil {
		return err
	}
	logs, _ := d.cl.TaskLogs(context.Background(), "llama-pretrain", 0)
	for _, line := range strings.Split(string(logs), "\n") {
		if strings.Contains(line, "preempted: checkpoint saved") || strings.Contains(line, "resuming from checkpoint") ||
			strings.Contains(line, "training finished") {
			d.say("   log: " + line)
		}
	}
	at := d.cl
	if !keep {
		at = client.New("http://127.0.0.1:8080", "")
		fmt.Fprintf(out, "\nWhere to look next: the state is kept in %s. Serve it again with\n", dataDir)
		fmt.Fprintf(out, "  go run ./cmd/taskgov server --data-dir %s --listen 127.0.0.1:8080\n", dataDir)
		fmt.Fprintf(out, "(or rerun the demo with --keep), then, with the admin token from %s:\n", filepath.Join(dataDir, "admin.token"))
	} else {
		fmt.Fprintf(out, "\nWhere to look next, with the admin token from %s:\n", filepath.Join(dataDir, "admin.token"))
	}
	fmt.Fprintf(out, "  export TOKEN=$(cat %s)\n", filepath.Join(dataDir, "admin.token"))
	fmt.Fprintf(out, "  curl -H \"Authorization: Bearer $TOKEN\" %s\n", at.URL("tasks", "llama-pretrain", "events"))
	fmt.Fprintf(out, "  curl -H \"Authorization: Bearer $TOKEN\" '%s?format=text'\n", at.URL("topology"))
	fmt.Fprintf(out, "  curl -H \"Authorization: Bearer $TOKEN\" %s\n", at.URL("queue"))
	fmt.Fprintf(out, "  the API description: %s; server log: %s\n", at.URL("openapi.json"), filepath.Join(dataDir, "server.log"))
	if keep {
		fmt.Fprintln(out, "\nThe server keeps running; press Ctrl-C to stop it.")
		<-ctx.Done()
	}
	stop()
	return <-errc
}

// demo talks to the demo server.
type demo struct {
	out   io.Writer
	cl    *client.Client
	start time.Time
}

func (d *demo) say(msg string) {
	fmt.Fprintf(d.out, "[%5.1fs] %s\n", time.Since(d.start).Seconds(), msg)
}

func (d *demo) submit(task model.TaskSpec) error {
	if _, err := d.cl.Submit(context.Background(), task); err != nil {
		return fmt.Errorf("submitting %s: %w", task.Name, err)
	}
	return nil
}

func (d *demo) waitState(task string, state model.TaskState, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if t, err := d.cl.Task(context.Background(), task); err == nil && t.State == state {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not reach %s within %v", task, state, within)
}

func (d *demo) waitLog(task, text string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if b, err := d.cl.TaskLogs(context.Background(), task, 0); err == nil && bytes.Contains(b, []byte(text)) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not log %q within %v", task, text, within)
}

// follow prints task events from the server's event stream as they happen.
func (d *demo) follow(ctx context.Context) {
	body, err := d.cl.Events(ctx)
	if err != nil {
		return
	}
	defer body.Close()
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct{ Task, Team, Kind, Message string }
		if json.Unmarshal([]byte(data), &ev) == nil && ev.Kind != "Checkpoint" {
			d.say(fmt.Sprintf("   event %-11s %s/%s: %s", ev.Kind, ev.Team, ev.Task, ev.Message))
		}
	}
}
