package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
)

// forwardFailed answers a call a standby could not forward to leader
// (httputil.ReverseProxy's default is a bare 502 with no body): 503 with
// Retry-After when the leader could not be reached, since the call was never
// sent and changed nothing; else 502 saying that the leader may have applied
// it. Both in the API's error shape, with what to do.
func forwardFailed(leader string, log *slog.Logger) func(http.ResponseWriter, *http.Request, error) {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			return // the client went away
		}
		log.Warn("forwarding a call to the leader failed", "leader", leader, "method", r.Method, "path", r.URL.Path, "err", err)
		w.Header().Set("X-Taskgov-Forwarded-To", leader)
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			w.Header().Set("Retry-After", "2")
			standbyJSON(w, http.StatusServiceUnavailable, errorBody("leader_unreachable",
				"this replica is a standby and its leader "+leader+" cannot be reached; nothing was changed",
				"retry in a few seconds: if the leader is gone, a replica takes over within --leader-elect-lease-duration"))
			return
		}
		standbyJSON(w, http.StatusBadGateway, errorBody("leader_unreachable",
			"this replica is a standby and the leader "+leader+" did not answer the forwarded call; it may have been applied",
			"read the state before retrying a change; a submission retried with the same Idempotency-Key is not repeated"))
	}
}

func errorBody(code, message, fix string) map[string]map[string]string {
	return map[string]map[string]string{"error": {"code": code, "message": message, "fix": fix}}
}
