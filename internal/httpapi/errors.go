package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
)

// apiError is the body of every error response.
type apiError struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	Fix     string `json:"fix,omitempty"`
	// retryAfter, when set, is sent as the Retry-After header (seconds).
	retryAfter string
	// cause is the error the answer stands for, if any (never sent).
	cause error
}

func (e *apiError) Error() string { return e.Message }

func (e *apiError) Unwrap() error { return e.cause }

var (
	errUnauthenticated = &apiError{Status: http.StatusUnauthorized, Code: "unauthenticated",
		Message: "missing or unknown bearer token", Fix: "send Authorization: Bearer <token>; the admin issues tokens"}
	errForbidden = &apiError{Status: http.StatusForbidden, Code: "forbidden",
		Message: "this token may not do that", Fix: "ask an admin for a token with the needed role or team"}
)

// writeError maps any error to a status and a body. It is the only place
// where errors become HTTP statuses. A 5xx never shows internals: the cause
// goes to the log only.
func writeError(w http.ResponseWriter, log *slog.Logger, err error) {
	writeAPIError(w, toAPIError(log, err))
}

// toAPIError maps an error to its status and body.
func toAPIError(log *slog.Logger, err error) *apiError {
	var ae *apiError
	var fe *model.FieldError
	var fes model.Errors
	var mbe *http.MaxBytesError
	var pce *model.PendingCapError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &pce):
		ae = &apiError{Status: http.StatusTooManyRequests, Code: "pending_cap", Message: pce.Error(), Fix: model.PendingCapFix}
	case errors.As(err, &fe):
		ae = &apiError{Status: http.StatusBadRequest, Code: "invalid", Message: fe.Error(), Field: fe.Field, Fix: fe.Fix}
	case errors.As(err, &fes) && len(fes) > 0:
		ae = &apiError{Status: http.StatusBadRequest, Code: "invalid", Message: fes.Error(), Field: fes[0].Field, Fix: fes[0].Fix}
	case errors.As(err, &mbe):
		ae = &apiError{Status: http.StatusRequestEntityTooLarge, Code: "too_large", Message: "the request body is too large",
			Fix: "send at most 1 MiB"}
	case errors.Is(err, model.ErrInvalid):
		ae = &apiError{Status: http.StatusBadRequest, Code: "invalid", Message: err.Error()}
	case errors.Is(err, model.ErrNotFound), errors.Is(err, model.ErrNotFound):
		ae = &apiError{Status: http.StatusNotFound, Code: "not_found", Message: err.Error()}
	case errors.Is(err, model.ErrKeyReused):
		ae = &apiError{Status: http.StatusUnprocessableEntity, Code: "idempotency_key_reused", Message: err.Error(),
			Field: "Idempotency-Key", Fix: "send the first request's body again to get its task, or a new key for a new submission"}
	case errors.Is(err, model.ErrConflict):
		ae = &apiError{Status: http.StatusConflict, Code: "conflict", Message: err.Error()}
	case errors.Is(err, engine.ErrStopped):
		ae = &apiError{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: err.Error()}
	case errors.Is(err, engine.ErrUnconfirmed):
		log.Warn("write not confirmed: the database did not answer in time", "err", err)
		ae = &apiError{Status: http.StatusServiceUnavailable, Code: "unavailable", retryAfter: "5",
			Message: "the database did not confirm the change in time; it may have been stored",
			Fix:     "read it back before trying again (a submission retried with the same Idempotency-Key is never stored twice); the operator can see why in /readyz and the server log"}
	case errors.Is(err, engine.ErrUnavailable):
		log.Warn("write refused: storage is failing", "err", err)
		ae = &apiError{Status: http.StatusServiceUnavailable, Code: "unavailable", retryAfter: "5",
			Message: "the server cannot store changes right now; nothing was changed", Fix: "retry in a few seconds; the operator can see why in /readyz and the server log"}
	default:
		log.Error("internal error", "err", err)
		ae = &apiError{Status: http.StatusInternalServerError, Code: "internal",
			Message: "internal error; the server log has the details"}
	}
	return ae
}

func writeAPIError(w http.ResponseWriter, ae *apiError) {
	if ae.retryAfter != "" {
		w.Header().Set("Retry-After", ae.retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ae.Status)
	_ = json.NewEncoder(w).Encode(map[string]*apiError{"error": ae})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// bodyBuffers hold request bodies while decode reads them (kept, so that
// a type error can name the value's place); reused across requests.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody: a larger buffer is left to the collector rather than kept.
const maxPooledBody = 64 << 10

// decode reads a JSON body strictly: at most 1 MiB, one JSON object (not
// null, an array or a bare value), no unknown fields. A value of the wrong
// kind is refused naming its place in the body ("quotas[0].gpus"), what
// was given and what it must be, never a Go type (config.DescribeJSON).
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	buf := bodyBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBody {
			bodyBuffers.Put(buf)
		}
	}()
	if _, err := buf.ReadFrom(r.Body); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return &apiError{Status: http.StatusBadRequest, Code: "bad_json", Message: "the body could not be read: " + err.Error(),
			Fix: "send one JSON object with the documented fields (see /api/v1/openapi.json)"}
	}
	body := buf.Bytes()
	trimmed := bytes.TrimLeft(body, " \t\n\r")
	switch {
	case len(trimmed) == 0:
		return &apiError{Status: http.StatusBadRequest, Code: "bad_json", Message: "the body is empty",
			Fix: "send one JSON object with the documented fields (see /api/v1/openapi.json)"}
	case trimmed[0] != '{':
		return &apiError{Status: http.StatusBadRequest, Code: "bad_json", Message: "the body is not a JSON object",
			Fix: "send one JSON object with the documented fields, not null, a list or a bare value (see /api/v1/openapi.json)"}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if p, ok := config.DescribeJSON(body, err); ok {
			msg := "the body's " + p.Error()
			if p.Path == "" {
				msg = "the body " + p.Message
			}
			return &apiError{Status: http.StatusBadRequest, Code: "bad_json", Message: msg, Field: p.Path,
				Fix: "send one JSON object with the documented fields (see /api/v1/openapi.json)"}
		}
		return &apiError{Status: http.StatusBadRequest, Code: "bad_json", Message: "the body is not valid JSON for this call: " + strings.TrimPrefix(err.Error(), "json: "),
			Fix: "send one JSON object with the documented fields (see /api/v1/openapi.json)"}
	}
	if dec.More() {
		return &apiError{Status: http.StatusBadRequest, Code: "bad_json", Message: "the body has more than one JSON value", Fix: "send one JSON object"}
	}
	return nil
}
