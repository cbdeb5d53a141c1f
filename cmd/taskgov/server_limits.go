package main

import (
	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/httpapi"
)

// limitOptions are the server's HTTP limits flags.
type limitOptions struct {
	conns httpapi.ConnLimits
	api   httpapi.Limits
}

func limitFlags(c *cobra.Command) *limitOptions {
	l := &limitOptions{conns: httpapi.DefaultConnLimits, api: httpapi.DefaultLimits}
	f := c.Flags()
	f.DurationVar(&l.conns.ReadHeader, "http-read-header-timeout", l.conns.ReadHeader, "how long a client may take to send a request's headers")
	f.DurationVar(&l.conns.Read, "http-read-timeout", l.conns.Read, "how long a client may take to send a whole request, body included")
	f.DurationVar(&l.conns.Write, "http-write-timeout", l.conns.Write, "how long writing one response may take (event streams renew it per write)")
	f.DurationVar(&l.conns.Idle, "http-idle-timeout", l.conns.Idle, "how long an idle keep-alive connection stays open")
	f.IntVar(&l.conns.MaxConns, "max-connections", l.conns.MaxConns, "open connections at most (kept below the file-descriptor limit); beyond it the longest-idle connection is closed")
	f.Float64Var(&l.api.RatePerToken, "rate-limit", l.api.RatePerToken, "requests per second one member or viewer token may send (admins are not limited); 0: no limit")
	f.IntVar(&l.api.Burst, "rate-burst", l.api.Burst, "requests one token may send at once above --rate-limit")
	f.IntVar(&l.api.SSEPerToken, "sse-per-token", l.api.SSEPerToken, "event streams one token may hold open")
	f.IntVar(&l.api.SSETotal, "sse-max", l.api.SSETotal, "event streams the server holds open at most")
	return l
}

func (l *limitOptions) connLimits() httpapi.ConnLimits {
	if l == nil {
		return httpapi.DefaultConnLimits
	}
	return l.conns
}

func (l *limitOptions) apiLimits() httpapi.Limits {
	if l == nil {
		return httpapi.DefaultLimits
	}
	return l.api
}
