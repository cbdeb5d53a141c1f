package examples

import (
	"testing"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/scenario"
)

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
	if got != f.Expect {
		t.Fatalf("demo trace changed; update examples/demo.yaml's expect block after review:\n%s", got)
	}
}
