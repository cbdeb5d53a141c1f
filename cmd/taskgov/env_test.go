package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// machineEnv names the variables through which the CLI and the server read
// a server, a token or a store from the environment. A developer's shell or
// a CI machine may export them; a test must not reach that server or store.
var machineEnv = []string{"TASKGOV_SERVER", "TASKGOV_TOKEN", "TASKGOV_STORE"}

// TestMain runs the package's tests in an environment of their own: the
// variables above are cleared, and the CLI's config file (read and written
// by login) is one in a temporary directory, not the user's
// (~/.config/taskgov). Tests that need their own set them with t.Setenv.
func TestMain(m *testing.M) {
	for _, k := range machineEnv {
		os.Unsetenv(k)
	}
	dir, err := os.MkdirTemp("", "taskgov-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TASKGOV_CONFIG", filepath.Join(dir, "config.yaml"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestTheEnvironmentIsTheTestsOwn: whatever the machine exports, a test
// starts with no server, token or store from the environment, and the CLI
// config it would read or write lies in a temporary directory.
func TestTheEnvironmentIsTheTestsOwn(t *testing.T) {
	for _, k := range machineEnv {
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("%s=%q reaches the tests", k, v)
		}
	}
	if p, tmp := configPath(), os.TempDir(); !strings.HasPrefix(p, tmp+string(filepath.Separator)) {
		t.Errorf("the CLI config is %s, outside %s", p, tmp)
	}
}
