package worldssvc

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/worlds"
	"github.com/feria/feria/ports/worldsport/worldsporttest"
)

type drops struct{ names []string }

func (d *drops) Make(context.Context, string) error { return nil }

func (d *drops) Drop(_ context.Context, name string) error {
	d.names = append(d.names, name)
	return nil
}

// Expire removes the worlds unused for the TTL, their storage first, and
// no other.
func TestExpireIdleWorlds(t *testing.T) {
	ctx := context.Background()
	clock := &kerneltest.Clock{At: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	reg := worldsporttest.NewRegistry()
	dropped := &drops{}
	s := New(Deps{Registry: reg, Storage: dropped, Clock: clock})
	for _, name := range []string{"old", "used", "new"} {
		if _, _, err := s.Put(ctx, name, nil); err != nil {
			t.Fatal(err)
		}
	}
	clock.At = clock.At.Add(6 * 24 * time.Hour)
	reg.Touch(ctx, "used", clock.Now()) //nolint:errcheck // in memory
	clock.At = clock.At.Add(24*time.Hour + time.Second)
	if n, err := s.Expire(ctx, 7*24*time.Hour); n != 2 || err != nil {
		t.Fatalf("expire: %d %v", n, err)
	}
	if fmt.Sprint(dropped.names) != "[new old]" {
		t.Errorf("dropped %v", dropped.names)
	}
	if _, err := s.Get(ctx, "old"); !errors.Is(err, worlds.ErrNotFound) {
		t.Errorf("old: %v", err)
	}
	if _, err := s.Get(ctx, "used"); err != nil {
		t.Errorf("used: %v", err)
	}
}
