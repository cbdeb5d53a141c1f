package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"syscall"
	"testing"

	"github.com/taskgov/taskgov/internal/client"
)

// TestFollowRetriesOnlyAServerThatWentAway: `get-log --follow` asks again
// after what a restarting server gives (unreachable, an answer cut off, a
// proxy's 502/503/504), never after an error that asking again cannot
// mend: a refusal, or an answer this client cannot read (a server of
// another version), which would otherwise hang the follower 5 minutes.
func TestFollowRetriesOnlyAServerThatWentAway(t *testing.T) {
	badJSON := json.Unmarshal([]byte(`{"state": 5}`), &struct{ State string }{})
	for _, c := range []struct {
		what string
		err  error
		want bool
	}{
		{"refused", fmt.Errorf("cannot reach the taskgov server (%w)", &url.Error{Op: "Get", URL: "http://x", Err: syscall.ECONNREFUSED}), true},
		{"reset", fmt.Errorf("reading: %w", syscall.ECONNRESET), true},
		{"answer cut off", fmt.Errorf("the server's answer to GET /x is not what this client expects: %w", io.ErrUnexpectedEOF), true},
		{"503", &client.Error{Status: 503}, true},
		{"502", &client.Error{Status: 502}, true},
		{"504", &client.Error{Status: 504}, true},
		{"404", &client.Error{Status: 404}, false},
		{"500", &client.Error{Status: 500}, false},
		{"an answer of another version", fmt.Errorf("the server's answer to GET /x is not what this client expects: %w", badJSON), false},
		{"plain", errors.New("no such rank"), false},
	} {
		if got := serverAway(c.err); got != c.want {
			t.Errorf("%s (%v): asks again %v, want %v", c.what, c.err, got, c.want)
		}
	}
}
