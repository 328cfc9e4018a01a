package hub

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/gaming-hub/gaming-hub-go/api"
)

// The shared vectors (clients/conformance/webhook-vectors.json), signed by the standardwebhooks package.
func TestWebhookVectors(t *testing.T) {
	data, err := os.ReadFile("../conformance/webhook-vectors.json")
	if err != nil {
		t.Fatal(err)
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
		t.Fatal(err)
	}
	if len(file.Vectors) < 5 {
		t.Fatalf("%d vectors", len(file.Vectors))
	}
	for _, v := range file.Vectors {
		verifier, err := NewWebhookVerifier(v.Secrets...)
		if err != nil {
			t.Fatal(err)
		}
		verifier.Now = func() time.Time { return time.Unix(v.Now, 0) }
		header := http.Header{}
		for k, value := range v.Headers {
			header.Set(k, value)
		}
		err = verifier.Verify([]byte(v.Body), header)
		if err != nil && !errors.Is(err, ErrInvalidWebhook) {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if (err == nil) != v.Valid {
			t.Errorf("%s: accepted %v, expected %v (%v)", v.Name, err == nil, v.Valid, err)
		}
		if v.Valid {
			event, err := verifier.Parse([]byte(v.Body), header)
			if err != nil || event.EventType() == "" {
				t.Errorf("%s: parsed %v %v", v.Name, event, err)
			}
		}
	}
}

func TestDecodeEventIntoItsType(t *testing.T) {
	event, err := decodeEvent([]byte(`{"id":"evt_0000000000000001","type":"economy.transfer.created","created_at":"2026-11-20T18:04:11.000Z","data":{"amount":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	transfer, ok := event.(*api.EconomyTransferCreatedEvent)
	if !ok || transfer.Data.Amount != 3 {
		t.Fatalf("%T %+v", event, event)
	}
	event, err = decodeEvent([]byte(`{"id":"evt_0000000000000002","type":"something.new","data":{}}`))
	if unknown, ok := event.(*UnknownEvent); err != nil || !ok || unknown.Type != "something.new" {
		t.Fatalf("%T %v", event, err)
	}
	if _, err := decodeEvent([]byte(`{"id":"x"}`)); err == nil {
		t.Fatal("an object without type is an event")
	}
}
