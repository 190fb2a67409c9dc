package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
)

const (
	sandboxKey  = "bench-sandbox-key"
	sellerToken = "APP_USR-bench-seller"
	buyerToken  = "APP_USR-bench-buyer"
	compatItem  = "MLA1100" // the item read, and the item with 200 compatibilities
	packBase    = 5_000_000
	// downloadPacks hold one document each, read by the download path;
	// the upload path takes the packs after them, one per upload.
	downloadPacks = 20
	contactItems  = 50
	compatItems   = 20 // items with 200 compatibilities beside the read one
	copyBase      = 4000
	perParent     = 50 // children per family head, as compatdb's benchmark
	brands        = 10
	years         = 20
)

// client is feria's or an anchor's HTTP client: keep-alive connections
// enough for every concurrent caller.
var client = &http.Client{Transport: &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 512}, Timeout: 30 * time.Second}

// do sends one request and fails unless the answer has status want; the
// body is read whole (as a client would).
func do(method, url string, body []byte, want int, header ...string) ([]byte, error) {
	return doWith(client, method, url, body, want, header...)
}

// seedClient loads the world: a fixtures call of a thousand entries may
// take minutes on a busy machine.
var seedClient = &http.Client{Transport: client.Transport, Timeout: 10 * time.Minute}

func doWith(c *http.Client, method, url string, body []byte, want int, header ...string) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != want {
		return b, fmt.Errorf("%s %s: %d %s", method, strings.SplitN(url, "?", 2)[0], res.StatusCode, tail(b, 300))
	}
	return b, nil
}

func sandbox(base, method, path string, body any) ([]byte, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return doWith(seedClient, method, base+"/sandbox"+path, raw, 200, "Content-Type", "application/json", "X-Sandbox-Key", sandboxKey)
}

// world is what a run loads into a feria instance, sized by its mode.
type world struct {
	products int // children; one family head more per 50
	packs    int // orders with packs of their own, for fiscal uploads
	days     int // days of contact events per item
	// bulk loads the products after the first apiProducts in one SQL
	// statement each (PostgreSQL only): the sandbox's one product per
	// call would take minutes for 100,000.
	bulk     *bun.DB
	copies   int // items the worker copies the read item's compatibilities onto
	listings int // plain items more: the bytes an item takes
}

// seed loads the world through the sandbox and the public API, as a
// user would; it returns how long each part took.
func (w world) seed(base string) (map[string]time.Duration, error) {
	took := map[string]time.Duration{}
	t0 := time.Now()
	_, err := sandbox(base, "POST", "/fixtures", map[string]any{
		"users": []any{
			map[string]any{"id": 123, "nickname": "BENCHSELLER", "site_id": "MLA", "access_token": sellerToken, "expires_in": 86400},
			map[string]any{"id": 456, "nickname": "BENCHBUYER", "site_id": "MLA", "access_token": buyerToken, "expires_in": 86400},
		},
		"categories": []any{map[string]any{"id": "MLA1747", "site_id": "MLA", "name": "Amortiguadores", "domain_id": "MLA-CAR_SHOCK_ABSORBERS",
			"compatibilities": map[string]any{"required": true, "note_status": "ENABLED", "restrictions_status": "ENABLED", "universal_status": "ENABLED"}}},
		"domains": []any{
			map[string]any{"id": "MLA-CARS_AND_VANS", "site_id": "MLA", "main": true, "compatibilities": []any{}},
			map[string]any{"id": "MLA-CAR_SHOCK_ABSORBERS", "site_id": "MLA", "main": false, "compatibilities": []any{map[string]any{
				"compatible_domain_id": "MLA-CARS_AND_VANS", "type": "EXTENSION", "required": true, "restrictions": []any{},
				"categories": []any{map[string]any{"id": "MLA1747", "required": true, "note_status": "ENABLED", "restrictions_status": "ENABLED", "universal_status": "ENABLED"}}}}},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("fixtures (users, catalog): %w", err)
	}

	// Products in chunks: a family head, then its children.
	var chunk []any
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		_, err := sandbox(base, "POST", "/fixtures", map[string]any{"products": chunk})
		chunk = chunk[:0]
		return err
	}
	n := w.products
	if w.bulk != nil {
		n = min(n, apiProducts)
	}
	for i := 0; i < n; i++ {
		brand, year := fmt.Sprint(i%brands), fmt.Sprint(2000+(i/brands)%years)
		attrs := []any{map[string]any{"id": "BRAND", "name": "Marca", "value_id": brand, "value_name": "Brand " + brand},
			map[string]any{"id": "VEHICLE_YEAR", "name": "Año", "value_id": year, "value_name": year}}
		parent := fmt.Sprintf("MLA%d", 5_000_000+i/perParent)
		if i%perParent == 0 {
			chunk = append(chunk, map[string]any{"id": parent, "site_id": "MLA", "domain_id": "MLA-CARS_AND_VANS", "name": "Family " + parent, "parent_id": nil, "attributes": attrs})
		}
		chunk = append(chunk, map[string]any{"id": fmt.Sprintf("MLA%d", 1_000_000+i), "site_id": "MLA", "domain_id": "MLA-CARS_AND_VANS",
			"name": fmt.Sprintf("Car %d", i), "parent_id": parent, "attributes": attrs})
		if len(chunk) >= 1000 {
			if err := flush(); err != nil {
				return nil, fmt.Errorf("fixtures (products): %w", err)
			}
		}
	}
	if err := flush(); err != nil {
		return nil, fmt.Errorf("fixtures (products): %w", err)
	}
	if n < w.products {
		if err := bulkProducts(w.bulk, n, w.products); err != nil {
			return nil, fmt.Errorf("products in bulk: %w", err)
		}
	}
	took["products"] = time.Since(t0)
	// The products are all there and counted as feria counts them: the
	// family count of one brand is a tenth of the children.
	var count struct {
		Count int `json:"count"`
	}
	b, err := do("POST", base+"/catalog_compatibilities/products_search/count_family_products", familyBody, 200, "Content-Type", "application/json")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &count); err != nil || count.Count != w.products/brands {
		return nil, fmt.Errorf("family count of brand 3 is %s, want %d: the products were not all loaded", b, w.products/brands)
	}

	t0 = time.Now()
	items := []any{map[string]any{"id": compatItem, "site_id": "MLA", "seller_id": 123, "title": "Amortiguador delantero", "category_id": "MLA1747",
		"domain_id": "MLA-CAR_SHOCK_ABSORBERS", "status": "active", "price": 15000, "currency_id": "ARS", "available_quantity": 10,
		"listing_type_id": "gold_special", "condition": "new", "attributes": []any{}, "tags": []any{},
		"shipping": map[string]any{"mode": "me2", "local_pick_up": false, "free_shipping": false, "logistic_type": "drop_off", "dimensions": "10x20x30,500"}}}
	for i := range compatItems {
		items = append(items, map[string]any{"id": fmt.Sprint("MLA", 3000+i), "site_id": "MLA", "seller_id": 123, "title": "Part " + fmt.Sprint(i),
			"category_id": "MLA1747", "domain_id": "MLA-CAR_SHOCK_ABSORBERS", "status": "active", "price": 100, "currency_id": "ARS", "available_quantity": 1})
	}
	for i := range w.copies {
		items = append(items, map[string]any{"id": fmt.Sprint("MLA", copyBase+i), "site_id": "MLA", "seller_id": 123, "title": "Copy " + fmt.Sprint(i),
			"category_id": "MLA1747", "domain_id": "MLA-CAR_SHOCK_ABSORBERS", "status": "active", "price": 100, "currency_id": "ARS", "available_quantity": 1})
	}
	// Listings as a seller lists them, for the bytes an item takes.
	for i := range w.listings {
		items = append(items, map[string]any{"id": fmt.Sprint("MLA", 10_000+i), "site_id": "MLA", "seller_id": 123, "title": fmt.Sprintf("Amortiguador trasero modelo %d", i),
			"category_id": "MLA1747", "domain_id": "MLA-CAR_SHOCK_ABSORBERS", "status": "active", "price": 15000 + i, "currency_id": "ARS", "available_quantity": 10,
			"listing_type_id": "gold_special", "condition": "new", "tags": []any{"good_quality_thumbnail"},
			"attributes": []any{map[string]any{"id": "BRAND", "name": "Marca", "value_id": "1", "value_name": "Acme"},
				map[string]any{"id": "PART_NUMBER", "name": "Número de pieza", "value_id": nil, "value_name": fmt.Sprint("AC-", i)}},
			"shipping": map[string]any{"mode": "me2", "local_pick_up": false, "free_shipping": i%2 == 0, "logistic_type": "drop_off", "dimensions": "10x20x30,500"}})
	}
	for i := range contactItems {
		items = append(items, map[string]any{"id": fmt.Sprint("MLA", 2000+i), "site_id": "MLA", "seller_id": 123, "title": "Item " + fmt.Sprint(i),
			"category_id": "MLA1747", "domain_id": "MLA-CAR_SHOCK_ABSORBERS", "status": "active", "price": 100, "currency_id": "ARS", "available_quantity": 1})
	}
	if _, err := sandbox(base, "POST", "/fixtures", map[string]any{"items": items}); err != nil {
		return nil, fmt.Errorf("fixtures (items): %w", err)
	}
	var orders []any
	for i := 0; i < w.packs; i++ {
		orders = append(orders, map[string]any{"id": 6_000_000 + i, "site_id": "MLA", "seller_id": 123, "buyer_id": 456, "pack_id": packBase + i,
			"status": "paid", "items": []any{map[string]any{"item_id": compatItem, "quantity": 1, "unit_price": 15000}}})
		if len(orders) == 1000 || i == w.packs-1 {
			if _, err := sandbox(base, "POST", "/fixtures", map[string]any{"orders": orders}); err != nil {
				return nil, fmt.Errorf("fixtures (orders): %w", err)
			}
			orders = orders[:0]
		}
	}
	took["orders"] = time.Since(t0)

	// 200 compatibilities of the read item, and of compatItems more (the
	// storage a compatibility takes), through the public API, as a seller
	// adds them.
	t0 = time.Now()
	for k := -1; k < compatItems; k++ {
		var ps []any
		for i := range 200 {
			ps = append(ps, map[string]any{"id": fmt.Sprintf("MLA%d", 1_000_000+(i*7+k*13+13)%w.products)})
		}
		raw, _ := json.Marshal(map[string]any{"products": ps})
		item := compatItem
		if k >= 0 {
			item = fmt.Sprint("MLA", 3000+k)
		}
		if _, err := do("POST", base+"/items/"+item+"/compatibilities", raw, 200, "Content-Type", "application/json", "Authorization", "Bearer "+sellerToken); err != nil {
			return nil, fmt.Errorf("compatibilities: %w", err)
		}
	}
	took["compatibilities"] = time.Since(t0)

	// Contact events: w.days days of one event per item and day.
	t0 = time.Now()
	start := time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)
	var batch []map[string]string
	n = 0
	for d := 0; d < w.days; d++ {
		for i := range contactItems {
			batch = append(batch, map[string]string{"id": fmt.Sprint("seed-", n), "item_id": fmt.Sprint("MLA", 2000+i), "type": "phone_view",
				"date": start.AddDate(0, 0, d).Add(time.Duration(n%24) * time.Hour).Format(time.RFC3339)})
			n++
			if len(batch) == 1000 || (d == w.days-1 && i == contactItems-1) {
				if _, err := sandbox(base, "POST", "/contact_events", map[string]any{"events": batch}); err != nil {
					return nil, fmt.Errorf("contact events: %w", err)
				}
				batch = batch[:0]
			}
		}
	}
	took["contact events"] = time.Since(t0)
	return took, nil
}

// apiProducts are loaded through the sandbox; the rest in bulk.
const apiProducts = 2000

// bulkProducts inserts products [from, to) and their family heads as
// catalogdb's UpsertProduct stores them (the attributes as JSON, and one
// row per attribute with its value name in lower case), in two statements
// per table; the family count checked after it proves feria reads them.
func bulkProducts(db *bun.DB, from, to int) error {
	ctx := context.Background()
	const attrs = `jsonb_build_array(
		jsonb_build_object('id', 'BRAND', 'name', 'Marca', 'value_id', (i % 10)::text, 'value_name', 'Brand ' || (i % 10)),
		jsonb_build_object('id', 'VEHICLE_YEAR', 'name', 'Año', 'value_id', (2000 + (i / 10) % 20)::text, 'value_name', (2000 + (i / 10) % 20)::text))`
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []string{
			// Family heads: parent_id null, the attributes of their first child.
			fmt.Sprintf(`INSERT INTO products (id, site_id, domain_id, name, parent_id, attributes)
				SELECT 'MLA' || (5000000 + i / %[3]d), 'MLA', 'MLA-CARS_AND_VANS', 'Family MLA' || (5000000 + i / %[3]d), NULL, %[4]s
				FROM generate_series(%[1]d, %[2]d - 1) AS i WHERE i %% %[3]d = 0`, from, to, perParent, attrs),
			fmt.Sprintf(`INSERT INTO products (id, site_id, domain_id, name, parent_id, attributes)
				SELECT 'MLA' || (1000000 + i), 'MLA', 'MLA-CARS_AND_VANS', 'Car ' || i, 'MLA' || (5000000 + i / %[3]d), %[4]s
				FROM generate_series(%[1]d, %[2]d - 1) AS i`, from, to, perParent, attrs),
			fmt.Sprintf(`INSERT INTO product_attributes (product_id, domain_id, attribute_id, value_id, value_name)
				SELECT p.id, p.domain_id, a->>'id', a->>'value_id', lower(a->>'value_name')
				FROM products p, jsonb_array_elements(p.attributes) AS a
				WHERE p.id IN (SELECT 'MLA' || (1000000 + i) FROM generate_series(%[1]d, %[2]d - 1) AS i
					UNION ALL SELECT 'MLA' || (5000000 + i / %[3]d) FROM generate_series(%[1]d, %[2]d - 1) AS i WHERE i %% %[3]d = 0)`, from, to, perParent),
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

// paths are feria's measured requests, each made for an instance's base
// URL: the instance as deployed, or the one serving the sandbox.
type paths struct {
	base     string // where the world's documents were uploaded (either: one database)
	pdf      []byte
	form     []byte // pdf as the multipart form of an upload
	formType string
	// nextPack is the packs taken by uploads (both instances take from
	// it: a pack takes one PDF); uploadPaths are every upload's path.
	nextPack    atomic.Int64
	uploadPaths []string
	packs       int64
	run         string // makes event ids unique per instance
	docs        []string
}

func newPaths(base string, packs int, run string) *paths {
	p := &paths{base: base, pdf: makePDF(100 << 10), packs: int64(packs), run: run}
	form, ct := multipartPDF(p.pdf)
	p.form, p.formType = []byte(form), ct
	p.nextPack.Store(downloadPacks)
	for n := int64(0); n < p.packs; n++ {
		p.uploadPaths = append(p.uploadPaths, fmt.Sprintf("/packs/%d/fiscal_documents", packBase+n))
	}
	return p
}

// makePDF is a file of n bytes that feria takes for a PDF.
func makePDF(n int) []byte {
	b := bytes.Repeat([]byte("0123456789abcdef\n"), n/17+1)[:n]
	copy(b, "%PDF-1.4\n")
	copy(b[n-6:], "%%EOF\n")
	return b
}

// get is one GET of path that answers 200.
func get(base, path string, header ...string) *request {
	return &request{method: "GET", base: base, paths: []string{path}, header: header, want: 200}
}

var seller = []string{"Authorization", "Bearer " + sellerToken}

func (p *paths) health(base string) *request { return get(base, "/health/live") }

func (p *paths) item(base string) *request { return get(base, "/items/"+compatItem) }

func (p *paths) yearTotal(base string) *request {
	return get(base, "/items/MLA2000/contacts/phone_views?date_from=2025-07-01T12:00:00Z&date_to=2026-07-01T12:00:00Z")
}

var windowIDs = func() string {
	ids := make([]string, contactItems)
	for i := range ids {
		ids[i] = fmt.Sprint("MLA", 2000+i)
	}
	return strings.Join(ids, ",")
}()

func (p *paths) window(base string) *request {
	return get(base, "/items/contacts/phone_views/time_window?unit=day&last=30&ending=2026-03-15T12:00:00Z&ids="+windowIDs)
}

// ingest posts batches of 100 events never seen before.
func (p *paths) ingest(base string) *request {
	return &request{method: "POST", base: base, paths: []string{"/sandbox/contact_events"}, events: "b" + p.run, want: 200,
		header: []string{"Content-Type", "application/json", "X-Sandbox-Key", sandboxKey}}
}

// eventsBody is a batch of 100 events never seen before, their ids run's
// next numbers: each of its own item, day and hour (the script has nothing
// to merge).
func eventsBody(run string, next *atomic.Int64) []byte {
	var b bytes.Buffer
	b.WriteString(`{"events":[`)
	for i := range 100 {
		n := next.Add(1)
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"%s-%d","item_id":"MLA%d","type":"phone_view","date":"2026-0%d-%02dT%02d:%02d:00Z"}`,
			run, n, 2000+n%contactItems, 1+n%9, 1+n%28, n%24, n%60)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func (p *paths) compatList(base string) *request {
	return get(base, "/items/"+compatItem+"/compatibilities", seller...)
}

var familyBody = []byte(`{"domain_id":"MLA-CARS_AND_VANS","attributes":[{"id":"BRAND","value_id":"3"}]}`)

func (p *paths) familyCount(base string) *request {
	return &request{method: "POST", base: base, paths: []string{"/catalog_compatibilities/products_search/count_family_products"},
		body: familyBody, header: []string{"Content-Type", "application/json"}, want: 200}
}

// multipartPDF is pdf as the form of an upload (the part fiscal_document)
// and its Content-Type.
func multipartPDF(pdf []byte) (string, string) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="fiscal_document"; filename="factura.pdf"`)
	h.Set("Content-Type", "application/pdf")
	pw, _ := w.CreatePart(h)
	pw.Write(pdf) //nolint:errcheck // a buffer
	w.Close()
	return body.String(), w.FormDataContentType()
}

// uploadTo sends the 100 KiB PDF to a pack and returns the document's id.
func (p *paths) uploadTo(pack int64) (string, error) {
	b, err := do("POST", fmt.Sprintf("%s/packs/%d/fiscal_documents", p.base, packBase+pack), p.form, 201,
		"Content-Type", p.formType, "Authorization", "Bearer "+sellerToken)
	if err != nil {
		return "", err
	}
	var v struct {
		IDs []string `json:"ids"`
	}
	if err := json.Unmarshal(b, &v); err != nil || len(v.IDs) != 1 {
		return "", fmt.Errorf("upload answer %s", b)
	}
	return v.IDs[0], nil
}

// upload sends the PDF to a fresh pack each time (errExhausted when none
// is left).
func (p *paths) upload(base string) *request {
	return &request{method: "POST", base: base, paths: p.uploadPaths, fresh: &p.nextPack, body: p.form, want: 201,
		header: []string{"Content-Type", p.formType, "Authorization", "Bearer " + sellerToken}}
}

// prepareDownloads uploads one document to each of the first packs.
func (p *paths) prepareDownloads() error {
	for i := range int64(downloadPacks) {
		id, err := p.uploadTo(i)
		if err != nil {
			return err
		}
		p.docs = append(p.docs, fmt.Sprintf("/packs/%d/fiscal_documents/%s", packBase+i, id))
	}
	return nil
}

// download reads the documents prepareDownloads uploaded, in turn.
func (p *paths) download(base string) *request {
	return &request{method: "GET", base: base, paths: p.docs, header: seller, want: 200, size: len(p.pdf)}
}

// copyTo asks for a copy of the read item's compatibilities onto item: a
// bulk job.
func (p *paths) copyTo(item string) error {
	_, err := do("POST", p.base+"/items/"+item+"/compatibilities", []byte(`{"item_to_copy":{"item_id":"`+compatItem+`"}}`), 200,
		"Content-Type", "application/json", "Authorization", "Bearer "+sellerToken)
	return err
}
