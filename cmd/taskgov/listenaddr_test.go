package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/testwait"
)

// anyPort is the --listen of every server a test starts: the kernel picks
// a free port as the server binds, so parallel runs on one machine cannot
// collide (a port picked, released and then bound is a race another run
// can win, and its server would then answer this test's requests).
const anyPort = "127.0.0.1:0"

// listeningLine starts the line a server writes to its log once it
// serves (server.go).
const listeningLine = "taskgov server listening on "

// logSize is the size of the log at path now (0 if absent): where the
// next start's lines begin.
func logSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// boundAddr waits for the server whose log is path, started when the log
// had from bytes, to say where it listens, and returns that HOST:PORT. It
// fails t with the log if the line does not come in time.
func boundAddr(t *testing.T, path string, from int64, within time.Duration) string {
	t.Helper()
	var addr string
	err := testwait.Until(within, 20*time.Millisecond, func() bool {
		b, _ := os.ReadFile(path)
		if int64(len(b)) < from {
			return false
		}
		rest := string(b[from:])
		i := strings.Index(rest, listeningLine)
		if i < 0 {
			return false
		}
		rest = rest[i+len(listeningLine):]
		end := strings.IndexAny(rest, " \n")
		if end < 0 {
			return false
		}
		addr = rest[:end]
		return true
	})
	if err != nil {
		b, _ := os.ReadFile(path)
		t.Fatalf("the server did not say where it listens: %v\n%s", err, tail(string(b), 4000))
	}
	return addr
}
