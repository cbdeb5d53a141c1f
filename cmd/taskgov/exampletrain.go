package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// exampleTrainCmd is the Go twin of examples/train.py, used by the demo when
// python3 is not installed: the same flags, checkpoint files and output.
func exampleTrainCmd() *cobra.Command {
	var steps, every int
	var stepSeconds float64
	c := &cobra.Command{
		Use:    "example-train",
		Short:  "The example training job: steps, periodic checkpoints, resume, checkpoint on SIGTERM",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := os.Getenv("TASKGOV_CHECKPOINT_DIR")
			if dir == "" {
				dir = "."
			}
			rank := os.Getenv("RANK")
			path := filepath.Join(dir, "rank-"+rank+".json")
			if rank == "" {
				path = filepath.Join(dir, "rank-0.json")
			}
			save := func(step int) {
				b, _ := json.Marshal(map[string]any{"step": step, "loss": 10.0 / float64(step+1)})
				tmp := path + ".tmp"
				_ = os.WriteFile(tmp, b, 0o644)
				_ = os.Rename(tmp, path)
				if rank == "" || rank == "0" {
					_ = os.WriteFile(filepath.Join(dir, ".taskgov-checkpoint"), []byte(strconv.Itoa(step)), 0o644)
				}
				fmt.Printf("checkpoint saved at step %d\n", step)
			}
			step := 0
			if b, err := os.ReadFile(path); err == nil {
				var st struct{ Step int }
				_ = json.Unmarshal(b, &st)
				step = st.Step
				fmt.Printf("resuming from checkpoint at step %d (resume #%s)\n", step, os.Getenv("TASKGOV_RESUME_COUNT"))
			} else {
				fmt.Println("starting from step 0")
			}
			term := make(chan os.Signal, 1)
			signal.Notify(term, syscall.SIGTERM)
			for step < steps {
				select {
				case <-term:
					save(step)
					fmt.Printf("preempted: checkpoint saved at step %d, exiting\n", step)
					os.Exit(143)
				case <-time.After(time.Duration(stepSeconds * float64(time.Second))):
				}
				step++
				fmt.Printf("step %d loss %.4f\n", step, 10.0/float64(step+1))
				if step%every == 0 {
					save(step)
				}
			}
			fmt.Printf("training finished at step %d\n", step)
			return nil
		},
	}
	c.Flags().IntVar(&steps, "steps", 60, "steps to train")
	c.Flags().Float64Var(&stepSeconds, "step-seconds", 0.5, "seconds per step")
	c.Flags().IntVar(&every, "checkpoint-every", 5, "steps between checkpoints")
	return c
}
