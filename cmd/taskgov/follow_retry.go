package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/taskgov/taskgov/internal/client"
)

// followRetryFor is how long `get-log --follow` keeps asking a server that
// answered before and now cannot be reached (it is restarting) or answers
// 502, 503 or 504, before it gives up with the last error.
const followRetryFor = 5 * time.Minute

// followRetry decides, for a follower, whether a failed call is asked
// again. A server that never answered, or an error the server chose (a
// 4xx, a 500), ends the follow at once.
type followRetry struct {
	stderr   io.Writer
	answered time.Time // when the server last answered; zero before
	warned   bool
}

// ok notes a call the server answered.
func (f *followRetry) ok() {
	f.answered, f.warned = time.Now(), false
}

// serverAway says err is what a server that went away gives: it cannot be
// reached, its answer was cut off, or a proxy before it answers 502, 503
// or 504. Any other error (a refusal, an answer this client cannot read)
// will not pass by asking again.
func serverAway(err error) bool {
	var ce *client.Error
	if errors.As(err, &ce) {
		switch ce.Status {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}

// again reports whether to ask again after err, having waited a second
// (saying so once per outage); false when ctx ends.
func (f *followRetry) again(ctx context.Context, err error) bool {
	if !serverAway(err) {
		return false
	}
	if f.answered.IsZero() || time.Since(f.answered) > followRetryFor || ctx.Err() != nil {
		return false
	}
	if !f.warned {
		fmt.Fprintf(f.stderr, "taskgov: %v; asking again each second for up to %v (the log goes on from where it stopped)\n", err, followRetryFor)
		f.warned = true
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Second):
		return true
	}
}
