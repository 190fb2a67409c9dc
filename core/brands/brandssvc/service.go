// Package brandssvc implements the brands use cases the sandbox needs:
// storing official stores and the users bound to them.
package brandssvc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/accountport"
	"github.com/feria/feria/ports/brandsport"
)

// Deps is what the service needs. Each write is one store call, so it
// takes no transaction.
type Deps struct {
	Store brandsport.Store
	Users accountport.Service
	Clock kernel.Clock
}

// Service implements brandsport.Service.
type Service struct {
	store brandsport.Store
	users accountport.Service
	clock kernel.Clock
}

var _ brandsport.Service = (*Service)(nil)

// New returns the brands service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{store: d.Store, users: d.Users, clock: d.Clock}
}

// PutBrand fills defaults, validates a brand, checks its users and stores
// it; date_created is kept, last_updated is now.
func (s *Service) PutBrand(ctx context.Context, b brands.Brand) (brands.Brand, error) {
	if b.Type == "" {
		b.Type = "normal"
	}
	if b.Status == "" {
		b.Status = "active"
	}
	if b.FantasyName == "" {
		b.FantasyName = b.Name
	}
	b.NormalizedName = brands.NormalizeName(b.Name)
	if b.Users == nil {
		b.Users = []int64{}
	}
	if b.Pictures == nil {
		b.Pictures = []brands.Picture{}
	}
	if b.CategoriesIDs == nil {
		b.CategoriesIDs = []string{}
	}
	if b.MainCategories == nil {
		b.MainCategories = []brands.CategoryRef{}
		for _, c := range b.CategoriesIDs {
			b.MainCategories = append(b.MainCategories, brands.CategoryRef{ID: c})
		}
	}
	if b.Tags == nil {
		b.Tags = []string{}
	}
	if err := b.Validate(); err != nil {
		return b, err
	}
	for i, u := range b.Users {
		if _, err := s.users.User(ctx, u); kernel.KindOf(err) == kernel.NotExist {
			msg := fmt.Sprintf("user %d does not exist", u)
			return b, brands.ErrInvalidBrand.With(msg).WithCause(fmt.Sprintf("users[%d]", i), msg)
		} else if err != nil {
			return b, err
		}
	}
	now := s.clock.Now()
	b.DateCreated, b.LastUpdated = now, now
	if old, err := s.store.Brand(ctx, b.ID); err == nil {
		b.DateCreated = old.DateCreated
		if kernel.Unchanged(old, b, func(b *brands.Brand) { b.DateCreated, b.LastUpdated = time.Time{}, time.Time{} }) {
			b.LastUpdated = old.LastUpdated
		}
	} else if !errors.Is(err, brandsport.ErrNotFound) {
		return b, err
	}
	if err := s.store.UpsertBrand(ctx, b); err != nil {
		return b, err
	}
	return s.Brand(ctx, b.ID)
}

// Brand returns a stored brand.
func (s *Service) Brand(ctx context.Context, id int64) (brands.Brand, error) {
	b, err := s.store.Brand(ctx, id)
	if errors.Is(err, brandsport.ErrNotFound) {
		return b, brands.ErrBrandNotFound.Wrap(err)
	}
	return b, err
}

// BrandsOfUser lists the brands bound to a user.
func (s *Service) BrandsOfUser(ctx context.Context, userID int64) ([]brands.Brand, error) {
	return s.store.BrandsOfUser(ctx, userID)
}

// OfficialStoreIDs lists, by id, the brands of site siteID bound to userID:
// the official_store_id values the user's items may carry.
func (s *Service) OfficialStoreIDs(ctx context.Context, userID int64, siteID string) ([]int64, error) {
	bs, err := s.store.BrandsOfUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	ids := []int64{}
	for _, b := range bs {
		if b.SiteID == siteID {
			ids = append(ids, b.ID)
		}
	}
	return ids, nil
}

// member reads a user as the brands answers show it; an unknown user is
// 404 U00002.
func (s *Service) member(ctx context.Context, userID int64) (brands.Member, error) {
	u, err := s.users.User(ctx, userID)
	if kernel.KindOf(err) == kernel.NotExist {
		return brands.Member{}, brands.ErrUserNotFound.Withf("user not found: %d", userID)
	}
	if err != nil {
		return brands.Member{}, err
	}
	return brands.Member{CustID: u.ID, Tags: u.Tags, SiteID: u.SiteID, UserType: u.UserType}, nil
}

// UserBrands answers the official stores of the user's site bound to the
// user.
func (s *Service) UserBrands(ctx context.Context, userID int64) (brands.UserBrands, error) {
	m, err := s.member(ctx, userID)
	if err != nil {
		return brands.UserBrands{}, err
	}
	bound, err := s.store.BrandsOfUser(ctx, userID)
	if err != nil {
		return brands.UserBrands{}, err
	}
	return brands.AnswerOf(m, bound), nil
}

// UserBrand answers a brand of the user's site with the users bound to it.
// The brand need not be bound to the user: the path names the site the
// brand is looked up on ("brand not found for the site").
func (s *Service) UserBrand(ctx context.Context, userID, brandID int64) (brands.Detail, error) {
	m, err := s.member(ctx, userID)
	if err != nil {
		return brands.Detail{}, err
	}
	b, err := s.store.Brand(ctx, brandID)
	if errors.Is(err, brandsport.ErrNotFound) {
		return brands.Detail{}, brands.ErrNotFoundForSite.Withf("brand %d not found for site %s", brandID, m.SiteID)
	}
	if err != nil {
		return brands.Detail{}, err
	}
	if err := brands.CheckOfSite(b, m.SiteID); err != nil {
		return brands.Detail{}, err
	}
	users := make([]brands.Member, 0, len(b.Users))
	for _, id := range b.Users {
		u, err := s.member(ctx, id)
		if kernel.KindOf(err) == kernel.NotExist {
			// A bound user always exists (the binding references it): a
			// miss here is our fault, not the client's 404.
			return brands.Detail{}, fmt.Errorf("brandssvc: user %d of brand %d is missing: %v", id, b.ID, err)
		}
		if err != nil {
			return brands.Detail{}, err
		}
		users = append(users, u)
	}
	return brands.DetailOf(b, users), nil
}
