package hub

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gaming-hub/gaming-hub-go/api"
)

func frames(t *testing.T, text string) []sseFrame {
	t.Helper()
	var out []sseFrame
	if err := readFrames(strings.NewReader(text), func() {}, func(f sseFrame) bool { out = append(out, f); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSSEFrames(t *testing.T) {
	got := frames(t, ": hello\r\nid: 1\r\nevent: e\r\ndata: a\r\ndata: b\r\n\r\nid: 2\rdata:c\r\rretry: 250\n\n")
	want := []sseFrame{{id: "1", event: "e", data: "a\nb", retry: -1}, {id: "2", event: "message", data: "c", retry: -1}, {event: "message", retry: 250}}
	if !slices.Equal(got, want) {
		t.Fatalf("%+v", got)
	}
}

func event(id int) string {
	return fmt.Sprintf("id: evt_%016d\ndata: {\"id\":\"evt_%016d\",\"type\":\"economy.transfer.created\",\"created_at\":\"2026-11-20T18:04:11.000Z\",\"data\":{\"amount\":%d}}\n\n", id, id, id)
}

// The first connection sends events 1 and 2 and dies; the hub answers the reconnection from
// Last-Event-ID, and resends 2 (a repeat the stream must not yield).
func TestStreamResumesWithLastEventIDAndSkipsRepeats(t *testing.T) {
	rec, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if n == 1 {
			fmt.Fprint(w, "retry: 10\n\n"+event(1)+event(2))
			return
		}
		fmt.Fprint(w, event(2)+event(3))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := newClient(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream := c.Events(StreamOptions{Types: []string{"economy.transfer.created"}})
	var amounts []int
	for e, err := range stream.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		amounts = append(amounts, e.(*api.EconomyTransferCreatedEvent).Data.Amount)
		if len(amounts) == 3 {
			break
		}
	}
	if !slices.Equal(amounts, []int{1, 2, 3}) {
		t.Fatalf("%v", amounts)
	}
	if got := rec.request(1).Header.Get("Last-Event-ID"); got != "evt_0000000000000002" {
		t.Fatalf("Last-Event-ID %q", got)
	}
	if rec.request(0).URL.Query().Get("types") != "economy.transfer.created" || rec.request(0).Header.Get("Authorization") != "Bearer ghk_test" {
		t.Fatalf("first request %v", rec.request(0).URL)
	}
	if stream.LastEventID() != "evt_0000000000000003" {
		t.Fatal(stream.LastEventID())
	}
}

func TestStreamEndsOnARefusal(t *testing.T) {
	_, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) { problem(w, 403, "insufficient_scope") })
	for _, err := range newClient(t, base).Events(StreamOptions{}).All(context.Background()) {
		if err == nil || !strings.Contains(err.Error(), "insufficient_scope") {
			t.Fatalf("error %v", err)
		}
	}
}
