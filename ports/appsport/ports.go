// Package appsport declares what the apps module offers (Service: the
// sandbox's applications and who subscribes to what) and what it needs from
// storage (Store).
package appsport

import (
	"context"
	"errors"

	"github.com/feria/feria/core/apps"
)

// ErrNotFound is returned by stores for a missing application.
var ErrNotFound = errors.New("not found")

// Service is what HTTP, the sandbox and other modules call.
type Service interface {
	// Put validates and upserts an application (sandbox); its owner and
	// users must exist.
	Put(ctx context.Context, a apps.Application) (apps.Application, error)
	Application(ctx context.Context, id int64) (apps.Application, error)
	// Subscribers lists, by id, the applications that chose the topic and
	// that userID granted (a listed user or the owner).
	Subscribers(ctx context.Context, topic string, userID int64) ([]apps.Application, error)
}

// Store persists applications.
type Store interface {
	// Upsert stores an application, replacing its topics and grants.
	Upsert(ctx context.Context, a apps.Application) error
	// Application returns an application or ErrNotFound.
	Application(ctx context.Context, id int64) (apps.Application, error)
	// Subscribers lists, by id, the applications with the topic among their
	// topics and userID among their grants (apps.Application.Grants).
	Subscribers(ctx context.Context, topic string, userID int64) ([]apps.Application, error)
	// Grant adds userID to the application's users (an approved
	// authorization), in one transaction with its grant row, unless it is
	// granted already; an unknown application is ErrNotFound.
	Grant(ctx context.Context, appID, userID int64) error
}
