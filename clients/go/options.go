package hub

import (
	"context"
	"net/http"
	"time"

	"github.com/gaming-hub/gaming-hub-go/api"
)

// ClientOption configures a Client (New).
type ClientOption interface{ applyClient(*Client) }

// CallOption configures one call (Do, Paginate, or a generated method through Call).
type CallOption interface{ applyCall(*callConfig) }

// Option is valid both per client and per call: the call's value wins.
type Option interface {
	ClientOption
	CallOption
}

type clientOption func(*Client)

func (f clientOption) applyClient(c *Client) { f(c) }

type callOption func(*callConfig)

func (f callOption) applyCall(c *callConfig) { f(c) }

type bothOption struct {
	client func(*Client)
	call   func(*callConfig)
}

func (o bothOption) applyClient(c *Client)   { o.client(c) }
func (o bothOption) applyCall(c *callConfig) { o.call(c) }

// callConfig is what one call may change; nil means the client's setting.
type callConfig struct {
	maxRetries     *int
	timeout        *time.Duration
	idempotencyKey string
	header         http.Header
}

func (cfg *callConfig) setHeader(name, value string) {
	if cfg.header == nil {
		cfg.header = http.Header{}
	}
	cfg.header.Set(name, value)
}

// WithMaxRetries sets how many times a failed call is sent again (default 2; 0 turns retries off).
func WithMaxRetries(n int) Option {
	return bothOption{
		client: func(c *Client) { c.maxRetries = n },
		call:   func(cfg *callConfig) { cfg.maxRetries = &n },
	}
}

// WithTimeout sets how long each attempt may take, the answer's body included (default 30 s; 0: no limit).
func WithTimeout(d time.Duration) Option {
	return bothOption{
		client: func(c *Client) { c.timeout = d },
		call:   func(cfg *callConfig) { cfg.timeout = &d },
	}
}

// WithHeader sends a header with every request of the client, or with one call.
func WithHeader(name, value string) Option {
	return bothOption{
		client: func(c *Client) { c.header.Set(name, value) },
		call:   func(cfg *callConfig) { cfg.setHeader(name, value) },
	}
}

// WithIdempotencyKey sets the Idempotency-Key of a write (by default one is generated per call for
// every operation that takes one, and sent unchanged on each retry).
func WithIdempotencyKey(key string) CallOption {
	return callOption(func(cfg *callConfig) { cfg.idempotencyKey = key })
}

// IfNoneMatch makes a GET conditional: a 304 answer (nothing changed since the ETag, and not counted
// against the quota) comes back as Response.NotModified instead of a body.
func IfNoneMatch(etag string) CallOption {
	return callOption(func(cfg *callConfig) { cfg.setHeader("If-None-Match", etag) })
}

// WithAPIKey authenticates with an API key (ghk_…): x-api-key on the published API, a bearer token on /v1.
func WithAPIKey(key string) ClientOption {
	return clientOption(func(c *Client) { c.apiKey = key })
}

// WithOAuth acts for a user with OAuth tokens. When tokens carry a refresh token, the client refreshes
// the access token before it expires and once after a 401; the hub rotates refresh tokens, so onTokens
// (may be nil) receives every new set: store its RefreshToken, the old one is spent.
func WithOAuth(tokens OAuthTokens, flow *OAuth, onTokens func(OAuthTokens)) ClientOption {
	return clientOption(func(c *Client) {
		c.oauth = &tokenSource{tokens: tokens, flow: flow, onTokens: onTokens}
	})
}

// WithHTTPClient sends through an http.Client of your own (a proxy, a test double). By default each
// Client has its own keep-alive transport, shared by all its calls.
func WithHTTPClient(hc *http.Client) ClientOption {
	return clientOption(func(c *Client) { c.http = hc })
}

// WithRetryBackoff sets the first backoff after a lost connection or a 502/504 (default 500 ms),
// doubled on each retry up to max (default 8 s), with jitter.
func WithRetryBackoff(initial, max time.Duration) ClientOption {
	return clientOption(func(c *Client) { c.backoffInitial, c.backoffMax = initial, max })
}

// WithMaxRetryAfter sets the longest Retry-After (or quota reset) the client waits for before a
// retry (default 60 s); a longer one returns the 429/503 error at once.
func WithMaxRetryAfter(d time.Duration) ClientOption {
	return clientOption(func(c *Client) { c.maxRetryAfter = d })
}

type callKey struct{}

// Call carries per-call options to a generated method of Client.API:
//
//	c.API.StatsEloGetWithResponse(ctx, params, hub.Call(hub.WithMaxRetries(0)))
func Call(opts ...CallOption) api.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		cfg := &callConfig{}
		for _, o := range opts {
			o.applyCall(cfg)
		}
		*req = *req.WithContext(context.WithValue(req.Context(), callKey{}, cfg))
		return nil
	}
}
