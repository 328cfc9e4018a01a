package hub_test

// The README's examples: each ```go block of README.md is the body of one function here (the
// README test checks it), so they compile with every `go vet` and `go test`. They need a hub, so
// they have no Output and are not run.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"time"

	hub "github.com/gaming-hub/gaming-hub-go"
	"github.com/gaming-hub/gaming-hub-go/api"
)

func save(string)                       {}
func handle(api.Event)                  {}
func redirect(string)                   {}
func callbackURL() string               { return "" }
func remember(hub.AuthorizationRequest) {}

func Example_quickStart() {
	ctx := context.Background()
	c, err := hub.New("http://localhost:3000", hub.WithAPIKey(os.Getenv("HUB_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}

	var ladder struct {
		Leaderboard []struct {
			Rank   int    `json:"rank"`
			Name   string `json:"name"`
			Rating int    `json:"rating"`
		} `json:"leaderboard"`
	}
	query := url.Values{"game": {"cs2"}, "limit": {"10"}}
	if _, err := c.Do(ctx, "GET", "/api-platform/v1/stats/elo", &hub.Params{Query: query}, &ladder); err != nil {
		log.Fatal(err)
	}
	for _, entry := range ladder.Leaderboard {
		fmt.Println(entry.Rank, entry.Name, entry.Rating)
	}

	if rl, ok := c.RateLimit(); ok {
		fmt.Println(rl.Remaining, "of", rl.Limit, "left until", rl.Reset)
	}
}

func Example_paging() {
	ctx := context.Background()
	c, _ := hub.New("http://localhost:3000", hub.WithAPIKey(os.Getenv("HUB_API_KEY")))

	threads := hub.Paginate[map[string]any](ctx, c, "/api-platform/v1/forum/threads",
		&hub.Params{Query: url.Values{"limit": {"50"}}})
	for thread, err := range threads {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(thread["id"], thread["title"])
	}

	for clan, err := range hub.Paginate[map[string]any](ctx, c, "/v1/clans", nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(clan["name"])
	}
}

func Example_errors() {
	ctx := context.Background()
	c, _ := hub.New("http://localhost:3000", hub.WithAPIKey(os.Getenv("HUB_API_KEY")))

	_, err := c.Do(ctx, "GET", "/api-platform/v1/users/{id}", &hub.Params{Path: map[string]any{"id": 42}}, nil)
	var apiErr *hub.APIError
	var connErr *hub.ConnectionError
	switch {
	case errors.As(err, &apiErr) && apiErr.Code == api.CodeUserNotFound:
		fmt.Println("no such user")
	case errors.As(err, &apiErr):
		fmt.Println(apiErr.Status, apiErr.Code, apiErr.Detail, "request", apiErr.RequestID)
	case errors.As(err, &connErr):
		fmt.Println("the hub is unreachable:", connErr)
	case err != nil:
		log.Fatal(err)
	}
}

func Example_retries() {
	ctx := context.Background()
	c, _ := hub.New("http://localhost:3000",
		hub.WithAPIKey(os.Getenv("HUB_API_KEY")),
		hub.WithMaxRetries(4),
		hub.WithTimeout(10*time.Second),
	)

	transfer := &hub.Params{Body: map[string]any{"to_user_id": 42, "amount": 5}}
	_, err := c.Do(ctx, "POST", "/v1/economy/transfer", transfer, nil,
		hub.WithIdempotencyKey("order-1234"), // optional: your own key
		hub.WithMaxRetries(0),                // per call
	)
	if err != nil {
		log.Fatal(err)
	}
}

func Example_conditional() {
	ctx := context.Background()
	c, _ := hub.New("http://localhost:3000", hub.WithAPIKey(os.Getenv("HUB_API_KEY")))

	var board map[string]any
	res, err := c.Do(ctx, "GET", "/api-platform/v1/leaderboards", nil, &board)
	if err != nil {
		log.Fatal(err)
	}
	res, err = c.Do(ctx, "GET", "/api-platform/v1/leaderboards", nil, &board, hub.IfNoneMatch(res.ETag()))
	if err == nil && res.NotModified {
		fmt.Println("the copy held is current")
	}
}

func Example_typed() {
	ctx := context.Background()
	c, _ := hub.New("http://localhost:3000", hub.WithAPIKey(os.Getenv("HUB_API_KEY")))

	limit := 10 // the cs2 ladder: the default game
	ladder, err := c.API.StatsEloGetWithResponse(ctx, &api.StatsEloGetParams{Limit: &limit},
		hub.Call(hub.WithTimeout(5*time.Second)))
	if err != nil {
		log.Fatal(err)
	}
	for _, entry := range ladder.JSON200.Leaderboard {
		fmt.Println(entry.Rank, entry.Name, entry.Rating)
	}
}

func Example_oauth() {
	ctx := context.Background()
	flow := &hub.OAuth{
		BaseURL:     "http://localhost:3000",
		ClientID:    "app_…",
		RedirectURI: "https://app.example/callback",
	}
	pending, err := flow.AuthorizationURL([]string{"identify", "economy:read"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	remember(pending) // keep State and CodeVerifier
	redirect(pending.URL)

	// on the callback:
	tokens, err := flow.HandleCallback(ctx, callbackURL(), pending)
	if err != nil {
		log.Fatal(err)
	}
	c, _ := hub.New("http://localhost:3000",
		hub.WithOAuth(tokens, flow, func(fresh hub.OAuthTokens) { save(fresh.RefreshToken) }))
	var me map[string]any
	_, err = c.Do(ctx, "GET", "/v1/users/@me", nil, &me)
	if err != nil {
		log.Fatal(err)
	}
}

func Example_webhooks() {
	verifier, err := hub.NewWebhookVerifier(os.Getenv("WEBHOOK_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	http.HandleFunc("/hooks", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		event, err := verifier.Parse(body, r.Header)
		if err != nil { // wraps hub.ErrInvalidWebhook
			http.Error(w, "invalid delivery", http.StatusBadRequest)
			return
		}
		switch e := event.(type) {
		case *api.EconomyTransferCreatedEvent:
			fmt.Println("transfer of", e.Data.Amount)
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

func Example_stream() {
	ctx := context.Background()
	c, _ := hub.New("http://localhost:3000", hub.WithAPIKey(os.Getenv("HUB_API_KEY")))
	savedCursor := ""

	stream := c.Events(hub.StreamOptions{Types: []string{"match.ended"}, After: savedCursor})
	for event, err := range stream.All(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		handle(event)
		savedCursor = stream.LastEventID()
	}

	query := url.Values{"after": {savedCursor}, "limit": {"500"}}
	for event, err := range hub.Paginate[map[string]any](ctx, c, "/v1/events", &hub.Params{Query: query}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(event["id"], event["type"])
	}
}
