// Package redisstore connects feria to Redis, to a Redis Cluster, or to an
// in-process Redis (miniredis) in the embedded mode, so that counters, the
// controls and asynq run through the very same adapters either way. Every
// adapter takes a redis.UniversalClient and keeps each multi-key script,
// transaction and pipeline on keys of one hash slot (a hash tag), which a
// cluster requires and a single server ignores.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/core/kernel"
)

// Cluster URL schemes: REDIS_URL names a Redis Cluster by these, with the
// seed nodes as a comma-separated host list:
// redis+cluster://[user:pass@]host1:port,host2:port[?option=value].
const (
	ClusterScheme    = "redis+cluster"
	ClusterTLSScheme = "rediss+cluster"
)

// Open connects to the Redis at raw: a server (redis://host:port/db,
// rediss:// for TLS) or a cluster (ClusterScheme). The query takes
// go-redis's options (dial_timeout=3s, pool_size=20, ...).
func Open(raw string) (redis.UniversalClient, error) {
	if IsCluster(raw) {
		opt, err := ParseCluster(raw)
		if err != nil {
			return nil, err
		}
		return redis.NewClusterClient(opt), nil
	}
	opt, err := redis.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	return redis.NewClient(opt), nil
}

// IsCluster reports whether raw names a Redis Cluster.
func IsCluster(raw string) bool {
	return strings.HasPrefix(raw, ClusterScheme+"://") || strings.HasPrefix(raw, ClusterTLSScheme+"://")
}

// ParseCluster reads a cluster URL: every host of the list is a seed node
// (the client learns the others from them); a port left out is 6379; a
// path other than /0 is refused, a cluster having database 0 only. Errors
// never repeat the URL (it may hold a password).
func ParseCluster(raw string) (*redis.ClusterOptions, error) {
	scheme, rest, _ := strings.Cut(raw, "://")
	base := strings.TrimSuffix(scheme, "+cluster")
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	userinfo, hostList := "", authority
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		userinfo, hostList = authority[:at+1], authority[at+1:]
	}
	var hosts []string
	for _, h := range strings.Split(hostList, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(strings.Trim(h, "[]"), "6379")
		}
		if host, port, err := net.SplitHostPort(h); err != nil || host == "" || port == "" {
			return nil, fmt.Errorf("redis cluster: a node is not host:port")
		}
		hosts = append(hosts, h)
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("redis cluster: no node: want %s://host1:port,host2:port", scheme)
	}
	// The same URL with the first node as its host and the others as addr
	// options, the form go-redis reads (and checks every option of).
	u, err := url.Parse(base + "://" + userinfo + hosts[0] + tail)
	if err != nil {
		return nil, fmt.Errorf("redis cluster: the URL does not parse")
	}
	if u.Path != "" && u.Path != "/" && u.Path != "/0" {
		return nil, fmt.Errorf("redis cluster: a cluster has database 0 only, got path %q", u.Path)
	}
	u.Path = ""
	q := u.Query()
	for _, h := range hosts[1:] {
		q.Add("addr", h)
	}
	u.RawQuery = q.Encode()
	opt, err := redis.ParseClusterURL(u.String())
	if err != nil {
		return nil, fmt.Errorf("redis cluster: %w", err)
	}
	return opt, nil
}

// UnlinkMatching deletes every key that starts with prefix: on each master
// of a cluster (SCAN sees one node's keys), one key per UNLINK there (keys
// of one node may lie in different slots, which one command may not mix).
func UnlinkMatching(ctx context.Context, rdb redis.UniversalClient, prefix string) error {
	return ScanMatching(ctx, rdb, prefix, "*", func(ctx context.Context, node redis.UniversalClient, keys []string) error {
		if _, cluster := rdb.(*redis.ClusterClient); !cluster {
			return node.Unlink(ctx, keys...).Err()
		}
		_, err := node.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range keys {
				p.Unlink(ctx, k)
			}
			return nil
		})
		return err
	})
}

// ScanMatching calls f with the keys that start with prefix and match the
// glob rest after it, a SCAN page at a time, on each master of a cluster
// (f gets that master's client: a command there may name only its keys,
// one slot per command).
func ScanMatching(ctx context.Context, rdb redis.UniversalClient, prefix, rest string,
	f func(ctx context.Context, node redis.UniversalClient, keys []string) error) error {
	match := globEscape(prefix) + rest
	if c, ok := rdb.(*redis.ClusterClient); ok {
		return c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			return scanned(ctx, node, match, f)
		})
	}
	return scanned(ctx, rdb, match, f)
}

func scanned(ctx context.Context, rdb redis.UniversalClient, match string, f func(context.Context, redis.UniversalClient, []string) error) error {
	var cursor uint64
	for {
		keys, next, err := rdb.Scan(ctx, cursor, match, 1000).Result()
		if err != nil {
			return err
		}
		if len(keys) > 0 {
			if err := f(ctx, rdb, keys); err != nil {
				return err
			}
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}

// globEscape makes a prefix match itself literally in SCAN MATCH.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ErrUnavailable is what callers see while Redis cannot be reached.
var ErrUnavailable = kernel.E(kernel.Unavailable, "service_unavailable", "counters are unavailable, retry later")

// Translate turns a connection failure into ErrUnavailable, so that the API
// answers a clear 503 while Redis is down and recovers when it returns.
func Translate(err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return err
	}
	var netErr net.Error
	// LOADING: a restarted Redis answers it while it reads its AOF or RDB
	// back; the data is on its way, so it is an outage, not a fault.
	if errors.As(err, &netErr) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, redis.ErrClosed) || errors.Is(err, redis.ErrPoolTimeout) || redis.IsLoadingError(err) {
		return ErrUnavailable.Wrap(err)
	}
	return err
}
