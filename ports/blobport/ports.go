// Package blobport declares the file storage that feria's modules keep
// uploaded documents in (fiscal documents, labels, images): a flat key space of
// byte streams with a content type, served by S3-compatible storage in
// production and by the local filesystem in embedded mode.
package blobport

import (
	"context"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/feria/feria/core/kernel"
)

// WorldsPrefix leads the keys of the worlds' files where they share a
// store with the default world (S3): a Reset of the whole store, the
// default world's, leaves them.
const WorldsPrefix = "worlds/"

// Store keeps objects under slash-separated keys such as
// "fiscal/2000001234/<uuid>". Keys are opaque names, not directories: "a" and
// "a/b" are two independent objects, as in S3.
type Store interface {
	// Put stores the size bytes read from r under key, replacing any object
	// already there; readers see either the old or the new object, never a
	// part. size is -1 when unknown. An empty contentType is stored as
	// "application/octet-stream".
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Get opens the object under key; the caller must Close it. A missing key
	// is ErrNotFound. The object may stop reading once ctx is done, so read
	// it within the context it was opened with.
	Get(ctx context.Context, key string) (Object, error)
	// Delete removes the object under key. Deleting a missing key succeeds, so
	// that retried clean-ups are harmless.
	Delete(ctx context.Context, key string) error
	// Reset removes every object of the store (sandboxport.Resetter): the
	// sandbox reset uses it.
	Reset(ctx context.Context) error
	// Ping reports whether the store can serve requests, for readiness probes.
	Ping(ctx context.Context) error
	// List calls fn for every object whose key starts with prefix, in no
	// particular order, with the time it was last written; an error of fn
	// stops the listing and is returned. The orphan janitors use it.
	List(ctx context.Context, prefix string, fn func(Info) error) error
	// Backend names the implementation ("s3", "filesystem") for health output
	// and logs.
	Backend() string
}

// Info describes a stored object in a listing.
type Info struct {
	Key      string
	Modified time.Time
	// Size is the object's length in bytes (a world's quota of stored
	// bytes sums them).
	Size int64
}

// Object is an open stored object. Size is its length in bytes.
type Object struct {
	io.ReadCloser
	Size        int64
	ContentType string
}

// DefaultContentType is stored when Put is given no content type, matching
// what S3 does so that every Store answers the same.
const DefaultContentType = "application/octet-stream"

// Limits on keys in bytes: S3's on object names and MinIO's on each
// slash-separated segment (a file name on its disks), applied to every Store
// so that a key accepted by one is accepted by all.
const (
	MaxKeyLen     = 1024
	MaxSegmentLen = 255
)

// Sentinels of the port, compared with errors.Is. Adapters wrap the driver's
// error with %w so that the cause is logged while callers match the sentinel.
var (
	ErrNotFound    = kernel.E(kernel.NotExist, "file_not_found", "file not found")
	ErrUnavailable = kernel.E(kernel.Unavailable, "file_storage_unavailable", "file storage is unavailable")
	ErrInvalidKey  = kernel.E(kernel.Invalid, "invalid_file_key", "invalid file key")
)

// CheckKey rejects keys that are not a plain slash-separated path: empty
// segments, "." or "..", a leading slash, backslashes, control characters,
// invalid UTF-8 or lengths beyond MaxKeyLen and MaxSegmentLen.
// Every Store calls it first, because the filesystem Store must never be
// steered outside its root and S3 would silently normalise some of these.
func CheckKey(key string) error {
	if key == "" {
		return ErrInvalidKey.With("file key is empty")
	}
	if len(key) > MaxKeyLen {
		return ErrInvalidKey.Withf("file key is longer than %d bytes", MaxKeyLen)
	}
	if !utf8.ValidString(key) {
		return ErrInvalidKey.With("file key is not valid UTF-8")
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f || r == '\\' {
			return ErrInvalidKey.Withf("file key %q has a control character or backslash", key)
		}
	}
	for _, seg := range strings.Split(key, "/") {
		switch seg {
		case "":
			return ErrInvalidKey.Withf("file key %q has an empty segment or a leading or trailing slash", key)
		case ".", "..":
			return ErrInvalidKey.Withf("file key %q has a %q segment", key, seg)
		}
		if len(seg) > MaxSegmentLen {
			return ErrInvalidKey.Withf("file key has a segment longer than %d bytes", MaxSegmentLen)
		}
	}
	return nil
}
