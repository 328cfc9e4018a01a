package hub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gaming-hub/gaming-hub-go/api"
)

// APIError is an error answer of the hub, carrying its RFC 9457 problem document. Branch on Code
// (compare it with the api.Code* constants), or on Status for a code you do not know:
//
//	var apiErr *hub.APIError
//	if errors.As(err, &apiErr) && apiErr.Code == api.CodeUserNotFound { … }
type APIError struct {
	// Status is the HTTP status.
	Status int
	// Code is the machine-readable code (an OAuth endpoint's error, such as "invalid_grant", on those).
	Code api.ErrorCode
	// Title is the code's short summary; Detail says what went wrong in this request.
	Title, Detail string
	// RequestID is the problem's instance (x-request-id): quote it when reporting an issue.
	RequestID string
	// Problem is the whole problem document (with "errors" for invalid parameters).
	Problem map[string]any
	// Header is the answer's headers (Retry-After, rate-limit state).
	Header http.Header
}

func (e *APIError) Error() string {
	detail := e.Detail
	if detail == "" {
		detail = e.Title
	}
	return fmt.Sprintf("hub: %d %s: %s", e.Status, e.Code, detail)
}

// apiErrorOf reads an error answer, whatever its body (a proxy's HTML page included).
func apiErrorOf(res *http.Response, body []byte) *APIError {
	e := &APIError{Status: res.StatusCode, Header: res.Header, Problem: map[string]any{}}
	if err := json.Unmarshal(body, &e.Problem); err != nil {
		e.Problem = map[string]any{"detail": string(body[:min(len(body), 200)])}
	}
	text := func(name string) string { s, _ := e.Problem[name].(string); return s }
	e.Code = api.ErrorCode(text("code"))
	if e.Code == "" {
		// an OAuth endpoint's answer (RFC 6749 §5.2)
		e.Code = api.ErrorCode(text("error"))
		if e.Detail = text("error_description"); e.Code != "" {
			e.Title = string(e.Code)
		}
	}
	if e.Code == "" {
		e.Code = api.ErrorCode(fmt.Sprintf("http_%d", res.StatusCode))
	}
	if t := text("title"); t != "" {
		e.Title = t
	}
	if d := text("detail"); d != "" {
		e.Detail = d
	}
	e.RequestID = text("instance")
	if e.RequestID == "" {
		e.RequestID = res.Header.Get("X-Request-Id")
	}
	return e
}

// ConnectionError: the request got no answer (refused, reset or dropped connection, DNS failure).
type ConnectionError struct {
	Method, URL string
	Err         error
}

func (e *ConnectionError) Error() string {
	return fmt.Sprintf("hub: connection failed: %s %s: %v", e.Method, e.URL, e.Err)
}
func (e *ConnectionError) Unwrap() error { return e.Err }

// TimeoutError: no answer within the timeout of an attempt.
type TimeoutError struct {
	Method, URL string
	Timeout     time.Duration
	Err         error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("hub: no answer within %s: %s %s", e.Timeout, e.Method, e.URL)
}
func (e *TimeoutError) Unwrap() error { return e.Err }

// DecodeError: the hub answered, but not with what the document promises (not JSON, another shape).
type DecodeError struct {
	Status int
	Err    error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("hub: the answer (status %d) could not be read: %v", e.Status, e.Err)
}
func (e *DecodeError) Unwrap() error { return e.Err }
