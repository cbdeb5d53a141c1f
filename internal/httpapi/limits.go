package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Limits bound what one caller can take from the server. Admin tokens are
// not rate-limited (an admin can change everything anyway, and the load
// benchmarks run as admin); SSE caps apply to every token.
type Limits struct {
	// RatePerToken is the sustained requests per second of one non-admin
	// token, Burst the requests it may send at once; 0 turns it off.
	RatePerToken float64
	Burst        int
	// SSEPerToken caps event streams open at once per token, SSETotal for
	// the whole server.
	SSEPerToken, SSETotal int
}

// DefaultLimits are the server's defaults.
var DefaultLimits = Limits{RatePerToken: 50, Burst: 100, SSEPerToken: 8, SSETotal: 2000}

// WithLimits sets the server's per-token limits.
func (s *Server) WithLimits(l Limits) *Server {
	s.limits = l
	return s
}

// tooMany is the 429 answer, with when to retry.
func tooMany(msg, fix string, after time.Duration) error {
	secs := int(math.Ceil(after.Seconds()))
	if secs < 1 {
		secs = 1
	}
	return &apiError{Status: http.StatusTooManyRequests, Code: "rate_limited", Message: msg, Fix: fix,
		retryAfter: strconv.Itoa(secs)}
}

// rateLimiter is a token bucket per token id.
type rateLimiter struct {
	mu      sync.Mutex
	buckets map[string]*bucket
	now     func() time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// allow takes one request from id's bucket; when empty it returns how long
// until the next one is available.
func (rl *rateLimiter) allow(id string, rate float64, burst int) (bool, time.Duration) {
	if rate <= 0 {
		return true, 0
	}
	rl.mu.Lock()
	defer rl.mu.Unlock()
	now := time.Now()
	if rl.now != nil {
		now = rl.now()
	}
	if rl.buckets == nil {
		rl.buckets = map[string]*bucket{}
	}
	b := rl.buckets[id]
	if b == nil {
		b = &bucket{tokens: float64(burst), last: now}
		rl.buckets[id] = b
	}
	b.tokens = math.Min(float64(burst), b.tokens+now.Sub(b.last).Seconds()*rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / rate * float64(time.Second))
}

// streamCounter counts open event streams per token and in all.
type streamCounter struct {
	mu    sync.Mutex
	per   map[string]int
	total int
}

// acquire reserves a stream for id, or says why not.
func (c *streamCounter) acquire(id string, perToken, total int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.per == nil {
		c.per = map[string]int{}
	}
	switch {
	case perToken > 0 && c.per[id] >= perToken:
		return tooMany("this token already has "+strconv.Itoa(c.per[id])+" event streams open",
			"close a stream (a dashboard tab, say) or use another token; each token may hold "+strconv.Itoa(perToken), 5*time.Second)
	case total > 0 && c.total >= total:
		return tooMany("the server has its maximum of "+strconv.Itoa(total)+" event streams open", "retry later", 5*time.Second)
	}
	c.per[id]++
	c.total++
	return nil
}

func (c *streamCounter) release(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.per[id]--; c.per[id] <= 0 {
		delete(c.per, id)
	}
	c.total--
}
