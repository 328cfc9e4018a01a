package hub

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gaming-hub/gaming-hub-go/api"
)

// Paginate walks every item of a list, page after page, whatever its paging: limit/offset (the
// published API), page/per_page with {data, meta} (/v1) or the event cursor (after). T is the item
// type (api.ForumThread, say, or map[string]any). Stop early with break; an error ends the walk.
//
//	for thread, err := range hub.Paginate[api.ForumThread](ctx, c, "/api-platform/v1/forum/threads", nil) {
func Paginate[T any](ctx context.Context, c *Client, path string, p *Params, opts ...CallOption) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		page := Params{}
		if p != nil {
			page = *p
		}
		query := url.Values{}
		for k, v := range page.Query {
			query[k] = v
		}
		page.Query = query
		fetch := func() (map[string]json.RawMessage, error) {
			var answer map[string]json.RawMessage
			_, err := c.Do(ctx, http.MethodGet, path, &page, &answer, opts...)
			return answer, err
		}
		// emit yields a page's items; false when the caller stopped or an item did not decode
		emit := func(items []json.RawMessage) bool {
			for _, raw := range items {
				var item T
				if err := json.Unmarshal(raw, &item); err != nil {
					yield(zero, &DecodeError{Status: 200, Err: err})
					return false
				}
				if !yield(item, nil) {
					return false
				}
			}
			return true
		}
		mode := api.Paging(http.MethodGet + " " + path)
		for {
			answer, err := fetch()
			if err != nil {
				yield(zero, err)
				return
			}
			items, err := itemsOf(answer)
			if err != nil {
				yield(zero, err)
				return
			}
			if !emit(items) || len(items) == 0 {
				return
			}
			switch mode {
			case "offset":
				// a short page is the last; an explicit limit tells its size, else the first page does
				limit, err := strconv.Atoi(query.Get("limit"))
				if err == nil && len(items) < limit {
					return
				}
				if err != nil {
					query.Set("limit", strconv.Itoa(len(items)))
				}
				offset, _ := strconv.Atoi(query.Get("offset"))
				query.Set("offset", strconv.Itoa(offset+len(items)))
			case "page":
				var meta struct {
					Total   int `json:"total"`
					PerPage int `json:"per_page"`
				}
				if err := json.Unmarshal(answer["meta"], &meta); err != nil {
					yield(zero, &DecodeError{Status: 200, Err: err})
					return
				}
				n, err := strconv.Atoi(query.Get("page"))
				if err != nil {
					n = 1
				}
				if n*meta.PerPage >= meta.Total {
					return
				}
				query.Set("page", strconv.Itoa(n+1))
			case "cursor":
				var meta struct {
					NextAfter *string `json:"next_after"`
					HasMore   bool    `json:"has_more"`
				}
				if err := json.Unmarshal(answer["meta"], &meta); err != nil {
					yield(zero, &DecodeError{Status: 200, Err: err})
					return
				}
				if !meta.HasMore || meta.NextAfter == nil {
					return
				}
				query.Set("after", *meta.NextAfter)
			default:
				// a list answered in one piece (a top-N)
				return
			}
		}
	}
}

var errNotAList = errors.New("the answer is not a list")

// itemsOf is the page's data, or the single array of a published list answer (threads, posts…).
func itemsOf(answer map[string]json.RawMessage) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if raw, ok := answer["data"]; ok {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, &DecodeError{Status: 200, Err: err}
		}
		return items, nil
	}
	found := 0
	for _, raw := range answer {
		var candidate []json.RawMessage
		if len(raw) > 0 && raw[0] == '[' && json.Unmarshal(raw, &candidate) == nil {
			items = candidate
			found++
		}
	}
	if found != 1 {
		return nil, &DecodeError{Status: 200, Err: errNotAList}
	}
	return items, nil
}
