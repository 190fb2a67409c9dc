package contactsredis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore"
)

// The layout mark: <prefix>layout holds layoutMonths once every month hash
// under the prefix has its count in its year's hash.
const (
	layoutKey    = "layout"
	layoutMonths = "months"
)

// monthScript sets a month's field of its year hash (KEYS[2], field
// ARGV[1]) to the sum of the month hash's days (KEYS[1]), and the year
// hash's expiry (ARGV[2]): the same count the add script keeps, taken in
// one step, so that events counted meanwhile are counted once either way.
var monthScript = redis.NewScript(`
local total = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do total = total + tonumber(v) end
if total > 0 then
  redis.call('HSET', KEYS[2], ARGV[1], total)
  redis.call('EXPIREAT', KEYS[2], ARGV[2])
end
return total
`)

// Migrate gives the counters written before the year hashes existed
// (month hashes of days only) their months: for every month hash under the
// prefix, on every master, its year hash's field is set to the sum of its
// days (monthScript), then the layout mark is set and later starts skip
// the scan. It is idempotent and safe beside writers of this layout; an
// instance of the old layout still counting after it would leave its
// months short, so it runs once the old instances have stopped (or again,
// the mark deleted).
func (s *Store) Migrate(ctx context.Context) error {
	mark := s.prefix + layoutKey
	v, err := s.rdb.Get(ctx, mark).Result()
	if err == nil && v == layoutMonths {
		return nil
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("contactsredis: migrate: %w", redisstore.Translate(err))
	}
	ttl := int64(s.retention / time.Second)
	err = redisstore.ScanMatching(ctx, s.rdb, s.prefix, "{*}:?"+monthHash+"*", func(ctx context.Context, node redis.UniversalClient, keys []string) error {
		pipe := node.Pipeline()
		for _, k := range keys {
			i := strings.LastIndex(k, monthHash)
			ym := k[i+len(monthHash):]
			y, err := strconv.Atoi(ym[:min(4, len(ym))])
			if len(ym) != 6 || err != nil {
				continue // not a month hash of this layout
			}
			monthScript.Eval(ctx, pipe, []string{k, k[:i] + yearHash + ym[:4]}, ym[4:], monthExpiry(y+1, 0, ttl))
		}
		_, err := pipe.Exec(ctx)
		return err
	})
	if err == nil {
		err = s.rdb.Set(ctx, mark, layoutMonths, 0).Err()
	}
	if err != nil {
		return fmt.Errorf("contactsredis: migrate: %w", redisstore.Translate(err))
	}
	return nil
}
