package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"

	"github.com/taskgov/taskgov/internal/model"
)

// principal is who a request acts as.
type principal struct {
	ID   string // token id, for the audit log
	Role string
	Team string
}

func (p principal) admin() bool { return p.Role == model.RoleAdmin }

// canRead reports whether p may read team's tasks, logs and events.
func (p principal) canRead(team string) bool {
	switch p.Role {
	case model.RoleAdmin:
		return true
	case model.RoleMember:
		return p.Team == team
	case model.RoleViewer:
		return p.Team == "" || p.Team == team
	}
	return false
}

// canWrite reports whether p may submit or change team's tasks.
func (p principal) canWrite(team string) bool {
	return p.admin() || (p.Role == model.RoleMember && p.Team == team)
}

// readableTeams is the set of teams p may read, nil meaning all.
func (p principal) readableTeams() map[string]bool {
	if p.admin() || (p.Role == model.RoleViewer && p.Team == "") {
		return nil
	}
	return map[string]bool{p.Team: true}
}

// teamFilter is the ?team= list a list endpoint reads for p: unchanged for
// a principal who may read every team; for one limited to its team, its
// team when the list is empty, and errForbidden (403) when it names another.
func (p principal) teamFilter(named []string) ([]string, error) {
	allowed := p.readableTeams()
	if allowed == nil {
		return named, nil
	}
	if len(named) == 0 {
		return []string{p.Team}, nil
	}
	for _, t := range named {
		if !allowed[t] {
			return nil, errForbidden
		}
	}
	return named, nil
}

// NewSecret returns a fresh token secret and its storage hash.
func NewSecret() (secret, hash string) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	secret = "tg_" + hex.EncodeToString(b)
	return secret, HashSecret(secret)
}

// HashSecret is how token secrets are stored: SHA-256, hex.
func HashSecret(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// authCache remembers token lookups; revocation clears it. A lookup that
// read the store before a revocation committed must not put its stale
// answer back after the revocation cleared the cache, so every clear
// bumps a generation: a caller reads it before the store lookup and put
// drops the answer if it changed in between. Streams wait on changed to
// re-check their token as soon as a revocation clears the cache.
type authCache struct {
	mu      sync.RWMutex
	m       map[string]model.Token
	gen     uint64
	changed chan struct{} // closed and replaced by clear; nil until first asked
}

func (c *authCache) get(h string) (model.Token, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, ok := c.m[h]
	return t, ok
}

// generation is what put must be given: read it before the store lookup.
func (c *authCache) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

// put caches t unless the cache was cleared since gen was read.
func (c *authCache) put(h string, t model.Token, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return // a revocation committed after the lookup read the store
	}
	if c.m == nil {
		c.m = map[string]model.Token{}
	}
	c.m[h] = t
}

func (c *authCache) clear() {
	c.mu.Lock()
	c.m = nil
	c.gen++
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
	c.mu.Unlock()
}

// cleared returns a channel that is closed by the next clear.
func (c *authCache) cleared() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.changed
}

// authenticate resolves the bearer token of r.
func (s *Server) authenticate(ctx context.Context, r *http.Request) (principal, error) {
	hdr := r.Header.Get("Authorization")
	secret, ok := strings.CutPrefix(hdr, "Bearer ")
	if !ok || secret == "" {
		return principal{}, errUnauthenticated
	}
	h := HashSecret(strings.TrimSpace(secret))
	tok, ok := s.tokens.get(h)
	if !ok {
		gen := s.tokens.generation()
		var err error
		if tok, err = s.st.TokenByHash(ctx, h); err != nil {
			return principal{}, errUnauthenticated
		}
		s.tokens.put(h, tok, gen)
	}
	if tok.Team != "" && !s.teamExists(tok.Team) {
		// Its team was deleted (deleting a team also revokes its tokens).
		return principal{}, errUnauthenticated
	}
	return principal{ID: tok.ID, Role: tok.Role, Team: tok.Team}, nil
}

func (s *Server) teamExists(team string) bool {
	return s.eng.View().HasTeam(team)
}
