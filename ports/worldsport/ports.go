// Package worldsport is the worlds module's ports: the lifecycle the
// sandbox routes call, and the registry of worlds it keeps.
package worldsport

import (
	"context"
	"errors"
	"time"

	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/worlds"
)

// Service is the worlds' lifecycle: what /sandbox/worlds calls.
type Service interface {
	// Put creates the world (created true) or, when it exists, replaces its
	// sandbox key when key is given. A nil key keeps an existing world's
	// key and makes one for a new world.
	Put(ctx context.Context, name string, key *string) (w worlds.World, created bool, err error)
	Get(ctx context.Context, name string) (worlds.World, error)
	List(ctx context.Context, p paging.Request) ([]worlds.World, int, error)
	// Delete removes the world and everything of it.
	Delete(ctx context.Context, name string) error
}

// Registry keeps the worlds that exist, in the default world's database.
type Registry interface {
	// Create adds w unless a world of its name exists (ErrExists) or max
	// worlds exist already (ErrFull; max 0 is no limit), deciding both at
	// once however many processes create at the same moment.
	Create(ctx context.Context, w worlds.World, max int) error
	// SetKey replaces the sandbox key of an existing world.
	SetKey(ctx context.Context, name, key string) error
	Get(ctx context.Context, name string) (worlds.World, error)
	// List is the worlds by name, and how many there are.
	List(ctx context.Context, p paging.Request) ([]worlds.World, int, error)
	Delete(ctx context.Context, name string) error
	// Touch records a use of the world at at, when later than the one
	// recorded.
	Touch(ctx context.Context, name string, at time.Time) error
	// Idle are the names of the worlds last used before before.
	Idle(ctx context.Context, before time.Time) ([]string, error)
}

// Storage is what a world holds outside the registry: its database, keys
// and files, made on creation and removed on deletion.
type Storage interface {
	// Make prepares the world's storage (its schema or file, migrated);
	// making it again changes nothing.
	Make(ctx context.Context, name string) error
	// Drop removes everything the world holds; dropping a world that holds
	// nothing succeeds.
	Drop(ctx context.Context, name string) error
}

var (
	// ErrNotFound is a name the registry does not hold.
	ErrNotFound = errors.New("worldsport: world not found")
	// ErrExists is a creation of a name the registry holds.
	ErrExists = errors.New("worldsport: world exists")
	// ErrFull is a creation past the limit.
	ErrFull = errors.New("worldsport: too many worlds")
)
