package scenario

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expect blocks of testdata/*.yaml with the traces produced")

// TestScenarios replays every testdata file (and those of testdata/kueue,
// Kueue's unit tests translated, docs/KUEUE-TESTS.md), checks invariants
// after every cycle, and compares the trace with the file's expect block. It
// also replays each file a second time and requires the identical trace
// (determinism).
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	kueue, err := filepath.Glob("testdata/kueue/*.yaml")
	if err != nil || len(kueue) == 0 {
		t.Fatalf("no translated Kueue scenario files: %v", err)
	}
	for _, path := range append(files, kueue...) {
		name, _ := filepath.Rel("testdata", path)
		t.Run(strings.ReplaceAll(name, string(filepath.Separator), ":"), func(t *testing.T) {
			f, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Run(f, Options{Check: true})
			if err != nil {
				t.Fatalf("%v\ntrace so far:\n%s", err, got)
			}
			again, _ := Run(f, Options{Check: true})
			if again != got {
				t.Fatalf("two runs of the same scenario differ:\n%s\n---\n%s", got, again)
			}
			if *update {
				data, _ := os.ReadFile(path)
				out, _ := RewriteExpect(data, got)
				if err := os.WriteFile(path, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != f.Expect {
				t.Errorf("trace differs from expect (rerun with -update and review the diff)\n--- got:\n%s--- want:\n%s", got, f.Expect)
			}
		})
	}
}
