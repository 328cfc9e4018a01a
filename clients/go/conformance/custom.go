package main

// The scenarios that need more than a call: retries under the proxy's faults, OAuth, webhooks and
// the stream. Each returns an error when the library does not do what the scenario says.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	hub "github.com/gaming-hub/gaming-hub-go"
	"github.com/gaming-hub/gaming-hub-go/api"
)

var customScenarios = map[string]func(h *harness, name string) error{
	"rate_limit.state":                              rateLimitState,
	"conditional.etag":                              conditionalETag,
	"retry.429_retry_after":                         retry429,
	"retry.gateway_backoff":                         retryGateway,
	"retry.write_without_key_not_retried":           writeNotRetried,
	"idempotency.transfer_after_dropped_connection": transferAfterDrop,
	"oauth.code_flow_pkce":                          codeFlow,
	"oauth.refresh_rotation":                        refreshRotation,
	"oauth.revoke":                                  revoke,
	"webhooks.vectors":                              webhookVectors,
	"webhooks.real_delivery":                        realDelivery,
	"stream.resume_after_disconnect":                streamResume,
	"errors.transport_distinct":                     transportDistinct,
}

func check(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

func rateLimitState(h *harness, name string) error {
	c := h.client(name)
	if _, err := c.Do(ctx(), "GET", "/api-platform/v1/leaderboards", &hub.Params{Query: url.Values{"limit": {"1"}}}, nil); err != nil {
		return err
	}
	rl, ok := c.RateLimit()
	if !ok {
		return errors.New("no rate-limit state")
	}
	ahead := rl.Reset.Sub(h.hubNow())
	return check(rl.Limit > 0 && rl.Remaining <= rl.Limit && ahead > -time.Second && ahead <= time.Hour+time.Second,
		"rate limit %+v (reset %s ahead)", rl, ahead)
}

func conditionalETag(h *harness, name string) error {
	c := h.client(name)
	p := &hub.Params{Query: url.Values{"limit": {"3"}}}
	var first map[string]any
	res, err := c.Do(ctx(), "GET", "/api-platform/v1/leaderboards", p, &first)
	if err != nil {
		return err
	}
	if res.NotModified || res.ETag() == "" || first == nil {
		return errors.New("the first answer has no data or no ETag")
	}
	second, err := c.Do(ctx(), "GET", "/api-platform/v1/leaderboards", p, nil, hub.IfNoneMatch(res.ETag()))
	if err != nil {
		return err
	}
	return check(second.NotModified, "the second answer is %d, not 'not modified'", second.StatusCode)
}

func attempts(h *harness, name string, want int) error {
	saw, err := h.proxySaw(name)
	if err != nil {
		return err
	}
	return check(len(saw) == want, "%d attempts, expected %d", len(saw), want)
}

func retry429(h *harness, name string) error {
	started := time.Now()
	if _, err := h.client(name).Do(ctx(), "GET", "/api-platform/v1/leaderboards", nil, nil); err != nil {
		return err
	}
	if elapsed := time.Since(started); elapsed < time.Second {
		return fmt.Errorf("retried after %s, before Retry-After", elapsed)
	}
	return attempts(h, name, 2)
}

func retryGateway(h *harness, name string) error {
	if _, err := h.client(name, hub.WithMaxRetries(2)).Do(ctx(), "GET", "/api-platform/v1/achievements", nil, nil); err != nil {
		return err
	}
	return attempts(h, name, 3)
}

func writeNotRetried(h *harness, name string) error {
	alice := h.fx.Users["alice"]
	body := map[string]string{"username": alice.Username, "password": alice.Password}
	_, err := h.client(name).Do(ctx(), "POST", "/api-platform/developer/session", &hub.Params{Body: body}, nil)
	var apiErr *hub.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || apiErr.Code != api.CodeServiceUnavailable {
		return fmt.Errorf("expected the 503 service_unavailable problem, got %v", err)
	}
	return attempts(h, name, 1)
}

func balanceOf(c *hub.Client) (int, error) {
	var answer struct {
		Data struct {
			Balance int `json:"balance"`
		} `json:"data"`
	}
	_, err := c.Do(ctx(), "GET", "/v1/economy/balance", nil, &answer)
	return answer.Data.Balance, err
}

type transferAnswer struct {
	Data struct {
		Amount   int `json:"amount"`
		ToUserID int `json:"to_user_id"`
	} `json:"data"`
}

func (h *harness) transfer(c *hub.Client, amount int) (transferAnswer, error) {
	var answer transferAnswer
	body := map[string]any{"to_user_id": h.fx.Users["bob"].ID, "amount": amount}
	_, err := c.Do(ctx(), "POST", "/v1/economy/transfer", &hub.Params{Body: body}, &answer)
	return answer, err
}

func transferAfterDrop(h *harness, name string) error {
	alice, err := h.alice(name, "economy:read", "economy:transfer")
	if err != nil {
		return err
	}
	before, err := balanceOf(alice)
	if err != nil {
		return err
	}
	answer, err := h.transfer(alice, 7)
	if err != nil {
		return err
	}
	if answer.Data.Amount != 7 || answer.Data.ToUserID != h.fx.Users["bob"].ID {
		return fmt.Errorf("the transfer answered %+v", answer.Data)
	}
	after, err := balanceOf(alice)
	if err != nil {
		return err
	}
	if after != before-7 {
		return fmt.Errorf("balance %d -> %d: the coins did not move once", before, after)
	}
	saw, err := h.proxySaw(name)
	if err != nil {
		return err
	}
	var keys []string
	for _, r := range saw {
		if r.Method == "POST" && r.Path == "/v1/economy/transfer" && r.IdempotencyKey != nil {
			keys = append(keys, *r.IdempotencyKey)
		}
	}
	return check(len(keys) == 2 && keys[0] != "" && keys[0] == keys[1], "sent %d times with keys %v, expected twice with the same key", len(keys), keys)
}

func aliceIs(h *harness, c *hub.Client) error {
	var me struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if _, err := c.Do(ctx(), "GET", "/v1/users/@me", nil, &me); err != nil {
		return err
	}
	want := fmt.Sprint(h.fx.Users["alice"].ID)
	return check(me.Data.ID == want, "@me is %q, expected %s", me.Data.ID, want)
}

func codeFlow(h *harness, name string) error {
	tokens, flow, err := h.signIn(name, "identify", "offline_access")
	if err != nil {
		return err
	}
	if tokens.AccessToken == "" || tokens.RefreshToken == "" {
		return errors.New("expected an access and a refresh token")
	}
	return aliceIs(h, h.client(name, hub.WithAPIKey(""), hub.WithOAuth(tokens, flow, nil)))
}

func refusedWith(err error, code api.ErrorCode) error {
	var apiErr *hub.APIError
	return check(errors.As(err, &apiErr) && apiErr.Code == code, "expected %s, got %v", code, err)
}

func refreshRotation(h *harness, name string) error {
	tokens, flow, err := h.signIn(name, "identify", "offline_access")
	if err != nil {
		return err
	}
	var handed []hub.OAuthTokens
	expired := tokens
	expired.ExpiresAt = time.Now().Add(-time.Second)
	c := h.client(name, hub.WithAPIKey(""), hub.WithOAuth(expired, flow, func(t hub.OAuthTokens) { handed = append(handed, t) }))
	if err := aliceIs(h, c); err != nil {
		return err
	}
	if len(handed) != 1 || handed[0].RefreshToken == "" || handed[0].RefreshToken == tokens.RefreshToken {
		return fmt.Errorf("the callback got %d token sets, expected one with a new refresh token", len(handed))
	}
	_, err = flow.Refresh(ctx(), tokens.RefreshToken)
	return refusedWith(err, hub.OAuthInvalidGrant)
}

func revoke(h *harness, name string) error {
	tokens, flow, err := h.signIn(name, "identify", "offline_access")
	if err != nil {
		return err
	}
	if err := flow.Revoke(ctx(), tokens.RefreshToken, "refresh_token"); err != nil {
		return err
	}
	_, err = flow.Refresh(ctx(), tokens.RefreshToken)
	return refusedWith(err, hub.OAuthInvalidGrant)
}

func webhookVectors(h *harness, _ string) error {
	data, err := os.ReadFile(h.fx.VectorsFile)
	if err != nil {
		return err
	}
	var file struct {
		Vectors []struct {
			Name    string            `json:"name"`
			Secrets []string          `json:"secrets"`
			Headers map[string]string `json:"headers"`
			Body    string            `json:"body"`
			Now     int64             `json:"now"`
			Valid   bool              `json:"valid"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return err
	}
	for _, v := range file.Vectors {
		verifier, err := hub.NewWebhookVerifier(v.Secrets...)
		if err != nil {
			return fmt.Errorf("%s: %w", v.Name, err)
		}
		verifier.Now = func() time.Time { return time.Unix(v.Now, 0) }
		err = verifier.Verify([]byte(v.Body), headerOf(v.Headers))
		if err != nil && !errors.Is(err, hub.ErrInvalidWebhook) {
			return fmt.Errorf("%s: %w", v.Name, err)
		}
		if (err == nil) != v.Valid {
			return fmt.Errorf("%s: accepted %v, expected %v (%v)", v.Name, err == nil, v.Valid, err)
		}
	}
	return nil
}

func headerOf(m map[string]string) http.Header {
	h := http.Header{}
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}

func realDelivery(h *harness, name string) error {
	alice, err := h.alice(name, "economy:read", "economy:transfer", "webhooks:read", "webhooks:write")
	if err != nil {
		return err
	}
	var inbox struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	if err := h.control("POST", "inbox", map[string]any{}, &inbox); err != nil {
		return err
	}
	var created struct {
		Data struct {
			Secret string `json:"secret"`
		} `json:"data"`
	}
	body := map[string]any{"url": inbox.URL, "events": []string{"economy.transfer.created"}}
	if _, err := alice.Do(ctx(), "POST", "/v1/webhooks", &hub.Params{Body: body}, &created); err != nil {
		return err
	}
	if created.Data.Secret == "" {
		return errors.New("the creation answer carries no secret")
	}
	if _, err := h.transfer(alice, 3); err != nil {
		return err
	}
	var got struct {
		Deliveries []delivery `json:"deliveries"`
	}
	if err := h.control("GET", "inbox/"+inbox.ID+"?wait_ms=20000", nil, &got); err != nil {
		return err
	}
	if len(got.Deliveries) == 0 {
		return errors.New("no delivery within 20 s")
	}
	d := got.Deliveries[0]
	verifier, err := hub.NewWebhookVerifier(created.Data.Secret)
	if err != nil {
		return err
	}
	verifier.Now = h.hubNow
	event, err := verifier.Parse([]byte(d.Body), headerOf(d.Headers))
	if err != nil {
		return err
	}
	transfer, ok := event.(*api.EconomyTransferCreatedEvent)
	if !ok {
		return fmt.Errorf("parsed into %T, expected *api.EconomyTransferCreatedEvent", event)
	}
	if transfer.Data.Amount != 3 {
		return fmt.Errorf("amount %d, expected 3", transfer.Data.Amount)
	}
	tampered := strings.Replace(d.Body, `"amount":3`, `"amount":300`, 1)
	err = verifier.Verify([]byte(tampered), headerOf(d.Headers))
	return check(errors.Is(err, hub.ErrInvalidWebhook), "the tampered delivery was not refused: %v", err)
}

func streamResume(h *harness, name string) error {
	alice, err := h.alice(name, "economy:read", "economy:transfer")
	if err != nil {
		return err
	}
	if _, err := h.transfer(alice, 1); err != nil { // an event to put the cursor on
		return err
	}
	cursor := ""
	for event, err := range hub.Paginate[map[string]any](ctx(), alice, "/v1/events", &hub.Params{Query: url.Values{"limit": {"1000"}}}) {
		if err != nil {
			return err
		}
		cursor, _ = event["id"].(string)
	}
	if cursor == "" {
		return errors.New("the pull route lists no event")
	}
	for range 3 {
		if _, err := h.transfer(alice, 1); err != nil {
			return err
		}
	}
	types := []string{"economy.transfer.created"}
	timeout, cancel := context.WithTimeout(ctx(), 20*time.Second)
	defer cancel()
	stream := alice.Events(hub.StreamOptions{Types: types, After: cursor})
	var ids []string
	for event, err := range stream.All(timeout) {
		if err != nil {
			return err
		}
		if _, ok := event.(*api.EconomyTransferCreatedEvent); !ok {
			return fmt.Errorf("an event of type %T", event)
		}
		ids = append(ids, stream.LastEventID())
		if len(ids) == 3 {
			break
		}
	}
	if len(ids) != 3 || !slices.IsSorted(ids) || slices.Compact(slices.Clone(ids))[2] != ids[2] {
		return fmt.Errorf("expected 3 distinct events in order, got %v", ids)
	}
	var pulled []string
	query := url.Values{"after": {cursor}, "types": {strings.Join(types, ",")}}
	for event, err := range hub.Paginate[map[string]any](ctx(), alice, "/v1/events", &hub.Params{Query: query}) {
		if err != nil {
			return err
		}
		id, _ := event["id"].(string)
		pulled = append(pulled, id)
	}
	if !slices.Equal(ids, pulled) {
		return fmt.Errorf("the stream gave %v, the pull route %v", ids, pulled)
	}
	saw, err := h.proxySaw(name)
	if err != nil {
		return err
	}
	var opens []seen
	for _, r := range saw {
		if r.Path == "/v1/events/stream" {
			opens = append(opens, r)
		}
	}
	if len(opens) != 2 {
		return fmt.Errorf("%d stream connections, expected 2 (one reconnection)", len(opens))
	}
	return check(opens[1].LastEventID != nil && *opens[1].LastEventID == ids[0], "reconnected with Last-Event-ID %v, expected %s", opens[1].LastEventID, ids[0])
}

func transportDistinct(h *harness, name string) error {
	closed, err := hub.New("http://127.0.0.1:9", hub.WithAPIKey(h.fx.APIKey), hub.WithMaxRetries(0))
	if err != nil {
		return err
	}
	_, err = closed.Do(ctx(), "GET", "/api-platform/v1/servers", nil, nil)
	var conn *hub.ConnectionError
	if !errors.As(err, &conn) {
		return fmt.Errorf("a closed port gave %v, expected *hub.ConnectionError", err)
	}
	var answer map[string]any
	_, err = h.client(name).Do(ctx(), "GET", "/api-platform/v1/servers", nil, &answer)
	var decode *hub.DecodeError
	return check(errors.As(err, &decode), "a body that is not JSON gave %v, expected *hub.DecodeError", err)
}
