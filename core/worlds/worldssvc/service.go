// Package worldssvc is the worlds' lifecycle: creating, reading, listing and
// removing worlds, and expiring idle ones.
package worldssvc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/worlds"
	"github.com/feria/feria/ports/worldsport"
)

// Deps are the service's collaborators.
type Deps struct {
	Registry worldsport.Registry
	Storage  worldsport.Storage
	// Clock is the machine's: a world's times are not any sandbox clock's.
	Clock kernel.Clock
	// Max bounds how many worlds exist; 0 is no bound.
	Max int
}

// Service implements worldsport.Service.
type Service struct{ d Deps }

var _ worldsport.Service = (*Service)(nil)

// New builds the service.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{d: d}
}

// Put creates the world, or replaces an existing world's key when one is
// given.
func (s *Service) Put(ctx context.Context, name string, key *string) (worlds.World, bool, error) {
	if err := worlds.CheckName(name); err != nil {
		return worlds.World{}, false, err
	}
	if key != nil {
		if err := worlds.CheckKey(*key); err != nil {
			return worlds.World{}, false, err
		}
	}
	w, err := s.Get(ctx, name)
	if err == nil {
		if key == nil || *key == w.SandboxKey {
			return w, false, nil
		}
		if err := s.d.Registry.SetKey(ctx, name, *key); err != nil {
			return worlds.World{}, false, s.translate(name, err)
		}
		w.SandboxKey = *key
		return w, false, nil
	}
	if !errors.Is(err, worlds.ErrNotFound) {
		return worlds.World{}, false, err
	}
	now := s.d.Clock.Now()
	w = worlds.World{Name: name, CreatedAt: now, LastUsedAt: now}
	if key != nil {
		w.SandboxKey = *key
	} else {
		w.SandboxKey = NewKey()
	}
	switch err := s.d.Registry.Create(ctx, w, s.d.Max); {
	case errors.Is(err, worldsport.ErrExists):
		// Created by another request meanwhile: this PUT is its repetition.
		return s.Put(ctx, name, key)
	case err != nil:
		return worlds.World{}, false, s.translate(name, err)
	}
	// Registered first, so that the name and the room are taken; storage
	// that cannot be made takes the registration back.
	if err := s.d.Storage.Make(ctx, name); err != nil {
		if derr := s.d.Registry.Delete(context.WithoutCancel(ctx), name); derr != nil {
			return worlds.World{}, false, errors.Join(err, derr)
		}
		return worlds.World{}, false, err
	}
	return w, true, nil
}

// Get reads one world.
func (s *Service) Get(ctx context.Context, name string) (worlds.World, error) {
	if err := worlds.CheckName(name); err != nil {
		return worlds.World{}, err
	}
	w, err := s.d.Registry.Get(ctx, name)
	if err != nil {
		return worlds.World{}, s.translate(name, err)
	}
	return w, nil
}

// List reads a page of worlds by name.
func (s *Service) List(ctx context.Context, p paging.Request) ([]worlds.World, int, error) {
	return s.d.Registry.List(ctx, p)
}

// Delete removes everything of the world, then the world: a deletion that
// fails half-way leaves it registered, and deleting it again finishes.
func (s *Service) Delete(ctx context.Context, name string) error {
	if _, err := s.Get(ctx, name); err != nil {
		return err
	}
	if err := s.d.Storage.Drop(ctx, name); err != nil {
		return err
	}
	if err := s.d.Registry.Delete(ctx, name); err != nil {
		return s.translate(name, err)
	}
	return nil
}

// Expire deletes the worlds not used for ttl, and answers how many.
func (s *Service) Expire(ctx context.Context, ttl time.Duration) (int, error) {
	names, err := s.d.Registry.Idle(ctx, s.d.Clock.Now().Add(-ttl))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, name := range names {
		switch err := s.Delete(ctx, name); {
		case errors.Is(err, worlds.ErrNotFound):
		case err != nil:
			return n, err
		default:
			n++
		}
	}
	return n, nil
}

func (s *Service) translate(name string, err error) error {
	switch {
	case errors.Is(err, worldsport.ErrNotFound):
		return worlds.NotFound(name)
	case errors.Is(err, worldsport.ErrFull):
		return worlds.TooMany(s.d.Max)
	}
	return err
}

// NewKey makes a sandbox key: 128 random bits.
func NewKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "sbx-" + hex.EncodeToString(b)
}
