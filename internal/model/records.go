package model

import "time"

// TaskState is where a task stands, as stored and as the API shows it.
type TaskState string

// Task states.
const (
	StatePending     TaskState = "Pending"
	StateRunning     TaskState = "Running"
	StateSuspended   TaskState = "Suspended"
	StateSucceeded   TaskState = "Succeeded"
	StateFailed      TaskState = "Failed"
	StateCancelled   TaskState = "Cancelled"
	StateInterrupted TaskState = "Interrupted" // was running when the server stopped; requeued on start
)

// Terminal reports whether a state is final.
func (s TaskState) Terminal() bool {
	return s == StateSucceeded || s == StateFailed || s == StateCancelled
}

// TaskRecord is one task as the server keeps it: its spec and its history so
// far. Records of finished tasks are kept; a name may be reused once its
// task has finished (CheckNameReuse), so Seq identifies a record.
type TaskRecord struct {
	Name         string         `json:"name"`
	Team         string         `json:"team"`
	Seq          int64          `json:"seq"`
	Spec         TaskSpec       `json:"spec"`
	State        TaskState      `json:"state"`
	SubmittedAt  time.Time      `json:"submittedAt"`
	StartedAt    time.Time      `json:"startedAt,omitzero"`
	FinishedAt   time.Time      `json:"finishedAt,omitzero"`
	CheckpointAt time.Time      `json:"checkpointAt,omitzero"`
	Resumes      int            `json:"resumes"`
	Retries      int            `json:"retries"`
	Placement    []PodPlacement `json:"placement,omitempty"`
	PGIDs        []int          `json:"-"`
	Message      string         `json:"message,omitempty"`
	// IdempotencyKey is the submission's Idempotency-Key, if it sent one: a
	// retry with the same name and key gets this task, not a second one.
	// Kept here, not in the spec, which the core holds for every task; the
	// stores keep it in the spec's JSON (sqlrow).
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// IdempotencyDigest is SubmissionDigest of the submission that sent the
	// key, stored with it (sqlrow): a retry with the key must match it.
	IdempotencyDigest string `json:"-"`
	// DeletedAt is when a finished task was deleted (DELETE
	// /api/v1/tasks/{name}, HyperPod's delete): task lists leave it out,
	// while its events, runs (usage) and audit entries stay. Kept in the
	// spec's JSON, as the key is.
	DeletedAt time.Time `json:"deletedAt,omitzero"`
}

// Deleted reports whether the task was deleted (see DeletedAt).
func (r TaskRecord) Deleted() bool { return !r.DeletedAt.IsZero() }

// Event is one entry of a task's history. ID is the store's, so it is
// known once the event is read back (history); an event streamed as it
// happens has none, and its JSON then has no id.
type Event struct {
	ID      int64     `json:"id,omitempty"`
	Task    string    `json:"task"`
	TaskSeq int64     `json:"-"` // which task of that name (its Seq)
	Team    string    `json:"team"`
	At      time.Time `json:"at"`
	Kind    string    `json:"kind"`
	Message string    `json:"message"`
}

// Token roles.
const (
	RoleAdmin  = "admin"
	RoleMember = "member" // of one team
	RoleViewer = "viewer" // read-only; of one team, or of all when team is empty
)

// Token is an API credential; only its hash is stored.
type Token struct {
	ID        string    `json:"id"`
	Role      string    `json:"role"`
	Team      string    `json:"team,omitempty"`
	Note      string    `json:"note,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	RevokedAt time.Time `json:"revokedAt,omitzero"`
}
