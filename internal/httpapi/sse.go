package httpapi

import (
	"fmt"
	"net/http"
	"slices"
	"time"
)

// sseWriteTimeout drops a stream whose reader stops reading: each write
// round (a wake-up's batches, a keepalive) must be taken by the kernel
// within it (Server.streamWrite).
const sseWriteTimeout = 30 * time.Second

// sseKeepalive is about the longest an idle stream stays silent before it
// writes a keepalive; every stream re-checks its caller twice in that time
// (Server.keepalive; tests shorten it).
const sseKeepalive = 15 * time.Second

// eventStream streams task events as server-sent events, filtered to the
// teams the caller may read. Each token may hold Limits.SSEPerToken streams
// and the server Limits.SSETotal; beyond that the answer is 429 with
// Retry-After. A stream reads its ring of the hub (ssehub.go) and writes
// each sealed batch whole, in one write system call, compressed when the
// client accepts gzip (ssegzip.go): at most one write round per sealed
// batch while events come, one keepalive every 15 s while none do.
//
// A stream outlives its request's authentication, so it re-checks its
// caller (token live, team still there) on every keepalive tick and at
// once whenever a revocation clears the auth cache; it ends when the
// check fails. Otherwise a revoked token would keep reading, and a
// deleted team's member would read the events of a team re-created under
// its name.
func (s *Server) eventStream(w http.ResponseWriter, r *http.Request, p principal) error {
	if _, ok := w.(http.Flusher); !ok {
		return &apiError{Status: http.StatusInternalServerError, Code: "internal", Message: "streaming unsupported"}
	}
	if err := s.streams.acquire(p.ID, s.limits.SSEPerToken, s.limits.SSETotal); err != nil {
		return err
	}
	defer s.streams.release(p.ID)
	revoked := s.tokens.cleared()
	if !s.stillAllowed(r, p) { // a revocation may have come since authenticate
		return errUnauthenticated
	}
	s.hub.start(s.eng)
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{}) // the server's read timeout is for requests, not streams
	markStream(r)                       // nor is closing the oldest request over the connection cap
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	if r.ProtoMajor == 1 {
		// Not chunked: the body ends when the connection closes (net/http
		// then sends Connection: close), as the SSE specification allows.
		// A chunked batch larger than the connection's 4 KiB buffer took
		// three write system calls (chunk header with the first 4 KiB,
		// the rest, the trailing CRLF), and its reader three reads; now a
		// batch is one write (net/http's buffers pass a write larger than
		// themselves straight to the connection). HTTP/2 frames the body
		// itself and drops this header.
		w.Header().Set("Transfer-Encoding", "identity")
	}
	w.Header().Add("Vary", "Accept-Encoding")
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	if gz {
		w.Header().Set("Content-Encoding", "gzip")
	}
	w.WriteHeader(http.StatusOK)
	ring := s.hub.ringFor(p)
	if gz {
		ring.gzipStreams.Add(1)
		defer ring.gzipStreams.Add(-1)
	}
	at := ring.head()
	// frame is a stream's own frame (a comment), compressed if need be.
	frame := func(text string) []byte {
		if gz {
			return deflate([]byte(text))
		}
		return []byte(text)
	}
	// write writes one round, under the write deadline, and flushes it.
	write := func(chunks ...[]byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(s.streamWrite))
		for _, b := range chunks {
			if _, err := w.Write(b); err != nil {
				return false
			}
		}
		return rc.Flush() == nil
	}
	hello := frame(": taskgov event stream\n\n")
	if gz {
		hello = append(slices.Clip(gzipHeader), hello...)
	}
	if !write(hello) {
		return nil
	}
	// The ticker runs at half the keepalive period and a keepalive goes out
	// at a tick when nothing was written for half a period, so a stream is
	// silent for at most one period plus the ticker's delay (a keepalive
	// written just after a tick is not due at the next one).
	keepalive := time.NewTicker(s.keepalive / 2)
	defer keepalive.Stop()
	lastWrite := time.Now()
	keepaliveFrame := []byte(": keepalive\n\n")
	if gz {
		keepaliveFrame = gzipKeepalive
	}
	ended := func() error {
		write(frame(": stream ended: its token was revoked or its team deleted\n\n"))
		return nil
	}
	var batches [][]byte
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-revoked:
			revoked = s.tokens.cleared()
			if !s.stillAllowed(r, p) {
				return ended()
			}
		case <-keepalive.C:
			if !s.stillAllowed(r, p) {
				return ended()
			}
			if time.Since(lastWrite) < s.keepalive/2 { // a stream that had events needs none
				continue
			}
			if !write(keepaliveFrame) {
				return nil
			}
			lastWrite = time.Now()
		case <-ring.wait(at):
			var missed uint64
			batches, at, missed = ring.since(batches[:0], at, gz)
			if missed > 0 {
				batches = slices.Insert(batches, 0, frame(fmt.Sprintf(": %d events were dropped: this stream fell behind\n\n", missed)))
			}
			lastWrite = time.Now()
			ok := write(batches...)
			clear(batches) // let sealed batches go once the ring drops them
			if !ok {
				return nil
			}
		}
	}
}

// stillAllowed reports whether r's token still authenticates as p: not
// revoked, and its team (if any) not deleted.
func (s *Server) stillAllowed(r *http.Request, p principal) bool {
	q, err := s.authenticate(r.Context(), r)
	return err == nil && q == p
}
