package httpapi

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
)

const betaTeam = `{"name": "beta", "quotas": [{"instanceType": "ml.p5.48xlarge", "count": 2}]}`

// hookStore runs after once, after a lookup of the token whose hash is
// hash has read the store and before authenticate caches it.
type hookStore struct {
	*sqlite.Store
	mu    sync.Mutex
	hash  string
	after func()
}

func (h *hookStore) arm(hash string, after func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hash, h.after = hash, after
}

func (h *hookStore) TokenByHash(ctx context.Context, hash string) (model.Token, error) {
	tok, err := h.Store.TokenByHash(ctx, hash)
	h.mu.Lock()
	after := h.after
	if hash != h.hash {
		after = nil
	}
	if after != nil {
		h.after = nil
	}
	h.mu.Unlock()
	if after != nil {
		after()
	}
	return tok, err
}

// TestRevocationDuringLookupIsNotCached: a team deleted (its tokens
// revoked, the cache cleared) while a member's token was being looked up
// must not leave the token cached as live; once the team is re-created
// under its name, the old member token still answers 401.
func TestRevocationDuringLookupIsNotCached(t *testing.T) {
	hook := &hookStore{}
	e := newEnvWith(t, testCluster, envOptions{store: func(st *sqlite.Store) engine.Store {
		hook.Store = st
		return hook
	}})
	member := e.token(model.RoleMember, "beta")
	deleted := make(chan int, 1)
	hook.arm(HashSecret(member), func() { // on the server's goroutine: no t.Fatal here
		code, _ := e.do("DELETE", "/api/v1/teams/beta", e.admin, nil)
		deleted <- code
	})
	// The lookup reads the live token, then the team is deleted.
	e.mustDo("GET", "/api/v1/whoami", member, nil, http.StatusUnauthorized, nil)
	if code := <-deleted; code != http.StatusNoContent {
		t.Fatalf("deleting the team during the lookup: status %d", code)
	}
	e.mustDo("PUT", "/api/v1/teams/beta", e.admin, betaTeam, http.StatusOK, nil)
	if code, b := e.do("GET", "/api/v1/whoami", member, nil); code != http.StatusUnauthorized {
		t.Fatalf("the deleted team's member token answers %d after the team was re-created: %s", code, b)
	}
}

// openStream opens GET /api/v1/events with token and returns its lines;
// the channel closes when the stream ends.
func openStream(t *testing.T, e *env, token string) <-chan string {
	t.Helper()
	req, _ := http.NewRequest("GET", e.url+"/api/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: status %d", resp.StatusCode)
	}
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// waitEnd reads lines until the stream ends, failing if it has not ended
// within d or if a line contains never.
func waitEnd(t *testing.T, lines <-chan string, d time.Duration, never string) {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return
			}
			if never != "" && strings.Contains(l, never) {
				t.Fatalf("the stream read %s", l)
			}
		case <-timeout:
			t.Fatalf("the stream was still open %v later", d)
		}
	}
}

// TestStreamEndsWhenItsTeamIsDeleted: deleting a team over the API ends
// its members' open streams at once (not at the next keepalive), so none
// reads the events of a team re-created under the name.
func TestStreamEndsWhenItsTeamIsDeleted(t *testing.T) {
	e := newEnv(t, testCluster) // keepalive 15 s: the revocation itself must end it
	lines := openStream(t, e, e.token(model.RoleMember, "beta"))
	e.mustDo("DELETE", "/api/v1/teams/beta", e.admin, nil, http.StatusNoContent, nil)
	e.mustDo("PUT", "/api/v1/teams/beta", e.admin, betaTeam, http.StatusOK, nil)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("new-beta", "beta", "true"), 201, nil)
	waitEnd(t, lines, 5*time.Second, "new-beta")
}

// TestStreamEndsWhenTokenIsRevoked: revoking a token ends its open streams.
func TestStreamEndsWhenTokenIsRevoked(t *testing.T) {
	e := newEnv(t, testCluster)
	var tok struct{ Token, ID string }
	e.mustDo("POST", "/api/v1/tokens", e.admin, map[string]string{"role": "viewer"}, 201, &tok)
	lines := openStream(t, e, tok.Token)
	e.mustDo("DELETE", "/api/v1/tokens/"+tok.ID, e.admin, nil, http.StatusNoContent, nil)
	waitEnd(t, lines, 5*time.Second, "")
}

// TestStreamRechecksOnKeepalive: a team deleted behind the API's back (no
// cache clear, as the engine's own callers do) ends its streams at the
// next keepalive.
func TestStreamRechecksOnKeepalive(t *testing.T) {
	e := newEnvWith(t, testCluster, envOptions{server: func(s *Server) { s.keepalive = 50 * time.Millisecond }})
	lines := openStream(t, e, e.token(model.RoleMember, "beta"))
	if err := e.eng.DeleteTeam(context.Background(), "test", "beta"); err != nil {
		t.Fatal(err)
	}
	waitEnd(t, lines, 5*time.Second, "")
}
