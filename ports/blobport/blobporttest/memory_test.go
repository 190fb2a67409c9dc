package blobporttest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/blobport/blobporttest"
)

func TestMemory(t *testing.T) {
	blobporttest.TestStore(t, func(testing.TB) blobport.Store { return &blobporttest.Memory{} })
}

func TestMemoryDown(t *testing.T) {
	m := &blobporttest.Memory{}
	m.SetDown(true)
	err := m.Put(context.Background(), "k", strings.NewReader("x"), 1, "")
	if !errors.Is(err, blobport.ErrUnavailable) {
		t.Fatalf("Put on a down store = %v, want ErrUnavailable", err)
	}
	m.SetDown(false)
	if err := m.Put(context.Background(), "k", strings.NewReader("x"), 1, ""); err != nil {
		t.Fatalf("Put after recovery: %v", err)
	}
	if m.Len() != 1 {
		t.Fatalf("Len = %d, want 1", m.Len())
	}
}
