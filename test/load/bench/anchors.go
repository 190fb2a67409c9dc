package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/adapters/redisstore/contactsredis"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/accountdb"
	"github.com/feria/feria/adapters/sqlstore/contactsdb"
	"github.com/feria/feria/adapters/sqlstore/fiscaldb"
	"github.com/feria/feria/adapters/sqlstore/outboxdb"
	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/test/load/loadrun"
)

// opsPerEvent is what counting one contact event exactly and once takes at
// the least: for the item and for its seller, the event's mark in its
// day's set (what keeps a total exact to the second and a retried event
// counted once) and an increment of its hour, day and month; and its
// record. The ingest anchor is pipelined INCRs divided by it.
const opsPerEvent = 9

// anchors are the minimal programs on the same backends that feria's
// paths are compared with: what the stack does with one plain query.
type anchors struct {
	base   string // the anchor service
	srv    *proc
	rdb    *redis.Client
	s3     *minio.Client
	bucket string
	body   []byte
	putN   atomic.Int64
	// form is body as the multipart upload feria's path sends, and formType
	// its Content-Type: what the least HTTP service in front of MinIO takes.
	form     []byte
	formType string
	eventN   atomic.Int64
	counts   *contactsredis.Store // under a prefix of the anchors' own
	writeN   atomic.Int64         // the packs writesPut took
	incrRate float64              // INCRs/s of the last run of incr100, to size the next
	packs    int64                // the world's packs, which writesPut takes in turn
}

// floorTask is the type of the upload floor's notices: removed from the
// outbox before the worker runs, they are not the path's.
const floorTask = "bench:floor_notice"

// itemRow is the item's columns a primary-key select reads.
type itemRow struct {
	ID       string  `bun:"id"`
	SiteID   string  `bun:"site_id"`
	SellerID int64   `bun:"seller_id"`
	Title    string  `bun:"title"`
	Status   string  `bun:"status"`
	Price    float64 `bun:"price"`
}

var hashFields = func() []string {
	f := make([]string, 30)
	for i := range f {
		f[i] = fmt.Sprintf("2026-03-%02d", i+1)
	}
	return f
}()

// startAnchors seeds the Redis hashes the anchors read and the object the
// raw GET reads, then starts the anchor service (serveAnchors) as a
// process of its own on env's backends.
//
// The service runs apart from this program, as feria does: measured in
// the process of the load's clients, the least HTTP service in front of
// MinIO answered 1.03 to 1.56 times (1.26 on average) what the same code
// answered as a process of its own on a 2-core VM (the clients' and the server's
// goroutines shared one scheduler, and no wake-up crossed processes), a
// gap that was the anchor's, not feria's (docs/performance.md).
func startAnchors(ctx context.Context, env []string, rdb *redis.Client, s3 *minio.Client, bucket string, body []byte) (*anchors, error) {
	a := &anchors{rdb: rdb, s3: s3, bucket: bucket, body: body, counts: contactsredis.New(rdb, anchorCounts), incrRate: 300_000}
	for h := range 50 {
		vals := make([]any, 0, 60)
		for i, f := range hashFields {
			vals = append(vals, f, i+h)
		}
		if err := rdb.HSet(ctx, fmt.Sprint("anchor:h:", h), vals...).Err(); err != nil {
			return nil, err
		}
	}
	if _, err := s3.PutObject(ctx, bucket, "anchor/get", bytes.NewReader(body), int64(len(body)), minio.PutObjectOptions{ContentType: "application/pdf"}); err != nil {
		return nil, err
	}
	form, formType := multipartPDF(body)
	a.form, a.formType = []byte(form), formType
	a.writeN.Store(downloadPacks)
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	port, err := loadrun.FreePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprint("127.0.0.1:", port)
	if a.srv, err = startProc(exe, anchorsCommand, atAddr(env, addr), addr); err != nil {
		return nil, err
	}
	a.base = a.srv.base
	return a, nil
}

// anchorCounts prefixes the keys of the anchors' contact counts.
const anchorCounts = "anchor:contacts:"

// anchorsCommand is the argument that makes this program the anchor
// service instead of the bench.
const anchorsCommand = "anchors"

// serveAnchors is the anchor service: the tiny fiber app on HTTP_ADDR, on
// the backends of DATABASE_URL, REDIS_URL and S3_*, as `feria serve` takes
// them, until interrupted.
func serveAnchors() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := sqlstore.OpenPostgres(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer db.Close()
	rdb, err := openRedis(os.Getenv("REDIS_URL"))
	if err != nil {
		return err
	}
	defer rdb.Close()
	s3, err := minio.New(os.Getenv("S3_ENDPOINT"), &minio.Options{
		Creds: credentials.NewStaticV4(os.Getenv("S3_ACCESS_KEY"), os.Getenv("S3_SECRET_KEY"), "")})
	if err != nil {
		return err
	}
	app := anchorApp(db, rdb, s3, os.Getenv("S3_BUCKET"))
	app.Get("/health/live", func(c *fiber.Ctx) error { return c.SendString("ok") })
	go func() {
		<-ctx.Done()
		// The clients' idle keep-alive connections would hold a plain
		// Shutdown forever.
		app.ShutdownWithTimeout(2 * time.Second) //nolint:errcheck // best effort
	}()
	return app.Listen(os.Getenv("HTTP_ADDR"))
}

// openRedis is a client of the run's Redis with room for every load
// client at once: the harness's, and the anchor service's.
func openRedis(url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opt.PoolSize = 64
	return redis.NewClient(opt), nil
}

// anchorApp is the anchor service's routes: GET /pk/:id is one bun
// primary-key select of an item, answered as JSON; GET /hmget is one HMGET
// of 30 fields, answered as JSON; the floors' routes (fiscal, ingest)
// follow.
func anchorApp(db *bun.DB, rdb *redis.Client, s3 *minio.Client, bucket string) *fiber.App {
	var putN atomic.Int64
	app := fiber.New(fiber.Config{DisableStartupMessage: true, BodyLimit: 8 << 20})
	// The least HTTP service in front of MinIO, for the fiscal rows' second
	// anchors: the file of a multipart form PUT as it is, and an object
	// sent back as it is; no token, no database.
	app.Post("/put", func(c *fiber.Ctx) error {
		f, fh, err := formFile(c)
		if err != nil {
			return err
		}
		defer f.Close()
		key := fmt.Sprint("anchor/hop/", putN.Add(1))
		if _, err := s3.PutObject(c.UserContext(), bucket, key, f, fh.Size, minio.PutObjectOptions{ContentType: "application/pdf"}); err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"ids": []string{key}})
	})
	app.Get("/get", func(c *fiber.Ctx) error { return sendObject(c, s3, bucket, "anchor/get") })
	// The download's floor with its reads: the same service, which also
	// reads what feria's download must (the caller's token, the pack with
	// its documents) through feria's own stores, then GETs the document's
	// object. Beside it, feria's path shows what its app adds: routing,
	// middleware, the access rules, the errors. Its token store holds the
	// tokens it resolved, told of changes as feria's is.
	held := accountdb.NewHeld()
	held.Tell(redisstore.Subscribe(rdb, "bench:anchors:{tokens}", held))
	tokens, packs := accountdb.New(db).Holding(held), fiscaldb.New(db)
	// reads is what both fiscal paths read first: the caller's token, then
	// the path's pack with its documents.
	reads := func(c *fiber.Ctx) (account.Token, fiscal.Pack, []fiscal.Document, error) {
		tok, _, err := tokens.Token(c.UserContext(), account.Hash(sellerToken))
		if err != nil {
			return tok, fiscal.Pack{}, nil, err
		}
		id, err := strconv.ParseInt(c.Params("pack"), 10, 64)
		if err != nil {
			return tok, fiscal.Pack{}, nil, err
		}
		p, docs, err := packs.WithDocuments(c.UserContext(), id)
		return tok, p, docs, err
	}
	app.Get("/reads/:pack", func(c *fiber.Ctx) error {
		_, _, docs, err := reads(c)
		if err != nil || len(docs) == 0 {
			return fmt.Errorf("pack %s: %d documents, %v", c.Params("pack"), len(docs), err)
		}
		return sendObject(c, s3, bucket, docs[0].Key)
	})
	// The upload's floor with its reads and writes: the same service, which
	// also reads the token and the pack, PUTs the file, then writes its
	// document row and its notice in one transaction, all through feria's
	// stores. Its packs are the upload path's, its documents of the other
	// type (one of each type per pack), its notices of a type of its own
	// that the run removes before the worker starts (floorTask).
	docs, outbox := fiscaldb.New(db), outboxdb.New(db)
	app.Post("/writes/:pack", func(c *fiber.Ctx) error {
		ctx := c.UserContext()
		tok, p, _, err := reads(c)
		if err != nil {
			return err
		}
		id := p.ID
		f, fh, err := formFile(c)
		if err != nil {
			return err
		}
		defer f.Close()
		d := fiscal.Document{ID: kernel.NewUUID(), PackID: id, SellerID: tok.UserID, FileType: fiscal.XML, Filename: fh.Filename,
			ContentType: "application/pdf", Size: fh.Size, DateCreated: time.Now().UTC()}
		d.Key = fiscalport.FileKey(id, d.ID)
		if _, err := s3.PutObject(ctx, bucket, d.Key, f, fh.Size, minio.PutObjectOptions{ContentType: d.ContentType}); err != nil {
			return err
		}
		nid := kernel.NewUUID() // the notice's id is its message's, as feria's
		notice, err := json.Marshal(fiscalport.Notice{ID: nid, Kind: notify.KindFiscalDocument, PackID: id,
			BuyerID: p.BuyerID, SellerID: p.SellerID, DocumentIDs: []string{d.PublicID()}})
		if err != nil {
			return err
		}
		err = sqlstore.Tx{DB: db}.RunInTx(ctx, func(ctx context.Context) error {
			if err := docs.Add(ctx, []fiscal.Document{d}); err != nil {
				return err
			}
			return outbox.Add(ctx, outboxport.Message{ID: nid, Type: floorTask, Payload: notice, CreatedAt: d.DateCreated})
		})
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"ids": []string{d.PublicID()}})
	})
	// The ingest's floor over HTTP: the batch decoded and checked, its
	// items' sellers read through feria's store (one query), the events
	// counted through feria's store of counts (the script, one call).
	owners, counts := contactsdb.New(db), contactsredis.New(rdb, anchorCounts)
	app.Post("/ingest", func(c *fiber.Ctx) error {
		events, err := checkedEvents(c.Body())
		if err != nil {
			return err
		}
		ids := make([]string, len(events))
		for i, ev := range events {
			ids[i] = ev.ItemID
		}
		sellers, err := owners.Sellers(c.UserContext(), ids)
		if err != nil {
			return err
		}
		for i := range events {
			events[i].SellerID = sellers[events[i].ItemID]
		}
		r, err := counts.Add(c.UserContext(), events)
		if err != nil {
			return err
		}
		return c.JSON(fiber.Map{"accepted": r.Accepted, "duplicates": r.Duplicates})
	})
	app.Get("/pk/:id", func(c *fiber.Ctx) error {
		var row itemRow
		if err := db.NewSelect().Table("items").Column("id", "site_id", "seller_id", "title", "status", "price").
			Where("id = ?", c.Params("id")).Scan(c.UserContext(), &row); err != nil {
			return err
		}
		return c.JSON(row)
	})
	// The window's anchor: 50 hashes of 30 fields in one pipeline, and
	// each hash's fields summed into a JSON answer.
	app.Get("/fields1500", func(c *fiber.Ctx) error {
		ctx := c.UserContext()
		pipe := rdb.Pipeline()
		cmds := make([]*redis.SliceCmd, 50)
		for h := range cmds {
			cmds[h] = pipe.HMGet(ctx, fmt.Sprint("anchor:h:", h), hashFields...)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return err
		}
		totals := make([]int, len(cmds))
		for h, cmd := range cmds {
			for _, v := range cmd.Val() {
				if s, ok := v.(string); ok {
					n, _ := strconv.Atoi(s)
					totals[h] += n
				}
			}
		}
		return c.JSON(totals)
	})
	app.Get("/hmget", func(c *fiber.Ctx) error {
		vals, err := rdb.HMGet(c.UserContext(), "anchor:h:0", hashFields...).Result()
		if err != nil {
			return err
		}
		total := 0
		for _, v := range vals {
			if s, ok := v.(string); ok {
				var n int
				fmt.Sscan(s, &n) //nolint:errcheck // seeded numbers
				total += n
			}
		}
		return c.JSON(fiber.Map{"total": total})
	})
	return app
}

// formFile opens the fiscal_document file of the request's multipart form.
func formFile(c *fiber.Ctx) (multipart.File, *multipart.FileHeader, error) {
	fh, err := c.FormFile("fiscal_document")
	if err != nil {
		return nil, nil, err
	}
	f, err := fh.Open()
	return f, fh, err
}

// sendObject GETs an object with minio-go and copies it into the answer.
func sendObject(c *fiber.Ctx, s3 *minio.Client, bucket, key string) error {
	body, info, _, err := minio.Core{Client: s3}.GetObject(c.UserContext(), bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return err
	}
	defer body.Close()
	c.Set(fiber.HeaderContentType, info.ContentType)
	_, err = io.Copy(c.Response().BodyWriter(), body)
	return err
}

// close stops the anchor service.
func (a *anchors) close() { a.srv.stop() }

// http is a load of the anchor service.
func (a *anchors) http(q *request) load {
	q.base = a.base
	return load{req: q, server: cpuAnchors}
}

func (a *anchors) hello() load { return a.http(get("", "/health/live")) }

func (a *anchors) pk() load { return a.http(get("", "/pk/"+compatItem)) }

func (a *anchors) hmget() load { return a.http(get("", "/hmget")) }

// fields1500 has the anchor service read 50 hashes of 30 fields in one
// pipeline and answer their sums. (Called from this process, Redis alone
// cost Go's client more CPU per request than it cost Redis: the client
// was the limit.)
func (a *anchors) fields1500() load { return a.http(get("", "/fields1500")) }

// incr100 is pipelined INCRs (on 97 keys) counted as batches of 100
// events of opsPerEvent each, sent by redis-benchmark (pinned as wrk is,
// its conc connections each 100 commands deep): the Redis ceiling. Go's
// client spent more CPU per INCR than Redis did.
func (a *anchors) incr100() load {
	return load{server: cpuRedis, ext: func(conc int, d time.Duration) (sample, float64, error) {
		n := max(100_000, int(a.incrRate*d.Seconds()))
		host, port, _ := strings.Cut(a.rdb.Options().Addr, ":")
		args := []string{"-h", host, "-p", port, "-c", fmt.Sprint(conc), "-P", "100", "-n", fmt.Sprint(n), "-r", "97", "--csv",
			"incr", "anchor:c:__rand_int__"}
		out, client, err := pinned("redis-benchmark", args...)
		if err != nil {
			return sample{}, client, err
		}
		f := strings.Split(strings.TrimSpace(lastLine(out)), ",")
		if len(f) < 7 {
			return sample{}, client, fmt.Errorf("redis-benchmark printed %q", out)
		}
		num := func(i int) float64 { v, _ := strconv.ParseFloat(strings.Trim(f[i], `"`), 64); return v }
		rps := num(1)
		if rps <= 0 {
			return sample{}, client, fmt.Errorf("redis-benchmark printed %q", out)
		}
		a.incrRate = rps
		per := 100 * opsPerEvent
		return sample{ops: n / per, elapsed: time.Duration(float64(n) / rps * float64(time.Second)),
			p50: time.Duration(num(4) * float64(time.Millisecond)), p99: time.Duration(num(6) * float64(time.Millisecond))}, client, nil
	}}
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// ingestCmds is the Redis work feria's script does for 100 events, as
// plain pipelined commands (no script, no HTTP): per event, for the item
// and for its seller, a ZADD NX of the event into its day's set and an
// HINCRBY of its hour, its day and its month, and a SET NX EX of its
// record (opsPerEvent commands).
func (a *anchors) ingestCmds() load {
	return load{server: cpuRedis, fn: func() error {
		ctx := context.Background()
		pipe := a.rdb.Pipeline()
		for range 100 {
			n := a.eventN.Add(1)
			id := fmt.Sprint("a", n)
			for _, sub := range [2]string{fmt.Sprint("{i:", n%50, "}"), "{u:7}"} {
				day := fmt.Sprintf("2026%02d%02d", 1+n%9, 1+n%28)
				pipe.ZAddNX(ctx, "anchor:"+sub+":t:"+day, redis.Z{Score: float64(n), Member: id})
				pipe.HIncrBy(ctx, "anchor:"+sub+":h:"+day, fmt.Sprintf("%02d", n%24), 1)
				pipe.HIncrBy(ctx, "anchor:"+sub+":d:"+day[:6], day[6:], 1)
				pipe.HIncrBy(ctx, "anchor:"+sub+":m:"+day[:4], day[4:6], 1)
			}
			pipe.SetNX(ctx, "anchor:e:"+id, "MLA1|phone_view|2026-01-01T00:00:00Z", time.Hour)
		}
		_, err := pipe.Exec(ctx)
		return err
	}}
}

// ingestScript counts 100 events through feria's own store of counts
// (contactsredis: its script, in one call), with no HTTP and no database:
// the Redis work the path must do, done the way it does it.
func (a *anchors) ingestScript() load {
	return load{server: cpuRedis, fn: func() error {
		events, err := checkedEvents(eventsBody("a", &a.eventN))
		if err != nil {
			return err
		}
		for i := range events {
			events[i].SellerID = 7
		}
		_, err = a.counts.Add(context.Background(), events)
		return err
	}}
}

// checkedEvents decodes a batch body and checks its events as feria does
// (contacts.EventInput.Check), their sellers not yet set.
func checkedEvents(body []byte) ([]contacts.Event, error) {
	var in struct{ Events []contacts.EventInput }
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	events := make([]contacts.Event, len(in.Events))
	for i, e := range in.Events {
		ev, err := e.Check("")
		if err != nil {
			return nil, err
		}
		events[i] = ev
	}
	return events, nil
}

// ingestHTTP posts 100 new events to the anchor service's ingest.
func (a *anchors) ingestHTTP() load {
	return a.http(&request{method: "POST", paths: []string{"/ingest"}, events: "h", want: 200,
		header: []string{"Content-Type", "application/json"}})
}

// hopPut uploads the multipart form to the least HTTP service.
func (a *anchors) hopPut() load {
	return a.http(&request{method: "POST", paths: []string{"/put"}, body: a.form, want: 201,
		header: []string{"Content-Type", a.formType}})
}

// hopGet downloads the object through the least HTTP service.
func (a *anchors) hopGet() load {
	q := get("", "/get")
	q.size = len(a.body)
	return a.http(q)
}

// readsGet downloads the documents of the download path's packs, in turn,
// through the service that also does the path's reads.
func (a *anchors) readsGet() load {
	q := &request{method: "GET", want: 200, size: len(a.body)}
	for n := range downloadPacks {
		q.paths = append(q.paths, fmt.Sprint("/reads/", packBase+n))
	}
	return a.http(q)
}

// writesPut uploads the multipart form to the service that also does the
// upload path's reads and writes, each time to the next of the path's
// packs (its documents are of the other type).
func (a *anchors) writesPut() load {
	q := &request{method: "POST", fresh: &a.writeN, body: a.form, want: 201, header: []string{"Content-Type", a.formType}}
	for n := range a.packs {
		q.paths = append(q.paths, fmt.Sprint("/writes/", packBase+n))
	}
	return a.http(q)
}

func (a *anchors) put() load {
	return load{server: cpuMinIO, fn: func() error {
		n := a.putN.Add(1)
		_, err := a.s3.PutObject(context.Background(), a.bucket, fmt.Sprint("anchor/put/", n), bytes.NewReader(a.body), int64(len(a.body)),
			minio.PutObjectOptions{ContentType: "application/pdf"})
		return err
	}}
}

func (a *anchors) get() load {
	return load{server: cpuMinIO, fn: func() error {
		obj, err := a.s3.GetObject(context.Background(), a.bucket, "anchor/get", minio.GetObjectOptions{})
		if err != nil {
			return err
		}
		defer obj.Close()
		n, err := io.Copy(io.Discard, obj)
		if err == nil && n != int64(len(a.body)) {
			err = fmt.Errorf("raw GET: %d bytes", n)
		}
		return err
	}}
}
