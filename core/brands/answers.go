package brands

import (
	"strconv"
	"time"

	"github.com/feria/feria/core/kernel"
)

// Errors of the public brands reads (area D, error shape (b)).
var (
	ErrUserNotFound     = kernel.E(kernel.NotExist, "U00002", "user not found")
	ErrNotFoundForSite  = kernel.E(kernel.NotExist, "B00001", "brand not found for the site")
	ErrInvalidParameter = kernel.E(kernel.Invalid, "invalid_parameter", "invalid parameter")
)

// Link statuses of the brands answer: LINKED is the marketplace's; a user bound to
// no official store of its site is UNLINKED.
const (
	Linked   = "LINKED"
	Unlinked = "UNLINKED"
)

// ParseID reads a user or brand id of a brands path: digits only, else 400
// invalid_parameter naming field. Digits that overflow (or 0) parse to 0,
// which names nothing, so that they answer the not-found row.
func ParseID(field, raw string) (int64, error) {
	if raw == "" {
		return 0, ErrInvalidParameter.Withf("%s must contain only digits, got %q", field, raw)
	}
	for _, r := range raw {
		if r < '0' || r > '9' {
			return 0, ErrInvalidParameter.Withf("%s must contain only digits, got %q", field, raw)
		}
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return 0, nil
	}
	return id, nil
}

// Member is a user as the brands answers show it.
type Member struct {
	CustID   int64    `json:"cust_id"`
	Tags     []string `json:"tags"`
	SiteID   string   `json:"site_id"`
	UserType string   `json:"user_type"`
}

// UserBrands is the brands answer of a user.
type UserBrands struct {
	Status   string   `json:"status"`
	CustID   int64    `json:"cust_id"`
	SiteID   string   `json:"site_id"`
	UserType string   `json:"user_type"`
	Tags     []string `json:"tags"`
	Brands   []Entry  `json:"brands"`
}

// Entry is one brand of the brands answer, in the contract's field order.
type Entry struct {
	SiteID            string        `json:"site_id"`
	OfficialStoreID   int64         `json:"official_store_id"`
	Name              string        `json:"name"`
	Type              string        `json:"type"`
	RelevancePosition int           `json:"relevance_position"`
	Status            string        `json:"status"`
	FantasyName       string        `json:"fantasy_name"`
	DateCreated       time.Time     `json:"date_created"`
	ReturnPolicy      any           `json:"return_policy"`
	LandingPermalink  string        `json:"landing_permalink"`
	Pictures          []Picture     `json:"pictures"`
	Tags              []string      `json:"tags"`
	CategoriesIDs     []string      `json:"categories_ids"`
	MainCategories    []CategoryRef `json:"main_categories"`
	Permalink         string        `json:"permalink"`
	NormalizedName    string        `json:"normalized_name"`
	LastUpdated       time.Time     `json:"last_updated"`
}

// Detail is the single-brand answer, in the contract's field order.
type Detail struct {
	Tags              []string  `json:"tags"`
	OfficialStoreID   int64     `json:"official_store_id"`
	CategoriesIDs     []string  `json:"categories_ids"`
	FantasyName       string    `json:"fantasy_name"`
	Users             []Member  `json:"users"`
	SiteID            string    `json:"site_id"`
	Status            string    `json:"status"`
	Name              string    `json:"name"`
	DateCreated       time.Time `json:"date_created"`
	Pictures          []Picture `json:"pictures"`
	Boost             Boost     `json:"boost"`
	RelevancePosition int       `json:"relevance_position"`
}

// AnswerOf builds the brands answer of user u from the brands bound to it:
// only those of the user's site, by id; LINKED when there is one.
func AnswerOf(u Member, bound []Brand) UserBrands {
	a := UserBrands{Status: Unlinked, CustID: u.CustID, SiteID: u.SiteID, UserType: u.UserType, Tags: orEmpty(u.Tags), Brands: []Entry{}}
	for _, b := range bound {
		if b.SiteID != u.SiteID {
			continue
		}
		permalink, landing := Links(b)
		a.Brands = append(a.Brands, Entry{SiteID: b.SiteID, OfficialStoreID: b.ID, Name: b.Name, Type: b.Type,
			RelevancePosition: b.RelevancePosition, Status: b.Status, FantasyName: b.FantasyName, DateCreated: b.DateCreated,
			ReturnPolicy: b.ReturnPolicy, LandingPermalink: landing, Pictures: orEmptyOf(b.Pictures),
			Tags: orEmpty(b.Tags), CategoriesIDs: orEmpty(b.CategoriesIDs), MainCategories: orEmptyOf(b.MainCategories),
			Permalink: permalink, NormalizedName: NormalizeName(b.Name), LastUpdated: b.LastUpdated})
	}
	if len(a.Brands) > 0 {
		a.Status = Linked
	}
	return a
}

// CheckOfSite answers B00001 unless brand b is of site: a brand is read
// through a user of its own site.
func CheckOfSite(b Brand, site string) error {
	if b.SiteID != site {
		return ErrNotFoundForSite.Withf("brand %d not found for site %s", b.ID, site)
	}
	return nil
}

// DetailOf builds the single-brand answer of b with its bound users.
func DetailOf(b Brand, users []Member) Detail {
	if users == nil {
		users = []Member{}
	}
	for i := range users {
		users[i].Tags = orEmpty(users[i].Tags)
	}
	return Detail{Tags: orEmpty(b.Tags), OfficialStoreID: b.ID, CategoriesIDs: orEmpty(b.CategoriesIDs), FantasyName: b.FantasyName,
		Users: users, SiteID: b.SiteID, Status: b.Status, Name: b.Name, DateCreated: b.DateCreated,
		Pictures: orEmptyOf(b.Pictures), Boost: b.Boost, RelevancePosition: b.RelevancePosition}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orEmptyOf[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
