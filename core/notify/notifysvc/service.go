// Package notifysvc holds the use cases of the notify module: reading the
// caller's notification feed. Notifications are written by the jobs of the
// modules that tell buyers things (the fiscal module's notices).
package notifysvc

import (
	"context"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/notifyport"
)

// Deps is what the service needs. It only reads.
type Deps struct {
	Notifications notifyport.Notifications
}

// Service implements notifyport.Service.
type Service struct{ feed notifyport.Notifications }

var _ notifyport.Service = (*Service)(nil)

// New returns the service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{feed: d.Notifications}
}

// Notifications pages through the caller's feed. A request without a caller
// is refused as the fiscal routes refuse it, the feed's first writer.
func (s *Service) Notifications(ctx context.Context, page paging.Request) ([]notify.Notification, paging.Page, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return nil, paging.Page{}, account.ErrTokenNotGranted
	}
	ns, total, err := s.feed.ByUser(ctx, caller.UserID, page)
	if err != nil {
		return nil, paging.Page{}, err
	}
	return ns, page.Of(total), nil
}
