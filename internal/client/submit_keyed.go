package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// NewIdempotencyKey returns a random Idempotency-Key (32 hex digits) for
// one submission: made once per command, reused by its retries.
func NewIdempotencyKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand's Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// SubmitTries and SubmitWait bound SubmitKeyed: up to SubmitTries tries,
// waiting SubmitWait, then twice that each time (or the server's
// Retry-After, up to 10 s).
var (
	SubmitTries = 4
	SubmitWait  = 500 * time.Millisecond
)

// SubmitKeyed submits s with the Idempotency-Key key. When the answer is
// lost (the connection dropped or timed out, whether or not the server
// stored the task) or the server is unavailable (502, 503, 504), it tries
// again with the same key: the server answers a retry with the task the
// first try stored (SERVER.md, "Retried submissions"), so one call never
// makes two tasks. Any other refusal is returned at once, and so is a
// refused connection (nothing was sent: no answer was lost).
func (c *Client) SubmitKeyed(ctx context.Context, s model.TaskSpec, key string) (apitypes.Task, error) {
	p, err := path("tasks")
	if err != nil {
		return apitypes.Task{}, err
	}
	hdr := http.Header{"Idempotency-Key": {key}}
	wait := SubmitWait
	for try := 1; ; try++ {
		t, again, after, err := c.submitOnce(ctx, p, s, hdr)
		if !again || try >= SubmitTries || ctx.Err() != nil {
			return t, err
		}
		if after > 0 {
			wait = min(after, 10*time.Second)
		}
		select {
		case <-ctx.Done():
			return t, err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// submitOnce is one try of SubmitKeyed: again says whether to try again,
// after is the server's Retry-After (0 if none).
func (c *Client) submitOnce(ctx context.Context, p string, s model.TaskSpec, hdr http.Header) (t apitypes.Task, again bool, after time.Duration, err error) {
	resp, err := c.openWith(ctx, "POST", p, s, hdr)
	var ae *Error
	var ue *url.Error
	switch {
	case errors.As(err, &ae):
		switch ae.Status {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return t, true, ae.retryAfter, err
		}
		return t, false, 0, err
	case errors.Is(err, syscall.ECONNREFUSED):
		// Nothing was sent and no server listens there: a wrong --server,
		// or a server down, which is seldom back within the tries.
		// Say so at once rather than after 3.5 s of silence.
		return t, false, 0, err
	case errors.As(err, &ue):
		return t, true, 0, err // sent or not, the key makes another try safe
	case err != nil:
		return t, false, 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil { // the answer was cut off
		return t, true, 0, fmt.Errorf("the taskgov server's answer at %s was cut off (%w); check --server or TASKGOV_SERVER", c.Server, err)
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, false, 0, fmt.Errorf("the server's answer to POST %s is not what this client expects: %w", p, err)
	}
	return t, false, 0, nil
}

// parseRetryAfter reads a Retry-After header in seconds (0 if absent).
func parseRetryAfter(v string) time.Duration {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
