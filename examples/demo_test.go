package examples

import (
	"flag"
	"os"
	"testing"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/scenario"
)

var update = flag.Bool("update", false, "rewrite demo.yaml's expect block with the trace produced")

// TestDemo keeps the demo that the README points to honest: it must replay
// with invariants checked and produce its recorded trace.
func TestDemo(t *testing.T) {
	var f scenario.File
	if err := config.Decode(Demo, &f); err != nil {
		t.Fatal(err)
	}
	got, err := scenario.Run(&f, scenario.Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		out, _ := scenario.RewriteExpect(Demo, got)
		if err := os.WriteFile("demo.yaml", out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != f.Expect {
		t.Fatalf("demo trace changed; review, then rerun with -update:\n%s", got)
	}
}
