package accountdb_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/accountdb"
	"github.com/feria/feria/core/account"
	"github.com/feria/feria/ports/accountport/accountporttest"
	"github.com/feria/feria/test/testenv"
)

var seq atomic.Int64

// process is one process's holding store on a shared database, told of
// the others' changes over a shared Redis.
type process struct {
	*accountdb.Store
	held *accountdb.Held
}

func newProcess(t testing.TB, db *bun.DB, rdb redis.UniversalClient, name string) process {
	held := accountdb.NewHeld()
	n := redisstore.Subscribe(rdb, name, held)
	t.Cleanup(n.Close)
	held.Tell(n)
	return process{Store: accountdb.New(db).Holding(held), held: held}
}

// The account stores' contract holds for a store that holds tokens.
func TestHoldingStore(t *testing.T) {
	rdb := testenv.Redis(t)
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			accountporttest.TestStore(t, func(t testing.TB) accountporttest.Store {
				return newProcess(t, open(t), rdb, fmt.Sprintf("test:accounts:%d:{tokens}", seq.Add(1))).Store
			})
		})
	}
}

// Tokens held by one process: a read is held (a change made behind every
// store's back shows only once heldFor passed), and a change made through
// another process's store shows in this one as soon as that change's call
// returned, a change in a transaction once it committed.
func TestHeldTokens(t *testing.T) {
	for dbName, open := range testenv.Databases() {
		for redisName, openRedis := range testenv.Redises() {
			t.Run(dbName+"/"+redisName, func(t *testing.T) { heldTokens(t, open(t), openRedis(t)) })
		}
	}
}

func heldTokens(t *testing.T, db *bun.DB, rdb *redis.Client) {
	ctx := context.Background()
	name := fmt.Sprintf("test:accounts:%d:{tokens}", seq.Add(1))
	a, b := newProcess(t, db, rdb, name), newProcess(t, db, rdb, name)
	at := time.Now().UTC().Truncate(time.Second)
	seller := account.User{ID: 7, Nickname: "SELLER", SiteID: "MLA", UserType: "normal", Tags: []string{}, DateCreated: at}
	buyer := account.User{ID: 8, Nickname: "BUYER", SiteID: "MLA", UserType: "normal", Tags: []string{}, DateCreated: at}
	for _, u := range []account.User{seller, buyer} {
		if err := b.UpsertUser(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range []string{"h1", "h2", "h3"} {
		if err := b.AddToken(ctx, account.Token{Hash: h, UserID: 7, ExpiresAt: at.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(hash string) (account.Token, string) {
		t.Helper()
		tok, site, err := a.Token(ctx, hash)
		if err != nil {
			t.Fatalf("token %s: %v", hash, err)
		}
		return tok, site
	}
	for _, h := range []string{"h1", "h2", "h3"} {
		read(h)
	}

	t.Run("a read is held", func(t *testing.T) {
		if _, err := db.NewRaw("UPDATE tokens SET revoked_at = ? WHERE hash = 'h1'", at).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if tok, _ := read("h1"); tok.RevokedAt != nil {
			t.Fatal("a held token was read again at once: nothing is held")
		}
		deadline := time.Now().Add(5 * time.Second)
		for tok, _ := read("h1"); tok.RevokedAt == nil; tok, _ = read("h1") {
			if time.Now().After(deadline) {
				t.Fatal("a token changed behind the stores' back is still held after 5 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("another process's revocation", func(t *testing.T) {
		if err := b.RevokeToken(ctx, "h2", at); err != nil {
			t.Fatal(err)
		}
		if tok, _ := read("h2"); tok.RevokedAt == nil {
			t.Fatal("the token revoked by another process is still valid here")
		}
	})

	t.Run("another process's change of the user", func(t *testing.T) {
		moved := seller
		moved.SiteID = "MLB"
		if err := b.UpsertUser(ctx, moved); err != nil {
			t.Fatal(err)
		}
		if _, site := read("h3"); site != "MLB" {
			t.Fatalf("site %q after the user moved to MLB", site)
		}
	})

	t.Run("a change in a transaction, once committed", func(t *testing.T) {
		tx := sqlstore.Tx{DB: db}
		err := tx.RunInTx(ctx, func(ctx context.Context) error {
			if err := b.AddToken(ctx, account.Token{Hash: "h3", UserID: 8, ExpiresAt: at.Add(2 * time.Hour)}); err != nil {
				return err
			}
			if db.Dialect().Name().String() == "pg" {
				// PostgreSQL lets another reader in meanwhile: it reads
				// the committed token, which must not stay held.
				if tok, _ := read("h3"); tok.UserID != 7 {
					return fmt.Errorf("an uncommitted change was read: user %d", tok.UserID)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if tok, _ := read("h3"); tok.UserID != 8 || !tok.ExpiresAt.Equal(at.Add(2*time.Hour)) {
			t.Fatalf("after the commit: %+v", tok)
		}
	})

	t.Run("a reset", func(t *testing.T) {
		if _, err := db.NewRaw("DELETE FROM tokens WHERE hash = 'h3'").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := b.held.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if _, _, err := a.Token(ctx, "h3"); err == nil {
			t.Fatal("a token deleted by a reset is still held")
		}
	})

	t.Run("nothing held while the notices are down", func(t *testing.T) {
		read("h1")
		a.held.Live(false)
		if _, err := db.NewRaw("UPDATE tokens SET user_id = 8 WHERE hash = 'h1'").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if tok, _ := read("h1"); tok.UserID != 8 {
			t.Fatal("a token was held while no notice could reach the process")
		}
	})
}
