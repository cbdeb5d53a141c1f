package engine

import (
	"errors"

	"github.com/taskgov/taskgov/internal/model"
)

// classifier is a Store that sorts its own errors into faults by what the
// server should do about them (sqlite.Store knows its error codes).
type classifier interface {
	Classify(error) *model.Fault
}

// classify sorts a store error (non-nil) into a fault: the store's own
// classification if it has one, a *model.Fault it returned as is, and
// otherwise a transient fault (refuse writes, keep serving, retry).
func (e *Engine) classify(err error) *model.Fault {
	if c, ok := e.store.(classifier); ok {
		if f := c.Classify(err); f != nil {
			return f
		}
	}
	var f *model.Fault
	if errors.As(err, &f) {
		return f
	}
	return &model.Fault{Kind: model.FaultTransient, What: "write failed", Err: err,
		Fix: "the server log says why; check the database (PostgreSQL, or the data directory's disk)"}
}
