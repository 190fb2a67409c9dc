// Package prefixblob is a part of a blob store: every key of it is stored
// under a prefix of the store, and its Reset removes that part alone. A
// world's files on S3 are one (blobport.WorldsPrefix).
package prefixblob

import (
	"context"
	"io"
	"strings"

	"github.com/feria/feria/ports/blobport"
)

// Store is the part of a store under one prefix.
type Store struct {
	s      blobport.Store
	prefix string
}

var _ blobport.Store = (*Store)(nil)

// New returns the part of s under prefix, which should end with '/'.
func New(s blobport.Store, prefix string) *Store { return &Store{s: s, prefix: prefix} }

func (p *Store) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	return p.s.Put(ctx, p.prefix+key, r, size, contentType)
}

func (p *Store) Get(ctx context.Context, key string) (blobport.Object, error) {
	return p.s.Get(ctx, p.prefix+key)
}

func (p *Store) Delete(ctx context.Context, key string) error { return p.s.Delete(ctx, p.prefix+key) }

// Reset removes every object under the prefix, one by one: the underlying
// store's Reset would remove every part.
func (p *Store) Reset(ctx context.Context) error {
	var keys []string
	if err := p.s.List(ctx, p.prefix, func(i blobport.Info) error { keys = append(keys, i.Key); return nil }); err != nil {
		return err
	}
	for _, k := range keys {
		if err := p.s.Delete(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

func (p *Store) Ping(ctx context.Context) error { return p.s.Ping(ctx) }

func (p *Store) List(ctx context.Context, prefix string, fn func(blobport.Info) error) error {
	return p.s.List(ctx, p.prefix+prefix, func(i blobport.Info) error {
		i.Key = strings.TrimPrefix(i.Key, p.prefix)
		return fn(i)
	})
}

func (p *Store) Backend() string { return p.s.Backend() }
