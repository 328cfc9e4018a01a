package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	hub "github.com/gaming-hub/gaming-hub-go"
)

// fixture is what the runner wrote (clients/conformance/README.md, "The fixture").
type fixture struct {
	BaseURL string `json:"base_url"`
	HubURL  string `json:"hub_url"`
	APIKey  string `json:"api_key"`
	Users   map[string]struct {
		ID       int    `json:"id"`
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"users"`
	OAuthApp struct {
		ClientID    string `json:"client_id"`
		RedirectURI string `json:"redirect_uri"`
	} `json:"oauth_app"`
	ScenariosFile string `json:"scenarios_file"`
	VectorsFile   string `json:"vectors_file"`
	raw           map[string]any
}

type scenario struct {
	Name   string         `json:"name"`
	Kind   string         `json:"kind"`
	Steps  []step         `json:"steps"`
	Call   string         `json:"call"`
	Params map[string]any `json:"params"`
	Expect map[string]any `json:"expect"`
}

type step struct {
	Call   string         `json:"call"`
	Params map[string]any `json:"params"`
	Auth   string         `json:"auth"`
	Expect struct {
		Status   int      `json:"status"`
		Code     string   `json:"code"`
		Fields   []string `json:"fields"`
		ItemsMin *int     `json:"items_min"`
	} `json:"expect"`
}

const scenarioHeader = "X-Conformance-Scenario"

// unknownKey is a well-formed key the hub never issued.
var unknownKey = "ghk_" + strings.Repeat("0", 38)

type harness struct {
	fx *fixture
	// skew is the hub's clock minus ours. CI runs the suite a second time under faketime (a year
	// ahead), which a Go program does not see (it reads the clock without libc): the hub's times
	// (quota reset, webhook timestamps) are compared with the hub's now.
	skew time.Duration
}

func loadFixture() (*fixture, error) {
	file := os.Getenv("HUB_CONFORMANCE_FIXTURE")
	if file == "" {
		return nil, fmt.Errorf("HUB_CONFORMANCE_FIXTURE is not set: run `npm run test:clients -- go` at the root")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	fx := &fixture{}
	if err := json.Unmarshal(data, fx); err != nil {
		return nil, err
	}
	return fx, json.Unmarshal(data, &fx.raw)
}

func (h *harness) hubNow() time.Time { return time.Now().Add(h.skew) }

func measureSkew(hubURL string) time.Duration {
	res, err := http.Get(hubURL + "/health")
	if err != nil {
		return 0
	}
	_ = res.Body.Close()
	date, err := http.ParseTime(res.Header.Get("Date"))
	if err != nil {
		return 0
	}
	// the Date header has whole seconds: a skew under a minute is the rounding, not faketime
	if skew := time.Until(date); skew.Abs() > time.Minute {
		return skew
	}
	return 0
}

// resolve replaces every "$fixture.a.b" string with the fixture's value there.
func (h *harness) resolve(v any) any {
	switch x := v.(type) {
	case string:
		if path, ok := strings.CutPrefix(x, "$fixture."); ok {
			var at any = h.fx.raw
			for _, key := range strings.Split(path, ".") {
				m, _ := at.(map[string]any)
				at = m[key]
			}
			if at == nil {
				panic("the fixture has no " + x)
			}
			return at
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = h.resolve(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = h.resolve(e)
		}
		return out
	}
	return v
}

// client is a client of the scenario (its requests name it to the proxy), with the fixture's API
// key unless opts say otherwise.
func (h *harness) client(name string, opts ...hub.ClientOption) *hub.Client {
	all := append([]hub.ClientOption{
		hub.WithAPIKey(h.fx.APIKey),
		hub.WithHeader(scenarioHeader, name),
		hub.WithRetryBackoff(50*time.Millisecond, 400*time.Millisecond),
	}, opts...)
	c, err := hub.New(h.fx.BaseURL, all...)
	if err != nil {
		panic(err)
	}
	return c
}

// oauth is the fixture's public app, talking through the proxy as the scenario.
func (h *harness) oauth(name string) *hub.OAuth {
	return &hub.OAuth{
		BaseURL:     h.fx.BaseURL,
		ClientID:    h.fx.OAuthApp.ClientID,
		RedirectURI: h.fx.OAuthApp.RedirectURI,
		Header:      http.Header{scenarioHeader: {name}},
	}
}

// control calls one of the proxy's /__conformance routes.
func (h *harness) control(method, path string, body, out any) error {
	var reader io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, h.fx.BaseURL+"/__conformance/"+path, reader)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("conformance control %s %s: %d %s", method, path, res.StatusCode, data)
	}
	return json.Unmarshal(data, out)
}

type seen struct {
	Method         string  `json:"method"`
	Path           string  `json:"path"`
	IdempotencyKey *string `json:"idempotency_key"`
	LastEventID    *string `json:"last_event_id"`
}

func (h *harness) proxySaw(name string) ([]seen, error) {
	var answer struct {
		Requests []seen `json:"requests"`
	}
	err := h.control(http.MethodGet, "requests?scenario="+url.QueryEscape(name), nil, &answer)
	return answer.Requests, err
}

type delivery struct {
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// signIn runs the code flow for alice with scope through the library: her tokens and the app's OAuth.
func (h *harness) signIn(name string, scope ...string) (hub.OAuthTokens, *hub.OAuth, error) {
	flow := h.oauth(name)
	// prompt=consent: a refresh token is issued on a new consent, even when alice granted the app before
	pending, err := flow.AuthorizationURL(scope, url.Values{"prompt": {"consent"}})
	if err != nil {
		return hub.OAuthTokens{}, nil, err
	}
	var answer struct {
		Callback string `json:"callback"`
	}
	if err := h.control(http.MethodPost, "authorize", map[string]string{"url": pending.URL, "user": "alice"}, &answer); err != nil {
		return hub.OAuthTokens{}, nil, err
	}
	tokens, err := flow.HandleCallback(ctx(), answer.Callback, pending)
	return tokens, flow, err
}

// alice is a client acting for alice (OAuth) with scope.
func (h *harness) alice(name string, scope ...string) (*hub.Client, error) {
	tokens, flow, err := h.signIn(name, scope...)
	if err != nil {
		return nil, err
	}
	return h.client(name, hub.WithAPIKey(""), hub.WithOAuth(tokens, flow, nil)), nil
}
