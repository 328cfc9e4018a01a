package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gaming-hub/gaming-hub-go/api"
)

const streamPath = "/v1/events/stream"

// StreamOptions select and tune the live event stream.
type StreamOptions struct {
	// Types are the event types to receive (all the credential may see when empty).
	Types []string
	// After is the event id to start after (a cursor you stored); empty: from now.
	After string
	// ConnectTimeout bounds the wait for each connection's answer (default 30 s).
	ConnectTimeout time.Duration
	// IdleTimeout drops and reopens a connection silent this long (default 45 s: the hub sends a
	// comment every 15 s).
	IdleTimeout time.Duration
	// MaxReconnects is how many reconnections in a row may fail before the iterator ends with the
	// error (default 10).
	MaxReconnects int
}

// EventStream is the live event stream (/v1/events/stream). It reconnects after a disconnect with
// Last-Event-ID (the id of the last event it yielded), so the hub resends what was missed, and it
// never yields an id it has yielded (ids are sortable: one not after the last is a repeat).
type EventStream struct {
	c    *Client
	opts StreamOptions
	mu   sync.Mutex
	last string
}

// Events is the live event stream, from opts.After on; range over its All.
func (c *Client) Events(opts StreamOptions) *EventStream {
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 30 * time.Second
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 45 * time.Second
	}
	if opts.MaxReconnects <= 0 {
		opts.MaxReconnects = 10
	}
	return &EventStream{c: c, opts: opts, last: opts.After}
}

// LastEventID is the id of the last event yielded: store it to resume later with StreamOptions.After.
func (s *EventStream) LastEventID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// errIdle ends a connection that went silent.
var errIdle = errors.New("the stream went silent")

// All yields the events as they come, each a pointer to its generated type (or *UnknownEvent),
// until ctx ends (then it stops without an error), the caller breaks, or reconnecting fails
// MaxReconnects times in a row or the hub refuses the stream (the error is yielded last).
func (s *EventStream) All(ctx context.Context) iter.Seq2[api.Event, error] {
	return func(yield func(api.Event, error) bool) {
		failures := 0
		delay := time.Second
		for {
			stopped, err := s.connect(ctx, yield, &delay, &failures)
			if stopped || ctx.Err() != nil {
				return
			}
			if err != nil {
				var conn *ConnectionError
				var timeout *TimeoutError
				var decode *DecodeError
				if errors.As(err, &decode) || !(errors.As(err, &conn) || errors.As(err, &timeout) || errors.Is(err, errIdle)) {
					yield(nil, err)
					return
				}
				if failures++; failures > s.opts.MaxReconnects {
					yield(nil, err)
					return
				}
			}
			// the hub ended the stream (shutdown, slow reader) or the connection broke: reconnect
			wait := delay
			if failures > 0 {
				wait = min(30*time.Second, delay<<failures)
			}
			if sleep(ctx, wait) != nil {
				return
			}
		}
	}
}

// connect runs one connection: stopped when the caller stopped, else why it ended.
func (s *EventStream) connect(ctx context.Context, yield func(api.Event, error) bool, delay *time.Duration, failures *int) (bool, error) {
	conn, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// the connection's answer must come within ConnectTimeout; then the idle watchdog times it
	watchdog := time.AfterFunc(s.opts.ConnectTimeout, func() { cancel(errIdle) })
	defer watchdog.Stop()
	res, err := s.open(conn)
	if err != nil {
		if context.Cause(conn) == errIdle && ctx.Err() == nil {
			return false, &TimeoutError{Method: http.MethodGet, URL: streamPath, Timeout: s.opts.ConnectTimeout, Err: err}
		}
		return false, err
	}
	defer res.Body.Close()
	*failures = 0
	watchdog.Reset(s.opts.IdleTimeout)
	stopped := false
	var failure error
	err = readFrames(res.Body, func() { watchdog.Reset(s.opts.IdleTimeout) }, func(f sseFrame) bool {
		if f.retry >= 0 {
			*delay = time.Duration(f.retry) * time.Millisecond
		}
		s.mu.Lock()
		last := s.last
		s.mu.Unlock()
		if f.id == "" || f.data == "" || last != "" && f.id <= last {
			return true
		}
		event, err := decodeEvent([]byte(f.data))
		if err != nil {
			failure = &DecodeError{Status: http.StatusOK, Err: fmt.Errorf("event %s: %w", f.id, err)}
			return false
		}
		s.mu.Lock()
		s.last = f.id
		s.mu.Unlock()
		if !yield(event, nil) {
			stopped = true
			return false
		}
		return true
	})
	if stopped || failure != nil {
		return stopped, failure
	}
	if err != nil {
		if context.Cause(conn) == errIdle {
			return false, errIdle
		}
		return false, &ConnectionError{Method: http.MethodGet, URL: streamPath, Err: err}
	}
	return false, nil
}

func (s *EventStream) open(ctx context.Context) (*http.Response, error) {
	target := s.c.base.String() + streamPath
	if len(s.opts.Types) > 0 {
		target += "?" + url.Values{"types": {strings.Join(s.opts.Types, ",")}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if last := s.LastEventID(); last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	noRetries, noTimeout := 0, time.Duration(0)
	res, _, err := s.c.roundTrip(req, streamPath, &callConfig{maxRetries: &noRetries, timeout: &noTimeout}, true)
	if err != nil {
		return nil, err
	}
	if res.StatusCode == http.StatusOK {
		return res, nil
	}
	data, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	_ = res.Body.Close()
	apiErr := apiErrorOf(res, data)
	if retryStatus(res.StatusCode) {
		return nil, &ConnectionError{Method: http.MethodGet, URL: streamPath, Err: apiErr}
	}
	return nil, apiErr
}
