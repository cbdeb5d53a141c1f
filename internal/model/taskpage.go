package model

// TaskPageFilter selects one page of stored tasks for the dashboard: the
// tasks of Teams in States whose name contains Search, ordered by Sort
// (ties by submission order), Offset of them skipped, at most Limit. The
// stores serve it from their indexes, so a first page costs a page of
// rows, not a walk of every task (SERVER.md, "Reads for the dashboard").
type TaskPageFilter struct {
	Teams   []string // empty: all teams
	States  []string // empty: all states
	Search  string   // a part of the name (names are lower case); empty: any
	Sort    string   // one of StoredTaskSorts
	Desc    bool
	Offset  int
	Limit   int
	Deleted bool // deleted tasks too
}

// StoredTaskSorts are the columns a store sorts a task page by, each with
// the column that breaks its ties. submittedAt is submission order (seq):
// the order of submission times unless the server's clock stepped back.
// The other columns of the dashboard (priority weight, instance type,
// pods, GPUs, vCPU, memory) depend on the policy and the catalog, which the
// store does not hold.
var StoredTaskSorts = map[string]string{
	"name":        "name",
	"team":        "team",
	"state":       "state",
	"submittedAt": "seq",
	"startedAt":   "started_at",
	"resumes":     "resumes",
}

// TaskPage is one page of tasks and how many match in all.
type TaskPage struct {
	Tasks []TaskRecord
	Total int
}

// TaskFacts are the figures over the tasks of some teams that the Tasks
// page's summary needs, counted by the store without reading the tasks.
// Times are in milliseconds (fractions kept).
type TaskFacts struct {
	Counts    map[TaskState]int
	Preempted int // tasks with a run that ended in a preemption other than a suspension
	// WaitMillis is the sum over every task of its wait: to its first
	// start, or to its end if it ended without starting, or to now.
	WaitMillis float64
	// RunMillis is the total running time of the RunN terminal tasks that ran.
	RunMillis float64
	RunN      int
}
