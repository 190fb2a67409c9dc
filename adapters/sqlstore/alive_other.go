//go:build !unix

package sqlstore

import (
	"context"

	"github.com/uptrace/bun/driver/pgdriver"
)

// alive pings: there is no portable non-blocking peek.
func alive(ctx context.Context, cn *pgdriver.Conn) bool { return cn.Ping(ctx) == nil }
