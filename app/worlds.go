package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/feria/feria/core/worlds/worldssvc"
)

// worldStorage is what a world holds beside its row in the registry.
type worldStorage struct{}

// Drop removes the world's storage: a world is only its registry row until
// worlds are served, so there is nothing to remove.
func (worldStorage) Drop(context.Context, string) error { return nil }

// expireWorlds removes the worlds unused for ttl every interval until ctx
// ends. Every serving process runs it: two removing one world at once is
// one removal and a not-found, which Expire skips.
func expireWorlds(ctx context.Context, svc *worldssvc.Service, ttl, interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n, err := svc.Expire(ctx, ttl)
			if err != nil && ctx.Err() == nil {
				log.Warn("expiring idle worlds failed", slog.Any("err", err))
			}
			if n > 0 {
				log.Info("idle worlds removed", slog.Int("worlds", n), slog.Duration("world_ttl", ttl))
			}
		}
	}
}
