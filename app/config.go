// Package app wires feria together: configuration, adapters, use cases, the
// HTTP server and the job workers, and the lifecycle of the process.
package app

import (
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is everything feria reads from its environment, parsed once.
type Config struct {
	HTTPAddr          string
	DataDir           string
	DatabaseURL       string // empty: embedded SQLite under DataDir
	RedisURL          string // empty: in-process Redis
	S3Endpoint        string // empty: filesystem blobs under DataDir
	S3AccessKey       string
	S3SecretKey       string
	S3Bucket          string
	S3UseSSL          bool
	SandboxKey        string // empty: sandbox disabled (except in embedded mode)
	AdminKey          string
	SMTPURL           string // empty: e-mails are logged
	LogLevel          slog.Level
	ShutdownTimeout   time.Duration
	WorkerConcurrency int
}

// Embedded reports whether every backing service runs inside the process.
func (c Config) Embedded() bool {
	return c.DatabaseURL == "" && c.RedisURL == "" && c.S3Endpoint == ""
}

// LoadConfig parses the environment. The error names the offending variable.
func LoadConfig(getenv func(string) string) (Config, error) {
	env := func(key, def string) string {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		HTTPAddr:    env("HTTP_ADDR", ":8080"),
		DataDir:     env("DATA_DIR", "./var"),
		DatabaseURL: env("DATABASE_URL", ""),
		RedisURL:    env("REDIS_URL", ""),
		S3Endpoint:  env("S3_ENDPOINT", ""),
		S3AccessKey: env("S3_ACCESS_KEY", ""),
		S3SecretKey: env("S3_SECRET_KEY", ""),
		S3Bucket:    env("S3_BUCKET", "feria"),
		SandboxKey:  env("SANDBOX_KEY", ""),
		AdminKey:    env("ADMIN_KEY", ""),
		SMTPURL:     env("SMTP_URL", ""),
	}
	var err error
	if c.S3UseSSL, err = strconv.ParseBool(env("S3_USE_SSL", "false")); err != nil {
		return c, fmt.Errorf("S3_USE_SSL: want true or false, got %q", getenv("S3_USE_SSL"))
	}
	if err := c.LogLevel.UnmarshalText([]byte(env("LOG_LEVEL", "info"))); err != nil {
		return c, fmt.Errorf("LOG_LEVEL: want debug, info, warn or error, got %q", getenv("LOG_LEVEL"))
	}
	if c.ShutdownTimeout, err = time.ParseDuration(env("SHUTDOWN_TIMEOUT", "20s")); err != nil || c.ShutdownTimeout <= 0 {
		return c, fmt.Errorf("SHUTDOWN_TIMEOUT: want a positive duration such as 20s, got %q", getenv("SHUTDOWN_TIMEOUT"))
	}
	if c.WorkerConcurrency, err = strconv.Atoi(env("WORKER_CONCURRENCY", "10")); err != nil || c.WorkerConcurrency < 1 {
		return c, fmt.Errorf("WORKER_CONCURRENCY: want a positive integer, got %q", getenv("WORKER_CONCURRENCY"))
	}
	if !strings.Contains(c.HTTPAddr, ":") {
		return c, fmt.Errorf("HTTP_ADDR: want host:port or :port, got %q", c.HTTPAddr)
	}
	if c.DatabaseURL != "" {
		u, err := url.Parse(c.DatabaseURL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return c, fmt.Errorf("DATABASE_URL: want postgres://user@host:port/db, got %q", mask(c.DatabaseURL))
		}
	}
	if c.RedisURL != "" {
		u, err := url.Parse(c.RedisURL)
		if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
			return c, fmt.Errorf("REDIS_URL: want redis://host:port/db, got %q", mask(c.RedisURL))
		}
	}
	if c.S3Endpoint != "" {
		if strings.Contains(c.S3Endpoint, "://") {
			return c, fmt.Errorf("S3_ENDPOINT: want host:port without a scheme (TLS is S3_USE_SSL), got %q", c.S3Endpoint)
		}
		if c.S3AccessKey == "" || c.S3SecretKey == "" {
			return c, fmt.Errorf("S3_ACCESS_KEY: S3_ACCESS_KEY and S3_SECRET_KEY are required with S3_ENDPOINT")
		}
	}
	if c.SMTPURL != "" {
		u, err := url.Parse(c.SMTPURL)
		if err != nil || u.Scheme != "smtp" || u.Host == "" {
			return c, fmt.Errorf("SMTP_URL: want smtp://[user:pass@]host:port, got %q", mask(c.SMTPURL))
		}
	}
	return c, nil
}

// LogValue masks secrets so the configuration can be logged at start-up.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("http_addr", c.HTTPAddr),
		slog.String("data_dir", c.DataDir),
		slog.String("database_url", mask(c.DatabaseURL)),
		slog.String("redis_url", mask(c.RedisURL)),
		slog.String("s3_endpoint", c.S3Endpoint),
		slog.String("s3_bucket", c.S3Bucket),
		slog.Bool("s3_use_ssl", c.S3UseSSL),
		slog.Bool("sandbox", c.SandboxKey != ""),
		slog.Bool("admin", c.AdminKey != ""),
		slog.String("smtp_url", mask(c.SMTPURL)),
		slog.String("log_level", c.LogLevel.String()),
	)
}

// mask hides the password of a URL.
func mask(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
