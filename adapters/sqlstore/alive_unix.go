//go:build unix

package sqlstore

import (
	"context"
	"errors"
	"syscall"

	"github.com/jackc/pgx/v5/stdlib"
)

// alive tells whether the server still holds an idle connection, without a
// round trip: a non-blocking peek at the socket (the check go-redis and the
// MySQL driver make on pooled connections). An idle connection has nothing
// to read; a server that closed it left an EOF, often after a FATAL notice.
// Connections that are not plain sockets (TLS) are pinged instead.
func alive(ctx context.Context, cn *stdlib.Conn) bool {
	sc, ok := cn.Conn().PgConn().Conn().(syscall.Conn)
	if !ok {
		return cn.Ping(ctx) == nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	live := false
	var buf [1]byte
	// Control, not Read: pgx may leave its background reader parked in a
	// Read of the socket (pgconn's bgreader, started when a write is slow),
	// which holds the read lock until the server sends something, and an
	// idle connection never gets anything: a Read here waited forever. A
	// non-blocking peek needs no lock.
	err = raw.Control(func(fd uintptr) {
		// nil error: EOF (0 bytes) or bytes an idle connection never gets.
		_, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		live = errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK)
	})
	return err == nil && live
}
