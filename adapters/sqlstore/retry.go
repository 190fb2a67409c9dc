package sqlstore

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/prometheus/client_golang/prometheus"
	"modernc.org/sqlite"

	"github.com/feria/feria/core/kernel"
)

// ErrBusy is what a transaction returns when it lost a race with other
// writers (a deadlock, a serialization failure, SQLite's lock held by
// another process) more times than RunInTx retries it: nothing of it was
// written, and the API answers 503 with Retry-After, since the same request
// a moment later is expected to pass.
var ErrBusy = kernel.E(kernel.Unavailable, "service_unavailable", "the database is busy with concurrent writes, retry later")

// Attempts is how many times RunInTx runs a unit of work that keeps losing
// races, and backoffCap the longest pause between two runs: about a second
// of waiting in all before the caller is told to retry.
const (
	Attempts    = 6
	backoffBase = 10 * time.Millisecond
	backoffCap  = 320 * time.Millisecond
)

// Conflicts counts the transactions run again, by reason (deadlock,
// serialization, locked), and those given up on (reason "exhausted"): a
// collector every process registers once (app's wire), shared by every Tx.
var Conflicts = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "feria_db_tx_retries_total",
	Help: "Transactions run again after losing a race with other writers, by reason; exhausted: given up, answered 503.",
}, []string{"reason"})

// conflict names why err is worth running its transaction again: a
// deadlock (40P01) or a serialization failure (40001) on PostgreSQL,
// SQLITE_BUSY or SQLITE_LOCKED (any extended code of theirs) on SQLite;
// "" when it is not. Every other error is final.
func conflict(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "40P01":
			return "deadlock"
		case "40001":
			return "serialization"
		}
		return ""
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		if c := lite.Code() & 0xff; c == 5 || c == 6 { // SQLITE_BUSY, SQLITE_LOCKED
			return "locked"
		}
	}
	return ""
}

// retrying runs one transaction (run) until it ends with anything but a
// lost race, at most Attempts times, pausing a random time between runs
// (full jitter on a doubling bound) so that the writers that met do not
// meet again. Past the bound, or when ctx ends first, the race is ErrBusy.
func retrying(ctx context.Context, log *slog.Logger, run func() error) error {
	for attempt := 1; ; attempt++ {
		err := run()
		reason := conflict(err)
		if reason == "" {
			return err
		}
		if attempt == Attempts || ctx.Err() != nil {
			Conflicts.WithLabelValues("exhausted").Inc()
			log.WarnContext(ctx, "transaction given up after concurrent writes", slog.Int("attempts", attempt), slog.String("reason", reason), slog.Any("err", err))
			return ErrBusy.Wrap(err)
		}
		Conflicts.WithLabelValues(reason).Inc()
		pause := rand.N(min(backoffCap, backoffBase<<(attempt-1)))
		log.InfoContext(ctx, "transaction run again after concurrent writes", slog.Int("attempt", attempt), slog.String("reason", reason),
			slog.Duration("pause", pause), slog.Any("err", err))
		select {
		case <-time.After(pause):
		case <-ctx.Done():
		}
	}
}
