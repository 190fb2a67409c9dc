package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/adapters/blobstore/s3blob"
	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/migrations"
	"github.com/feria/feria/ports/blobport"
)

// backends are the process's connections to its backing services, real or
// embedded.
type backends struct {
	db      *bun.DB
	redis   redis.UniversalClient // a *redis.Client or a *redis.ClusterClient
	blobs   blobport.Store
	closers []func()
	// root is the default world's wiring when these are a world's
	// backends, named world: the world shares its queue clients and the
	// controls' Redis client rather than open its own.
	root  *Deps
	world string
}

func (b *backends) close() {
	for i := len(b.closers) - 1; i >= 0; i-- {
		b.closers[i]()
	}
}

// asynqRedis is the connection option asynq needs for the Redis (or Redis
// Cluster) of rdb: asynq opens connections of its own.
func asynqRedis(rdb redis.UniversalClient) (asynq.RedisConnOpt, error) {
	switch c := rdb.(type) {
	case *redis.Client:
		o := c.Options()
		return asynq.RedisClientOpt{Network: o.Network, Addr: o.Addr, Username: o.Username, Password: o.Password, DB: o.DB,
			TLSConfig: o.TLSConfig, DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout}, nil
	case *redis.ClusterClient:
		o := c.Options()
		return asynq.RedisClusterClientOpt{Addrs: o.Addrs, Username: o.Username, Password: o.Password, TLSConfig: o.TLSConfig,
			MaxRedirects: o.MaxRedirects, DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout}, nil
	}
	return nil, fmt.Errorf("redis: a %T is neither a Redis client nor a Redis Cluster client", rdb)
}

// openBackends connects every port to its configured backend and logs which
// one it uses; an unset URL selects the embedded backend.
func openBackends(ctx context.Context, cfg Config, log *slog.Logger) (_ *backends, err error) {
	b := &backends{}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("DATA_DIR: %w", err)
	}

	if b.db, err = openDatabase(ctx, cfg, log); err != nil {
		return nil, err
	}
	b.closers = append(b.closers, func() { b.db.Close() })

	if cfg.RedisURL != "" {
		if b.redis, err = redisstore.Open(cfg.RedisURL); err != nil {
			return nil, fmt.Errorf("REDIS_URL: %w", err)
		}
		if c, ok := b.redis.(*redis.ClusterClient); ok {
			log.Info("backend", slog.String("port", "redis"), slog.String("backend", "redis cluster"), slog.Any("seeds", c.Options().Addrs))
		} else {
			log.Info("backend", slog.String("port", "redis"), slog.String("backend", "redis"), slog.String("addr", b.redis.(*redis.Client).Options().Addr))
		}
	} else {
		var stop func()
		var opt *redis.Options
		if b.redis, opt, stop, err = redisstore.Embedded(cfg.DataDir, log); err != nil {
			return nil, fmt.Errorf("DATA_DIR: %w", err)
		}
		b.closers = append(b.closers, stop)
		log.Info("backend", slog.String("port", "redis"), slog.String("backend", "miniredis (in-process, command log and snapshot in DATA_DIR)"),
			slog.String("addr", opt.Addr), slog.String("log", filepath.Join(cfg.DataDir, redisstore.LogFile)),
			slog.String("snapshot", filepath.Join(cfg.DataDir, redisstore.SnapshotFile)))
	}
	b.closers = append(b.closers, func() { b.redis.Close() })

	if cfg.S3Endpoint != "" {
		if b.blobs, err = s3blob.New(ctx, s3blob.Config{Endpoint: cfg.S3Endpoint, AccessKey: cfg.S3AccessKey,
			SecretKey: cfg.S3SecretKey, Bucket: cfg.S3Bucket, UseSSL: cfg.S3UseSSL, OpTimeout: cfg.S3Timeout}); err != nil {
			return nil, fmt.Errorf("S3_ENDPOINT: %w", err)
		}
		log.Info("backend", slog.String("port", "blobs"), slog.String("backend", "s3"), slog.String("endpoint", cfg.S3Endpoint), slog.String("bucket", cfg.S3Bucket))
	} else {
		root := filepath.Join(cfg.DataDir, "blobs")
		if b.blobs, err = fsblob.New(root); err != nil {
			return nil, fmt.Errorf("DATA_DIR: %w", err)
		}
		log.Info("backend", slog.String("port", "blobs"), slog.String("backend", "filesystem"), slog.String("root", root))
	}
	return b, nil
}

// openDatabase opens PostgreSQL (DATABASE_URL) or the embedded SQLite
// under DATA_DIR.
func openDatabase(ctx context.Context, cfg Config, log *slog.Logger) (*bun.DB, error) {
	if cfg.DatabaseURL != "" {
		db, err := sqlstore.OpenPostgres(ctx, cfg.DatabaseURL)
		if err != nil {
			return nil, fmt.Errorf("DATABASE_URL: %w", err)
		}
		log.Info("backend", slog.String("port", "database"), slog.String("backend", "postgres"))
		return db, nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("DATA_DIR: %w", err)
	}
	path := filepath.Join(cfg.DataDir, "feria.db")
	db, err := sqlstore.OpenSQLite(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("DATA_DIR: %w", err)
	}
	log.Info("backend", slog.String("port", "database"), slog.String("backend", "sqlite"), slog.String("path", path))
	return db, nil
}

// migrate brings the schema up to date.
func migrate(ctx context.Context, db *bun.DB, log *slog.Logger) error {
	applied, err := migrations.Up(ctx, db)
	if err != nil {
		return err
	}
	log.Info("migrations", slog.Int("applied", len(applied)), slog.Any("names", applied))
	return nil
}
