//go:build !unix

package sqlstore

import (
	"context"

	"github.com/jackc/pgx/v5/stdlib"
)

// alive pings: there is no portable non-blocking peek.
func alive(ctx context.Context, cn *stdlib.Conn) bool { return cn.Ping(ctx) == nil }
