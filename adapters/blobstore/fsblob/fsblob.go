// Package fsblob stores files on the local filesystem under one root
// directory: the blobport.Store of the embedded mode, where feria runs without
// MinIO and the files must survive restarts.
//
// Layout under the root:
//
//	objects/<h[:2]>/<h>   one file per key, h = hex SHA-256 of the key
//	tmp/                  files being written, renamed into objects/ when whole
//
// Keys are hashed rather than mapped to paths because S3 keys "a" and "a/b"
// may both exist, whereas a file "a" cannot also be a directory; hashing also
// bounds name lengths and keeps every key inside the root. Each file starts
// with one JSON line holding the key and the content type, followed by the
// bytes. Keeping the metadata in the same file (instead of a sidecar) makes a
// Put one atomic rename, so a reader never pairs new bytes with an old
// content type.
package fsblob

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/feria/feria/ports/blobport"
)

var _ blobport.Store = (*Store)(nil)

const (
	objectsDir = "objects"
	tmpDir     = "tmp"
	// maxHeader bounds the metadata line so a damaged file cannot make Get
	// buffer without limit; a key is at most 1 KiB.
	maxHeader = 16 * 1024
	// staleAfter is how old a leftover temp file must be before New removes
	// it; younger ones may belong to a Put still running in another process.
	staleAfter = time.Hour
)

// Store is a blobport.Store on a directory.
type Store struct {
	root string
}

// header is the first line of every stored file.
type header struct {
	V           int    `json:"v"`
	Key         string `json:"key"`
	ContentType string `json:"content_type"`
}

// New opens (creating if needed) a store rooted at dir and removes temp files
// left by a crash.
func New(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("fsblob: empty root directory")
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("fsblob: root %q: %w", dir, err)
	}
	s := &Store{root: root}
	for _, d := range []string{s.objects(), s.tmp()} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, fmt.Errorf("fsblob: %w", err)
		}
	}
	s.removeStale()
	return s, nil
}

func (s *Store) objects() string { return filepath.Join(s.root, objectsDir) }
func (s *Store) tmp() string     { return filepath.Join(s.root, tmpDir) }

func (s *Store) path(key string) string {
	sum := sha256.Sum256([]byte(key))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(s.root, objectsDir, h[:2], h)
}

// Put implements blobport.Store. The bytes go to a temp file that is synced
// and then renamed over the old file, so readers and a crash see either the
// old or the new object.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) (err error) {
	if err := blobport.CheckKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if contentType == "" {
		contentType = blobport.DefaultContentType
	}
	line, err := json.Marshal(header{V: 1, Key: key, ContentType: contentType})
	if err != nil {
		return fmt.Errorf("fsblob: %w", err)
	}
	if err := os.MkdirAll(s.tmp(), 0o750); err != nil {
		return fmt.Errorf("fsblob: %w", err)
	}
	f, err := os.CreateTemp(s.tmp(), "put-*")
	if err != nil {
		return fmt.Errorf("fsblob: put %s: %w", key, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 64*1024)
	w.Write(line)     //nolint:errcheck // a write error is sticky and caught by Flush
	w.WriteByte('\n') //nolint:errcheck // idem
	n, err := io.Copy(w, ctxReader{ctx, r})
	if err != nil {
		return fmt.Errorf("fsblob: put %s: %w", key, err)
	}
	if size >= 0 && n != size {
		return fmt.Errorf("fsblob: put %s: read %d bytes, expected %d", key, n, size)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("fsblob: put %s: %w", key, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsblob: put %s: %w", key, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("fsblob: put %s: %w", key, err)
	}
	return s.install(f.Name(), s.path(key))
}

// install renames the written temp file into place. A Reset running at
// the same time may move the fan-out directory away between MkdirAll and
// Rename, hence the retries.
func (s *Store) install(tmp, dst string) error {
	var err error
	for range 3 {
		if err = os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
			break
		}
		if err = os.Rename(tmp, dst); err == nil {
			syncDir(filepath.Dir(dst))
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return fmt.Errorf("fsblob: install %s: %w", dst, err)
}

// Get implements blobport.Store. The open file keeps reading the version it
// opened even if a Put replaces it meanwhile.
func (s *Store) Get(ctx context.Context, key string) (blobport.Object, error) {
	if err := blobport.CheckKey(key); err != nil {
		return blobport.Object{}, err
	}
	if err := ctx.Err(); err != nil {
		return blobport.Object{}, err
	}
	f, err := os.Open(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return blobport.Object{}, fmt.Errorf("fsblob: %s: %w", key, blobport.ErrNotFound)
	}
	if err != nil {
		return blobport.Object{}, fmt.Errorf("fsblob: get %s: %w", key, err)
	}
	h, offset, err := readHeader(f)
	if err == nil && h.Key != key {
		// Only a SHA-256 collision or a file copied by hand gets here.
		err = fmt.Errorf("file holds key %q", h.Key)
	}
	var st os.FileInfo
	if err == nil {
		st, err = f.Stat()
	}
	if err == nil {
		_, err = f.Seek(offset, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return blobport.Object{}, fmt.Errorf("fsblob: get %s: %w", key, err)
	}
	return blobport.Object{ReadCloser: f, Size: st.Size() - offset, ContentType: h.ContentType}, nil
}

// readHeader parses the metadata line and returns where the bytes start.
func readHeader(f *os.File) (header, int64, error) {
	var h header
	br := bufio.NewReaderSize(io.LimitReader(f, maxHeader), 4096)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return h, 0, fmt.Errorf("damaged file: no metadata line: %w", err)
	}
	if err := json.Unmarshal(bytes.TrimSuffix(line, []byte("\n")), &h); err != nil || h.V != 1 {
		return h, 0, fmt.Errorf("damaged file: bad metadata line (version %d): %v", h.V, err)
	}
	return h, int64(len(line)), nil
}

// List implements blobport.Store: every stored file names its key in its
// header line, so the walk reads that line of each.
func (s *Store) List(ctx context.Context, prefix string, fn func(blobport.Info) error) error {
	err := filepath.WalkDir(s.objects(), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		if d.IsDir() {
			return ctx.Err()
		}
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		h, start, herr := readHeader(f)
		st, serr := f.Stat()
		f.Close()
		if herr != nil || serr != nil || !strings.HasPrefix(h.Key, prefix) {
			return nil // a damaged file names no key: Get reports it
		}
		return fn(blobport.Info{Key: h.Key, Modified: st.ModTime(), Size: st.Size() - start})
	})
	if err != nil {
		return fmt.Errorf("fsblob: list %s: %w", prefix, err)
	}
	return nil
}

// Delete implements blobport.Store.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := blobport.CheckKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Remove(s.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("fsblob: delete %s: %w", key, err)
	}
	return nil
}

// Reset implements blobport.Store (and sandboxport.Resetter). The objects directory is first renamed
// away, so the store looks empty at once even if removing a large tree takes
// a while or is interrupted (New finishes the job then).
func (s *Store) Reset(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(s.tmp(), 0o750); err != nil {
		return fmt.Errorf("fsblob: delete all: %w", err)
	}
	trash := filepath.Join(s.tmp(), "deleted-"+rand.Text())
	if err := os.Rename(s.objects(), trash); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("fsblob: delete all: %w", err)
	}
	if err := os.RemoveAll(trash); err != nil {
		return fmt.Errorf("fsblob: delete all: %w", err)
	}
	return nil
}

// Ping implements blobport.Store by creating a file, which catches a missing
// or read-only volume that a stat would not.
func (s *Store) Ping(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.tmp(), "ping-*")
	if err != nil {
		return fmt.Errorf("fsblob: %w: %w", blobport.ErrUnavailable, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// Backend implements blobport.Store.
func (s *Store) Backend() string { return "filesystem" }

// removeStale deletes temp files and trash left by a crash. Errors are
// ignored: leftovers waste space but never show up as objects.
func (s *Store) removeStale() {
	entries, err := os.ReadDir(s.tmp())
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		if strings.HasPrefix(e.Name(), "deleted-") || time.Since(info.ModTime()) > staleAfter {
			os.RemoveAll(filepath.Join(s.tmp(), e.Name()))
		}
	}
}

// syncDir makes a rename durable. It is best effort: not every platform can
// sync a directory, and the file's own bytes are already synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() //nolint:errcheck // best effort, see above
		d.Close()
	}
}

// ctxReader stops a long copy when the caller gives up.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
