package httpapi

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestStreamIsNeverSilentLongerThanAKeepalive: whether events come or not,
// a stream writes something at least once per keepalive period (plus
// scheduling slack), so proxies with idle timeouts keep it open; and a
// streamed event, which the store has not numbered yet, carries no id.
func TestStreamIsNeverSilentLongerThanAKeepalive(t *testing.T) {
	const period = 400 * time.Millisecond
	e := newEnvWith(t, testCluster, envOptions{server: func(s *Server) { s.keepalive = period }})
	lines := openStream(t, e, e.admin)
	done := make(chan struct{})
	go func() { // events at irregular moments, so a write falls at every phase of the ticker
		defer close(done)
		for i, gap := range []time.Duration{250, 530, 90, 610, 330} {
			time.Sleep(gap * time.Millisecond)
			e.mustDo("POST", "/api/v1/tasks", e.admin, spec("k"+string(rune('a'+i)), "beta", "true"), http.StatusCreated, nil)
		}
	}()
	last, end := time.Now(), time.Now().Add(3*time.Second)
	var worst time.Duration
	events := 0
	for time.Now().Before(end) {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the stream ended")
			}
			if l == "" {
				continue
			}
			if strings.HasPrefix(l, "data:") {
				events++
				if strings.Contains(l, `"id":`) {
					t.Fatalf("a streamed event has an id: %s", l)
				}
			}
			worst = max(worst, time.Since(last))
			last = time.Now()
		case <-time.After(end.Sub(time.Now()) + time.Millisecond):
		}
	}
	worst = max(worst, time.Since(last))
	<-done
	t.Logf("longest silence %v (keepalive period %v)", worst, period)
	if events == 0 {
		t.Fatal("no event was streamed")
	}
	if limit := period + period/4; worst > limit {
		t.Fatalf("the stream was silent for %v, more than the keepalive period %v (with slack: %v)", worst, period, limit)
	}
}
