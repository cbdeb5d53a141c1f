package main

import (
	"os/exec"
	"regexp"
	"testing"
)

// TestLoadtestPrefill: --prefill queues that many tasks (they stay pending)
// before the timed phase, says how long that took, reports the server's
// live heap after it and the collections during the phase (from the
// server's go_* metrics), and the server's resident set with the whole
// queue pending.
func TestLoadtestPrefill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server process")
	}
	bin := buildBinary(t)
	out, err := exec.Command(bin, "loadtest", "--prefill", "300", "--tasks", "100", "--clients", "4").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		`prefill: 300 pending tasks queued in [0-9.]+s \([0-9]+/s\)`,
		`submissions: 100 from 4 clients in [0-9.]+s: [0-9]+ acknowledged/s`,
		`[0-9]+ garbage collections \([0-9]+ ms of CPU, [0-9]+ ms of it in assists\)`,
		`the server's live heap after the prefill \(at its last collection\): [1-9][0-9.]* MiB`,
		`memory: 400 pending: server resident set [0-9.]+ MiB`,
	} {
		if !regexp.MustCompile(want).Match(out) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
