package model

import "fmt"

// FaultKind sorts a storage error by what the server should do about it.
type FaultKind string

const (
	// FaultTransient (disk full, database busy, an I/O error on a write,
	// the database unreachable) may pass: refuse writes, keep serving, retry.
	FaultTransient FaultKind = "transient"
	// FaultFatal (a corrupt database, the database file removed or
	// replaced, a deposed leader) cannot be repaired by waiting:
	// acknowledging more writes would lose them. The server must stop.
	FaultFatal FaultKind = "fatal"
	// FaultRejected: the database refused the write itself (a constraint).
	// That is a bug, since the engine validates every input against the
	// store's rules first. The batch is dropped; the server goes on.
	FaultRejected FaultKind = "rejected"
)

// Fault is a storage error with its kind and a hint for the operator.
type Fault struct {
	Kind FaultKind
	What string // "disk full", "database file removed", ...
	Fix  string
	Err  error
}

func (f *Fault) Error() string {
	msg := fmt.Sprintf("storage %s fault: %s: %v", f.Kind, f.What, f.Err)
	if f.Fix != "" {
		msg += "; " + f.Fix
	}
	return msg
}

func (f *Fault) Unwrap() error { return f.Err }
