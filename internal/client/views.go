package client

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/usage"
)

// Usage reads each team's quota, used, borrowed and lent GPUs per type.
func (c *Client) Usage(ctx context.Context) ([]apitypes.Usage, error) {
	var u struct {
		Usage []apitypes.Usage `json:"usage"`
	}
	err := c.do(ctx, "GET", nil, &u, "usage")
	return u.Usage, err
}

// UsageReport reads a usage and cost report; from and to are dates or RFC
// 3339 times as the server takes them, kind is summary or detailed; teams,
// if any, keep those teams' rows (a member may name only its own).
func (c *Client) UsageReport(ctx context.Context, from, to, kind string, teams ...string) (usage.Report, error) {
	var rep usage.Report
	kv := []string{"from", from, "to", to, "type", kind}
	for _, t := range teams {
		kv = append(kv, "team", t)
	}
	err := c.doPath(ctx, "GET", withQuery(prefix+"/usage/report", kv...), nil, &rep)
	return rep, err
}

// UsageReportRange is UsageReport over [from, to).
func (c *Client) UsageReportRange(ctx context.Context, from, to time.Time, kind string) (usage.Report, error) {
	return c.UsageReport(ctx, from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano), kind)
}

// Topology reads the live topology tree.
func (c *Client) Topology(ctx context.Context) (model.TopologyView, error) {
	var v model.TopologyView
	err := c.do(ctx, "GET", nil, &v, "topology")
	return v, err
}

// Cluster reads the live cluster as a cluster file (admin).
func (c *Client) Cluster(ctx context.Context) (model.Cluster, error) {
	var cl model.Cluster
	err := c.do(ctx, "GET", nil, &cl, "cluster")
	return cl, err
}

// Events opens the server-sent event stream of task events; the caller
// reads "data: " lines and closes it.
func (c *Client) Events(ctx context.Context) (io.ReadCloser, error) {
	resp, err := c.open(ctx, "GET", prefix+"/events", nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// EventsEncoded opens the event stream asking for encoding ("gzip" or
// "identity") and returns the body as the server sent it, not decoded,
// with the Content-Encoding it chose ("" for none): for a client that
// counts the bytes (the loadtest) or decodes them itself.
func (c *Client) EventsEncoded(ctx context.Context, encoding string) (io.ReadCloser, string, error) {
	resp, err := c.openWith(ctx, "GET", prefix+"/events", nil, http.Header{"Accept-Encoding": {encoding}})
	if err != nil {
		return nil, "", err
	}
	return resp.Body, resp.Header.Get("Content-Encoding"), nil
}

// Metrics reads the server's Prometheus exposition (/metrics) as text.
func (c *Client) Metrics(ctx context.Context) (string, error) {
	b, err := c.raw(ctx, "GET", "/metrics", nil)
	return string(b), err
}
