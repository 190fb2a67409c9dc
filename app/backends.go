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
	db       *bun.DB
	redis    *redis.Client
	redisOpt *redis.Options
	blobs    blobport.Store
	closers  []func()
}

func (b *backends) close() {
	for i := len(b.closers) - 1; i >= 0; i-- {
		b.closers[i]()
	}
}

// asynqRedis is the connection option asynq needs for the Redis of o.
func asynqRedis(o *redis.Options) asynq.RedisClientOpt {
	return asynq.RedisClientOpt{Addr: o.Addr, Username: o.Username, Password: o.Password, DB: o.DB, TLSConfig: o.TLSConfig}
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

	if cfg.DatabaseURL != "" {
		b.db, err = sqlstore.OpenPostgres(ctx, cfg.DatabaseURL)
		if err != nil {
			return nil, fmt.Errorf("DATABASE_URL: %w", err)
		}
		log.Info("backend", slog.String("port", "database"), slog.String("backend", "postgres"))
	} else {
		path := filepath.Join(cfg.DataDir, "feria.db")
		if b.db, err = sqlstore.OpenSQLite(ctx, path); err != nil {
			return nil, fmt.Errorf("DATA_DIR: %w", err)
		}
		log.Info("backend", slog.String("port", "database"), slog.String("backend", "sqlite"), slog.String("path", path))
	}
	b.closers = append(b.closers, func() { b.db.Close() })

	if cfg.RedisURL != "" {
		if b.redis, b.redisOpt, err = redisstore.Open(cfg.RedisURL); err != nil {
			return nil, fmt.Errorf("REDIS_URL: %w", err)
		}
		log.Info("backend", slog.String("port", "redis"), slog.String("backend", "redis"), slog.String("addr", b.redisOpt.Addr))
	} else {
		var stop func()
		if b.redis, b.redisOpt, stop, err = redisstore.Embedded(cfg.DataDir, log); err != nil {
			return nil, fmt.Errorf("DATA_DIR: %w", err)
		}
		b.closers = append(b.closers, stop)
		log.Info("backend", slog.String("port", "redis"), slog.String("backend", "miniredis (in-process, snapshot in DATA_DIR)"),
			slog.String("addr", b.redisOpt.Addr), slog.String("snapshot", filepath.Join(cfg.DataDir, redisstore.SnapshotFile)))
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

// migrate brings the schema up to date.
func migrate(ctx context.Context, db *bun.DB, log *slog.Logger) error {
	applied, err := migrations.Up(ctx, db)
	if err != nil {
		return err
	}
	log.Info("migrations", slog.Int("applied", len(applied)), slog.Any("names", applied))
	return nil
}
