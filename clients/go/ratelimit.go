package hub

import (
	"net/http"
	"strconv"
	"time"
)

// RateLimit is the quota state the hub sent with a response.
type RateLimit struct {
	// Limit is the number of requests allowed in the current window.
	Limit int
	// Remaining is the number of requests left in it.
	Remaining int
	// Reset is when the window ends and the quota resets.
	Reset time.Time
}

func headerInt(h http.Header, name string) (int64, bool) {
	v := h.Get(name)
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n >= 0
}

// rateLimitOf is the state the headers tell, or false when they carry none (a /v1 answer).
func rateLimitOf(h http.Header) (RateLimit, bool) {
	limit, ok1 := headerInt(h, "X-Ratelimit-Limit")
	remaining, ok2 := headerInt(h, "X-Ratelimit-Remaining")
	reset, ok3 := headerInt(h, "X-Ratelimit-Reset")
	if !ok1 || !ok2 || !ok3 {
		return RateLimit{}, false
	}
	return RateLimit{Limit: int(limit), Remaining: int(remaining), Reset: time.Unix(reset, 0)}, true
}

// retryAfter is how long Retry-After asks to wait (seconds or an HTTP date), or until the quota's
// reset on a 429; false when the answer says nothing.
func retryAfter(h http.Header, status int, now time.Time) (time.Duration, bool) {
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
			return time.Duration(s) * time.Second, true
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(0, t.Sub(now)), true
		}
	}
	if status == http.StatusTooManyRequests {
		if reset, ok := headerInt(h, "X-Ratelimit-Reset"); ok {
			return max(0, time.Unix(reset, 0).Sub(now)), true
		}
	}
	return 0, false
}
