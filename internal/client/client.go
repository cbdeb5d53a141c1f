// Package client is a Go client of taskgov's /api/v1, used by the CLI. It
// turns the server's error bodies into errors that keep the status, the
// field and the fix.
//
// The shapes it reads are apitypes and store records. It must never import
// the engine or the HTTP server.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client talks to one server with one token.
type Client struct {
	Server string
	Token  string
	HTTP   *http.Client
}

// New returns a client; server is a base URL such as http://127.0.0.1:8080.
func New(server, token string) *Client {
	return &Client{Server: strings.TrimRight(server, "/"), Token: token, HTTP: &http.Client{Timeout: 60 * time.Second}}
}

// Error is a refused or failed call.
type Error struct {
	Status  int
	Code    string
	Message string
	Field   string
	Fix     string
}

func (e *Error) Error() string {
	msg := e.Message
	if e.Fix != "" && !strings.Contains(msg, e.Fix) {
		msg += "; " + e.Fix
	}
	return msg
}

// Do sends a request with a JSON body (nil for none) and decodes a JSON
// answer into out (nil to ignore).
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	raw, err := c.Raw(ctx, method, path, body)
	if err != nil {
		return err
	}
	if out == nil || len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("the server's answer to %s %s is not what this client expects: %w", method, path, err)
	}
	return nil
}

// Raw sends a request and returns the answer's body.
func (c *Client) Raw(ctx context.Context, method, path string, body any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Server+path, rd)
	if err != nil {
		return nil, fmt.Errorf("bad server address %q: %w", c.Server, err)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the taskgov server at %s (%v); check --server or TASKGOV_SERVER", c.Server, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		var eb struct{ Error *Error }
		if json.Unmarshal(raw, &eb) == nil && eb.Error != nil {
			eb.Error.Status = resp.StatusCode
			return nil, eb.Error
		}
		return nil, &Error{Status: resp.StatusCode, Message: fmt.Sprintf("%s %s: %s", method, path, strings.TrimSpace(string(raw)))}
	}
	return raw, nil
}

// Query builds a path with query parameters, skipping empty values.
func Query(path string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			v.Add(kv[i], kv[i+1])
		}
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}
