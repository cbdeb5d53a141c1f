package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// eventStream streams task events as server-sent events, filtered to the
// teams the caller may read.
func (s *Server) eventStream(w http.ResponseWriter, r *http.Request, p principal) error {
	fl, ok := w.(http.Flusher)
	if !ok {
		return &apiError{Status: http.StatusInternalServerError, Code: "internal", Message: "streaming unsupported"}
	}
	sub := s.eng.Subscribe(p.canRead)
	defer s.eng.Unsubscribe(sub)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": taskgov event stream\n\n")
	fl.Flush()
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-keepalive.C:
			fmt.Fprint(w, ": keepalive\n\n")
		case ev := <-sub.C:
			b, _ := json.Marshal(ev)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Kind, b)
		}
		fl.Flush()
	}
}
