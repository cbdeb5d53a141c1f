// Package metrics exposes taskgov's Prometheus metrics (taskgov_*): counters
// and histograms the engine feeds as it decides, and gauges read from the
// engine's state at scrape time.
//
// It imports only the Prometheus client. The engine reports to it through the
// Observer interface; it must never import the engine.
package metrics

import (
	"regexp"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Snapshot is the state the gauges show, read at scrape time.
type Snapshot struct {
	EngineUp bool // the engine's loop runs
	// QueueListed: Pending counts the queue; false while it cannot be
	// listed (an internal error; /readyz says why), when Pending is empty.
	QueueListed bool
	// Pending counts a listing of the queue by team and reason, taken
	// ReasonsAge ago (0: the current queue); PendingByTeam is exact.
	Pending       []Pending
	ReasonsAge    time.Duration
	PendingByTeam []TeamPending
	Usage         []Usage
	Capacity      []Capacity
}

// Pending counts waiting tasks of a team by reason.
type Pending struct {
	Team, Reason string
	N            int
}

// TeamPending counts a team's pending tasks.
type TeamPending struct {
	Team string
	N    int
}

// Usage is a team's standing on an instance type, in GPUs.
type Usage struct {
	Team, InstanceType          string
	Quota, Used, Borrowed, Lent float64
}

// Capacity is an instance type's schedulable and allocated GPUs.
type Capacity struct {
	InstanceType        string
	GPUs, AllocatedGPUs float64
	Nodes, HealthyNodes int
	HeldNodes           int // held for a task past the starvation bound
}

// Metrics holds the registry and the instruments.
type Metrics struct {
	Registry      *prometheus.Registry
	admissions    *prometheus.CounterVec
	preemptions   *prometheus.CounterVec
	lostGPUHours  *prometheus.CounterVec
	admissionWait prometheus.Histogram
	cycle         prometheus.Histogram
	commit        prometheus.Histogram
	batchOps      prometheus.Histogram
	storeErrors   *prometheus.CounterVec
}

// New builds the metrics; snapshot is called on every scrape.
func New(snapshot func() Snapshot) *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		admissions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "taskgov_admissions_total",
			Help: "Tasks admitted (each run counts), by team and whether they borrow."}, []string{"team", "borrowed"}),
		preemptions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "taskgov_preemptions_total",
			Help: "Running tasks stopped and requeued, by reason."}, []string{"reason"}),
		lostGPUHours: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "taskgov_preemption_lost_gpu_hours_total",
			Help: "GPU-hours of work lost to preemption (since the last checkpoint, plus restart cost), by reason."}, []string{"reason"}),
		admissionWait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "taskgov_admission_wait_seconds",
			Help:    "Time from submission to first admission.",
			Buckets: []float64{1, 5, 15, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 7 * 24 * 3600}}),
		cycle: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "taskgov_scheduling_cycle_seconds",
			Help:    "Duration of one scheduling decision (a cycle of the core).",
			Buckets: prometheus.ExponentialBuckets(0.00001, 4, 10)}),
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "taskgov_store_commit_seconds",
			Help:    "Duration of one durable commit of a batch of changes (SQLite: the transaction and its fsync; PostgreSQL: the round trip and the WAL flush).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 14)}),
		batchOps: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "taskgov_commit_batch_ops",
			Help:    "Inputs (API calls, pod events) that shared one commit.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 11)}),
		storeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "taskgov_store_errors_total",
			Help: "Failed database writes and probes, by kind: transient (disk full, busy, I/O; writes are refused and retried), fatal (corrupt, file removed; the server stops), rejected (a constraint)."},
			[]string{"kind"}),
	}
	for _, k := range []string{"transient", "fatal", "rejected"} {
		m.storeErrors.WithLabelValues(k)
	}
	m.Registry.MustRegister(m.admissions, m.preemptions, m.lostGPUHours, m.admissionWait, m.cycle, m.commit, m.batchOps, m.storeErrors, &stateCollector{snapshot: snapshot})
	// The process and its Go runtime, as most Prometheus exporters serve
	// them (go_*, process_*): the collector's default set, which counts
	// collections (go_gc_duration_seconds_count) and shows GOGC and the
	// memory limit, plus the live heap at the last collection and the CPU
	// the collector used (go_cpu_classes_gc_*: in total, and in assists,
	// the share charged to goroutines that allocate while it marks).
	m.Registry.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(
			collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/gc/heap/live:bytes$|^/cpu/classes/gc/`)})))
	return m
}

// Admitted records one admission; firstWait is the wait of a first run, or
// negative for a resumed run.
func (m *Metrics) Admitted(team string, borrowed bool, firstWait time.Duration) {
	b := "false"
	if borrowed {
		b = "true"
	}
	m.admissions.WithLabelValues(team, b).Inc()
	if firstWait >= 0 {
		m.admissionWait.Observe(firstWait.Seconds())
	}
}

// Preempted records one preemption.
func (m *Metrics) Preempted(reason string, lostGPUSeconds float64) {
	m.preemptions.WithLabelValues(reason).Inc()
	m.lostGPUHours.WithLabelValues(reason).Add(lostGPUSeconds / 3600)
}

// StoreFault counts one failed database write or probe of a kind.
func (m *Metrics) StoreFault(kind string) { m.storeErrors.WithLabelValues(kind).Inc() }

// Cycle records one scheduling decision's duration.
func (m *Metrics) Cycle(d time.Duration) { m.cycle.Observe(d.Seconds()) }

// Commit records one durable commit: how long it took and how many inputs
// shared it.
func (m *Metrics) Commit(d time.Duration, ops int) {
	m.commit.Observe(d.Seconds())
	m.batchOps.Observe(float64(ops))
}

var (
	pendingDesc  = prometheus.NewDesc("taskgov_pending_tasks", "Pending tasks by team and wait reason, as of the queue listing taskgov_pending_tasks_age_seconds old (at most 30 s; a scrape lists the queue again only when the last listing is older).", []string{"team", "reason"}, nil)
	ageDesc      = prometheus.NewDesc("taskgov_pending_tasks_age_seconds", "How old the queue listing taskgov_pending_tasks counts is: 0 while it is the current queue, else seconds since it was listed (at most 30).", nil, nil)
	teamPendDesc = prometheus.NewDesc("taskgov_team_pending_tasks", "Pending tasks by team, exact at the scrape (from the task records; no wait reason).", []string{"team"}, nil)
	quotaDesc    = prometheus.NewDesc("taskgov_team_quota_gpus", "A team's GPU quota by instance type.", []string{"team", "instance_type"}, nil)
	usedDesc     = prometheus.NewDesc("taskgov_team_used_gpus", "GPUs a team's running tasks hold, by instance type.", []string{"team", "instance_type"}, nil)
	borrowDesc   = prometheus.NewDesc("taskgov_team_borrowed_gpus", "GPUs a team uses beyond its quota, by instance type.", []string{"team", "instance_type"}, nil)
	lentDesc     = prometheus.NewDesc("taskgov_team_lent_gpus", "A team's idle quota offered to its group, by instance type.", []string{"team", "instance_type"}, nil)
	capDesc      = prometheus.NewDesc("taskgov_capacity_gpus", "Schedulable GPUs by instance type.", []string{"instance_type"}, nil)
	allocDesc    = prometheus.NewDesc("taskgov_allocated_gpus", "GPUs allocated to running tasks by instance type.", []string{"instance_type"}, nil)
	nodesDesc    = prometheus.NewDesc("taskgov_nodes", "Nodes by instance type and health.", []string{"instance_type", "healthy"}, nil)
	upDesc       = prometheus.NewDesc("taskgov_engine_up", "1 while the engine's control loop runs, 0 once it has stopped.", nil, nil)
	listedDesc   = prometheus.NewDesc("taskgov_queue_listed", "1 when taskgov_pending_tasks counts the queue, 0 while the queue cannot be listed (an internal error; /readyz says why).", nil, nil)
	heldDesc     = prometheus.NewDesc("taskgov_held_nodes", "Nodes held, draining, for a task past the starvation bound (at most one task per instance type).", []string{"instance_type"}, nil)
)

// stateCollector turns a Snapshot into gauges at scrape time.
type stateCollector struct{ snapshot func() Snapshot }

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{upDesc, listedDesc, pendingDesc, ageDesc, teamPendDesc, quotaDesc, usedDesc, borrowDesc, lentDesc, capDesc, allocDesc, nodesDesc, heldDesc} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.snapshot()
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	up := 0.0
	if s.EngineUp {
		up = 1
	}
	g(upDesc, up)
	listed := 0.0
	if s.QueueListed {
		listed = 1
	}
	g(listedDesc, listed)
	for _, p := range s.Pending {
		g(pendingDesc, float64(p.N), p.Team, p.Reason)
	}
	if s.QueueListed {
		g(ageDesc, s.ReasonsAge.Seconds())
	}
	for _, p := range s.PendingByTeam {
		g(teamPendDesc, float64(p.N), p.Team)
	}
	for _, u := range s.Usage {
		g(quotaDesc, u.Quota, u.Team, u.InstanceType)
		g(usedDesc, u.Used, u.Team, u.InstanceType)
		g(borrowDesc, u.Borrowed, u.Team, u.InstanceType)
		g(lentDesc, u.Lent, u.Team, u.InstanceType)
	}
	for _, k := range s.Capacity {
		g(capDesc, k.GPUs, k.InstanceType)
		g(allocDesc, k.AllocatedGPUs, k.InstanceType)
		g(nodesDesc, float64(k.HealthyNodes), k.InstanceType, "true")
		g(nodesDesc, float64(k.Nodes-k.HealthyNodes), k.InstanceType, "false")
		g(heldDesc, float64(k.HeldNodes), k.InstanceType)
	}
}
