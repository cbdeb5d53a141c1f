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
	"github.com/taskgov/taskgov/internal/executor/local"
	"github.com/taskgov/taskgov/internal/httpapi"
	"github.com/taskgov/taskgov/internal/metrics"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/store"
	"github.com/taskgov/taskgov/internal/trends"
)

// serverOptions are the flags of `taskgov server`; keep them stable.
type serverOptions struct {
	config, dataDir, listen, tlsCert, tlsKey string
	executor, kubeconfig, image              string
	auditRetentionDays                       int
	sampleInterval                           time.Duration
	logTo                                    io.Writer // default stderr
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
	c.Flags().IntVar(&o.auditRetentionDays, "audit-retention-days", 90, "delete audit entries and task events older than this many days (0: keep all)")
	c.Flags().DurationVar(&o.sampleInterval, "sample-interval", time.Minute, "how often to sample utilisation for the dashboard's trends")
	c.Flags().StringVar(&o.executor, "executor", "local", "where tasks run: local (child processes on the cluster file's virtual nodes) or kubernetes (pods; nodes come from the API server)")
	c.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for --executor kubernetes (default: the in-cluster service account)")
	c.Flags().StringVar(&o.image, "image", "python:3.12-slim", "container image for tasks that name none (--executor kubernetes)")
	return c
}

// runServer runs until ctx ends, then shuts down cleanly: running tasks are
// signalled, given their grace period, and requeued to resume on the next
// start. ready is called with the listening address.
func runServer(ctx context.Context, o serverOptions, ready func(addr string)) error {
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return &model.FieldError{Field: "--tls-cert/--tls-key", Problem: "only one is set", Fix: "give both, or neither"}
	}
	if err := os.MkdirAll(o.dataDir, 0o700); err != nil {
		return err
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
	st, err := store.Open(filepath.Join(o.dataDir, "taskgov.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	var exec executor.Executor
	var killStrays func() int
	var kb *kubeBackend
	switch o.executor {
	case "", "local":
		l := local.New(o.dataDir, time.Now)
		defer l.Close()
		exec, killStrays = l, l.KillStrays
	case "kubernetes":
		if cluster == nil {
			return &model.FieldError{Field: "--config", Problem: "is required with --executor kubernetes",
				Fix: "pass the cluster file with your teams, policy and instance types; nodes come from the API server"}
		}
		if kb, err = openKube(ctx, o.kubeconfig, o.image, log); err != nil {
			return err
		}
		cluster.NodeGroups, cluster.Nodes = nil, nil
		for _, n := range kb.statuses() {
			cluster.Nodes = append(cluster.Nodes, n.Spec)
		}
		exec = kb.exec // adopts its pods on start (executor.Adopter)
	default:
		return &model.FieldError{Field: "--executor", Problem: "unknown executor " + strconv.Quote(o.executor), Fix: "use local or kubernetes"}
	}
	var eng *engine.Engine
	m := metrics.New(func() metrics.Snapshot { return eng.MetricsSnapshot() })
	eng, err = engine.Open(ctx, engine.Options{Store: st, Executor: exec, Cluster: cluster, Log: log, KillStrays: killStrays, Observer: m})
	if err != nil {
		return err
	}
	if kb != nil {
		if _, err := eng.SyncNodes(ctx, kb.statuses()); err != nil { // health, which the cluster file cannot carry
			return err
		}
		go kb.syncNodes(ctx, eng)
	}
	if err := ensureAdminToken(ctx, st, o.dataDir); err != nil {
		return err
	}
	session, err := st.StartSession(ctx, time.Now().UTC())
	if err != nil {
		return err
	}
	if o.auditRetentionDays > 0 {
		go pruneAudit(ctx, st, time.Duration(o.auditRetentionDays)*24*time.Hour, log)
	}
	go (&trends.Sampler{Store: st, Read: eng.UtilisationSample, Interval: o.sampleInterval, Log: log}).Run(ctx)
	var isReady atomic.Bool
	api := httpapi.New(eng, log, isReady.Load).WithMetrics(promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (is another server running there?)", o.listen, err)
	}
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() {
		if o.tlsCert != "" {
			errc <- srv.ServeTLS(ln, o.tlsCert, o.tlsKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	isReady.Store(true)
	log.Info("serving", "addr", ln.Addr().String(), "tls", o.tlsCert != "")
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	isReady.Store(false)
	log.Info("shutting down: stopping running tasks and requeueing them")
	sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if err := eng.Shutdown(sctx); err != nil {
		return err
	}
	return st.StopSession(context.Background(), session, time.Now().UTC())
}

// ensureAdminToken creates the first admin token on a fresh database and
// writes it to DATA_DIR/admin.token, readable only by its owner. The token
// never goes to the log.
func ensureAdminToken(ctx context.Context, st *store.Store, dir string) error {
	toks, err := st.Tokens(ctx)
	if err != nil || len(toks) > 0 {
		return err
	}
	_, secret, err := httpapi.IssueToken(ctx, st, store.RoleAdmin, "", "created at first start", "taskgov")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "admin.token"), []byte(secret+"\n"), 0o600)
}

// pruneAudit deletes old audit entries and events now and every hour.
func pruneAudit(ctx context.Context, st *store.Store, keep time.Duration, log *slog.Logger) {
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
