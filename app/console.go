package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"slices"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/adapters/httpapi/consoleapi"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/kernel"
)

// mountConsole serves the console (consoleapi) of this world: it calls
// the world's own sandbox API in process, through app.
func mountConsole(app *fiber.App, d *Deps) {
	key := d.Config.SandboxKey
	consoleapi.Routes(app, consoleapi.Config{
		Key: key, Controls: d.Controls, Name: d.World,
		World: consoleWorld{db: d.DB, names: collectionNames(d)},
		Sandbox: func(ctx context.Context, method, path, contentType string, body []byte) (int, []byte, error) {
			req := httptest.NewRequestWithContext(ctx, method, "/sandbox"+path, bytes.NewReader(body))
			req.Header.Set("X-Sandbox-Key", key)
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			res, err := app.Test(req, -1)
			if err != nil {
				return 0, nil, kernel.E(kernel.Unavailable, "service_unavailable", "the sandbox API did not answer").Wrap(err)
			}
			defer res.Body.Close()
			out, err := io.ReadAll(res.Body)
			return res.StatusCode, out, err
		},
	}, httpapi.ErrorHandler(d.Log))
}

func collectionNames(d *Deps) []string {
	var out []string
	for _, c := range d.collections() {
		out = append(out, c.Name)
	}
	return out
}

// consoleWorld counts and lists the resources of the collections kept in
// a table of their name (contact events are counters, not rows).
type consoleWorld struct {
	db    *bun.DB
	names []string
}

// idColumn names a collection's id column where it is not "id".
var idColumn = map[string]string{"shipping_rates": "site_id"}

func (w consoleWorld) tables(ctx context.Context) ([]string, error) {
	var tables []string
	q := "SELECT name FROM sqlite_master WHERE type = 'table'"
	if sqlstore.IsPostgres(w.db) {
		q = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
	}
	if err := w.db.NewRaw(q).Scan(ctx, &tables); err != nil {
		return nil, kernel.E(kernel.Unavailable, "service_unavailable", "the database cannot be read").Wrap(err)
	}
	var out []string
	for _, n := range w.names {
		if slices.Contains(tables, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

func (w consoleWorld) Counts(ctx context.Context) ([]consoleapi.Count, error) {
	names, err := w.tables(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]consoleapi.Count, 0, len(names))
	for _, n := range names {
		var c int64
		// n is a table name of the schema, never the client's text.
		if err := w.db.NewRaw("SELECT count(*) FROM "+n).Scan(ctx, &c); err != nil {
			return nil, kernel.E(kernel.Unavailable, "service_unavailable", "the database cannot be read").Wrap(err)
		}
		out = append(out, consoleapi.Count{Name: n, Count: c})
	}
	return out, nil
}

func (w consoleWorld) IDs(ctx context.Context, collection, q string, limit int) ([]string, error) {
	names, err := w.tables(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(names, collection) {
		return nil, kernel.E(kernel.NotExist, "not_found", fmt.Sprintf("no collection %q", collection))
	}
	col := "id"
	if c, ok := idColumn[collection]; ok {
		col = c
	}
	var ids []string
	query := fmt.Sprintf("SELECT CAST(%s AS TEXT) FROM %s WHERE CAST(%s AS TEXT) LIKE ? ORDER BY %s LIMIT ?", col, collection, col, col)
	if err := w.db.NewRaw(query, "%"+q+"%", limit).Scan(ctx, &ids); err != nil {
		return nil, kernel.E(kernel.Unavailable, "service_unavailable", "the database cannot be read").Wrap(err)
	}
	return ids, nil
}
