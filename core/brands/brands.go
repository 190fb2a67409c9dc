// Package brands holds official stores (brands) and the users bound to them.
package brands

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/feria/feria/core/kernel"
)

// Brand is an official store as stored; the brands answers of the contract are
// views of it.
type Brand struct {
	ID                int64         `json:"official_store_id"`
	SiteID            string        `json:"site_id"`
	Name              string        `json:"name"`
	FantasyName       string        `json:"fantasy_name"`
	NormalizedName    string        `json:"normalized_name"`
	Type              string        `json:"type"`
	Status            string        `json:"status"`
	RelevancePosition int           `json:"relevance_position"`
	Users             []int64       `json:"users"`
	Pictures          []Picture     `json:"pictures"`
	CategoriesIDs     []string      `json:"categories_ids"`
	MainCategories    []CategoryRef `json:"main_categories"`
	Tags              []string      `json:"tags"`
	ReturnPolicy      any           `json:"return_policy"`
	Permalink         string        `json:"permalink"`
	LandingPermalink  string        `json:"landing_permalink"`
	Boost             Boost         `json:"boost"`
	DateCreated       time.Time     `json:"date_created"`
	LastUpdated       time.Time     `json:"last_updated"`
}

// Picture is one image of a brand; Size is "WxH".
type Picture struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	SecureURL *string `json:"secure_url"`
	URL       string  `json:"url"`
	Size      string  `json:"size"`
}

// CategoryRef names a category.
type CategoryRef struct {
	ID string `json:"id"`
}

// Boost is the brand's boost setting.
type Boost struct {
	IsActive   bool       `json:"is_active"`
	LastUpdate *time.Time `json:"last_update"`
}

// Errors of the module.
var (
	ErrInvalidBrand  = kernel.E(kernel.Invalid, "bad_request", "invalid brand")
	ErrBrandNotFound = kernel.E(kernel.NotExist, "not_found", "brand not found")
)

// Statuses and types the sandbox accepts.
var (
	Statuses = []string{"active", "inactive"}
	Types    = []string{"normal", "brand", "reseller"}
)

// Validate checks a brand to be stored (not its users).
func (b Brand) Validate() error {
	var p kernel.Problems
	if b.ID <= 0 {
		p.Add("official_store_id", "official_store_id must be a positive integer")
	}
	siteOK := p.Site("site_id", b.SiteID)
	if strings.TrimSpace(b.Name) == "" {
		p.Add("name", "name is required")
	}
	if !slices.Contains(Statuses, b.Status) {
		p.Add("status", "status must be one of %s, got %q", strings.Join(Statuses, ", "), b.Status)
	}
	if !slices.Contains(Types, b.Type) {
		p.Add("type", "type must be one of %s, got %q", strings.Join(Types, ", "), b.Type)
	}
	if b.RelevancePosition < 0 {
		p.Add("relevance_position", "relevance_position must not be negative")
	}
	seen := map[int64]bool{}
	for i, u := range b.Users {
		if u <= 0 || seen[u] {
			p.Add(fmt.Sprintf("users[%d]", i), "users must be distinct positive user ids")
		}
		seen[u] = true
	}
	for i, pic := range b.Pictures {
		var w, h int
		if _, err := fmt.Sscanf(pic.Size, "%dx%d", &w, &h); err != nil || w <= 0 || h <= 0 || fmt.Sprintf("%dx%d", w, h) != pic.Size {
			p.Add(fmt.Sprintf("pictures[%d].size", i), "pictures[%d].size must be <width>x<height>, got %q", i, pic.Size)
		}
		if pic.URL == "" {
			p.Add(fmt.Sprintf("pictures[%d].url", i), "pictures[%d].url is required", i)
		}
	}
	for i, c := range b.CategoriesIDs {
		if siteOK && kernel.SiteOf(c) != b.SiteID {
			p.Add(fmt.Sprintf("categories_ids[%d]", i), "categories_ids[%d] must be a category id of site %s, got %q", i, b.SiteID, c)
		}
	}
	return p.Err(ErrInvalidBrand)
}

var unaccent = strings.NewReplacer(
	"á", "a", "à", "a", "ä", "a", "â", "a", "ã", "a", "Á", "A", "À", "A", "Ä", "A", "Â", "A", "Ã", "A",
	"é", "e", "è", "e", "ë", "e", "ê", "e", "É", "E", "È", "E", "Ë", "E", "Ê", "E",
	"í", "i", "ì", "i", "ï", "i", "î", "i", "Í", "I", "Ì", "I", "Ï", "I", "Î", "I",
	"ó", "o", "ò", "o", "ö", "o", "ô", "o", "õ", "o", "Ó", "O", "Ò", "O", "Ö", "O", "Ô", "O", "Õ", "O",
	"ú", "u", "ù", "u", "ü", "u", "û", "u", "Ú", "U", "Ù", "U", "Ü", "U", "Û", "U",
	"ñ", "n", "Ñ", "N", "ç", "c", "Ç", "C",
)

// NormalizeName is the brand name without accents and double spaces, as the
// marketplace defines normalized_name.
func NormalizeName(name string) string {
	return strings.Join(strings.Fields(unaccent.Replace(name)), " ")
}

// Slug is a brand name as a path segment of its store's links: the
// normalized name in lower case, words joined by "-", other characters
// dropped.
func Slug(name string) string {
	var b strings.Builder
	for _, w := range strings.Fields(strings.ToLower(NormalizeName(name))) {
		var word strings.Builder
		for _, r := range w {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				word.WriteRune(r)
			}
		}
		if word.Len() == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(word.String())
	}
	return b.String()
}

// Links are a brand's permalink and landing_permalink: those stored, or,
// where the sandbox left one out, the marketplace's links built from the
// brand's site and name (its store page on the site's host).
func Links(b Brand) (permalink, landing string) {
	site, _ := kernel.LookupSite(b.SiteID)
	slug := Slug(b.Name)
	permalink, landing = b.Permalink, b.LandingPermalink
	if permalink == "" {
		permalink = "https://tienda." + site.Domain + "/" + slug
	}
	if landing == "" {
		landing = "https://www." + site.Domain + "/" + site.Store + "/" + slug
	}
	return permalink, landing
}
