package httpapi

import (
	"fmt"
	"net/http"
	"time"
)

// sseFlushEvery is the shortest time between two writes to one event
// stream: events that arrive meanwhile go out together, so that a burst of
// submissions costs each stream one write, not one per event.
const sseFlushEvery = 100 * time.Millisecond

// sseWriteTimeout drops a stream whose reader stops reading.
const sseWriteTimeout = 30 * time.Second

// eventStream streams task events as server-sent events, filtered to the
// teams the caller may read. Each token may hold Limits.SSEPerToken streams
// and the server Limits.SSETotal; beyond that the answer is 429 with
// Retry-After.
func (s *Server) eventStream(w http.ResponseWriter, r *http.Request, p principal) error {
	if _, ok := w.(http.Flusher); !ok {
		return &apiError{Status: http.StatusInternalServerError, Code: "internal", Message: "streaming unsupported"}
	}
	if err := s.streams.acquire(p.ID, s.limits.SSEPerToken, s.limits.SSETotal); err != nil {
		return err
	}
	defer s.streams.release(p.ID)
	s.hub.start(s.eng)
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{}) // the server's read timeout is for requests, not streams
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	ring := s.hub.ringFor(p)
	cursor := s.hub.head(ring)
	gather := time.NewTimer(sseFlushEvery)
	gather.Stop()
	flush := func() bool {
		_ = rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
		return rc.Flush() == nil
	}
	fmt.Fprint(w, ": taskgov event stream\n\n")
	if !flush() {
		return nil
	}
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-keepalive.C:
			fmt.Fprint(w, ": keepalive\n\n")
		case <-s.hub.wait(ring, cursor):
			gather.Reset(sseFlushEvery)
			select { // gather what else arrives in the next moment
			case <-r.Context().Done():
				return nil
			case <-gather.C:
			}
			evs, next, missed := s.hub.since(ring, cursor)
			cursor = next
			if missed > 0 {
				fmt.Fprintf(w, ": %d events were dropped: this stream fell behind\n\n", missed)
			}
			rd := s.redactor(r.Context(), p)
			for _, ev := range evs {
				switch {
				case !p.canRead(ev.team):
				case ev.beneficiary != "" && !rd.visible(ev.beneficiary):
					_, _ = w.Write(ev.redacted)
				default:
					_, _ = w.Write(ev.data)
				}
			}
		}
		if !flush() {
			return nil
		}
	}
}
