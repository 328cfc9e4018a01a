// Package hub is the Go client of the Gaming Hub API: the typed operations generated from the
// service's OpenAPI document (package api, reached through Client.API) and a generic path-based
// call, with credentials, retries, paging, typed errors, conditional requests, OAuth with PKCE,
// webhook verification and the live event stream.
//
// A Client holds no global state and is safe for concurrent use: make one per credential and
// reuse it (its connections are kept alive).
package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gaming-hub/gaming-hub-go/api"
)

// Client calls the hub. Create it with New; it is safe for concurrent use.
type Client struct {
	// API is the generated client: one typed method per operation of the document, sending through
	// this Client (credentials, retries, timeouts, errors as *APIError).
	API *api.ClientWithResponses

	base           *url.URL
	http           *http.Client
	header         http.Header
	apiKey         string
	oauth          *tokenSource
	maxRetries     int
	timeout        time.Duration
	backoffInitial time.Duration
	backoffMax     time.Duration
	maxRetryAfter  time.Duration
	rate           atomic.Pointer[RateLimit]
}

// New makes a client of the hub at baseURL (its origin, e.g. https://hub.example.com: the
// document writes every path in full).
func New(baseURL string, opts ...ClientOption) (*Client, error) {
	base, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("hub: base URL %q is not an absolute URL", baseURL)
	}
	c := &Client{
		base:           base,
		header:         http.Header{},
		maxRetries:     2,
		timeout:        30 * time.Second,
		backoffInitial: 500 * time.Millisecond,
		backoffMax:     8 * time.Second,
		maxRetryAfter:  60 * time.Second,
	}
	for _, o := range opts {
		o.applyClient(c)
	}
	if c.http == nil {
		transport := http.DefaultTransport.(*http.Transport).Clone()
		// every call goes to one host: keep as many idle connections as callers run at once
		transport.MaxIdleConnsPerHost = 64
		c.http = &http.Client{Transport: transport}
	}
	c.API, err = api.NewClientWithResponses(base.String(), api.WithHTTPClient(generatedDoer{c}))
	if err != nil {
		return nil, err
	}
	return c, nil
}

// RateLimit is the quota state of the last response that carried one (published API keys).
func (c *Client) RateLimit() (RateLimit, bool) {
	if r := c.rate.Load(); r != nil {
		return *r, true
	}
	return RateLimit{}, false
}

// Tokens are the OAuth tokens in use, after any refresh (false without OAuth).
func (c *Client) Tokens() (OAuthTokens, bool) {
	if c.oauth == nil {
		return OAuthTokens{}, false
	}
	return c.oauth.current(), true
}

// Params are a generic call's path parameters, query string, JSON body and headers.
type Params struct {
	// Path fills the path's {name} segments.
	Path map[string]any
	// Query is the query string.
	Query url.Values
	// Body is sent as JSON when not nil.
	Body any
}

// Response is what a generic call answered besides its body.
type Response struct {
	StatusCode int
	Header     http.Header
	// NotModified: a conditional GET (IfNoneMatch) found the copy you hold current; nothing was decoded.
	NotModified bool
}

// ETag is the answer's entity tag: send it back with IfNoneMatch.
func (r *Response) ETag() string { return r.Header.Get("ETag") }

// Do calls the operation at method and path (as the document writes it, e.g.
// "/api-platform/v1/users/{id}") and decodes a successful JSON answer into out (may be nil).
// An error answer is an *APIError; see also ConnectionError, TimeoutError and DecodeError.
func (c *Client) Do(ctx context.Context, method, path string, p *Params, out any, opts ...CallOption) (*Response, error) {
	if p == nil {
		p = &Params{}
	}
	cfg := &callConfig{}
	for _, o := range opts {
		o.applyCall(cfg)
	}
	target, err := c.url(path, p)
	if err != nil {
		return nil, err
	}
	var body []byte
	if p.Body != nil {
		if body, err = json.Marshal(p.Body); err != nil {
			return nil, fmt.Errorf("hub: encoding the body: %w", err)
		}
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	res, data, err := c.roundTrip(req, path, cfg, false)
	if err != nil {
		return nil, err
	}
	r := &Response{StatusCode: res.StatusCode, Header: res.Header}
	switch {
	case res.StatusCode == http.StatusNotModified:
		r.NotModified = true
	case res.StatusCode >= 400:
		return r, apiErrorOf(res, data)
	case out != nil && len(data) > 0:
		if err := json.Unmarshal(data, out); err != nil {
			return r, &DecodeError{Status: res.StatusCode, Err: err}
		}
	}
	return r, nil
}

// url fills the path's parameters and adds the query.
func (c *Client) url(path string, p *Params) (string, error) {
	var b strings.Builder
	b.WriteString(c.base.String())
	rest := path
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", fmt.Errorf("hub: path %q has an unclosed parameter", path)
		}
		name := rest[open+1 : open+end]
		value, ok := p.Path[name]
		if !ok {
			return "", fmt.Errorf("hub: path %q needs the parameter %q", path, name)
		}
		b.WriteString(rest[:open])
		b.WriteString(url.PathEscape(pathValue(value)))
		rest = rest[open+end+1:]
	}
	if len(p.Query) > 0 {
		b.WriteByte('?')
		b.WriteString(p.Query.Encode())
	}
	return b.String(), nil
}

func pathValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return fmt.Sprint(v)
}

// generatedDoer is the generated client's HTTP sender: this Client's transport, with error answers
// turned into *APIError and unreadable JSON into *DecodeError.
type generatedDoer struct{ c *Client }

func (d generatedDoer) Do(req *http.Request) (*http.Response, error) {
	cfg, _ := req.Context().Value(callKey{}).(*callConfig)
	if cfg == nil {
		cfg = &callConfig{}
	}
	res, data, err := d.c.roundTrip(req, "", cfg, false)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 400 {
		return nil, apiErrorOf(res, data)
	}
	if len(data) > 0 && isJSON(res.Header) && !json.Valid(data) {
		return nil, &DecodeError{Status: res.StatusCode, Err: fmt.Errorf("the answer is not JSON: %.60q", data)}
	}
	return res, nil
}

func isJSON(h http.Header) bool {
	ct := h.Get("Content-Type")
	return strings.HasPrefix(ct, "application/json") || strings.Contains(ct, "+json")
}
