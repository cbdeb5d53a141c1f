package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/httpapi"
	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/metrics"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/sqlite"
	"github.com/taskgov/taskgov/internal/trends"
)

// serverOptions are the flags of `taskgov server`; keep them stable.
type serverOptions struct {
	config, dataDir, listen, tlsCert, tlsKey string
	executor, kubeconfig, image              string
	auditRetentionDays                       int
	sampleInterval                           time.Duration
	prometheusURL                            string    // DCGM exporter's metrics for measured GPU use
	logTo                                    io.Writer // default stderr
	leader                                   leaderOptions
	advertise                                string
	kubeQPS                                  float32
	podRetention                             time.Duration
	shutdownTimeout                          time.Duration // --shutdown-grace, default 30 s
	checkpoints                              kube.Checkpoints
	noWorkloads                              bool          // --no-workloads
	teamNamespaces                           bool          // --govern-team-namespaces
	taskUser, taskDir                        string        // local executor: who tasks run as, where their directories live
	limits                                   *limitOptions // HTTP limits; nil: the defaults
	cpuProfileDir                            string        // CPU profiles on SIGUSR1 (loadtest --profile-dir)
	store                                    storeFlags
}

func serverCmd() *cobra.Command {
	var o serverOptions
	c := &cobra.Command{
		Use:   "server",
		Short: "Run the taskgov control plane: API, scheduler and local executor",
		Long: `Run the taskgov control plane. State lives in DATA_DIR/taskgov.db (SQLite, WAL).
The first start needs --config and writes the admin token to DATA_DIR/admin.token (mode 0600).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runServer(ctx, o, func(addr string) {
				fmt.Fprintf(cmd.ErrOrStderr(), "taskgov server listening on %s (data in %s)\n", addr, o.dataDir)
			})
		},
	}
	c.Flags().StringVar(&o.config, "config", "", "cluster file (required on the first start; replaces the stored configuration when given)")
	c.Flags().StringVar(&o.dataDir, "data-dir", "taskgov-data", "directory for the database, logs, checkpoints and the admin token")
	c.Flags().StringVar(&o.listen, "listen", "127.0.0.1:8080", "HOST:PORT to serve the API on")
	c.Flags().StringVar(&o.tlsCert, "tls-cert", "", "TLS certificate file (serve HTTPS)")
	c.Flags().StringVar(&o.tlsKey, "tls-key", "", "TLS key file")
	c.Flags().DurationVar(&o.shutdownTimeout, "shutdown-grace", 30*time.Second, "on SIGTERM, how long running tasks get to stop (and be requeued) before they are killed and the server exits")
	c.Flags().IntVar(&o.auditRetentionDays, "audit-retention-days", 90, "delete audit entries and task events older than this many days (0: keep all)")
	c.Flags().DurationVar(&o.sampleInterval, "sample-interval", time.Minute, "how often to sample utilisation for the dashboard's trends")
	c.Flags().StringVar(&o.prometheusURL, "prometheus-url", "", "Prometheus that scrapes the NVIDIA DCGM exporter: the dashboard then shows measured GPU utilisation per pod (DCGM_FI_DEV_GPU_UTIL) against allocation, instead of running nvidia-smi on the server's host")
	o.limits = limitFlags(c)
	profileDirFlag(c, &o.cpuProfileDir)
	c.Flags().StringVar(&o.taskUser, "task-user", "auto", "who local tasks run as: per-team (a uid of its own per team), a user name or uid all teams share, or server (the server's own user); auto: per-team when the server runs as root, else server")
	c.Flags().StringVar(&o.taskDir, "task-dir", "", "where local tasks' working and checkpoint directories live, one per team and task (default: DATA_DIR/work when tasks run as the server's user, else DATA_DIR-tasks beside it)")
	c.Flags().StringVar(&o.executor, "executor", "local", "where tasks run: local (child processes on the cluster file's virtual nodes) or kubernetes (pods; nodes come from the API server)")
	c.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for --executor kubernetes (default: the in-cluster service account)")
	c.Flags().StringVar(&o.image, "image", "python:3.12-slim", "container image for tasks that name none (--executor kubernetes)")
	c.Flags().Float32Var(&o.kubeQPS, "kube-api-qps", 100, "requests per second taskgov may send the Kubernetes API server (bursts of twice that); each admitted pod costs about two")
	daysVar(c.Flags(), &o.podRetention, "pod-retention", 0, "delete each finished task pod, and its logs, this long after it ended (7d, 36h; 0: leave them to Kubernetes' pod garbage collector) (--executor kubernetes)")
	c.Flags().StringVar(&o.checkpoints.Claim, "checkpoint-claim", "", "PersistentVolumeClaim, present in every team namespace, whose TASK subdirectory each pod mounts as TASKGOV_CHECKPOINT_DIR (--executor kubernetes)")
	c.Flags().StringVar(&o.checkpoints.Root, "checkpoint-root", "", "where taskgov sees the same storage as ROOT/NAMESPACE/TASK, to learn of checkpoints from each task's .taskgov-checkpoint marker (--executor kubernetes)")
	c.Flags().BoolVar(&o.noWorkloads, "no-workloads", false, "do not govern Jobs, PyTorchJobs, JobSets and HyperPodPyTorchJobs that carry Kueue's queue label (--executor kubernetes; see docs/KUBERNETES.md)")
	c.Flags().BoolVar(&o.teamNamespaces, "govern-team-namespaces", false, "also govern Jobs, PyTorchJobs, JobSets and HyperPodPyTorchJobs without Kueue's queue label in a team's namespace (hyperpod-ns-TEAM or its configured one) as that team's; taskgov labels those namespaces "+kube.LabelTeam+" (needs deploy/kubernetes/team-namespaces.yaml; --executor kubernetes; see docs/KUBERNETES.md)")
	c.Flags().BoolVar(&o.leader.enabled, "leader-elect", false, "run as one of several replicas: only the leader decides; the others stand by and forward API calls to it. With --store postgres://, the lease is a row in PostgreSQL and every commit is fenced by the leader's term; else a coordination.k8s.io Lease (--executor kubernetes)")
	c.Flags().StringVar(&o.leader.namespace, "leader-elect-namespace", "", "namespace of the Lease (default: the service account's namespace, else taskgov-system)")
	c.Flags().DurationVar(&o.leader.lease, "leader-elect-lease-duration", 0, "how long a standby waits after the leader's last renewal before taking over (default 15s on the Kubernetes Lease, 5s on the PostgreSQL lease)")
	o.store.register(c.Flags())
	c.Flags().StringVar(&o.advertise, "advertise-url", "", "URL at which the other replicas reach this one's API (default: http(s)://HOST:PORT of --listen, with the host name if HOST is unspecified)")
	return c
}

// runServer runs until ctx ends, then shuts down cleanly: running tasks are
// signalled, given their grace period, and requeued to resume on the next
// start (Kubernetes pods keep running and are adopted instead). ready is
// called with the listening address once it serves (with --leader-elect, as
// a standby).
func runServer(ctx context.Context, o serverOptions, ready func(addr string)) error {
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return &model.FieldError{Field: "--tls-cert/--tls-key", Problem: "only one is set", Fix: "give both, or neither"}
	}
	sc, err := o.store.resolve(o.dataDir)
	if err != nil {
		return err
	}
	if o.cpuProfileDir != "" {
		profileOnSignal(o.cpuProfileDir, "server")
	}
	if o.leader.enabled && o.executor != "kubernetes" && !sc.postgres() {
		return &model.FieldError{Field: "--leader-elect", Problem: "needs --store postgres://... (the lease and the fence live in PostgreSQL) or --executor kubernetes (a Lease in the API server)",
			Fix: "drop --leader-elect, or give --store postgres://..., or run with --executor kubernetes"}
	}
	if o.leader.lease == 0 {
		o.leader.lease = 15 * time.Second
		if sc.postgres() {
			o.leader.lease = 5 * time.Second
		}
	}
	if sc.postgres() && o.leader.lease < time.Second {
		return &model.FieldError{Field: "--leader-elect-lease-duration", Problem: "is under 1s", Fix: "use 1s or more (5s is the default with PostgreSQL)"}
	}
	// The data directory's missing parents are made as any directory is
	// (0755 less the umask), before the umask below: tasks that run as
	// other users pass through them to the default task directory beside
	// it (DATA_DIR-tasks), and a parent made 0700 refused the start.
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(o.dataDir)), 0o755); err != nil {
		return dataDirError(o.dataDir, err)
	}
	// Files the server creates (database, logs, token) are its own alone,
	// whatever the data directory's mode was.
	syscall.Umask(0o077)
	if err := os.MkdirAll(o.dataDir, 0o700); err != nil {
		return dataDirError(o.dataDir, err)
	}
	if err := os.Chmod(o.dataDir, 0o700); err != nil {
		return dataDirError(o.dataDir, err)
	}
	// The local executor's tasks run from the data directory on this host:
	// one server holds it. Kubernetes replicas share theirs on purpose (one
	// ReadWriteMany volume, the Lease keeps a single writer: KUBERNETES.md).
	if o.executor != "kubernetes" {
		releaseDir, err := lockDataDir(o.dataDir)
		if err != nil {
			return err
		}
		defer releaseDir()
	}
	if o.logTo == nil {
		o.logTo = os.Stderr
	}
	log := slog.New(slog.NewTextHandler(o.logTo, &slog.HandlerOptions{Level: slog.LevelInfo}))
	var cluster *model.Cluster
	if o.config != "" {
		c, err := config.LoadCluster(o.config)
		if err != nil {
			return err
		}
		cluster = &c
	}
	var kb *kubeBackend
	switch o.executor {
	case "", "local":
	case "kubernetes":
		if cluster == nil {
			return &model.FieldError{Field: "--config", Problem: "is required with --executor kubernetes",
				Fix: "pass the cluster file with your teams, policy and instance types; nodes come from the API server"}
		}
		var err error
		if o.kubeQPS <= 0 {
			return &model.FieldError{Field: "--kube-api-qps", Problem: "must be above 0", Fix: "use the default 100, or more for a large cluster"}
		}
		if o.podRetention < 0 {
			return &model.FieldError{Field: "--pod-retention", Problem: "must not be negative", Fix: "use e.g. 168h, or 0 to keep finished pods"}
		}
		if o.checkpoints.Root != "" && o.checkpoints.Claim == "" {
			return &model.FieldError{Field: "--checkpoint-root", Problem: "is set without --checkpoint-claim",
				Fix: "give the claim the pods mount as well, or drop --checkpoint-root"}
		}
		if o.teamNamespaces && o.noWorkloads {
			return &model.FieldError{Field: "--govern-team-namespaces", Problem: "is set with --no-workloads",
				Fix: "drop one of them: team namespaces are governed only when workloads are"}
		}
		if kb, err = openKube(ctx, o.kubeconfig, o.image, o.kubeQPS, o.checkpoints, o.podRetention, !o.noWorkloads, o.teamNamespaces, log); err != nil {
			return err
		}
	default:
		return &model.FieldError{Field: "--executor", Problem: "unknown executor " + strconv.Quote(o.executor), Fix: "use local or kubernetes"}
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (is another server running there?)", o.listen, err)
	}
	var handler atomic.Pointer[http.Handler]
	srv := &http.Server{ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*handler.Load()).ServeHTTP(w, r) })}
	httpapi.Harden(srv, o.limits.connLimits())
	serve := func(errc chan<- error) {
		if o.tlsCert != "" {
			errc <- srv.ServeTLS(ln, o.tlsCert, o.tlsKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}
	errc := make(chan error, 1)
	defer func() { _ = srv.Close() }() // on an early return; a clean stop shuts down below
	lead := ctx
	var st serverStore
	if sc.postgres() {
		pst, err := postgres.Open(ctx, sc.dsn)
		if err != nil {
			return err
		}
		defer pst.Close()
		pst.SetLog(log) // what its first read waits for (postgres/startsettle.go)
		st = pst
	}
	var pgel *pgElector
	if o.leader.enabled {
		var el interface {
			http.Handler
			waitLeading(context.Context) (context.Context, error)
		}
		if pst, ok := st.(*postgres.Store); ok {
			pgel = newPGElector(pst, o.advertiseURL(ln.Addr()), o.leader.lease, log)
			el = pgel
		} else if el, err = newElector(kb.client, o.leader, o.advertiseURL(ln.Addr()), log); err != nil {
			return err
		}
		if kb == nil {
			if err := sweepStandbyStrays(o, log); err != nil {
				return err
			}
		}
		var standby http.Handler = el
		handler.Store(&standby)
		go serve(errc)
		if ready != nil {
			ready(ln.Addr().String())
		}
		if lead, err = el.waitLeading(ctx); err != nil {
			if ctx.Err() != nil {
				return nil // stopped while standing by
			}
			return err
		}
	}
	var leading func() bool
	if pgel != nil {
		leading = pgel.leading
		defer pgel.release() // after the control plane has closed
	}
	cp, err := startControlPlane(lead, o, sc, st, leading, cluster, kb, log)
	if err != nil {
		return err
	}
	handler.Store(&cp.api)
	if !o.leader.enabled {
		go serve(errc)
	}
	cp.ready.Store(true)
	log.Info("serving", "addr", ln.Addr().String(), "tls", o.tlsCert != "")
	if ready != nil && !o.leader.enabled {
		ready(ln.Addr().String())
	}
	var lost error
	select {
	case <-cp.failed:
		lost = fmt.Errorf("%w; the server stopped and acknowledged nothing it could not keep", cp.err())
	case <-lead.Done():
		if ctx.Err() == nil && pgel != nil {
			// Deposed: the executor already refuses to act; stop what runs
			// here now, before the lease expires and another replica takes
			// over, and exit without the graceful stop (its commits would
			// be refused).
			cp.ready.Store(false)
			n := cp.abandon()
			log.Error("deposed: stopped every task process here and exiting", "killed", n)
			return context.Cause(lead)
		}
		if ctx.Err() == nil {
			lost = errors.New("lost the leader Lease: stopping so that only the new leader decides (restart to stand by)")
		}
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	cp.ready.Store(false)
	log.Info("shutting down")
	// The shutdown's own deadline starts now, not when the server started.
	grace := o.shutdownTimeout
	if grace <= 0 {
		grace = 30 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	// Stop taking requests, but give the open ones only a little of the
	// grace: SSE streams never end on their own.
	hctx, hcancel := context.WithTimeout(sctx, min(grace/4, 5*time.Second))
	_ = srv.Shutdown(hctx)
	hcancel()
	_ = srv.Close()
	if err := cp.close(sctx); err != nil && lost == nil {
		return err
	}
	return lost
}

// controlPlane is the leader's half of the server: store, engine and API.
type controlPlane struct {
	api   http.Handler
	ready *atomic.Bool
	close func(ctx context.Context) error
	// abandon kills every task process of this replica at once (a deposed
	// leader with the local executor); it returns how many it killed.
	abandon func() int
	failed  <-chan struct{} // closed if the engine stopped on its own (a fatal storage fault)
	err     func() error
}

// serverStore is what the server needs of its database; both adapters
// (SQLite, PostgreSQL) implement it.
type serverStore interface {
	engine.Store
	httpapi.Store
	trends.Store
	StartSession(ctx context.Context, at time.Time) (int64, error)
	StopSession(ctx context.Context, id int64, at time.Time) error
	PruneAudit(ctx context.Context, before time.Time) (int64, error)
	Close() error
}

var (
	_ serverStore = (*sqlite.Store)(nil)
	_ serverStore = (*postgres.Store)(nil)
)

// startControlPlane opens the store (SQLite; st is the PostgreSQL store
// when sc names one), recovers the engine (adopting or requeueing what ran
// before) and builds the API. Its goroutines end with ctx. With leading
// (a PostgreSQL lease) the executor acts only while it holds.
func startControlPlane(ctx context.Context, o serverOptions, sc storeChoice, st serverStore, leading func() bool,
	cluster *model.Cluster, kb *kubeBackend, log *slog.Logger) (*controlPlane, error) {
	closeStore := func() {}
	if st == nil {
		if filepath.Clean(sc.sqlitePath) == filepath.Join(filepath.Clean(o.dataDir), "taskgov.db") {
			if err := checkDataDir(o.dataDir); err != nil {
				return nil, err
			}
		}
		sst, err := sqlite.Open(sc.sqlitePath)
		tightenDataFiles(o.dataDir)
		if err != nil {
			return nil, err
		}
		st, closeStore = sst, func() { sst.Close() }
	}
	fail := func(err error) (*controlPlane, error) {
		closeStore()
		return nil, err
	}
	var err error
	var exec executor.Executor
	var killStrays func() int
	var closeExec func()
	abandon := func() int { return 0 } // Kubernetes pods outlive a deposed leader; the new one adopts them
	// runCheck is the executor's say, at submission, on whether it can run
	// a task's command or image (executor.RunChecker); nil: any.
	var runCheck func(model.TaskSpec) error
	if kb == nil {
		var images map[string][]string
		if cluster != nil {
			images = cluster.Images
		}
		l, err := newLocalExecutor(o, images)
		if err != nil {
			return fail(err)
		}
		exec, killStrays, closeExec = l, l.Recover, l.Close
		runCheck = l.CheckRun
		abandon = l.KillStrays
	} else {
		if len(cluster.Images) > 0 {
			log.Warn("the cluster file's images section is not used on Kubernetes: a task without a command runs its image's own entrypoint", "images", len(cluster.Images))
		}
		cluster.NodeGroups, cluster.Nodes = nil, nil
		for _, n := range kb.statuses() {
			cluster.Nodes = append(cluster.Nodes, n.Spec)
		}
		exec, closeExec = kb.exec, func() {} // adopts its pods on start (executor.Adopter)
		if kb.workloads != nil {
			exec = kb.workloads // API tasks' pods, and Kueue-labelled workloads
		}
	}
	if leading != nil {
		exec = fence(exec, leading)
	}
	var eng *engine.Engine
	m := metrics.New(func() metrics.Snapshot { return eng.MetricsSnapshot() })
	if kb != nil {
		m.Registry.MustRegister(kb.requests.Vec)
	}
	// The session starts before the engine opens: recovery starts runs
	// again, and a crashed session's gap in the usage report ends at its
	// last run change before this time (usage.missing).
	started := time.Now().UTC()
	eng, err = engine.Open(ctx, engine.Options{Store: st, Executor: exec, Cluster: cluster, Log: log, KillStrays: killStrays, Observer: m})
	if err != nil {
		closeExec()
		return fail(err)
	}
	if kb != nil {
		if _, err := eng.SyncNodes(ctx, kb.statuses()); err != nil { // health, which the cluster file cannot carry
			return fail(err)
		}
		go kb.syncNodes(ctx, eng)
		if kb.workloads != nil {
			kb.workloads.Run(ctx, engineGovernor{eng})
		}
	}
	if err := ensureAdminToken(ctx, st, o.dataDir); err != nil {
		return fail(err)
	}
	session, err := st.StartSession(ctx, started)
	if err != nil {
		return fail(err)
	}
	if o.auditRetentionDays > 0 {
		go pruneAudit(ctx, st, time.Duration(o.auditRetentionDays)*24*time.Hour, log)
	}
	go (&trends.Sampler{Store: st, Read: eng.UtilisationSample, Interval: o.sampleInterval, Log: log}).Run(ctx)
	isReady := &atomic.Bool{}
	api := httpapi.New(eng, log, isReady.Load).WithMetrics(promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})).
		WithLimits(o.limits.apiLimits()).WithPrometheus(o.prometheusURL).WithRunCheck(runCheck)
	failed := make(chan struct{})
	go func() {
		<-eng.Done()
		if eng.Err() != nil {
			close(failed)
		}
	}()
	return &controlPlane{api: api, ready: isReady, failed: failed, err: eng.Err, abandon: abandon, close: func(sctx context.Context) error {
		defer closeStore()
		defer closeExec()
		if err := eng.Shutdown(sctx); err != nil {
			return err
		}
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return st.StopSession(sctx, session, time.Now().UTC())
	}}, nil
}

// checkDataDir refuses a data directory that holds an earlier server's
// files but no database: starting afresh there would silently drop every
// task the earlier server acknowledged (and issue a new admin token).
func checkDataDir(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "taskgov.db")); err == nil || !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, name := range []string{"admin.token", "taskgov.db-wal", "tasks"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("the data directory %s holds %s from an earlier server but no taskgov.db: the database was removed or moved, "+
				"and starting afresh would lose every task it held. Restore taskgov.db (with taskgov.db-wal, if any) into %s from a backup; "+
				"or, to start empty on purpose, use a new --data-dir (or remove %s)", dir, name, dir, filepath.Join(dir, name))
		}
	}
	return nil
}

// ensureAdminToken creates the first admin token on a fresh database and
// writes it to DATA_DIR/admin.token, readable only by its owner. The token
// never goes to the log.
func ensureAdminToken(ctx context.Context, st serverStore, dir string) error {
	toks, err := st.Tokens(ctx)
	if err != nil || len(toks) > 0 {
		return err
	}
	_, secret, err := httpapi.IssueToken(ctx, st, model.RoleAdmin, "", "created at first start", "taskgov")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "admin.token"), []byte(secret+"\n"), 0o600)
}

// pruneAudit deletes old audit entries and events now and every hour.
func pruneAudit(ctx context.Context, st serverStore, keep time.Duration, log *slog.Logger) {
	for {
		if n, err := st.PruneAudit(ctx, time.Now().Add(-keep)); err != nil {
			log.Warn("pruning the audit log failed", "err", err)
		} else if n > 0 {
			log.Info("pruned the audit log", "entries", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Hour):
		}
	}
}
