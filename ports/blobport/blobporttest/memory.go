// Package blobporttest holds an in-memory fake of blobport.Store for use-case
// tests and the contract suite every Store must pass, so that the fake, the
// filesystem and S3 stores cannot drift apart.
package blobporttest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/feria/feria/ports/blobport"
)

var _ blobport.Store = (*Memory)(nil)

// Memory is a blobport.Store in a map. The zero value is ready to use.
type Memory struct {
	mu      sync.Mutex
	objects map[string]memObject
	down    bool
}

type memObject struct {
	data        []byte
	contentType string
	modified    time.Time
}

// SetDown makes every call fail with blobport.ErrUnavailable (or succeed
// again), so use cases can be tested against a storage outage.
func (m *Memory) SetDown(down bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.down = down
}

// Len returns the number of stored objects, for tests that check clean-ups.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.objects)
}

func (m *Memory) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if m.down {
		return fmt.Errorf("memory store is down: %w", blobport.ErrUnavailable)
	}
	return nil
}

// Put implements blobport.Store.
func (m *Memory) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if err := blobport.CheckKey(key); err != nil {
		return err
	}
	// Read before taking the lock: a slow reader must not block other keys.
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("memory store: read %s: %w", key, err)
	}
	if size >= 0 && int64(len(data)) != size {
		return fmt.Errorf("memory store: %s: read %d bytes, expected %d", key, len(data), size)
	}
	if contentType == "" {
		contentType = blobport.DefaultContentType
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	if m.objects == nil {
		m.objects = make(map[string]memObject)
	}
	m.objects[key] = memObject{data: data, contentType: contentType, modified: time.Now()}
	return nil
}

// Get implements blobport.Store.
func (m *Memory) Get(ctx context.Context, key string) (blobport.Object, error) {
	if err := blobport.CheckKey(key); err != nil {
		return blobport.Object{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return blobport.Object{}, err
	}
	o, ok := m.objects[key]
	if !ok {
		return blobport.Object{}, fmt.Errorf("memory store: %s: %w", key, blobport.ErrNotFound)
	}
	// Stored slices are never modified in place (Put replaces them), so the
	// reader may share them.
	return blobport.Object{
		ReadCloser:  io.NopCloser(bytes.NewReader(o.data)),
		Size:        int64(len(o.data)),
		ContentType: o.contentType,
	}, nil
}

// Delete implements blobport.Store.
func (m *Memory) Delete(ctx context.Context, key string) error {
	if err := blobport.CheckKey(key); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	delete(m.objects, key)
	return nil
}

// List implements blobport.Store.
func (m *Memory) List(ctx context.Context, prefix string, fn func(blobport.Info) error) error {
	m.mu.Lock()
	if err := m.check(ctx); err != nil {
		m.mu.Unlock()
		return err
	}
	var infos []blobport.Info
	for k, o := range m.objects {
		if strings.HasPrefix(k, prefix) {
			infos = append(infos, blobport.Info{Key: k, Modified: o.modified, Size: int64(len(o.data))})
		}
	}
	m.mu.Unlock()
	for _, in := range infos {
		if err := fn(in); err != nil {
			return err
		}
	}
	return nil
}

// Age makes the object under key look last written at t (a janitor's test
// needs old objects).
func (m *Memory) Age(key string, t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o, ok := m.objects[key]; ok {
		o.modified = t
		m.objects[key] = o
	}
}

// Reset implements blobport.Store (and sandboxport.Resetter).
func (m *Memory) Reset(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	m.objects = nil
	return nil
}

// Ping implements blobport.Store.
func (m *Memory) Ping(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.check(ctx)
}

// Backend implements blobport.Store.
func (m *Memory) Backend() string { return "memory" }
