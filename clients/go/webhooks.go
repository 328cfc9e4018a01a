package hub

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gaming-hub/gaming-hub-go/api"
)

// ErrInvalidWebhook is wrapped by every error of WebhookVerifier: a bad or missing signature, a
// stale timestamp, a body that is not an event. Answer such a delivery with 400.
var ErrInvalidWebhook = errors.New("hub: invalid webhook delivery")

// WebhookVerifier verifies deliveries per Standard Webhooks (HMAC-SHA256 over id.timestamp.body).
// Give it every secret that may sign: during a rotation the hub signs with the old and the new
// secret (two signatures), and either verifies. Safe for concurrent use.
type WebhookVerifier struct {
	keys [][]byte
	// Tolerance is how far the delivery's timestamp may be from now, either way (default 5 minutes).
	Tolerance time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// NewWebhookVerifier is a verifier holding secrets (whsec_… as the hub gives them).
func NewWebhookVerifier(secrets ...string) (*WebhookVerifier, error) {
	if len(secrets) == 0 {
		return nil, errors.New("hub: at least one webhook secret is needed")
	}
	v := &WebhookVerifier{Tolerance: 5 * time.Minute, Now: time.Now}
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if err != nil {
			return nil, fmt.Errorf("hub: a webhook secret is not base64: %w", err)
		}
		v.keys = append(v.keys, key)
	}
	return v, nil
}

func invalid(reason string) error { return fmt.Errorf("%w: %s", ErrInvalidWebhook, reason) }

// Verify checks the delivery's signature and timestamp; the error wraps ErrInvalidWebhook.
func (v *WebhookVerifier) Verify(body []byte, header http.Header) error {
	id, timestamp, signatures := header.Get("Webhook-Id"), header.Get("Webhook-Timestamp"), header.Get("Webhook-Signature")
	if id == "" || timestamp == "" || signatures == "" {
		return invalid("missing webhook headers")
	}
	sent, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return invalid("invalid webhook-timestamp")
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	if age := now().Sub(time.Unix(sent, 0)).Abs(); age > v.Tolerance {
		return invalid("webhook-timestamp too old or too new")
	}
	for _, key := range v.keys {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + timestamp + "."))
		mac.Write(body)
		expected := mac.Sum(nil)
		for _, candidate := range strings.Fields(signatures) {
			sig, ok := strings.CutPrefix(candidate, "v1,")
			if !ok {
				continue
			}
			got, err := base64.StdEncoding.DecodeString(sig)
			// hmac.Equal compares in constant time
			if err == nil && hmac.Equal(got, expected) {
				return nil
			}
		}
	}
	return invalid("no signature matches")
}

// Parse verifies the delivery, then parses it into the event of its type: a pointer to the
// generated type (switch on it), or *UnknownEvent for a type this version does not know.
func (v *WebhookVerifier) Parse(body []byte, header http.Header) (api.Event, error) {
	if err := v.Verify(body, header); err != nil {
		return nil, err
	}
	event, err := decodeEvent(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidWebhook, err)
	}
	return event, nil
}

// UnknownEvent is an event of a type this version of the library does not know (a newer hub).
type UnknownEvent struct {
	ID   string
	Type string
	// Raw is the whole event.
	Raw json.RawMessage
}

// EventType is the event's type.
func (e *UnknownEvent) EventType() string { return e.Type }

// decodeEvent reads an event (a webhook's body, a stream frame's data) into its type.
func decodeEvent(data []byte) (api.Event, error) {
	var head struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("the event is not JSON: %w", err)
	}
	if head.Type == "" {
		return nil, errors.New("the JSON is not an event (no type)")
	}
	event, ok := api.NewEvent(head.Type)
	if !ok {
		return &UnknownEvent{ID: head.ID, Type: head.Type, Raw: json.RawMessage(data)}, nil
	}
	if err := json.Unmarshal(data, event); err != nil {
		return nil, fmt.Errorf("the %s event does not match its schema: %w", head.Type, err)
	}
	return event, nil
}
