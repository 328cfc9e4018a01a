package hub

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/gaming-hub/gaming-hub-go/api"
)

// retryStatuses are worth another attempt: the quota or the service asks to come back, or a gateway failed.
func retryStatus(status int) bool {
	return status == 429 || status == 502 || status == 503 || status == 504
}

func safeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// roundTrip sends req with its credentials, a timeout per attempt and retries. A request is retried
// only when sending it twice cannot do anything twice: a safe method, or a write carrying an
// Idempotency-Key (the same key on every attempt, so the hub answers a repeat from its store).
// Unless stream is set, the answer's body is read within the attempt and returned as data (and as
// the response's Body); a stream's body is left open for the caller, who must close it.
// template is the path as the document writes it, or "" when only the URL is known.
func (c *Client) roundTrip(req *http.Request, template string, cfg *callConfig, stream bool) (*http.Response, []byte, error) {
	maxRetries, timeout := c.maxRetries, c.timeout
	if cfg.maxRetries != nil {
		maxRetries = *cfg.maxRetries
	}
	if cfg.timeout != nil {
		timeout = *cfg.timeout
	}
	for name, values := range c.header {
		if req.Header.Get(name) == "" {
			req.Header[name] = values
		}
	}
	for name, values := range cfg.header {
		req.Header[name] = values
	}
	req.Header.Set("User-Agent", userAgent)
	if !safeMethod(req.Method) && req.Header.Get("Idempotency-Key") == "" && takesIdempotencyKey(req.Method, template, req.URL.Path) {
		key := cfg.idempotencyKey
		if key == "" {
			key = newUUID()
		}
		req.Header.Set("Idempotency-Key", key)
	}
	retryable := safeMethod(req.Method) || req.Header.Get("Idempotency-Key") != ""
	if req.Body != nil && req.GetBody == nil {
		// read once, sent again on a retry
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, nil, err
		}
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	// a credential the caller set on the request is theirs: left alone
	own := credentialsOf(req.Header)
	parent := req.Context()
	refreshed := false
	for attempt := 0; ; attempt++ {
		left := attempt < maxRetries
		ctx, cancel := parent, context.CancelFunc(func() {})
		if timeout > 0 {
			ctx, cancel = context.WithTimeout(parent, timeout)
		}
		// the attempts share the header map: authorize overwrites the credential each time
		r := req.WithContext(ctx)
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				cancel()
				return nil, nil, err
			}
			r.Body = body
		}
		token, err := c.authorize(parent, r, own)
		if err != nil {
			cancel()
			return nil, nil, err
		}
		res, err := c.http.Do(r)
		var data []byte
		if err == nil && !stream {
			data, err = io.ReadAll(res.Body)
			_ = res.Body.Close()
		}
		if err != nil {
			timedOut := ctx.Err() != nil
			cancel()
			if parent.Err() != nil {
				return nil, nil, parent.Err()
			}
			var failure error = &ConnectionError{Method: req.Method, URL: req.URL.Redacted(), Err: err}
			if timedOut {
				failure = &TimeoutError{Method: req.Method, URL: req.URL.Redacted(), Timeout: timeout, Err: err}
			}
			if !retryable || !left {
				return nil, nil, failure
			}
			if err := sleep(parent, c.backoff(attempt)); err != nil {
				return nil, nil, err
			}
			continue
		}
		if stream {
			res.Body = &cancelOnClose{ReadCloser: res.Body, cancel: cancel}
		} else {
			cancel()
			res.Body = io.NopCloser(bytes.NewReader(data))
		}
		if rl, ok := rateLimitOf(res.Header); ok {
			c.rate.Store(&rl)
		}
		if res.StatusCode == http.StatusUnauthorized && !refreshed && token != "" && c.oauth.canRefresh(r.URL.Path) {
			// the token was refused before anything ran: sending again is safe for any method
			if stream {
				_ = res.Body.Close()
			}
			if err := c.oauth.refreshAfter401(parent, token); err != nil {
				return nil, nil, err
			}
			refreshed = true
			attempt--
			continue
		}
		if !retryStatus(res.StatusCode) || !retryable || !left {
			return res, data, nil
		}
		wait, asked := retryAfter(res.Header, res.StatusCode, time.Now())
		if asked && wait > c.maxRetryAfter {
			return res, data, nil
		}
		if !asked {
			wait = c.backoff(attempt)
		}
		if stream {
			_ = res.Body.Close()
		}
		if err := sleep(parent, wait); err != nil {
			return nil, nil, err
		}
	}
}

// authorize puts the credential for the request's surface on it: none on the OAuth endpoints, a
// bearer token on /v1 (OAuth, refreshed when due, else the API key), x-api-key elsewhere. It returns
// the OAuth access token it used, if any.
func (c *Client) authorize(ctx context.Context, r *http.Request, own bool) (string, error) {
	path := r.URL.Path
	switch {
	case own || strings.HasPrefix(path, "/api-platform/oauth/"):
		return "", nil
	case strings.HasPrefix(path, "/v1/"):
		if c.oauth != nil {
			token, err := c.oauth.bearer(ctx)
			if err != nil {
				return "", err
			}
			r.Header.Set("Authorization", "Bearer "+token)
			return token, nil
		}
		if c.apiKey != "" {
			r.Header.Set("Authorization", "Bearer "+c.apiKey)
		}
	default:
		if c.apiKey != "" {
			r.Header.Set("X-Api-Key", c.apiKey)
		}
	}
	return "", nil
}

func credentialsOf(h http.Header) bool {
	return h.Get("Authorization") != "" || h.Get("X-Api-Key") != ""
}

// backoff is exponential with jitter: a random wait between half and all of initial × 2^attempt, capped.
func (c *Client) backoff(attempt int) time.Duration {
	ceiling := min(c.backoffMax, c.backoffInitial<<min(attempt, 30))
	if ceiling <= 0 {
		return 0
	}
	return ceiling/2 + rand.N(ceiling/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// takesIdempotencyKey: the document gives the operation an Idempotency-Key header.
func takesIdempotencyKey(method, template, path string) bool {
	for _, op := range api.IdempotentOperations() {
		m, p, _ := strings.Cut(op, " ")
		if m != method {
			continue
		}
		if template != "" && p == template || template == "" && pathMatches(p, path) {
			return true
		}
	}
	return false
}

// pathMatches: path is an instance of the template ({name} stands for one segment).
func pathMatches(template, path string) bool {
	for {
		t, tRest, tMore := strings.Cut(template, "/")
		s, sRest, sMore := strings.Cut(path, "/")
		if tMore != sMore || !(t == s || strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") && s != "") {
			return false
		}
		if !tMore {
			return true
		}
		template, path = tRest, sRest
	}
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
