//go:build unix

package sqlstore

import (
	"context"
	"errors"
	"syscall"

	"github.com/uptrace/bun/driver/pgdriver"
)

// alive tells whether the server still holds an idle connection, without a
// round trip: a non-blocking peek at the socket (the check go-redis and the
// MySQL driver make on pooled connections). An idle connection has nothing
// to read; a server that closed it left an EOF, often after a FATAL notice.
// Connections that are not plain sockets (TLS) are pinged instead.
func alive(ctx context.Context, cn *pgdriver.Conn) bool {
	sc, ok := cn.Conn().(syscall.Conn)
	if !ok {
		return cn.Ping(ctx) == nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	live := false
	var buf [1]byte
	err = raw.Read(func(fd uintptr) bool {
		// nil error: EOF (0 bytes) or bytes an idle connection never gets.
		_, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		live = errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK)
		return true // never wait for the socket to become readable
	})
	return err == nil && live
}
