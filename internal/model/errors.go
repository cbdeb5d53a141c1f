package model

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every validation error, so callers can tell bad
// input (fix the request) from a failure of taskgov itself.
var ErrInvalid = errors.New("invalid input")

// ErrNotFound is wrapped when a named task, team or node does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict is wrapped when a request clashes with current state.
var ErrConflict = errors.New("conflict")

// FieldError names the offending field, what is wrong, and how to fix it.
type FieldError struct {
	Field   string
	Problem string
	Fix     string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: %s; %s", e.Field, e.Problem, e.Fix)
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func fieldErr(field, fix, problem string, args ...any) *FieldError {
	return &FieldError{Field: field, Problem: fmt.Sprintf(problem, args...), Fix: fix}
}

// Errors joins several validation errors into one, one per line.
type Errors []*FieldError

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (es Errors) Unwrap() error { return ErrInvalid }

// orNil returns nil for no errors, so callers can `return errs.orNil()`.
func (es Errors) orNil() error {
	if len(es) == 0 {
		return nil
	}
	return es
}
