package hub

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// A hub with 23 threads (limit/offset), 5 clans (page/per_page) and 7 events (cursor).
func pagingHub(t *testing.T) *Client {
	_, base := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		num := func(name string, def int) int {
			if v, err := strconv.Atoi(q.Get(name)); err == nil {
				return v
			}
			return def
		}
		items := func(from, to int) string {
			var parts []string
			for i := from; i < to; i++ {
				parts = append(parts, fmt.Sprintf(`{"id":%d}`, i))
			}
			return "[" + strings.Join(parts, ",") + "]"
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api-platform/v1/forum/threads":
			offset, limit := num("offset", 0), num("limit", 10)
			fmt.Fprintf(w, `{"threads":%s}`, items(offset, min(23, offset+limit)))
		case "/v1/clans":
			page, per := num("page", 1), num("per_page", 2)
			from := (page - 1) * per
			fmt.Fprintf(w, `{"data":%s,"meta":{"page":%d,"per_page":%d,"total":5}}`, items(from, min(5, from+per)), page, per)
		case "/v1/events":
			after, limit := num("after", 0), num("limit", 3)
			to := min(7, after+limit)
			fmt.Fprintf(w, `{"data":%s,"meta":{"next_after":"%d","has_more":%v}}`, items(after, to), to, to < 7)
		}
	})
	return newClient(t, base)
}

func collect(t *testing.T, c *Client, path string, query url.Values) []int {
	t.Helper()
	var ids []int
	for item, err := range Paginate[struct{ ID int }](context.Background(), c, path, &Params{Query: query}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, item.ID)
	}
	return ids
}

func TestPaginateEveryKind(t *testing.T) {
	c := pagingHub(t)
	for _, tc := range []struct {
		path  string
		query url.Values
		count int
	}{
		{"/api-platform/v1/forum/threads", url.Values{"limit": {"7"}}, 23},
		{"/api-platform/v1/forum/threads", nil, 23},
		{"/v1/clans", url.Values{"per_page": {"2"}}, 5},
		{"/v1/events", url.Values{"limit": {"3"}}, 7},
	} {
		ids := collect(t, c, tc.path, tc.query)
		if len(ids) != tc.count {
			t.Errorf("%s %v: %d items", tc.path, tc.query, len(ids))
		}
		for i, id := range ids {
			if id != i {
				t.Errorf("%s: item %d is %d", tc.path, i, id)
				break
			}
		}
	}
}

func TestPaginateStopsWhenTheCallerBreaks(t *testing.T) {
	c := pagingHub(t)
	n := 0
	for range Paginate[map[string]any](context.Background(), c, "/api-platform/v1/forum/threads", &Params{Query: url.Values{"limit": {"5"}}}) {
		if n++; n == 6 {
			break
		}
	}
	if n != 6 {
		t.Fatal(n)
	}
}
