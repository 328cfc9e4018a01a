package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	hub "github.com/gaming-hub/gaming-hub-go"
)

// params turns a scenario's {"path": {…}, "query": {…}} into the library's Params.
func params(raw any) *hub.Params {
	m, _ := raw.(map[string]any)
	p := &hub.Params{Path: map[string]any{}, Query: url.Values{}}
	if path, ok := m["path"].(map[string]any); ok {
		for k, v := range path {
			p.Path[k] = jsonScalar(v)
		}
	}
	if query, ok := m["query"].(map[string]any); ok {
		for k, v := range query {
			p.Query.Set(k, jsonScalar(v))
		}
	}
	return p
}

// jsonScalar writes a JSON number as an integer when it is one (41, not 41.0).
func jsonScalar(v any) string {
	if f, ok := v.(float64); ok && f == float64(int64(f)) {
		return fmt.Sprint(int64(f))
	}
	return fmt.Sprint(v)
}

func (h *harness) runStep(name string, i int, s step) error {
	var client *hub.Client
	switch s.Auth {
	case "invalid_api_key":
		client = h.client(name, hub.WithAPIKey(unknownKey))
	case "none":
		client = h.client(name, hub.WithAPIKey(""))
	default:
		client = h.client(name)
	}
	method, path, _ := strings.Cut(s.Call, " ")
	p := params(h.resolve(s.Params))
	where := fmt.Sprintf("step %d (%s %v)", i+1, s.Call, s.Params)
	var answer map[string]any
	_, err := client.Do(ctx(), method, path, p, &answer)
	if err != nil {
		var apiErr *hub.APIError
		if !errors.As(err, &apiErr) {
			return fmt.Errorf("%s: %w", where, err)
		}
		if apiErr.Status != s.Expect.Status || string(apiErr.Code) != s.Expect.Code {
			return fmt.Errorf("%s: expected %d %s, got %v", where, s.Expect.Status, s.Expect.Code, err)
		}
		// the problem document is carried whole
		if apiErr.Title == "" || apiErr.Detail == "" || apiErr.RequestID == "" {
			return fmt.Errorf("%s: title, detail and request id must be set: %+v", where, apiErr)
		}
		if status, _ := apiErr.Problem["status"].(float64); int(status) != apiErr.Status {
			return fmt.Errorf("%s: the problem's status is %v", where, apiErr.Problem["status"])
		}
		return nil
	}
	if s.Expect.Status >= 300 {
		return fmt.Errorf("%s: expected %d, got a success", where, s.Expect.Status)
	}
	for _, field := range s.Expect.Fields {
		if _, ok := answer[field]; !ok {
			return fmt.Errorf("%s: no field %s", where, field)
		}
	}
	if s.Expect.ItemsMin != nil {
		n := 0
		for _, v := range answer {
			if items, ok := v.([]any); ok {
				n = len(items)
				break
			}
		}
		if n < *s.Expect.ItemsMin {
			return fmt.Errorf("%s: %d items, fewer than %d", where, n, *s.Expect.ItemsMin)
		}
	}
	return nil
}

func (h *harness) runCalls(s scenario) error {
	for i, st := range s.Steps {
		if err := h.runStep(s.Name, i, st); err != nil {
			return err
		}
	}
	return nil
}

func (h *harness) runPaginate(s scenario) error {
	_, path, _ := strings.Cut(s.Call, " ")
	p := params(h.resolve(s.Params))
	var items []map[string]any
	for item, err := range hub.Paginate[map[string]any](ctx(), h.client(s.Name), path, p) {
		if err != nil {
			return err
		}
		items = append(items, item)
	}
	expect, _ := h.resolve(s.Expect).(map[string]any)
	if want, ok := expect["count"].(float64); ok && len(items) != int(want) {
		return fmt.Errorf("%d items, expected %v", len(items), want)
	}
	if want, ok := expect["count_min"].(float64); ok && len(items) < int(want) {
		return fmt.Errorf("%d items, expected at least %v", len(items), want)
	}
	if key, ok := expect["unique"].(string); ok {
		seen := map[string]bool{}
		for _, item := range items {
			v := fmt.Sprint(item[key])
			if seen[v] {
				return fmt.Errorf("%s %s repeats", key, v)
			}
			seen[v] = true
		}
	}
	if key, ok := expect["increasing"].(string); ok {
		ids := make([]string, len(items))
		for i, item := range items {
			ids[i] = fmt.Sprint(item[key])
		}
		for i := 1; i < len(ids); i++ {
			if ids[i] <= ids[i-1] {
				return fmt.Errorf("%ss not strictly increasing: %s after %s", key, ids[i], ids[i-1])
			}
		}
	}
	return nil
}
