package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// linkRunner starts a real server on walkthroughCluster, builds the real
// binary with its hyp and hyperpod links beside it, and returns a runner
// that calls one of them (by name: hyp, hyperpod or taskgov) in directory
// cwd ("" for the test's) and gives its stdout, its stderr and its exit
// code apart, as a script sees them.
func linkRunner(t *testing.T) func(cwd, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return linkRunnerWith(t, walkthroughCluster)
}

// linkRunnerWith is linkRunner against a server on another cluster file.
func linkRunnerWith(t *testing.T, cluster string) func(cwd, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cliServerWith(t, cluster)
	bin := buildBinary(t)
	dir := filepath.Dir(bin)
	for _, link := range []string{"hyp", "hyperpod"} {
		if err := os.Symlink(bin, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return func(cwd, name string, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(filepath.Join(dir, name), args...)
		cmd.Dir = cwd
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
}
