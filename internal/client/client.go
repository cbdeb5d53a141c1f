// Package client is the typed Go client of taskgov's /api/v1, used by the
// CLI, the demo, the load test, `sim export` and the benchmarks. It turns the
// server's error bodies into errors that keep the status, the field and the
// fix, and it escapes every path segment it is given, so that a name can
// never reach another route.
//
// The shapes it reads are apitypes, model and store records. It must never
// import the engine or the HTTP server. No other package spells an /api/v1
// path.
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

	retryAfter time.Duration // the answer's Retry-After, if any
}

func (e *Error) Error() string {
	msg := e.Message
	if e.Fix != "" && !strings.Contains(msg, e.Fix) {
		msg += "; " + e.Fix
	}
	return msg
}

// prefix is the API's root; every path the client sends starts with it.
const prefix = "/api/v1"

// path joins escaped segments under /api/v1. A segment that is empty, "." or
// "..", or that holds a '/', '?' or '#', cannot change the route: the first
// three are refused, the rest are percent-escaped into one segment.
func path(segs ...string) (string, error) {
	var b strings.Builder
	b.WriteString(prefix)
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return "", &Error{Status: http.StatusBadRequest, Field: "name", Message: fmt.Sprintf("%q is not a valid name", s),
				Fix: "use a name from the list (letters, digits and '-')"}
		}
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String(), nil
}

// withQuery adds query parameters, skipping empty values; kv alternates
// keys and values, and a key may repeat.
func withQuery(p string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			v.Add(kv[i], kv[i+1])
		}
	}
	if len(v) == 0 {
		return p
	}
	return p + "?" + v.Encode()
}

// do sends a request with a JSON body (nil for none) to the segments'
// path and decodes a JSON answer into out (nil to ignore).
func (c *Client) do(ctx context.Context, method string, body, out any, segs ...string) error {
	p, err := path(segs...)
	if err != nil {
		return err
	}
	return c.doPath(ctx, method, p, body, out)
}

func (c *Client) doPath(ctx context.Context, method, p string, body, out any) error {
	raw, err := c.raw(ctx, method, p, body)
	if err != nil {
		return err
	}
	if out == nil || len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("the server's answer to %s %s is not what this client expects: %w", method, p, err)
	}
	return nil
}

// open sends a request and returns the answer for the caller to read and
// close (streams); an error status is turned into an *Error.
func (c *Client) open(ctx context.Context, method, p string, body any) (*http.Response, error) {
	return c.openWith(ctx, method, p, body, nil)
}

// openWith is open with extra request headers.
func (c *Client) openWith(ctx context.Context, method, p string, body any, header http.Header) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Server+p, rd)
	if err != nil {
		return nil, fmt.Errorf("bad server address %q: %w", c.Server, err)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the taskgov server at %s (%w); check --server or TASKGOV_SERVER", c.Server, err)
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var eb struct{ Error *Error }
		after := parseRetryAfter(resp.Header.Get("Retry-After"))
		if json.Unmarshal(raw, &eb) == nil && eb.Error != nil {
			eb.Error.Status, eb.Error.retryAfter = resp.StatusCode, after
			return nil, eb.Error
		}
		return nil, &Error{Status: resp.StatusCode, Message: fmt.Sprintf("%s %s: %s", method, p, strings.TrimSpace(string(raw))), retryAfter: after}
	}
	return resp, nil
}

// raw sends a request and returns the answer's body.
func (c *Client) raw(ctx context.Context, method, p string, body any) ([]byte, error) {
	resp, err := c.open(ctx, method, p, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// URL is the full address of an API path, for people to use (curl hints).
func (c *Client) URL(segs ...string) string {
	p, err := path(segs...)
	if err != nil {
		return c.Server + prefix
	}
	return c.Server + p
}

// Do sends a request to a raw path (which must start with /api/v1) and
// decodes the JSON answer into out. It is for endpoints without a typed
// method yet; prefer the typed methods, which escape names.
func (c *Client) Do(ctx context.Context, method, p string, body, out any) error {
	return c.doPath(ctx, method, p, body, out)
}

// Raw sends a request to a raw path and returns the answer's body.
func (c *Client) Raw(ctx context.Context, method, p string, body any) ([]byte, error) {
	return c.raw(ctx, method, p, body)
}

// Query builds a path with query parameters, skipping empty values.
func Query(p string, kv ...string) string { return withQuery(p, kv...) }
