package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/examples"
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
	d := &demo{out: out, base: "http://" + addr, token: strings.TrimSpace(string(tok)), start: time.Now()}
	fmt.Fprintf(out, "taskgov demo: server at %s, state in %s\n", d.base, dataDir)
	fmt.Fprintf(out, "cluster: 4 ml.p5.48xlarge (3-layer topology), 2 ml.g5.12xlarge; teams research, product, platform;\n")
	fmt.Fprintf(out, "priority classes inference 90, experimentation 80, training 70, fine-tuning 50\n\n")
	go d.follow(sctx)

	d.say("1. research submits a 4-node training job at priority 'training'; it borrows product's idle nodes")
	train := append(append([]string{}, trainCmd...), "--steps", "40", "--step-seconds", "0.25", "--checkpoint-every", "4")
	if err := d.submit(map[string]any{"name": "llama-pretrain", "team": "research", "priority": "training",
		"instanceType": "ml.p5.48xlarge", "nodes": 4, "gracePeriodSeconds": 10, "autoResume": true, "maxRetry": 2,
		"preferredTopology": "topology.k8s.aws/network-node-layer-2", "command": train}); err != nil {
		return err
	}
	if err := d.waitLog("llama-pretrain", "checkpoint saved at step 8", 30*time.Second); err != nil {
		return err
	}
	d.say("2. the training job has checkpointed (step 8)")
	d.say("3. product submits a 2-node inference job at priority 'inference', within its own quota:")
	d.say("   product reclaims its lent nodes; the training gang is preempted (SIGTERM, grace period, checkpoint)")
	if err := d.submit(map[string]any{"name": "chat-serving", "team": "product", "priority": "inference",
		"instanceType": "ml.p5.48xlarge", "nodes": 2, "command": []string{"sh", "-c", "echo serving; sleep 5; echo done"}}); err != nil {
		return err
	}
	if err := d.waitState("chat-serving", "Succeeded", 60*time.Second); err != nil {
		return err
	}
	d.say("4. capacity is free again: the training job resumes from its checkpoint")
	if err := d.waitState("llama-pretrain", "Succeeded", 90*time.Second); err != nil {
		return err
	}
	logs, _ := d.get("/api/v1/tasks/llama-pretrain/logs")
	for _, line := range strings.Split(string(logs), "\n") {
		if strings.Contains(line, "preempted: checkpoint saved") || strings.Contains(line, "resuming from checkpoint") ||
			strings.Contains(line, "training finished") {
			d.say("   log: " + line)
		}
	}
	base := d.base
	if !keep {
		base = "http://127.0.0.1:8080"
		fmt.Fprintf(out, "\nWhere to look next: the state is kept in %s. Serve it again with\n", dataDir)
		fmt.Fprintf(out, "  go run ./cmd/taskgov server --data-dir %s --listen 127.0.0.1:8080\n", dataDir)
		fmt.Fprintf(out, "(or rerun the demo with --keep), then, with the admin token from %s:\n", filepath.Join(dataDir, "admin.token"))
	} else {
		fmt.Fprintf(out, "\nWhere to look next, with the admin token from %s:\n", filepath.Join(dataDir, "admin.token"))
	}
	fmt.Fprintf(out, "  export TOKEN=$(cat %s)\n", filepath.Join(dataDir, "admin.token"))
	fmt.Fprintf(out, "  curl -H \"Authorization: Bearer $TOKEN\" %s/api/v1/tasks/llama-pretrain/events\n", base)
	fmt.Fprintf(out, "  curl -H \"Authorization: Bearer $TOKEN\" '%s/api/v1/topology?format=text'\n", base)
	fmt.Fprintf(out, "  curl -H \"Authorization: Bearer $TOKEN\" %s/api/v1/queue\n", base)
	fmt.Fprintf(out, "  the API description: %s/api/v1/openapi.json; server log: %s\n", base, filepath.Join(dataDir, "server.log"))
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
	base  string
	token string
	start time.Time
}

func (d *demo) say(msg string) {
	fmt.Fprintf(d.out, "[%5.1fs] %s\n", time.Since(d.start).Seconds(), msg)
}

func (d *demo) get(path string) ([]byte, error) {
	req, _ := http.NewRequest("GET", d.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func (d *demo) submit(task map[string]any) error {
	b, _ := json.Marshal(task)
	req, _ := http.NewRequest("POST", d.base+"/api/v1/tasks", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("submitting %v: %s", task["name"], body)
	}
	return nil
}

func (d *demo) waitState(task, state string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		b, err := d.get("/api/v1/tasks/" + task)
		var v struct{ State string }
		if err == nil && json.Unmarshal(b, &v) == nil && v.State == state {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not reach %s within %v", task, state, within)
}

func (d *demo) waitLog(task, text string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if b, err := d.get("/api/v1/tasks/" + task + "/logs"); err == nil && bytes.Contains(b, []byte(text)) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not log %q within %v", task, text, within)
}

// follow prints task events from the server's event stream as they happen.
func (d *demo) follow(ctx context.Context) {
	req, _ := http.NewRequestWithContext(ctx, "GET", d.base+"/api/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
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
