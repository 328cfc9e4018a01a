package hub

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
)

var errNoRefreshToken = errors.New("hub: the OAuth tokens carry no refresh token")

// earlyRefresh: refresh this long before the announced expiry, so no call carries a dying token.
const earlyRefresh = 30 * time.Second

// tokenSource keeps a client's OAuth tokens fresh. The mutex is held across a refresh: concurrent
// calls wait for the one refresh (a rotated refresh token can be spent only once).
type tokenSource struct {
	mu       sync.Mutex
	tokens   OAuthTokens
	flow     *OAuth
	onTokens func(OAuthTokens)
}

func (s *tokenSource) current() OAuthTokens {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens
}

// bearer is the access token to send, refreshed first when it is about to expire.
func (s *tokenSource) bearer(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tokens
	if t.RefreshToken != "" && s.flow != nil && !t.ExpiresAt.IsZero() && time.Until(t.ExpiresAt) < earlyRefresh {
		if err := s.refreshLocked(ctx); err != nil {
			return "", err
		}
	}
	return s.tokens.AccessToken, nil
}

// canRefresh: a 401 on this path may be cured by a refresh.
func (s *tokenSource) canRefresh(path string) bool {
	if s == nil || !strings.HasPrefix(path, "/v1/") {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens.RefreshToken != "" && s.flow != nil
}

// refreshAfter401 refreshes unless another call already replaced the refused token.
func (s *tokenSource) refreshAfter401(ctx context.Context, refused string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens.AccessToken != refused {
		return nil
	}
	return s.refreshLocked(ctx)
}

func (s *tokenSource) refreshLocked(ctx context.Context) error {
	if s.tokens.RefreshToken == "" {
		return errNoRefreshToken
	}
	fresh, err := s.flow.Refresh(ctx, s.tokens.RefreshToken)
	if err != nil {
		return err
	}
	s.tokens = fresh
	if s.onTokens != nil {
		s.onTokens(fresh)
	}
	return nil
}
