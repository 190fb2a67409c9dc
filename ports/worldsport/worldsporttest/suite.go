package worldsporttest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/worlds"
	"github.com/feria/feria/ports/worldsport"
)

// TestRegistry runs the contract suite on a fresh, empty registry.
func TestRegistry(t *testing.T, r worldsport.Registry) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	w := func(name string, at time.Time) worlds.World {
		return worlds.World{Name: name, SandboxKey: "key-of-" + name + "-0123456789", CreatedAt: at, LastUsedAt: at}
	}
	if _, err := r.Get(ctx, "a"); !errors.Is(err, worldsport.ErrNotFound) {
		t.Fatalf("missing world: %v", err)
	}
	for i, name := range []string{"c", "a", "b"} {
		if err := r.Create(ctx, w(name, t0.Add(time.Duration(i)*time.Hour)), 3); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Create(ctx, w("a", t0), 0); !errors.Is(err, worldsport.ErrExists) {
		t.Errorf("a second a: %v", err)
	}
	if err := r.Create(ctx, w("d", t0), 3); !errors.Is(err, worldsport.ErrFull) {
		t.Errorf("a fourth of three: %v", err)
	}
	got, err := r.Get(ctx, "a")
	if err != nil || got.Name != "a" || got.SandboxKey != "key-of-a-0123456789" || !got.CreatedAt.Equal(t0.Add(time.Hour)) || !got.LastUsedAt.Equal(got.CreatedAt) {
		t.Errorf("a: %+v %v", got, err)
	}
	page, total, err := r.List(ctx, paging.Request{Limit: 2, Offset: 1})
	if err != nil || total != 3 || len(page) != 2 || page[0].Name != "b" || page[1].Name != "c" {
		t.Errorf("list: %+v %d %v", page, total, err)
	}
	if err := r.SetKey(ctx, "a", "another-key-0123456789"); err != nil {
		t.Fatal(err)
	}
	if err := r.SetKey(ctx, "zz", "another-key-0123456789"); !errors.Is(err, worldsport.ErrNotFound) {
		t.Errorf("key of a missing world: %v", err)
	}
	// Touch moves last use forward only.
	if err := r.Touch(ctx, "c", t0.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := r.Touch(ctx, "c", t0.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Get(ctx, "c"); !got.LastUsedAt.Equal(t0.Add(48*time.Hour)) || got.SandboxKey != "key-of-c-0123456789" {
		t.Errorf("c after touches: %+v", got)
	}
	if got, _ := r.Get(ctx, "a"); got.SandboxKey != "another-key-0123456789" {
		t.Errorf("a's key: %+v", got)
	}
	idle, err := r.Idle(ctx, t0.Add(90*time.Minute))
	if err != nil || fmt.Sprint(idle) != "[a]" {
		t.Errorf("idle: %v %v", idle, err)
	}
	if err := r.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, "a"); !errors.Is(err, worldsport.ErrNotFound) {
		t.Errorf("deleted twice: %v", err)
	}
	// Creations at once never pass the limit.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- r.Create(ctx, w(fmt.Sprintf("r%d", i), t0), 5)
		}()
	}
	wg.Wait()
	close(errs)
	full := 0
	for err := range errs {
		switch {
		case errors.Is(err, worldsport.ErrFull):
			full++
		case err != nil:
			t.Error(err)
		}
	}
	if _, total, _ := r.List(ctx, paging.Request{Limit: 50}); total != 5 || full != 5 {
		t.Errorf("8 at once under a limit of 5 with 2 present: %d worlds, %d refused", total, full)
	}
}
