package hub

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// What the library adds per call, in process (go test -bench . -benchmem): a GET with the same
// answer through plain net/http and through Client.Do. bench/clients-go measures against a real hub.
const benchBody = `{"user":{"id":7,"username":"alice","level":3,"xp":120,"created_at":"2026-11-20T18:04:11.000Z"}}`

func benchServer(b *testing.B) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Ratelimit-Limit", "50000")
		w.Header().Set("X-Ratelimit-Remaining", "49999")
		w.Header().Set("X-Ratelimit-Reset", "1800000000")
		_, _ = io.WriteString(w, benchBody)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

func BenchmarkPlainNetHTTP(b *testing.B) {
	base := benchServer(b)
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, base+"/api-platform/v1/users/7", nil)
		req.Header.Set("X-Api-Key", "ghk_test")
		res, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		var out map[string]any
		if err := json.Unmarshal(data, &out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClientDo(b *testing.B) {
	c, _ := New(benchServer(b), WithAPIKey("ghk_test"))
	p := &Params{Path: map[string]any{"id": 7}}
	b.ReportAllocs()
	for b.Loop() {
		var out map[string]any
		if _, err := c.Do(context.Background(), http.MethodGet, "/api-platform/v1/users/{id}", p, &out); err != nil {
			b.Fatal(err)
		}
	}
}
