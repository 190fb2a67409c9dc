package app

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/control"
	"github.com/feria/feria/core/worlds"
)

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestLoadConfigDefaults(t *testing.T) {
	c, err := LoadConfig(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":8080" || c.DataDir != "./var" || c.S3Bucket != "feria" || c.LogLevel != slog.LevelInfo ||
		c.ShutdownTimeout != 20*time.Second || !c.Embedded() || c.SandboxKey != "" || c.WorkerConcurrency != 10 ||
		c.WorkerRetryDelay != 0 || c.WorkerDelayedCheck != 5*time.Second {
		t.Fatalf("defaults: %+v", c)
	}
	if want := (worlds.Quota{Rows: 1_000_000, Bytes: 1 << 30, Journal: control.JournalSize, PerMinute: 6000}); c.WorldQuota != want {
		t.Fatalf("world quota: %+v, want %+v", c.WorldQuota, want)
	}
}

func TestLoadConfigReal(t *testing.T) {
	c, err := LoadConfig(envOf(map[string]string{
		"DATABASE_URL": "postgres://u:secret@db:5432/feria", "REDIS_URL": "redis://r:6379/2",
		"S3_ENDPOINT": "minio:9000", "S3_ACCESS_KEY": "a", "S3_SECRET_KEY": "b", "S3_USE_SSL": "true",
		"LOG_LEVEL": "debug", "LOG_FORMAT": "json", "HTTP_ADDR": "127.0.0.1:9999", "SHUTDOWN_TIMEOUT": "3s",
		"WORKER_RETRY_DELAY": "1s", "WORKER_DELAYED_CHECK": "250ms",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Embedded() || !c.S3UseSSL || c.LogLevel != slog.LevelDebug || c.LogFormat != "json" || c.ShutdownTimeout != 3*time.Second ||
		c.WorkerRetryDelay != time.Second || c.WorkerDelayedCheck != 250*time.Millisecond {
		t.Fatalf("config: %+v", c)
	}
	if logged := c.LogValue().String(); strings.Contains(logged, "secret") {
		t.Fatalf("password logged: %s", logged)
	}
}

// Every bad variable stops start-up with one line that names it.
func TestLoadConfigErrorsNameTheVariable(t *testing.T) {
	cases := map[string]map[string]string{
		"S3_USE_SSL":                    {"S3_USE_SSL": "maybe"},
		"LOG_LEVEL":                     {"LOG_LEVEL": "loud"},
		"LOG_FORMAT":                    {"LOG_FORMAT": "yaml"},
		"SHUTDOWN_TIMEOUT":              {"SHUTDOWN_TIMEOUT": "soon"},
		"WORKER_CONCURRENCY":            {"WORKER_CONCURRENCY": "0"},
		"HTTP_ADDR":                     {"HTTP_ADDR": "8080"},
		"DATABASE_URL":                  {"DATABASE_URL": "mysql://x"},
		"REDIS_URL":                     {"REDIS_URL": "http://x"},
		"REDIS_URL ":                    {"REDIS_URL": "redis+cluster://r1:7000,r2:7001/1"},
		"REDIS_URL  ":                   {"REDIS_URL": "redis+cluster://"},
		"REDIS_URL   ":                  {"REDIS_URL": "redis+cluster://r1:7000?pool=big"},
		"S3_ENDPOINT":                   {"S3_ENDPOINT": "http://minio:9000", "S3_ACCESS_KEY": "a", "S3_SECRET_KEY": "b"},
		"S3_ACCESS_KEY":                 {"S3_ENDPOINT": "minio:9000"},
		"SMTP_URL":                      {"SMTP_URL": "mail.example"},
		"WORKER_RETRY_DELAY":            {"WORKER_RETRY_DELAY": "-1s"},
		"WORKER_DELAYED_CHECK":          {"WORKER_DELAYED_CHECK": "often"},
		"RATE_LIMITS":                   {"RATE_LIMITS": "100"},
		"WORLD_MAX_ROWS":                {"WORLD_MAX_ROWS": "-1"},
		"WORLD_MAX_BYTES":               {"WORLD_MAX_BYTES": "1GB"},
		"WORLD_MAX_JOURNAL":             {"WORLD_MAX_JOURNAL": "1001"},
		"WORLD_MAX_JOURNAL ":            {"WORLD_MAX_JOURNAL": "0"},
		"WORLD_MAX_REQUESTS_PER_MINUTE": {"WORLD_MAX_REQUESTS_PER_MINUTE": "many"},
	}
	for name, env := range cases {
		_, err := LoadConfig(envOf(env))
		name = strings.TrimSpace(name) // spaces tell apart cases of one variable
		if err == nil || !strings.HasPrefix(err.Error(), name+":") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v; want one line starting with %s:", name, err, name)
		}
	}
}

// LoadConfig reads every declared variable and nothing else, whatever the
// environment holds: the README's table and --help list exactly these.
func TestLoadConfigReadsExactlyTheDeclaredVariables(t *testing.T) {
	declared := map[string]bool{}
	for _, v := range Variables {
		if declared[v.Name] || v.Meaning == "" || (v.Default == "") == (v.Unset == "") {
			t.Errorf("%s: declared twice, without a meaning, or with both or neither of Default and Unset", v.Name)
		}
		declared[v.Name] = true
	}
	full := map[string]string{"DATABASE_URL": "postgres://db/x", "REDIS_URL": "redis://r:6379/0", "S3_ENDPOINT": "m:9000",
		"S3_ACCESS_KEY": "a", "S3_SECRET_KEY": "b", "SMTP_URL": "smtp://m:25", "WORKER_RETRY_DELAY": "1s"}
	for _, env := range []map[string]string{nil, full} {
		read := map[string]bool{}
		if _, err := LoadConfig(func(k string) string { read[k] = true; return env[k] }); err != nil {
			t.Fatal(err)
		}
		for k := range read {
			if !declared[k] {
				t.Errorf("LoadConfig read %s, which app.Variables does not declare", k)
			}
		}
		for k := range declared {
			if !read[k] {
				t.Errorf("app.Variables declares %s, which LoadConfig never reads", k)
			}
		}
	}
	help := Help()
	for _, v := range Variables {
		if !strings.Contains(help, v.Name) || !strings.Contains(help, plain(v.Meaning)) ||
			!strings.Contains(help, plain(v.Default+v.Unset)) || strings.Contains(help, "`") {
			t.Errorf("--help lacks %s, its meaning or its default, or shows markdown:\n%s", v.Name, help)
		}
	}
}

// A URL that fails to parse must not be printed whole in the start-up
// error, password included.
func TestUnparsableURLIsMasked(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"DATABASE_URL", "postgres://feria:s3cr%zzet@db:5432/feria"},
		{"REDIS_URL", "redis://:s3cr%zzet@r:6379/0"},
		{"REDIS_URL", "redis+cluster://:s3cr%zzet@r1:7000,r2:7001"},
		{"REDIS_URL", "redis+cluster://feria:s3cret@r1:7000,r2:7001/2"},
		{"SMTP_URL", "smtp://mailer:s3cr%zzet@mx:587"},
		{"DATABASE_URL", "postgres://feria:s3cr@t%zz@db/feria"},
	} {
		_, err := LoadConfig(envOf(map[string]string{tc.name: tc.value}))
		if err == nil || !strings.HasPrefix(err.Error(), tc.name) {
			t.Fatalf("%s=%s: %v; want an error naming the variable", tc.name, tc.value, err)
		}
		if strings.Contains(err.Error(), "s3cr") {
			t.Errorf("%s: the error shows the password: %v", tc.name, err)
		}
	}
}

// RATE_LIMITS replaces the documented limits with the body of PUT
// /sandbox/rate_limits; unset, the documented limits apply; a bad rule is
// one line naming the variable and the rule.
func TestLoadConfigRateLimits(t *testing.T) {
	c, err := LoadConfig(envOf(nil))
	if err != nil || len(c.RateLimits) != len(control.DefaultRateLimits()) {
		t.Fatalf("defaults: %v %v", c.RateLimits, err)
	}
	c, err = LoadConfig(envOf(map[string]string{"RATE_LIMITS": `{"rules": [{"method": "get", "path": "/items/*", "per_minute": 5}]}`}))
	if err != nil || len(c.RateLimits) != 1 || *c.RateLimits[0].Method != "GET" || c.RateLimits[0].PerMinute != 5 {
		t.Fatalf("set: %+v %v", c.RateLimits, err)
	}
	if c, err = LoadConfig(envOf(map[string]string{"RATE_LIMITS": `{"rules": []}`})); err != nil || c.RateLimits == nil || len(c.RateLimits) != 0 {
		t.Fatalf("none: %#v %v", c.RateLimits, err)
	}
	for env, want := range map[string]string{
		`{"rules": [{"path": "/a", "per_minute": 0}]}`: "RATE_LIMITS: rules[0]: per_minute must be 1..1000000, got 0",
		`{}`:    `RATE_LIMITS: want the body of PUT /sandbox/rate_limits`,
		`[1,2]`: `RATE_LIMITS: want the body of PUT /sandbox/rate_limits`,
	} {
		if _, err := LoadConfig(envOf(map[string]string{"RATE_LIMITS": env})); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("RATE_LIMITS=%s: %v, want %s", env, err, want)
		}
	}
}

// REDIS_URL names a Redis Cluster with redis+cluster:// and its seed nodes
// (docs/decisions.md, "Running at scale").
func TestRedisClusterURL(t *testing.T) {
	for _, u := range []string{"redis+cluster://r1:7000,r2:7001,r3:7002", "rediss+cluster://feria:pw@r1:7000/0?dial_timeout=2s", "redis+cluster://r1"} {
		c, err := LoadConfig(envOf(map[string]string{"REDIS_URL": u}))
		if err != nil || c.RedisURL != u || c.Embedded() {
			t.Errorf("%s: %+v %v", u, c.RedisURL, err)
		}
	}
}
