package httpapi

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestEventStreamIsFilteredByTeam: a member of beta sees beta's task events
// live and never alpha's.
func TestEventStreamIsFilteredByTeam(t *testing.T) {
	e := newEnv(t, testCluster)
	beta := e.token(model.RoleMember, "beta")
	req, _ := http.NewRequest("GET", e.url+"/api/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+beta)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("secret-alpha", "alpha", "true"), 201, nil)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("visible-beta", "beta", "true"), 201, nil)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("stream ended")
			}
			if strings.Contains(l, "secret-alpha") {
				t.Fatalf("beta saw alpha's event: %s", l)
			}
			if strings.HasPrefix(l, "data: ") && strings.Contains(l, "visible-beta") && strings.Contains(l, `"kind":"Succeeded"`) {
				return
			}
		case <-timeout:
			t.Fatal("beta's task events did not arrive")
		}
	}
}
