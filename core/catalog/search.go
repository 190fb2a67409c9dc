package catalog

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode"

	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/core/kernel"
)

// ItemQuery selects a seller's items for the search of items.
type ItemQuery struct {
	SellerID int64
	// Status "" is any status.
	Status string
	// Tags are computed tags every result must carry.
	Tags []string
	// After keeps only the ids after it (in id order): the position of a
	// scan. It narrows the page, never the total.
	After string
}

// Scroll is the position of a scan of a seller's items (search_type=scan):
// the query it scans and the last id it answered. It travels to the client
// and back as an opaque scroll_id, so that any instance can continue a scan
// and none has to remember it; a scan never expires.
type Scroll struct {
	SellerID int64    `json:"s"`
	Status   string   `json:"st,omitempty"`
	Tags     []string `json:"t,omitempty"`
	After    string   `json:"a"`
}

// ErrScrollID is the error of a scroll_id feria did not issue for that
// seller.
var ErrScrollID = kernel.E(kernel.Invalid, "bad_request", "invalid scroll_id")

// ScrollAfter is the scroll that continues q after the id last.
func ScrollAfter(q ItemQuery, last string) Scroll {
	return Scroll{SellerID: q.SellerID, Status: q.Status, Tags: q.Tags, After: last}
}

// Query is the query the scroll continues.
func (s Scroll) Query() ItemQuery {
	return ItemQuery{SellerID: s.SellerID, Status: s.Status, Tags: s.Tags, After: s.After}
}

// ID is the scroll_id of the scroll.
func (s Scroll) ID() string {
	b, _ := json.Marshal(s) // a struct of strings and an int always encodes
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseScroll reads a scroll_id of seller sellerID.
func ParseScroll(id string, sellerID int64) (Scroll, error) {
	bad := func(why string) error {
		return ErrScrollID.With("invalid scroll_id: "+why).WithCause("scroll_id", why)
	}
	b, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil {
		return Scroll{}, bad("it is not a scroll_id this service issued")
	}
	var s Scroll
	if err := json.Unmarshal(b, &s); err != nil || s.SellerID <= 0 || s.After == "" {
		return Scroll{}, bad("it is not a scroll_id this service issued")
	}
	if s.SellerID != sellerID {
		return Scroll{}, bad("it belongs to the scan of another seller")
	}
	return s, nil
}

// SiteQuery selects the active items of a site for the site search.
type SiteQuery struct {
	SiteID string
	// Words must each begin a word of the title (SearchWords of q).
	Words []string
	// SellerID 0 and CategoryID "" are any.
	SellerID   int64
	CategoryID string
}

// SearchWords splits a text into the words the site search compares:
// lower-cased, without accents, split at anything that is not a letter or
// a digit (so that no word carries a SQL pattern character).
func SearchWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(brands.NormalizeName(text)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// TitleWords is the stored, searchable form of a title: its SearchWords,
// each preceded by a space, so that "a word begins with w" is the pattern
// '% w%' on every database.
func TitleWords(title string) string {
	var b strings.Builder
	for _, w := range SearchWords(title) {
		b.WriteByte(' ')
		b.WriteString(w)
	}
	return b.String()
}
