// Package app wires feria together: configuration, adapters, use cases, the
// HTTP server and the job workers, and the lifecycle of the process.
package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/core/control"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/core/worlds"
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
	S3Timeout         time.Duration
	SandboxKey        string // empty: sandbox disabled (except in embedded mode)
	AdminKey          string
	SMTPURL           string // empty: e-mails are logged
	LogLevel          slog.Level
	LogFormat         string // "text", "json", or empty: text when the log goes to a terminal
	ShutdownTimeout   time.Duration
	WorkerConcurrency int
	// WorkerRetryDelay is the wait before a failed job runs again; zero is
	// asynq's growing backoff, the production behaviour.
	WorkerRetryDelay time.Duration
	// WorkerDelayedCheck is how often a worker moves retried and scheduled
	// jobs that are due back to their queue.
	WorkerDelayedCheck time.Duration
	// HTTPReadTimeout bounds the reading of one request (zero: 30 s); not an
	// environment variable: tests shorten it.
	HTTPReadTimeout time.Duration
	// RateLimits are the rate limits in force until the sandbox sets others
	// (and again after DELETE /sandbox).
	RateLimits []control.RateLimit
	// NoJournal and NoGuard leave the sandbox's test-control middlewares
	// out (the journal; faults and rate limits); not environment variables:
	// the controls' load run measures what they cost.
	NoJournal, NoGuard bool
	// MaxWorlds bounds how many worlds exist (0: no bound); WorldTTL is how
	// long a world may go unused before it is removed.
	MaxWorlds int
	WorldTTL  time.Duration
	// WorldQuota bounds what each world (not the default world) holds and
	// asks.
	WorldQuota worlds.Quota
	// WorldMeasure is how long a process trusts its last measure of a
	// world's rows and bytes (zero: worldMeasure); not an environment
	// variable: tests shorten it.
	WorldMeasure time.Duration
	// CallbackAllowPrivate lets callbacks reach loopback and private
	// addresses.
	CallbackAllowPrivate bool
	// WorldRecheck is how long a process serves a wired world before it
	// reads the registry again (zero: a second); not an environment
	// variable: tests shorten it.
	WorldRecheck time.Duration
	// RetentionOutbox is how long a relayed outbox message is kept;
	// RetentionNotifications how long a notification to an application is
	// kept after its last attempt, delivered or missed (at least
	// webhooks.KeepMissed, the two days a missed feed is listed).
	RetentionOutbox, RetentionNotifications time.Duration
	// FixturesFile is a fixtures file loaded at start-up, in the shape of POST
	// /sandbox/fixtures; empty: none.
	FixturesFile string
}

// Variable is one environment variable of the binary.
type Variable struct {
	Name string
	// Default is the value used when the variable is unset or blank; empty
	// when there is none.
	Default string
	// Unset says what an unset variable means when there is no default
	// value (the README and --help show it in the default column).
	Unset string
	// Meaning is markdown as the README shows it; --help drops the
	// backquotes.
	Meaning string
}

// Variables is every environment variable the binary reads, in the order
// `feria --help` and the README's table show them. LoadConfig reads exactly
// these and nothing else; a test holds the README's table to this list.
var Variables = []Variable{
	{Name: "HTTP_ADDR", Default: ":8080", Meaning: "address the API listens on"},
	{Name: "DATA_DIR", Default: "./var", Meaning: "where the embedded backends keep their data"},
	{Name: "DATABASE_URL", Unset: "SQLite at `DATA_DIR/feria.db`", Meaning: "PostgreSQL: `postgres://user:pass@host:5432/db?sslmode=disable`; `&pool_max_conns=N` sizes each process's pool (default: the greater of 4 and its cores)"},
	{Name: "REDIS_URL", Unset: "an in-process Redis", Meaning: "`redis://host:6379/0` (counters and job queues), or a Redis Cluster: `redis+cluster://host1:6379,host2:6379` (seed nodes, database 0; `rediss://`, `rediss+cluster://` for TLS)"},
	{Name: "S3_ENDPOINT", Unset: "files under `DATA_DIR/blobs`", Meaning: "MinIO/S3 `host:port` (no scheme) for stored files"},
	{Name: "S3_ACCESS_KEY", Unset: "none (needed with `S3_ENDPOINT`)", Meaning: "S3 access key"},
	{Name: "S3_SECRET_KEY", Unset: "none (needed with `S3_ENDPOINT`)", Meaning: "S3 secret key"},
	{Name: "S3_BUCKET", Default: "feria", Meaning: "bucket, created at start-up if missing"},
	{Name: "S3_USE_SSL", Default: "false", Meaning: "TLS to the S3 endpoint"},
	{Name: "S3_TIMEOUT", Default: "5s", Meaning: "the longest one file operation may take, retries included: a frozen or unreachable store answers 503 within it"},
	{Name: "SANDBOX_KEY", Unset: "sandbox disabled (404); the embedded mode makes one and prints it", Meaning: "the `X-Sandbox-Key` of `/sandbox`"},
	{Name: "ADMIN_KEY", Unset: "dashboard disabled", Meaning: "password of user `admin` on `/admin/jobs`"},
	{Name: "SMTP_URL", Unset: "e-mails are logged", Meaning: "`smtp://user:pass@host:587` for buyer e-mails"},
	{Name: "LOG_LEVEL", Default: "info", Meaning: "`debug`, `info`, `warn` or `error` (logs go to stderr)"},
	{Name: "LOG_FORMAT", Unset: "`text` when stderr is a terminal, `json` otherwise", Meaning: "`text` (lines for a person) or `json` (one JSON object a line, one value a key)"},
	{Name: "SHUTDOWN_TIMEOUT", Default: "20s", Meaning: "how long in-flight requests and jobs may finish after SIGTERM"},
	{Name: "WORKER_CONCURRENCY", Default: "10", Meaning: "jobs processed at once by a worker process, and as many again of the worlds' jobs"},
	{Name: "WORKER_RETRY_DELAY", Unset: "a growing backoff, 15-45 s before the first retry, longer after", Meaning: "a duration (`1s`): the wait before every retry of a failed job, or of one whose worker died, instead (for tests)"},
	{Name: "WORKER_DELAYED_CHECK", Default: "5s", Meaning: "how often a worker moves retried and scheduled jobs that are due back to their queue"},
	{Name: "RATE_LIMITS", Unset: "the marketplace's documented limits (docs/sandbox.md)", Meaning: "the default rate limits, as the body of `PUT /sandbox/rate_limits`: `{\"rules\": [{\"method\": \"POST\", \"path\": \"/items/*/compatibilities\", \"per_minute\": 100}]}`; `{\"rules\": []}` for none"},
	{Name: "MAX_WORLDS", Default: "1000", Meaning: "how many worlds (`PUT /sandbox/worlds/{name}`) may exist at once; creating one more answers 429; `0` for no bound"},
	{Name: "CALLBACK_ALLOW_PRIVATE", Unset: "`true` in the embedded mode, else `false`", Meaning: "whether notifications to applications may call back loopback and private addresses (`true` or `false`); link-local and metadata addresses are never called"},
	{Name: "WORLD_TTL", Default: "168h", Meaning: "a world not used for this long (a duration, `168h` is 7 days) is removed with everything of it"},
	{Name: "WORLD_MAX_ROWS", Default: "1000000", Meaning: "the rows a world's database may hold: a write to a world holding them answers 429 until it frees room; `0` for no bound (the default world has none)"},
	{Name: "WORLD_MAX_BYTES", Default: "1073741824", Meaning: "the bytes a world's rows and files may hold (1 GiB): a write whose body does not fit in the room left answers 413; `0` for no bound"},
	{Name: "WORLD_MAX_JOURNAL", Default: "1000", Meaning: "how many requests a world's journal (`/sandbox/requests`) keeps, 1 to 1000: older ones are dropped"},
	{Name: "WORLD_MAX_REQUESTS_PER_MINUTE", Default: "6000", Meaning: "the public requests a world answers in a minute: more answer 429 with `Retry-After` until the minute ends; `0` for no bound"},
	{Name: "RETENTION_OUTBOX", Default: "168h", Meaning: "how long a relayed outbox message, and the record of a compatibility copy job done, is kept (a duration); older ones are removed every hour, by the service clock"},
	{Name: "RETENTION_NOTIFICATIONS", Default: "168h", Meaning: "how long a notification to an application is kept after its last attempt, with its attempts, delivered or missed (at least `48h`, the two days a missed feed is listed)"},
	{Name: "FIXTURES_FILE", Unset: "no fixtures are loaded", Meaning: "a JSON file in the shape of `POST /sandbox/fixtures`, loaded whole at start-up (`serve`, `all`) before the API listens; a refused entry stops start-up with a log line naming it"},
}

// variable returns the declared variable of name; reading an undeclared
// one is a programming error that the tests catch.
func variable(name string) Variable {
	for _, v := range Variables {
		if v.Name == name {
			return v
		}
	}
	panic("app: environment variable " + name + " is not declared in app.Variables")
}

// Help is what `feria --help` prints: the commands and every variable.
func Help() string {
	var b strings.Builder
	b.WriteString(Usage)
	b.WriteString("\n\nenvironment (a bad value stops start-up with one line naming the variable):\n")
	for _, v := range Variables {
		def := "default " + v.Default
		if v.Default == "" {
			def = "unset: " + v.Unset
		}
		fmt.Fprintf(&b, "  %-22s %s\n  %-22s %s\n", v.Name, plain(v.Meaning), "", plain(def))
	}
	return b.String()
}

// plain drops markdown's backquotes.
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }

// Embedded reports whether every backing service runs inside the process.
func (c Config) Embedded() bool {
	return c.DatabaseURL == "" && c.RedisURL == "" && c.S3Endpoint == ""
}

// LoadConfig parses the environment. The error names the offending variable.
func LoadConfig(getenv func(string) string) (Config, error) {
	// Every declared variable is read here, once, and nothing else is.
	vals := make(map[string]string, len(Variables))
	for _, v := range Variables {
		vals[v.Name] = getenv(v.Name)
	}
	env := func(key string) string {
		if v := strings.TrimSpace(vals[key]); v != "" {
			return v
		}
		return variable(key).Default
	}
	c := Config{
		HTTPAddr:    env("HTTP_ADDR"),
		DataDir:     env("DATA_DIR"),
		DatabaseURL: env("DATABASE_URL"),
		RedisURL:    env("REDIS_URL"),
		S3Endpoint:  env("S3_ENDPOINT"),
		S3AccessKey: env("S3_ACCESS_KEY"),
		S3SecretKey: env("S3_SECRET_KEY"),
		S3Bucket:    env("S3_BUCKET"),
		SandboxKey:  env("SANDBOX_KEY"),
		AdminKey:    env("ADMIN_KEY"),
		SMTPURL:     env("SMTP_URL"),
	}
	c.FixturesFile = env("FIXTURES_FILE")
	if err := c.parseTunings(env, vals); err != nil {
		return c, err
	}
	return c, c.checkAddresses()
}

// parseTunings parses the variables that are not addresses: durations,
// flags, levels and limits. vals are the values as set, for the errors.
func (c *Config) parseTunings(env func(string) string, vals map[string]string) error {
	var err error
	if c.S3Timeout, err = time.ParseDuration(env("S3_TIMEOUT")); err != nil || c.S3Timeout <= 0 {
		return fmt.Errorf("S3_TIMEOUT: want a positive duration such as 5s, got %q", vals["S3_TIMEOUT"])
	}
	if c.S3UseSSL, err = strconv.ParseBool(env("S3_USE_SSL")); err != nil {
		return fmt.Errorf("S3_USE_SSL: want true or false, got %q", vals["S3_USE_SSL"])
	}
	if err := c.LogLevel.UnmarshalText([]byte(env("LOG_LEVEL"))); err != nil {
		return fmt.Errorf("LOG_LEVEL: want debug, info, warn or error, got %q", vals["LOG_LEVEL"])
	}
	switch c.LogFormat = env("LOG_FORMAT"); c.LogFormat {
	case "", "text", "json":
	default:
		return fmt.Errorf("LOG_FORMAT: want text or json, got %q", vals["LOG_FORMAT"])
	}
	if c.ShutdownTimeout, err = time.ParseDuration(env("SHUTDOWN_TIMEOUT")); err != nil || c.ShutdownTimeout <= 0 {
		return fmt.Errorf("SHUTDOWN_TIMEOUT: want a positive duration such as 20s, got %q", vals["SHUTDOWN_TIMEOUT"])
	}
	if c.WorkerConcurrency, err = strconv.Atoi(env("WORKER_CONCURRENCY")); err != nil || c.WorkerConcurrency < 1 {
		return fmt.Errorf("WORKER_CONCURRENCY: want a positive integer, got %q", vals["WORKER_CONCURRENCY"])
	}
	if s := env("WORKER_RETRY_DELAY"); s != "" {
		if c.WorkerRetryDelay, err = time.ParseDuration(s); err != nil || c.WorkerRetryDelay <= 0 {
			return fmt.Errorf("WORKER_RETRY_DELAY: want a positive duration such as 1s, got %q", s)
		}
	}
	if c.WorkerDelayedCheck, err = time.ParseDuration(env("WORKER_DELAYED_CHECK")); err != nil || c.WorkerDelayedCheck <= 0 {
		return fmt.Errorf("WORKER_DELAYED_CHECK: want a positive duration such as 5s, got %q", vals["WORKER_DELAYED_CHECK"])
	}
	c.CallbackAllowPrivate = c.Embedded()
	if raw := env("CALLBACK_ALLOW_PRIVATE"); raw != "" {
		if c.CallbackAllowPrivate, err = strconv.ParseBool(raw); err != nil {
			return fmt.Errorf("CALLBACK_ALLOW_PRIVATE: want true or false, got %q", raw)
		}
	}
	if c.MaxWorlds, err = strconv.Atoi(env("MAX_WORLDS")); err != nil || c.MaxWorlds < 0 {
		return fmt.Errorf("MAX_WORLDS: want a whole number, 0 for no bound, got %q", vals["MAX_WORLDS"])
	}
	if c.WorldTTL, err = time.ParseDuration(env("WORLD_TTL")); err != nil || c.WorldTTL <= 0 {
		return fmt.Errorf("WORLD_TTL: want a positive duration such as 168h, got %q", vals["WORLD_TTL"])
	}
	if err := c.parseQuota(env, vals); err != nil {
		return err
	}
	if c.RetentionOutbox, err = time.ParseDuration(env("RETENTION_OUTBOX")); err != nil || c.RetentionOutbox <= 0 {
		return fmt.Errorf("RETENTION_OUTBOX: want a positive duration such as 168h, got %q", vals["RETENTION_OUTBOX"])
	}
	if c.RetentionNotifications, err = time.ParseDuration(env("RETENTION_NOTIFICATIONS")); err != nil || c.RetentionNotifications < webhooks.KeepMissed {
		return fmt.Errorf("RETENTION_NOTIFICATIONS: want a duration of 48h or more such as 168h, got %q", vals["RETENTION_NOTIFICATIONS"])
	}
	c.RateLimits = control.DefaultRateLimits()
	if s := env("RATE_LIMITS"); s != "" {
		if c.RateLimits, err = parseRateLimits(s); err != nil {
			return fmt.Errorf("RATE_LIMITS: %w", err)
		}
	}
	return nil
}

// parseQuota parses the worlds' quota.
func (c *Config) parseQuota(env func(string) string, vals map[string]string) error {
	q := &c.WorldQuota
	var err error
	if q.Rows, err = strconv.ParseInt(env("WORLD_MAX_ROWS"), 10, 64); err != nil || q.Rows < 0 {
		return fmt.Errorf("WORLD_MAX_ROWS: want a whole number, 0 for no bound, got %q", vals["WORLD_MAX_ROWS"])
	}
	if q.Bytes, err = strconv.ParseInt(env("WORLD_MAX_BYTES"), 10, 64); err != nil || q.Bytes < 0 {
		return fmt.Errorf("WORLD_MAX_BYTES: want a whole number of bytes, 0 for no bound, got %q", vals["WORLD_MAX_BYTES"])
	}
	if q.Journal, err = strconv.Atoi(env("WORLD_MAX_JOURNAL")); err != nil || q.Journal < 1 || q.Journal > control.JournalSize {
		return fmt.Errorf("WORLD_MAX_JOURNAL: want a whole number from 1 to %d, got %q", control.JournalSize, vals["WORLD_MAX_JOURNAL"])
	}
	if q.PerMinute, err = strconv.Atoi(env("WORLD_MAX_REQUESTS_PER_MINUTE")); err != nil || q.PerMinute < 0 {
		return fmt.Errorf("WORLD_MAX_REQUESTS_PER_MINUTE: want a whole number, 0 for no bound, got %q", vals["WORLD_MAX_REQUESTS_PER_MINUTE"])
	}
	return nil
}

// checkAddresses checks the forms of the addresses set, and the keys S3
// needs; the errors mask what may hold a password.
func (c *Config) checkAddresses() error {
	if !strings.Contains(c.HTTPAddr, ":") {
		return fmt.Errorf("HTTP_ADDR: want host:port or :port, got %q", c.HTTPAddr)
	}
	if c.DatabaseURL != "" {
		u, err := url.Parse(c.DatabaseURL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return fmt.Errorf("DATABASE_URL: want postgres://user@host:port/db, got %q", mask(c.DatabaseURL))
		}
	}
	if c.RedisURL != "" {
		if redisstore.IsCluster(c.RedisURL) {
			if _, err := redisstore.ParseCluster(c.RedisURL); err != nil {
				return fmt.Errorf("REDIS_URL: %v", err)
			}
		} else if u, err := url.Parse(c.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
			return fmt.Errorf("REDIS_URL: want redis://host:port/db or redis+cluster://host1:port,host2:port, got %q", mask(c.RedisURL))
		}
	}
	if c.S3Endpoint != "" {
		if strings.Contains(c.S3Endpoint, "://") {
			return fmt.Errorf("S3_ENDPOINT: want host:port without a scheme (TLS is S3_USE_SSL), got %q", c.S3Endpoint)
		}
		if c.S3AccessKey == "" || c.S3SecretKey == "" {
			return fmt.Errorf("S3_ACCESS_KEY: S3_ACCESS_KEY and S3_SECRET_KEY are required with S3_ENDPOINT")
		}
	}
	if c.SMTPURL != "" {
		u, err := url.Parse(c.SMTPURL)
		if err != nil || u.Scheme != "smtp" || u.Host == "" {
			return fmt.Errorf("SMTP_URL: want smtp://[user:pass@]host:port, got %q", mask(c.SMTPURL))
		}
	}
	return nil
}

// parseRateLimits reads RATE_LIMITS: the body of PUT /sandbox/rate_limits.
func parseRateLimits(s string) ([]control.RateLimit, error) {
	var body struct {
		Rules *[]control.RateLimitInput `json:"rules"`
	}
	if err := json.Unmarshal([]byte(s), &body); err != nil || body.Rules == nil {
		return nil, fmt.Errorf(`want the body of PUT /sandbox/rate_limits, {"rules": [{"method": "POST", "path": "/a/*", "per_minute": 100}]}, got %q`, s)
	}
	limits, err := control.NewRateLimits(*body.Rules)
	if err != nil {
		return nil, errors.New(kernel.MessageOf(err))
	}
	return limits, nil
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
		slog.String("log_format", c.LogFormat),
		slog.Int("worker_concurrency", c.WorkerConcurrency),
		slog.Duration("worker_retry_delay", c.WorkerRetryDelay),
		slog.Duration("worker_delayed_check", c.WorkerDelayedCheck),
		slog.Int("rate_limits", len(c.RateLimits)),
		slog.Int("max_worlds", c.MaxWorlds),
		slog.Bool("callback_allow_private", c.CallbackAllowPrivate),
		slog.Duration("world_ttl", c.WorldTTL),
		slog.Int64("world_max_rows", c.WorldQuota.Rows),
		slog.Int64("world_max_bytes", c.WorldQuota.Bytes),
		slog.Int("world_max_journal", c.WorldQuota.Journal),
		slog.Int("world_max_requests_per_minute", c.WorldQuota.PerMinute),
		slog.String("fixtures_file", c.FixturesFile),
	)
}

// mask hides the password of a URL. A URL that does not parse is masked
// all the same: everything between the scheme and the last '@' (where a
// user and password would be) is replaced.
func mask(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		at := strings.LastIndex(raw, "@")
		if at < 0 {
			return raw
		}
		start := strings.Index(raw, "://")
		if start < 0 || start > at {
			start = -3
		}
		return raw[:start+3] + "xxxxx" + raw[at:]
	}
	if u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
