// Package appssvc implements the apps use cases: the sandbox's applications,
// the subscribers of a change, and the client the token endpoint checks.
package appssvc

import (
	"context"
	"errors"
	"fmt"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/apps"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/accountport"
	"github.com/feria/feria/ports/appsport"
)

// Deps is what the service needs. Each write is one store call, so it
// takes no transaction.
type Deps struct {
	Store appsport.Store
	Users accountport.Service
}

// Service implements appsport.Service and the account module's
// accountport.Applications.
type Service struct {
	store appsport.Store
	users accountport.Service
}

var (
	_ appsport.Service         = (*Service)(nil)
	_ accountport.Applications = (*Service)(nil)
)

// New returns the apps service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{store: d.Store, users: d.Users}
}

// Put fills an application's defaults, validates it, checks that its owner
// and users exist and stores it.
func (s *Service) Put(ctx context.Context, a apps.Application) (apps.Application, error) {
	a = a.WithDefaults()
	if err := a.Validate(); err != nil {
		return a, err
	}
	var p kernel.Problems
	check := func(field string, id int64) error {
		_, err := s.users.User(ctx, id)
		if kernel.KindOf(err) == kernel.NotExist {
			p.Add(field, "user %d does not exist", id)
			return nil
		}
		return err
	}
	if err := check("owner_id", a.OwnerID); err != nil {
		return a, err
	}
	for i, u := range a.Users {
		if err := check(fmt.Sprintf("users[%d]", i), u); err != nil {
			return a, err
		}
	}
	if err := p.Err(apps.ErrInvalidApplication); err != nil {
		return a, err
	}
	if err := s.store.Upsert(ctx, a); err != nil {
		return a, err
	}
	return s.Application(ctx, a.ID)
}

// Application returns a stored application.
func (s *Service) Application(ctx context.Context, id int64) (apps.Application, error) {
	a, err := s.store.Application(ctx, id)
	if errors.Is(err, appsport.ErrNotFound) {
		return a, apps.ErrApplicationNotFound.Wrap(err)
	}
	return a, err
}

// Subscribers lists the applications a change of topic about userID
// notifies.
func (s *Service) Subscribers(ctx context.Context, topic string, userID int64) ([]apps.Application, error) {
	return s.store.Subscribers(ctx, topic, userID)
}

// Client is the application as the token endpoint checks it.
func (s *Service) Client(ctx context.Context, appID int64) (account.Client, error) {
	a, err := s.store.Application(ctx, appID)
	if errors.Is(err, appsport.ErrNotFound) {
		return account.Client{}, fmt.Errorf("appssvc: application %d: %w", appID, accountport.ErrNotFound)
	}
	if err != nil {
		return account.Client{}, err
	}
	return account.Client{AppID: a.ID, Secret: a.ClientSecret, Name: a.Name, OwnerID: a.OwnerID, RedirectURIs: a.RedirectURIs}, nil
}

// Grant records that userID approved the application (the authorization
// flow).
func (s *Service) Grant(ctx context.Context, appID, userID int64) error {
	err := s.store.Grant(ctx, appID, userID)
	if errors.Is(err, appsport.ErrNotFound) {
		return fmt.Errorf("appssvc: application %d: %w", appID, accountport.ErrNotFound)
	}
	return err
}
