package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gaming-hub/gaming-hub-go/api"
)

// recorder is a test hub: answer decides each attempt's answer; the requests are kept.
type recorder struct {
	mu       sync.Mutex
	requests []*http.Request
	answer   func(n int, w http.ResponseWriter, r *http.Request)
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.mu.Lock()
	rec.requests = append(rec.requests, r.Clone(context.Background()))
	n := len(rec.requests)
	rec.mu.Unlock()
	rec.answer(n, w, r)
}

func (rec *recorder) count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.requests)
}

func (rec *recorder) request(i int) *http.Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.requests[i]
}

func problem(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"/p/%[2]s","title":"T","status":%[1]d,"detail":"D","instance":"req-1","code":%[2]q}`, status, code)
}

func serve(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) (*recorder, string) {
	t.Helper()
	rec := &recorder{answer: answer}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

func newClient(t *testing.T, base string, opts ...ClientOption) *Client {
	t.Helper()
	c, err := New(base, append([]ClientOption{WithAPIKey("ghk_test"), WithRetryBackoff(time.Millisecond, 5*time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRetriesA429AfterRetryAfter(t *testing.T) {
	rec, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			problem(w, 429, "rate_limited")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"leaderboard":[]}`)
	})
	started := time.Now()
	var out map[string]any
	if _, err := newClient(t, base).Do(context.Background(), "GET", "/api-platform/v1/leaderboards", nil, &out); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(started); elapsed < time.Second {
		t.Fatalf("retried after %s, before Retry-After", elapsed)
	}
	if rec.count() != 2 || out["leaderboard"] == nil {
		t.Fatalf("%d attempts, answer %v", rec.count(), out)
	}
}

func TestGivesUpWhenRetryAfterIsTooFar(t *testing.T) {
	rec, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		problem(w, 429, "rate_limited")
	})
	_, err := newClient(t, base).Do(context.Background(), "GET", "/api-platform/v1/leaderboards", nil, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != api.CodeRateLimited || rec.count() != 1 {
		t.Fatalf("%d attempts, error %v", rec.count(), err)
	}
}

func TestGatewayErrorsBackOffUpToMaxRetries(t *testing.T) {
	rec, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) { problem(w, 502, "internal_error") })
	_, err := newClient(t, base, WithMaxRetries(3)).Do(context.Background(), "GET", "/api-platform/v1/achievements", nil, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 502 || rec.count() != 4 {
		t.Fatalf("%d attempts, error %v", rec.count(), err)
	}
	// per call
	_, _ = newClient(t, base, WithMaxRetries(3)).Do(context.Background(), "GET", "/api-platform/v1/achievements", nil, nil, WithMaxRetries(0))
	if rec.count() != 5 {
		t.Fatalf("WithMaxRetries(0) per call: %d attempts in all", rec.count())
	}
}

func TestAWriteWithoutIdempotencyKeyIsNotRetried(t *testing.T) {
	rec, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0")
		problem(w, 503, "service_unavailable")
	})
	_, err := newClient(t, base).Do(context.Background(), "POST", "/api-platform/developer/session", &Params{Body: map[string]string{"a": "b"}}, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != api.CodeServiceUnavailable || rec.count() != 1 {
		t.Fatalf("%d attempts, error %v", rec.count(), err)
	}
}

func TestATransferCarriesOneIdempotencyKeyOnEveryAttempt(t *testing.T) {
	rec, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			// the connection dies without an answer
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":{"amount":7}}`)
	})
	body := &Params{Body: map[string]any{"to_user_id": 2, "amount": 7}}
	if _, err := newClient(t, base).Do(context.Background(), "POST", "/v1/economy/transfer", body, nil); err != nil {
		t.Fatal(err)
	}
	first, second := rec.request(0).Header.Get("Idempotency-Key"), rec.request(1).Header.Get("Idempotency-Key")
	if rec.count() != 2 || first == "" || first != second {
		t.Fatalf("%d attempts, keys %q %q", rec.count(), first, second)
	}
	// a key of the caller's
	if _, err := newClient(t, base).Do(context.Background(), "POST", "/v1/economy/transfer", body, nil, WithIdempotencyKey("order-1")); err != nil {
		t.Fatal(err)
	}
	if got := rec.request(2).Header.Get("Idempotency-Key"); got != "order-1" {
		t.Fatalf("key %q", got)
	}
}

func TestCredentialsUserAgentAndRateLimit(t *testing.T) {
	rec, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Ratelimit-Limit", "100")
		w.Header().Set("X-Ratelimit-Remaining", strconv.Itoa(100-n))
		w.Header().Set("X-Ratelimit-Reset", "1800000000")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{}`)
	})
	c := newClient(t, base)
	if _, ok := c.RateLimit(); ok {
		t.Fatal("a rate-limit state before any call")
	}
	for _, path := range []string{"/api-platform/v1/servers", "/v1/clans"} {
		if _, err := c.Do(context.Background(), "GET", path, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	published, v1 := rec.request(0), rec.request(1)
	if published.Header.Get("X-Api-Key") != "ghk_test" || published.Header.Get("Authorization") != "" {
		t.Fatalf("published API headers %v", published.Header)
	}
	if v1.Header.Get("Authorization") != "Bearer ghk_test" || v1.Header.Get("X-Api-Key") != "" {
		t.Fatalf("/v1 headers %v", v1.Header)
	}
	if ua := v1.Header.Get("User-Agent"); ua != "gaming-hub-client-go/"+Version {
		t.Fatalf("User-Agent %q", ua)
	}
	rl, ok := c.RateLimit()
	if !ok || rl.Limit != 100 || rl.Remaining != 98 || rl.Reset.Unix() != 1800000000 {
		t.Fatalf("rate limit %+v", rl)
	}
}

func TestErrorsAreDistinct(t *testing.T) {
	_, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api-platform/v1/users/0":
			problem(w, 400, "invalid_parameter")
		case "/api-platform/v1/slow":
			time.Sleep(200 * time.Millisecond)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "<html>not json")
		}
	})
	c := newClient(t, base, WithMaxRetries(0))
	_, err := c.Do(context.Background(), "GET", "/api-platform/v1/users/{id}", &Params{Path: map[string]any{"id": 0}}, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != api.CodeInvalidParameter || apiErr.RequestID != "req-1" || apiErr.Title != "T" || apiErr.Detail != "D" {
		t.Fatalf("API error %#v", err)
	}
	var out map[string]any
	_, err = c.Do(context.Background(), "GET", "/api-platform/v1/servers", nil, &out)
	var decode *DecodeError
	if !errors.As(err, &decode) {
		t.Fatalf("decode error %v", err)
	}
	_, err = c.API.ServersListWithResponse(context.Background(), nil)
	if !errors.As(err, &decode) {
		t.Fatalf("the generated client's decode error %v", err)
	}
	_, err = c.Do(context.Background(), "GET", "/api-platform/v1/slow", nil, nil, WithTimeout(20*time.Millisecond))
	var timeout *TimeoutError
	if !errors.As(err, &timeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout error %v", err)
	}
	closed, _ := New("http://127.0.0.1:9", WithMaxRetries(0))
	_, err = closed.Do(context.Background(), "GET", "/api-platform/v1/servers", nil, nil)
	var conn *ConnectionError
	if !errors.As(err, &conn) || errors.As(err, &timeout) {
		t.Fatalf("connection error %v", err)
	}
}

func TestTheGeneratedClientSendsThroughTheClient(t *testing.T) {
	rec, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			problem(w, 503, "service_unavailable")
			return
		}
		if r.URL.Path == "/api-platform/v1/users/99" {
			problem(w, 404, "user_not_found")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"game":"cs2","leaderboard":[{"rank":1,"user_id":5,"name":"a","rating":1200,"matches":3,"wins":2,"losses":1}]}`)
	})
	c := newClient(t, base)
	limit := 5
	ladder, err := c.API.StatsEloGetWithResponse(context.Background(), &api.StatsEloGetParams{Limit: &limit})
	if err != nil {
		t.Fatal(err)
	}
	if ladder.JSON200 == nil || len(ladder.JSON200.Leaderboard) != 1 || rec.count() != 2 {
		t.Fatalf("%d attempts, answer %s", rec.count(), ladder.Body)
	}
	if rec.request(1).Header.Get("X-Api-Key") != "ghk_test" || rec.request(1).URL.Query().Get("limit") != "5" {
		t.Fatalf("sent %s with %v", rec.request(1).URL, rec.request(1).Header)
	}
	_, err = c.API.UsersGetWithResponse(context.Background(), 99, nil, Call(WithMaxRetries(0)))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != api.CodeUserNotFound {
		t.Fatalf("error %v", err)
	}
}

func TestConditionalGet(t *testing.T) {
	_, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"leaderboard":[]}`)
	})
	c := newClient(t, base)
	res, err := c.Do(context.Background(), "GET", "/api-platform/v1/leaderboards", nil, nil)
	if err != nil || res.NotModified || res.ETag() != `"v1"` {
		t.Fatalf("first: %+v %v", res, err)
	}
	res, err = c.Do(context.Background(), "GET", "/api-platform/v1/leaderboards", nil, nil, IfNoneMatch(res.ETag()))
	if err != nil || !res.NotModified {
		t.Fatalf("second: %+v %v", res, err)
	}
}

func TestOAuthRefreshesOnceForConcurrentCalls(t *testing.T) {
	var refreshes atomic.Int32
	_, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == oauthTokenPath {
			_ = r.ParseForm()
			k := refreshes.Add(1)
			fmt.Fprintf(w, `{"access_token":"at%d","refresh_token":"rt%d","expires_in":900}`, k, k)
			return
		}
		if r.Header.Get("Authorization") == "Bearer stale" {
			problem(w, 401, "invalid_token")
			return
		}
		fmt.Fprintf(w, `{"data":{"auth":%q}}`, r.Header.Get("Authorization"))
	})
	var handed atomic.Int32
	flow := &OAuth{BaseURL: base, ClientID: "app_1", RedirectURI: "http://127.0.0.1:9/cb"}
	c := newClient(t, base, WithAPIKey(""), WithOAuth(OAuthTokens{AccessToken: "stale", RefreshToken: "rt0"}, flow, func(OAuthTokens) { handed.Add(1) }))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var out struct{ Data struct{ Auth string } }
			if _, err := c.Do(context.Background(), "GET", "/v1/users/@me", nil, &out); err != nil || out.Data.Auth != "Bearer at1" {
				t.Errorf("%v %q", err, out.Data.Auth)
			}
		})
	}
	wg.Wait()
	if refreshes.Load() != 1 || handed.Load() != 1 {
		t.Fatalf("%d refreshes, %d callbacks", refreshes.Load(), handed.Load())
	}
	if tokens, _ := c.Tokens(); tokens.RefreshToken != "rt1" {
		t.Fatalf("tokens %+v", tokens)
	}
}

func TestPathMatches(t *testing.T) {
	for _, tc := range []struct {
		template, path string
		want           bool
	}{
		{"/v1/clans/{id}/members", "/v1/clans/5/members", true},
		{"/v1/clans/{id}/members", "/v1/clans/5", false},
		{"/v1/clans/{id}", "/v1/clans/", false},
		{"/v1/economy/transfer", "/v1/economy/transfer", true},
	} {
		if got := pathMatches(tc.template, tc.path); got != tc.want {
			t.Errorf("%s ~ %s: %v", tc.template, tc.path, got)
		}
	}
}

// One Client shared by many goroutines (go test -race checks the shared state: rate limit,
// connection pool, credentials).
func TestOneClientManyGoroutines(t *testing.T) {
	_, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Ratelimit-Limit", "1000")
		w.Header().Set("X-Ratelimit-Remaining", strconv.Itoa(1000-n))
		w.Header().Set("X-Ratelimit-Reset", "1800000000")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"threads":[]}`)
	})
	c := newClient(t, base)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 10 {
				if _, err := c.Do(context.Background(), "GET", "/api-platform/v1/forum/threads", nil, nil, WithTimeout(5*time.Second)); err != nil {
					t.Error(err)
				}
				if rl, ok := c.RateLimit(); !ok || rl.Limit != 1000 {
					t.Error("no rate-limit state")
				}
			}
		})
	}
	wg.Wait()
	if rl, _ := c.RateLimit(); rl.Remaining < 840 || rl.Remaining > 999 {
		t.Fatalf("remaining %d", rl.Remaining)
	}
}
