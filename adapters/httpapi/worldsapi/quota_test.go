package worldsapi_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

// pdfOf is the multipart body of a PDF of size bytes, and its content type.
func pdfOf(size int) ([]byte, string) {
	head, tail := "%PDF-1.7\n", "\n%%EOF\n"
	return pdfForm(head + strings.Repeat("0", size-len(head)-len(tail)) + tail)
}

// quotaWorld is a world of a test instance, with its key.
func quotaWorld(t *testing.T, a *apptest.App, name string) client {
	t.Helper()
	key := name + "-key-0123456789abcdef"
	a.Sandbox("PUT", "/worlds/"+name, map[string]any{"sandbox_key": key}).OK(t, 201)
	return client{a: a, name: name, key: key}
}

// A world holding WORLD_MAX_ROWS rows is refused its writes (429) but its
// token and test controls, while other worlds and the default world write
// on; its reset frees room. Its public requests beyond
// WORLD_MAX_REQUESTS_PER_MINUTE are 429 with Retry-After, others' are not;
// deleting it forgets the count. Its journal keeps WORLD_MAX_JOURNAL entries.
func TestWorldQuotaOfRowsRequestsAndJournal(t *testing.T) {
	t.Parallel() // an instance of its own on each backend
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := apptest.NewConfigured(t, be, func(c *apptest.Config) {
			c.WorldQuota.Rows, c.WorldQuota.PerMinute, c.WorldQuota.Journal = 10, 4, 3
			c.WorldMeasure = time.Nanosecond
		})
		r, other := quotaWorld(t, a, "r"), quotaWorld(t, a, "other")
		fixtures := fiscalFixtures("cosa")
		r.sandbox("POST", "/fixtures", fixtures).OK(t, 200) // an empty world has room
		full := apptest.Err(429, "too_many_requests", "world r holds its maximum of 10 rows (WORLD_MAX_ROWS): "+
			"delete resources or reset the world (its DELETE /sandbox) before storing more")
		r.sandbox("POST", "/fixtures", fixtures).Is(t, 429, full)
		pdf, contentType := pdfUpload()
		r.do("POST", "/packs/1001/fiscal_documents?access_token=tok-101", pdf, "Content-Type", contentType).Is(t, 429, full)
		// Its token and test controls are not storage the quota counts.
		r.sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}).OK(t, 200)
		r.sandbox("POST", "/faults", map[string]any{"method": "GET", "path": "/nothing", "status": 500,
			"error": "x", "message": "x"}).OK(t, 201)
		// Others write on.
		other.sandbox("POST", "/fixtures", fixtures).OK(t, 200)
		a.MustLoad(fixtures)
		a.MustLoad(map[string]any{"users": []any{map[string]any{"id": 301, "nickname": "U301", "site_id": "MLA"}}})
		// A reset frees room.
		r.sandbox("DELETE", "", nil).HasStatus(t, 204)
		r.sandbox("POST", "/fixtures", fixtures).OK(t, 200)

		// Requests a minute: world r's own count, never its sandbox's; the
		// upload refused above was one.
		for range 3 {
			r.do("GET", "/items/MLA101", nil).OK(t, 200)
		}
		over := r.do("GET", "/items/MLA101", nil)
		over.Is(t, 429, apptest.Err(429, "too_many_requests", "world r is over its maximum of 4 requests a minute "+
			"(WORLD_MAX_REQUESTS_PER_MINUTE): retry after the seconds of Retry-After"))
		if s, err := strconv.Atoi(over.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
			t.Errorf("Retry-After %q, want 1 to 60 seconds", over.Header.Get("Retry-After"))
		}
		r.sandbox("GET", "/clock", nil).OK(t, 200)
		other.do("GET", "/items/MLA101", nil).OK(t, 200)
		for range 6 {
			a.Do("GET", "/items/MLA101", nil).OK(t, 200)
		}
		// Its journal keeps 3 entries, the refused request first.
		var journal struct {
			Requests []struct {
				Status int `json:"status"`
			} `json:"requests"`
		}
		r.sandbox("GET", "/requests", nil).JSON(t, &journal)
		if got := fmt.Sprint(journal.Requests); got != "[{429} {200} {200}]" {
			t.Errorf("world r's journal: %s, want its last 3 requests", got)
		}
		a.Sandbox("GET", "/requests", nil).JSON(t, &journal)
		if len(journal.Requests) != 6 {
			t.Errorf("the default world's journal: %d entries, want 6", len(journal.Requests))
		}
		// Deleting the world forgets its count.
		a.Sandbox("DELETE", "/worlds/r", nil).HasStatus(t, 204)
		r = quotaWorld(t, a, "r")
		r.do("GET", "/items/MLA101", nil).Is(t, 404, apptest.Err(404, "not_found", "item not found"))
	})
}

// A world's write whose body does not fit in WORLD_MAX_BYTES, its rows'
// bytes and files counted, is 413; the default world stores the same; a
// reset frees room.
func TestWorldQuotaOfBytes(t *testing.T) {
	t.Parallel() // an instance of its own on each backend
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := apptest.NewConfigured(t, be, func(c *apptest.Config) {
			c.WorldQuota.Bytes = 20_000
			c.WorldMeasure = time.Nanosecond
		})
		b := quotaWorld(t, a, "b")
		fixtures := fiscalFixtures("cosa")
		b.sandbox("POST", "/fixtures", fixtures).OK(t, 200)
		tooLarge := func(body []byte) string {
			return apptest.Err(413, "payload_too_large", fmt.Sprintf("a body of %d bytes does not fit in the 20000 bytes world b may hold "+
				"(WORLD_MAX_BYTES): delete resources or reset the world (its DELETE /sandbox) before storing more", len(body)))
		}
		upload := "/packs/1001/fiscal_documents?access_token=tok-101"
		big, contentType := pdfOf(30_000)
		b.do("POST", upload, big, "Content-Type", contentType).Is(t, 413, tooLarge(big))
		a.MustLoad(fixtures)
		a.Do("POST", upload, big, "Content-Type", contentType).HasStatus(t, 201)
		small, contentType := pdfOf(12_000)
		b.do("POST", upload, small, "Content-Type", contentType).HasStatus(t, 201)
		// The file stored counts: the next does not fit.
		b.do("POST", upload, small, "Content-Type", contentType).Is(t, 413, tooLarge(small))
		b.sandbox("DELETE", "", nil).HasStatus(t, 204)
		b.sandbox("POST", "/fixtures", fixtures).OK(t, 200)
		b.do("POST", upload, small, "Content-Type", contentType).HasStatus(t, 201)
	})
}
