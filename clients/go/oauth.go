package hub

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gaming-hub/gaming-hub-go/api"
)

// Where the hub's authorization server answers, under the service's origin.
const (
	oauthAuthorizePath = "/api-platform/oauth/authorize"
	oauthTokenPath     = "/api-platform/oauth/token"
	oauthRevokePath    = "/api-platform/oauth/revoke"
)

// OAuth error codes (RFC 6749 §5.2) an *APIError of the token endpoint carries.
const (
	OAuthInvalidGrant   api.ErrorCode = "invalid_grant"
	OAuthInvalidClient  api.ErrorCode = "invalid_client"
	OAuthInvalidRequest api.ErrorCode = "invalid_request"
	OAuthAccessDenied   api.ErrorCode = "access_denied"
	// OAuthStateMismatch: the callback's state is not the one the authorization URL carried.
	OAuthStateMismatch api.ErrorCode = "state_mismatch"
)

// OAuthTokens are the tokens of one grant. Store the refresh token: it changes on every refresh (rotation).
type OAuthTokens struct {
	AccessToken  string
	RefreshToken string
	// ExpiresAt is when the access token expires (zero: unknown).
	ExpiresAt time.Time
	Scope     string
}

// OAuth runs the Authorization Code flow with PKCE (S256) against the hub's authorization server,
// for confidential apps (with ClientSecret) and public ones (without): the URL to send the user to,
// the code exchange, refresh (the hub rotates refresh tokens: keep the new one) and revocation.
// Fill in its fields; it is safe for concurrent use.
type OAuth struct {
	// BaseURL is the hub's origin, e.g. https://hub.example.com.
	BaseURL      string
	ClientID     string
	ClientSecret string
	RedirectURI  string
	// HTTPClient sends the token requests (default: a client with a 30 s timeout).
	HTTPClient *http.Client
	// Header is sent with every token request.
	Header http.Header
}

// AuthorizationRequest is a pending authorization: keep State and CodeVerifier until the user comes back.
type AuthorizationRequest struct {
	URL          string
	State        string
	CodeVerifier string
}

func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// PKCEChallenge is the S256 challenge of a code verifier (RFC 7636).
func PKCEChallenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// AuthorizationURL is the URL to send the user to, for scope, with a fresh state and PKCE pair.
// extra adds parameters (prompt=consent, say).
func (o *OAuth) AuthorizationURL(scope []string, extra url.Values) (AuthorizationRequest, error) {
	u, err := url.Parse(strings.TrimRight(o.BaseURL, "/") + oauthAuthorizePath)
	if err != nil {
		return AuthorizationRequest{}, err
	}
	pending := AuthorizationRequest{State: randomToken(16), CodeVerifier: randomToken(32)}
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {o.ClientID},
		"redirect_uri":          {o.RedirectURI},
		"scope":                 {strings.Join(scope, " ")},
		"state":                 {pending.State},
		"code_challenge":        {PKCEChallenge(pending.CodeVerifier)},
		"code_challenge_method": {"S256"},
	}
	for k, v := range extra {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	pending.URL = u.String()
	return pending, nil
}

// HandleCallback takes the redirect back to the app (its full URL, or its query): it checks the
// state, returns an authorization error as *APIError, and exchanges the code for tokens.
func (o *OAuth) HandleCallback(ctx context.Context, callback string, pending AuthorizationRequest) (OAuthTokens, error) {
	u, err := url.Parse(callback)
	if err != nil {
		return OAuthTokens{}, err
	}
	q := u.Query()
	if u.RawQuery == "" && !strings.Contains(callback, "/") {
		q, _ = url.ParseQuery(strings.TrimPrefix(callback, "?"))
	}
	if q.Get("state") != pending.State {
		return OAuthTokens{}, oauthError(OAuthStateMismatch, "the state does not match", 400)
	}
	if e := q.Get("error"); e != "" {
		return OAuthTokens{}, oauthError(api.ErrorCode(e), q.Get("error_description"), 400)
	}
	code := q.Get("code")
	if code == "" {
		return OAuthTokens{}, oauthError(OAuthInvalidRequest, "the callback carries no code", 400)
	}
	return o.ExchangeCode(ctx, code, pending.CodeVerifier)
}

// ExchangeCode trades an authorization code and its PKCE verifier for tokens.
func (o *OAuth) ExchangeCode(ctx context.Context, code, codeVerifier string) (OAuthTokens, error) {
	return o.token(ctx, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"code_verifier": {codeVerifier},
		"redirect_uri":  {o.RedirectURI},
	})
}

// Refresh gets a new access token; the answer's refresh token replaces the one given (rotation).
func (o *OAuth) Refresh(ctx context.Context, refreshToken string) (OAuthTokens, error) {
	tokens, err := o.token(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}})
	if err == nil && tokens.RefreshToken == "" {
		tokens.RefreshToken = refreshToken
	}
	return tokens, err
}

// Revoke revokes an access or refresh token (RFC 7009; hint "access_token", "refresh_token" or "").
// Revoking a refresh token ends its grant.
func (o *OAuth) Revoke(ctx context.Context, token, hint string) error {
	form := url.Values{"token": {token}}
	if hint != "" {
		form.Set("token_type_hint", hint)
	}
	_, err := o.post(ctx, oauthRevokePath, form)
	return err
}

func (o *OAuth) token(ctx context.Context, form url.Values) (OAuthTokens, error) {
	data, err := o.post(ctx, oauthTokenPath, form)
	if err != nil {
		return OAuthTokens{}, err
	}
	var answer struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
		ExpiresIn    *int64 `json:"expires_in"`
		Scope        string `json:"scope"`
	}
	if err := json.Unmarshal(data, &answer); err != nil || answer.AccessToken == "" {
		if err == nil {
			err = fmt.Errorf("no access_token")
		}
		return OAuthTokens{}, &DecodeError{Status: 200, Err: err}
	}
	tokens := OAuthTokens{AccessToken: answer.AccessToken, RefreshToken: answer.RefreshToken, Scope: answer.Scope}
	if answer.ExpiresIn != nil {
		tokens.ExpiresAt = time.Now().Add(time.Duration(*answer.ExpiresIn) * time.Second)
	}
	return tokens, nil
}

// post sends a form to an OAuth endpoint: the answer's body, or its error as *APIError.
func (o *OAuth) post(ctx context.Context, path string, form url.Values) ([]byte, error) {
	if o.ClientSecret == "" {
		form.Set("client_id", o.ClientID)
	}
	target := strings.TrimRight(o.BaseURL, "/") + path
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	for k, v := range o.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if o.ClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(o.ClientID), url.QueryEscape(o.ClientSecret))
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	res, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &ConnectionError{Method: http.MethodPost, URL: target, Err: err}
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, &ConnectionError{Method: http.MethodPost, URL: target, Err: err}
	}
	if res.StatusCode >= 300 {
		return nil, apiErrorOf(res, data)
	}
	return data, nil
}

func oauthError(code api.ErrorCode, description string, status int) *APIError {
	return &APIError{
		Status: status, Code: code, Title: string(code), Detail: description, Header: http.Header{},
		Problem: map[string]any{"error": string(code), "error_description": description},
	}
}
