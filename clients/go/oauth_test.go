package hub

import (
	"context"
	"errors"
	"net/url"
	"testing"
)

// RFC 7636, appendix B.
func TestPKCEChallenge(t *testing.T) {
	if got := PKCEChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"); got != "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" {
		t.Fatal(got)
	}
}

func TestAuthorizationURLAndCallback(t *testing.T) {
	flow := &OAuth{BaseURL: "https://hub.example/", ClientID: "app_1", RedirectURI: "https://app.example/cb"}
	pending, err := flow.AuthorizationURL([]string{"identify", "offline_access"}, url.Values{"prompt": {"consent"}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(pending.URL)
	q := u.Query()
	if u.Path != oauthAuthorizePath || q.Get("scope") != "identify offline_access" || q.Get("state") != pending.State ||
		q.Get("code_challenge") != PKCEChallenge(pending.CodeVerifier) || q.Get("code_challenge_method") != "S256" || q.Get("prompt") != "consent" {
		t.Fatalf("%s", pending.URL)
	}
	_, err = flow.HandleCallback(context.Background(), "https://app.example/cb?code=x&state=other", pending)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != OAuthStateMismatch {
		t.Fatalf("state mismatch: %v", err)
	}
	_, err = flow.HandleCallback(context.Background(), "https://app.example/cb?error=access_denied&state="+pending.State, pending)
	if !errors.As(err, &apiErr) || apiErr.Code != OAuthAccessDenied {
		t.Fatalf("denied: %v", err)
	}
}
