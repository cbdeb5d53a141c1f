// Package pgtest starts throwaway PostgreSQL clusters for tests: initdb in a
// temporary directory, postgres on a free loopback port, run as an
// unprivileged user when the test runs as root (postgres refuses root), and
// everything removed afterwards. Tests skip, saying how to get PostgreSQL,
// when its binaries are absent.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// HowTo says how to get the binaries the tests need.
const HowTo = "PostgreSQL is not installed: run `bash scripts/install-test-deps.sh` as root (Debian's postgresql package), " +
	"or set TASKGOV_PG_BIN to the directory holding initdb and postgres"

// Bin finds the directory of initdb and postgres: TASKGOV_PG_BIN, else
// Debian's /usr/lib/postgresql/VERSION/bin (the newest), else PATH.
func Bin() (string, bool) {
	if d := os.Getenv("TASKGOV_PG_BIN"); d != "" {
		_, err := os.Stat(filepath.Join(d, "initdb"))
		return d, err == nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, true
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), true
	}
	return "", false
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// Server is one running cluster.
type Server struct {
	Dir  string
	Port int
	bin  string
	cred *syscall.Credential
	cmd  *exec.Cmd
	done chan struct{} // closed when postgres has exited
	dbs  atomic.Int64
}

// Start starts a cluster for t and stops it when t ends; it skips t if
// PostgreSQL is not installed.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := StartServer()
	if err == errMissing {
		t.Skip(HowTo)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

var errMissing = fmt.Errorf("%s", HowTo)

// StartServer starts a cluster; the caller must Stop it.
func StartServer() (*Server, error) {
	bin, ok := Bin()
	if !ok {
		return nil, errMissing
	}
	dir, err := os.MkdirTemp("", "taskgov-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			return nil, fmt.Errorf("postgres refuses to run as root and there is no user nobody: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := s.command("initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	for try := 0; ; try++ {
		if s.Port, err = freePort(); err != nil {
			return nil, err
		}
		if err = s.startPostgres(); err == nil || try == 3 {
			break
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	// Dies with the test binary, whatever way it ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGQUIT}
	return cmd
}

// startPostgres runs postgres with the settings taskgov relies on:
// synchronous_commit and fsync on (acknowledged means durable).
func (s *Server) startPostgres() error {
	logf, err := os.OpenFile(filepath.Join(s.Dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644) // kept over a Restart
	if err != nil {
		return err
	}
	if s.cred != nil {
		_ = logf.Chown(int(s.cred.Uid), int(s.cred.Gid))
	}
	cmd := s.command("postgres", "-D", filepath.Join(s.Dir, "data"), "-p", strconv.Itoa(s.Port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+s.Dir,
		"-c", "fsync=on", "-c", "synchronous_commit=on", "-c", "max_connections=200",
		"-c", "shared_buffers=64MB")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd = cmd
	exited := make(chan struct{})
	s.done = exited
	go func() { _ = cmd.Wait(); logf.Close(); close(exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			b, _ := os.ReadFile(logf.Name())
			return fmt.Errorf("postgres exited at start:\n%s", b)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, s.DSN("postgres"))
		cancel()
		if err == nil {
			c.Close(context.Background())
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	<-exited
	return fmt.Errorf("postgres did not accept connections within 30 s")
}

// Restart stops postgres at once, as a crash would (SIGQUIT, immediate
// shutdown: the next start replays the WAL), waits down, and starts it
// again on the same port and data, as an operator's restart or a
// supervisor after a crash does. Open connections are cut.
func (s *Server) Restart(down time.Duration) error {
	_ = s.cmd.Process.Signal(syscall.SIGQUIT)
	<-s.done
	time.Sleep(down)
	return s.startPostgres()
}

// Freeze stops postgres and its backends (SIGSTOP) without closing
// anything, as a paused host or a stalled disk would: connections stay open
// and nothing answers. Thaw lets them go on.
func (s *Server) Freeze() error { return s.signalAll(syscall.SIGSTOP) }

// Thaw ends a Freeze.
func (s *Server) Thaw() error { return s.signalAll(syscall.SIGCONT) }

// signalAll sends sig to the postmaster and its children (the backends).
func (s *Server) signalAll(sig syscall.Signal) error {
	pids := []int{s.PID()}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", s.PID(), s.PID()))
	if err != nil {
		return fmt.Errorf("listing postgres's backends: %w", err)
	}
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, sig); err != nil && err != syscall.ESRCH {
			return err
		}
	}
	return nil
}

// PID is the postmaster's process id (its backends are its children).
func (s *Server) PID() int { return s.cmd.Process.Pid }

// DSN is the URL of database db.
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

var createMu sync.Mutex

// NewDatabase creates an empty database and returns its DSN.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	dsn, err := s.CreateDatabase()
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// CreateDatabase creates an empty database and returns its DSN.
func (s *Server) CreateDatabase() (string, error) {
	name := fmt.Sprintf("t%d", s.dbs.Add(1))
	createMu.Lock()
	defer createMu.Unlock()
	if err := s.Exec("postgres", "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	return s.DSN(name), nil
}

// Exec runs one SQL statement as the superuser in database db.
func (s *Server) Exec(db, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.DSN(db))
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	_, err = c.Exec(ctx, sql)
	return err
}

// Stop stops the server at once and removes its directory.
func (s *Server) Stop() {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	}
	_ = os.RemoveAll(s.Dir)
}

// Log is the server's log so far, for a failing test.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "postgres.log"))
	return strings.TrimSpace(string(b))
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
