package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// row is one row of the table of docs/messages.md.
type row struct {
	key, status, code, documented, feria string
}

// documentedRows reads the table.
func documentedRows(t *testing.T) []row {
	t.Helper()
	b, err := os.ReadFile("../../docs/messages.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if !strings.HasPrefix(doc, "# Messages the marketplace documents\n") {
		t.Fatal("docs/messages.md does not start with its heading \"Messages the marketplace documents\"")
	}
	var rows []row
	unquote := func(s string) string { return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "`"), "`") }
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 5 {
			t.Fatalf("a row of the table has %d cells: %s", len(cells), line)
		}
		rows = append(rows, row{unquote(cells[0]), strings.TrimSpace(cells[1]), unquote(cells[2]), unquote(cells[3]), unquote(cells[4])})
	}
	if len(rows) < 30 {
		t.Fatalf("the table has %d rows; its format changed?", len(rows))
	}
	return rows
}

// placeholders are the documented text's stand-ins for the values of a
// request: $NAME, ${ID}, %d and the sample ids of the marketplace's guide.
var placeholders = regexp.MustCompile(`\\\$\\\{[A-Z_]+\\\}|\\\$[A-Z_]+|%d|2000000089077943|415460047_[0-9a-f-]{36}`)

// pattern turns a text with placeholders into a regular expression; runs
// of spaces match any run (the guide's samples wrap).
func pattern(text string, extra *regexp.Regexp) *regexp.Regexp {
	q := regexp.QuoteMeta(text)
	q = placeholders.ReplaceAllString(q, `(.+?)`)
	if extra != nil {
		q = extra.ReplaceAllString(q, `[0-9a-f-]{36}`)
	}
	q = regexp.MustCompile(` +`).ReplaceAllString(q, ` +`)
	return regexp.MustCompile(`^` + q + `$`)
}

// answer is what a request of the table answered: the status, the error
// code and the message, wherever the route puts them.
type answer struct {
	status        int
	code, message string
}

// TestDocumentedMessages makes the request of every row of the table and
// compares its answer with the row: status and error, feria's text exactly
// (generated ids aside), and the marketplace's text where it has one.
func TestDocumentedMessages(t *testing.T) {
	t.Parallel() // an instance of its own, on a frozen clock
	a := apptest.New(t, apptest.Embedded)
	a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}).OK(t, 200)
	d := docWorld{t: t, a: a, lost: new(string)}
	d.load()
	scenarios := d.scenarios()
	seen := map[string]bool{}
	uuidRE := regexp.MustCompile(regexp.QuoteMeta("<id>"))
	for _, r := range documentedRows(t) {
		t.Run(r.key, func(t *testing.T) {
			seen[r.key] = true
			run, ok := scenarios[r.key]
			if !ok {
				t.Fatalf("the table has %s, which the test does not request", r.key)
			}
			got := run()
			code := r.code
			if code == "—" {
				code = ""
			}
			if fmt.Sprint(got.status) != r.status || got.code != code {
				t.Errorf("status %d, error %q; the table says %s %q (message %q)", got.status, got.code, r.status, code, got.message)
			}
			if !pattern(r.feria, uuidRE).MatchString(got.message) {
				t.Errorf("message %q; the table says %q", got.message, r.feria)
			}
			if r.documented != "not documented" && !pattern(r.documented, nil).MatchString(got.message) {
				t.Errorf("message %q is not the marketplace's %q", got.message, r.documented)
			}
		})
	}
	for k := range scenarios {
		if !seen[k] {
			t.Errorf("the test requests %s, which the table does not list", k)
		}
	}
}

// docWorld is the world of the table's requests: sellers 101 and 102,
// buyer 201, stranger 301 (MLA), a Brazilian seller 401, a Chilean seller
// 501 and seller 601 who may not use messaging; packs 1001-1010 and an
// application 789. Tokens are tok-<id>.
type docWorld struct {
	t *testing.T
	a *apptest.App
	// lost is the id of 1007's document, whose file is gone.
	lost *string
}

var docPDF = []byte("%PDF-1.7\n1 0 obj<</Type/Catalog>>endobj\ntrailer<<>>\n%%EOF\n")

func (d docWorld) load() {
	user := func(id int, site string, messaging bool) map[string]any {
		return map[string]any{"id": id, "nickname": fmt.Sprint("U", id), "site_id": site, "messaging_allowed": messaging, "access_token": fmt.Sprint("tok-", id)}
	}
	category := func(site string) map[string]any {
		return map[string]any{"id": site + "1", "site_id": site, "name": "Cosas", "domain_id": site + "-THINGS", "compatibilities": nil}
	}
	item := func(site string, seller int) map[string]any {
		return map[string]any{"id": fmt.Sprint(site, seller), "site_id": site, "seller_id": seller, "title": "Cosa", "category_id": site + "1"}
	}
	order := func(id, pack int, site string, seller int, logistic string) map[string]any {
		return map[string]any{"id": id, "site_id": site, "seller_id": seller, "buyer_id": map[string]int{"MLA": 201, "MLB": 402, "MLC": 502}[site],
			"pack_id": pack, "status": "paid", "items": []any{map[string]any{"item_id": fmt.Sprint(site, seller), "quantity": 1, "unit_price": 100}},
			"shipping": map[string]any{"id": id, "logistic_type": logistic}}
	}
	orders := []any{order(9004, 1004, "MLB", 401, "drop_off"), order(9005, 1005, "MLC", 501, "fulfillment"), order(9006, 1006, "MLA", 601, "drop_off")}
	for _, p := range []int{1001, 1002, 1003, 1007, 1008, 1009, 1010} {
		orders = append(orders, order(p+8000, p, "MLA", 101, "drop_off"))
	}
	d.a.MustLoad(map[string]any{
		"users": []any{user(101, "MLA", true), user(102, "MLA", true), user(201, "MLA", true), user(301, "MLA", true),
			user(401, "MLB", true), user(402, "MLB", true), user(501, "MLC", true), user(502, "MLC", true), user(601, "MLA", false)},
		"categories":   []any{category("MLA"), category("MLB"), category("MLC")},
		"items":        []any{item("MLA", 101), item("MLA", 102), item("MLA", 601), item("MLB", 401), item("MLC", 501)},
		"orders":       orders,
		"applications": []any{map[string]any{"id": 789, "name": "n", "owner_id": 101, "client_secret": "s3cret", "callback_url": "http://127.0.0.1:9/n", "redirect_uris": []string{"https://app.example/cb"}}},
	})
	// 1001 holds a PDF; 1008 a PDF and an XML; 1003 a PDF of 101 and then
	// changes hands to 102; 1007's file is lost from storage.
	d.upload(1001, "tok-101", d.pdf("a.pdf")).OK(d.t, 201)
	d.upload(1008, "tok-101", d.pdf("a.pdf"), d.xml("a.xml")).OK(d.t, 201)
	d.upload(1003, "tok-101", d.pdf("a.pdf")).OK(d.t, 201)
	d.a.MustLoad(map[string]any{"orders": []any{order(9003, 1003, "MLA", 102, "drop_off")}})
	var up struct{ IDs []string }
	d.upload(1007, "tok-101", d.pdf("a.pdf")).JSON(d.t, &up)
	*d.lost = strings.TrimPrefix(up.IDs[0], "101_")
	if err := d.a.Deps.Blobs.Delete(d.t.Context(), "fiscal/1007/"+*d.lost); err != nil {
		d.t.Fatal(err)
	}
	d.upload(1009, "tok-101", d.pdf("a.pdf")).OK(d.t, 201)
	d.upload(1010, "tok-101", d.pdf("a.pdf"), d.xml("a.xml")).OK(d.t, 201)
}

type part struct {
	name, filename, contentType string
	data                        []byte
}

func (d docWorld) pdf(name string) part {
	return part{"fiscal_document", name, "application/pdf", docPDF}
}
func (d docWorld) xml(name string) part {
	return part{"fiscal_document", name, "application/xml", []byte("<factura/>")}
}

func (d docWorld) upload(pack int, token string, parts ...part) apptest.Response {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.name, p.filename))
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, _ := w.CreatePart(h)
		pw.Write(p.data) //nolint:errcheck // a bytes.Buffer
	}
	w.Close()
	path := fmt.Sprintf("/packs/%d/fiscal_documents", pack)
	if token != "" {
		path += "?access_token=" + token
	}
	req := httptest.NewRequest("POST", path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return d.a.Send(req)
}

// shapeA reads an error of shape (a), or a delete's message.
func (d docWorld) shapeA(r apptest.Response) answer {
	var e struct {
		Message string `json:"message"`
		Error   string `json:"error"`
		Status  int    `json:"status"`
	}
	if err := json.Unmarshal(r.Body, &e); err != nil {
		d.t.Fatalf("%s: not JSON: %s", r.Request, r.Body)
	}
	if e.Status != 0 && e.Status != r.Status {
		d.t.Errorf("%s: status %d in a %d answer", r.Request, e.Status, r.Status)
	}
	return answer{r.Status, e.Error, e.Message}
}

// oauth reads an error of the OAuth shape.
func (d docWorld) oauth(r apptest.Response) answer {
	var e struct {
		Description string `json:"error_description"`
		Error       string `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &e); err != nil {
		d.t.Fatalf("%s: not JSON: %s", r.Request, r.Body)
	}
	return answer{r.Status, e.Error, e.Description}
}

// redirect reads an error sent back to the redirect_uri.
func (d docWorld) redirect(r apptest.Response) answer {
	u, err := url.Parse(r.Header.Get("Location"))
	if err != nil {
		d.t.Fatal(err)
	}
	return answer{r.Status, u.Query().Get("error"), u.Query().Get("error_description")}
}

func (d docWorld) token(form url.Values) apptest.Response {
	req := httptest.NewRequest("POST", "/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return d.a.Send(req)
}

func (d docWorld) scenarios() map[string]func() answer {
	a := d.a
	as := func(id int) []string { return apptest.Bearer(fmt.Sprint("tok-", id)) }
	get := func(path string, user int) answer { return d.shapeA(a.Do("GET", path, nil, as(user)...)) }
	billing := func(pack, user int, body string) answer {
		return d.shapeA(a.Do("POST", fmt.Sprintf("/packs/%d/fiscal_documents/billing_info", pack), body, as(user)...))
	}
	up := func(parts ...part) answer { return d.shapeA(d.upload(1002, "tok-101", parts...)) }
	big := append(append([]byte{}, docPDF...), bytes.Repeat([]byte("x"), 1_000_001-len(docPDF))...)
	exchange := url.Values{"grant_type": {"authorization_code"}, "client_id": {"789"}, "client_secret": {"s3cret"},
		"code": {"TG-0-101"}, "redirect_uri": {"https://app.example/cb"}}
	with := func(k, v string) url.Values { return apptest.With(exchange, k, v) }
	authorize := "/authorization?client_id=789&redirect_uri=" + url.QueryEscape("https://app.example/cb")
	docs := "/packs/%d/fiscal_documents"
	send := func(user, from, to int, text string) answer {
		return d.shapeA(a.Do("POST", "/messages/packs/1001/sellers/101?tag=post_sale", map[string]any{"from": map[string]any{"user_id": from},
			"to": map[string]any{"user_id": to}, "text": text}, as(user)...))
	}
	attach := func(p part) answer {
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		pw, _ := w.CreateFormFile(p.name, p.filename)
		pw.Write(p.data) //nolint:errcheck // a bytes.Buffer
		w.Close()
		req := httptest.NewRequest("POST", "/messages/attachments?access_token=tok-101", &body)
		req.Header.Set("Content-Type", w.FormDataContentType())
		return d.shapeA(a.Send(req))
	}
	return map[string]func() answer{
		"messages.forbidden":         func() answer { return send(301, 301, 201, "hola") },
		"messages.from":              func() answer { return send(201, 101, 201, "hola") },
		"messages.too-long":          func() answer { return send(101, 101, 201, strings.Repeat("a", 351)) },
		"messages.invalid":           func() answer { return send(101, 101, 201, "Seguinos en instagram.com/tienda") },
		"messages.invalid-extension": func() answer { return attach(part{"file", "a.exe", "", docPDF}) },
		"messages.invalid-size":      func() answer { return attach(part{"file", "a.txt", "", nil}) },
		"fiscal.token":               func() answer { return d.shapeA(d.upload(1001, "", d.pdf("a.pdf"))) },
		"fiscal.forbidden":           func() answer { return get(fmt.Sprintf(docs, 1001), 301) },
		"fiscal.download-forbidden":  func() answer { return get(fmt.Sprintf(docs, 1001)+"/x", 301) },
		"fiscal.site":                func() answer { return get(fmt.Sprintf(docs, 1004), 401) },
		"fiscal.file-empty":          func() answer { return up(part{"fiscal_document", "a.pdf", "application/pdf", nil}) },
		"fiscal.file-type":           func() answer { return up(part{"fiscal_document", "a.png", "image/png", docPDF}) },
		"fiscal.file-size":           func() answer { return up(part{"fiscal_document", "a.pdf", "application/pdf", big}) },
		"fiscal.too-many-files":      func() answer { return up(d.pdf("a.pdf"), d.xml("a.xml"), d.pdf("b.pdf")) },
		"fiscal.same-type":           func() answer { return up(d.pdf("a.pdf"), d.pdf("b.pdf")) },
		"fiscal.pack-full":           func() answer { return d.shapeA(d.upload(1008, "tok-101", d.pdf("c.pdf"))) },
		"fiscal.type-present":        func() answer { return d.shapeA(d.upload(1001, "tok-101", d.pdf("c.pdf"))) },
		"fiscal.filename":            func() answer { return up(part{"fiscal_document", "", "application/pdf", docPDF}) },
		"fiscal.no-documents":        func() answer { return get(fmt.Sprintf(docs, 1002), 101) },
		"fiscal.no-caller-documents": func() answer { return get(fmt.Sprintf(docs, 1003), 102) },
		"fiscal.document-id":         func() answer { return get(fmt.Sprintf(docs, 1001)+"/00000000-0000-4000-8000-000000000000", 201) },
		"fiscal.not-retrieved":       func() answer { return d.notRetrieved() },
		"fiscal.nothing-to-delete":   func() answer { return d.shapeA(a.Do("DELETE", fmt.Sprintf(docs, 1002), nil, as(101)...)) },
		"fiscal.deleted-one":         func() answer { return d.shapeA(a.Do("DELETE", fmt.Sprintf(docs, 1009), nil, as(101)...)) },
		"fiscal.deleted-two":         func() answer { return d.shapeA(a.Do("DELETE", fmt.Sprintf(docs, 1010), nil, as(101)...)) },
		"fiscal.billing-body-empty":  func() answer { return billing(1001, 101, "") },
		"fiscal.billing-body-unreadable": func() answer {
			return billing(1001, 101, "{nope")
		},
		"fiscal.billing-no-messaging": func() answer { return billing(1006, 601, `{"text":"hola"}`) },
		"fiscal.billing-too-long":     func() answer { return billing(1001, 101, `{"text":"`+strings.Repeat("a", 501)+`"}`) },
		"fiscal.billing-empty":        func() answer { return billing(1001, 101, `{"text":""}`) },
		"fiscal.billing-invalid":      func() answer { return billing(1001, 101, `{"text":"Seguinos en instagram.com/tienda"}`) },
		"fiscal.not-a-pack":           func() answer { return get(fmt.Sprintf(docs, 9001), 101) },
		"fiscal.pack-id":              func() answer { return get("/packs/abc/fiscal_documents", 101) },
		"fiscal.pack-id-invalid":      func() answer { return get("/packs/0/fiscal_documents", 101) },
		"fiscal.fulfillment":          func() answer { return get(fmt.Sprintf(docs, 1005), 501) },
		"fiscal.lone-xml":             func() answer { return up(d.xml("a.xml")) },
		"fiscal.declared-type":        func() answer { return up(part{"fiscal_document", "a.xml", "application/xml", docPDF}) },
		"fiscal.content":              func() answer { return up(part{"fiscal_document", "a.pdf", "application/pdf", []byte("nope")}) },
		"oauth.invalid-grant":         func() answer { return d.oauth(d.token(exchange)) },
		"oauth.invalid-client":        func() answer { return d.oauth(d.token(with("client_secret", "nope"))) },
		"oauth.invalid-request":       func() answer { return d.oauth(d.token(with("code", ""))) },
		"oauth.unsupported-grant-type": func() answer {
			return d.oauth(d.token(with("grant_type", "password")))
		},
		"oauth.invalid-scope": func() answer { return d.oauth(d.token(with("scope", "admin"))) },
		"oauth.unsupported-response-type": func() answer {
			return d.redirect(a.Do("GET", authorize+"&response_type=token", nil))
		},
		"oauth.access-denied": func() answer { return d.redirect(a.Do("GET", authorize+"&response_type=code&decision=deny", nil)) },
		"token.missing":       func() answer { return d.shapeA(a.Do("GET", "/users/101/items/search", nil)) },
		"token.invalid": func() answer {
			return d.shapeA(a.Do("GET", "/users/101/items/search", nil, apptest.Bearer("tok-nope")...))
		},
	}
}

// notRetrieved downloads 1007's document, whose file is gone.
func (d docWorld) notRetrieved() answer {
	return d.shapeA(d.a.Do("GET", "/packs/1007/fiscal_documents/"+*d.lost, nil, apptest.Bearer("tok-201")...))
}
