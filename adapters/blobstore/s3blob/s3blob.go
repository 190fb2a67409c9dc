// Package s3blob stores files in an S3-compatible object store (MinIO in
// feria's deployments) with minio-go: the blobport.Store of the full mode.
// One Store owns one bucket; keys map one to one to object names.
package s3blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/feria/feria/ports/blobport"
)

var _ blobport.Store = (*Store)(nil)

const (
	defaultDialTimeout = 5 * time.Second
	// defaultOpTimeout bounds one operation, retries included: a frozen
	// server (accepting connections, never answering) answers
	// ErrUnavailable within it instead of hanging the request.
	defaultOpTimeout = 5 * time.Second
	// defaultMaxRetries replaces minio-go's 10: within the operation's bound
	// more attempts only wait longer for a server that is not answering.
	defaultMaxRetries = 3
	// Puts of unknown size are buffered up to S3's minimum part size, so that
	// small streams go up in one request instead of a multipart upload.
	smallObject = 5 << 20
	// partSize bounds the buffer minio-go allocates for multipart uploads of
	// unknown size; its own default would be hundreds of MiB.
	partSize = 16 << 20
)

// Config says where the bucket is. The zero value of the optional fields
// means the default.
type Config struct {
	Endpoint  string // host:port, without scheme
	AccessKey string
	SecretKey string
	Bucket    string
	UseSSL    bool
	Region    string // optional; MinIO ignores it, AWS needs it

	// DialTimeout bounds connecting to the server (default 5 s), so that an
	// unreachable server is reported as unavailable quickly rather than after
	// the operating system's connect timeout.
	DialTimeout time.Duration
	// MaxRetries is how often minio-go tries a request (default 3); 1
	// disables retries.
	MaxRetries int
	// OpTimeout bounds one operation (Put, Get until its body is closed,
	// Delete, Reset, Ping), retries included (default 5 s).
	OpTimeout time.Duration
}

// String masks the secret key, so a Config can be logged.
func (c Config) String() string {
	return fmt.Sprintf("s3blob.Config{Endpoint:%s AccessKey:%s SecretKey:*** Bucket:%s UseSSL:%t Region:%s}",
		c.Endpoint, c.AccessKey, c.Bucket, c.UseSSL, c.Region)
}

// Store is a blobport.Store on one S3 bucket.
type Store struct {
	c         *minio.Client
	bucket    string
	opTimeout time.Duration
}

// bounded is ctx cut to the operation's bound.
func (s *Store) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.opTimeout)
}

// New connects to the server and creates the bucket if it is missing, so a
// fresh MinIO needs no manual set-up. An unreachable server is
// blobport.ErrUnavailable.
func New(ctx context.Context, cfg Config) (*Store, error) {
	s, err := open(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	ok, err := s.c.BucketExists(ctx, s.bucket)
	if err != nil {
		return nil, translate("check bucket", s.bucket, err)
	}
	if ok {
		return s, nil
	}
	err = s.c.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: cfg.Region})
	if code := minio.ToErrorResponse(err).Code; code == minio.BucketAlreadyOwnedByYou {
		err = nil // another process created it meanwhile
	}
	if err != nil {
		return nil, translate("create bucket", s.bucket, err)
	}
	return s, nil
}

// open builds the client without talking to the server.
func open(cfg Config) (*Store, error) {
	if cfg.Endpoint == "" {
		return nil, errors.New("s3blob: no endpoint")
	}
	if err := s3utils.CheckValidBucketNameStrict(cfg.Bucket); err != nil {
		return nil, fmt.Errorf("s3blob: bucket %q: %w", cfg.Bucket, err)
	}
	tr, err := minio.DefaultTransport(cfg.UseSSL)
	if err != nil {
		return nil, fmt.Errorf("s3blob: %w", err)
	}
	dial := cfg.DialTimeout
	if dial <= 0 {
		dial = defaultDialTimeout
	}
	tr.DialContext = (&net.Dialer{Timeout: dial, KeepAlive: 30 * time.Second}).DialContext
	op := cfg.OpTimeout
	if op <= 0 {
		op = defaultOpTimeout
	}
	// A server that takes the request and never answers is given up on as
	// a whole operation would be.
	tr.ResponseHeaderTimeout = op
	retries := cfg.MaxRetries
	if retries <= 0 {
		retries = defaultMaxRetries
	}
	c, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:      credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:     cfg.UseSSL,
		Transport:  tr,
		Region:     cfg.Region,
		MaxRetries: retries,
	})
	if err != nil {
		return nil, fmt.Errorf("s3blob: %w", err)
	}
	return &Store{c: c, bucket: cfg.Bucket, opTimeout: op}, nil
}

// Put implements blobport.Store. S3 replaces an object atomically.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if err := blobport.CheckKey(key); err != nil {
		return err
	}
	if contentType == "" {
		contentType = blobport.DefaultContentType
	}
	opts := minio.PutObjectOptions{ContentType: contentType}
	if size < 0 {
		var head bytes.Buffer
		n, err := io.CopyN(&head, r, smallObject)
		switch {
		case errors.Is(err, io.EOF):
			r, size = &head, n
		case err != nil:
			return fmt.Errorf("s3blob: put %s: read: %w", key, err)
		default:
			r = io.MultiReader(&head, r)
			opts.PartSize = partSize
		}
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	if _, err := s.c.PutObject(ctx, s.bucket, key, r, size, opts); err != nil {
		return translate("put", key, err)
	}
	return nil
}

// Get implements blobport.Store.
func (s *Store) Get(ctx context.Context, key string) (blobport.Object, error) {
	if err := blobport.CheckKey(key); err != nil {
		return blobport.Object{}, err
	}
	// One GET gives the body and its metadata together. minio-go's lazy
	// Object would stat first and then fetch with If-Match, which fails when a
	// Put replaces the object in between.
	// The bound covers reading the body too: it ends when the body is closed.
	ctx, cancel := s.bounded(ctx)
	body, info, _, err := minio.Core{Client: s.c}.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		cancel()
		return blobport.Object{}, translate("get", key, err)
	}
	return blobport.Object{
		ReadCloser:  &reader{body: body, key: key, cancel: cancel},
		Size:        info.Size,
		ContentType: info.ContentType,
	}, nil
}

// reader translates errors of a body cut short into port sentinels.
type reader struct {
	body   io.ReadCloser
	key    string
	cancel context.CancelFunc
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	if err != nil && err != io.EOF {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("s3blob: read %s: %w: %w", r.key, blobport.ErrUnavailable, err)
		} else {
			err = translate("read", r.key, err)
		}
	}
	return n, err
}

func (r *reader) Close() error {
	defer r.cancel()
	return r.body.Close()
}

// Delete implements blobport.Store. S3 answers success for a missing key.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := blobport.CheckKey(key); err != nil {
		return err
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	if err := s.c.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil {
		return translate("delete", key, err)
	}
	return nil
}

// Reset implements blobport.Store (and sandboxport.Resetter) by listing the bucket and removing what
// it lists in batches, but the worlds' files; the bucket itself stays.
func (s *Store) Reset(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	listErr := make(chan error, 1)
	objects := make(chan minio.ObjectInfo)
	go func() {
		defer close(objects)
		for o := range s.c.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Recursive: true}) {
			if o.Err != nil {
				listErr <- o.Err
				cancel() // stops the listing, which then closes its channel
				continue
			}
			if strings.HasPrefix(o.Key, blobport.WorldsPrefix) {
				continue // the worlds' files: each world resets its own
			}
			select {
			case objects <- o:
			case <-ctx.Done():
			}
		}
	}()
	var first error
	for e := range s.c.RemoveObjects(ctx, s.bucket, objects, minio.RemoveObjectsOptions{}) {
		if first == nil {
			first = translate("delete all", e.ObjectName, e.Err)
		}
	}
	select {
	case err := <-listErr:
		return translate("delete all: list", s.bucket, err)
	default:
		return first
	}
}

// Ping implements blobport.Store: the bucket must exist and answer.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	ok, err := s.c.BucketExists(ctx, s.bucket)
	if err != nil {
		return translate("ping", s.bucket, err)
	}
	if !ok {
		return fmt.Errorf("s3blob: bucket %q does not exist", s.bucket)
	}
	return nil
}

// List implements blobport.Store. Each page of the listing is one request
// bounded like any operation; the listing as a whole is bounded by ctx.
func (s *Store) List(ctx context.Context, prefix string, fn func(blobport.Info) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for o := range s.c.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			return translate("list", prefix, o.Err)
		}
		if err := fn(blobport.Info{Key: o.Key, Modified: o.LastModified, Size: o.Size}); err != nil {
			return err
		}
	}
	return nil
}

// Backend implements blobport.Store.
func (s *Store) Backend() string { return "s3" }

// translate wraps a minio-go error into the port's sentinels, keeping the
// original in the chain for the log.
func translate(op, name string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		// The caller gave up; the server may be fine.
		return fmt.Errorf("s3blob: %s %s: %w", op, name, err)
	}
	var resp minio.ErrorResponse
	errors.As(err, &resp)
	switch {
	case resp.Code == minio.NoSuchKey:
		return fmt.Errorf("s3blob: %s %s: %w: %w", op, name, blobport.ErrNotFound, err)
	case resp.StatusCode >= 500, unreachable(err):
		return fmt.Errorf("s3blob: %s %s: %w: %w", op, name, blobport.ErrUnavailable, err)
	}
	return fmt.Errorf("s3blob: %s %s: %w", op, name, err)
}

// unreachable reports whether err means the server could not be reached or
// did not answer in time, as opposed to a refusal (bad credentials, TLS
// mismatch) that retrying would not cure.
func unreachable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) {
		return true
	}
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &op) || errors.As(err, &dns) {
		return true
	}
	// *url.Error itself satisfies net.Error, so look at what it wraps: a
	// timeout awaiting headers, or a connection closed mid-answer.
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Timeout() || errors.Is(ue.Err, io.EOF) || errors.Is(ue.Err, io.ErrUnexpectedEOF)
	}
	return false
}
