package fiscalapi_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/test/apptest"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func docsPath(pack any) string { return fmt.Sprintf("/packs/%v/fiscal_documents", pack) }

func TestFiscalDocuments(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		world(t, a)
		t.Run("Auth", func(t *testing.T) { testAuth(t, a) })
		t.Run("PackID", func(t *testing.T) { testPackID(t, a) })
		t.Run("Forbidden", func(t *testing.T) { testForbidden(t, a) })
		t.Run("Lifecycle", func(t *testing.T) { testLifecycle(t, a) })
		t.Run("UploadErrors", func(t *testing.T) { testUploadErrors(t, a) })
		t.Run("UploadBodies", func(t *testing.T) { testUploadBodies(t, a) })
		t.Run("Billing", func(t *testing.T) { testBilling(t, a) })
		t.Run("CallerHasNoDocuments", func(t *testing.T) { testCallerHasNoDocuments(t, a) })
	})
}

func testAuth(t *testing.T, a *apptest.App) {
	missing := apptest.Err(403, "access_token_not_granted", "access_token was not sent")
	p := docsPath(packMLA)
	for _, c := range []struct{ method, path string }{
		{"POST", p}, {"GET", p}, {"GET", p + "/x"}, {"DELETE", p}, {"POST", p + "/billing_info"},
		{"GET", "/messages/packs/1001"}, {"GET", "/my/notifications"},
	} {
		a.Do(c.method, c.path, nil).Is(t, 403, missing)
		a.Do(c.method, c.path+"?access_token=nope", nil).Is(t, 401, apptest.Err(401, "unauthorized", "invalid access token"))
		a.Do(c.method, c.path, nil, apptest.Bearer("nope")...).Is(t, 401, apptest.Err(401, "unauthorized", "invalid access token"))
	}
}

func testPackID(t *testing.T, a *apptest.App) {
	h := apptest.Bearer(tok(seller))
	for raw, want := range map[string]string{
		"abc":                   apptest.Err(400, "bad_request", "pack.id must be numeric and not empty", "pack_id", "pack_id must be numeric"),
		"0":                     apptest.Err(400, "bad_request", "pack.id is invalid", "pack_id", "pack_id must be a positive integer"),
		"-7":                    apptest.Err(400, "bad_request", "pack.id is invalid", "pack_id", "pack_id must be a positive integer"),
		"":                      apptest.Err(400, "bad_request", "pack.id must be numeric and not empty", "pack_id", "pack_id is required"),
		fmt.Sprint(orderInPack): apptest.Err(400, "bad_request", "The order belong to a pack/purchase", "pack_id", "no order is part of pack 9001"),
		"777":                   apptest.Err(400, "bad_request", "The order belong to a pack/purchase", "pack_id", "no order is part of pack 777"),
	} {
		p := docsPath(raw)
		a.Do("GET", p, nil, h...).Is(t, 400, want)
		a.Do("DELETE", p, nil, h...).Is(t, 400, want)
		a.Do("GET", p+"/abc", nil, h...).Is(t, 400, want)
		a.Do("POST", p+"/billing_info", `{"text":"hola"}`, h...).Is(t, 400, want)
		upload(a, p, tok(seller), pdfFile("f.pdf")).Is(t, 400, want)
	}
}

func testForbidden(t *testing.T, a *apptest.App) {
	notAuthorized := apptest.Err(403, "forbidden", "Access Denied, you are not authorized.")
	sellerOnly := notAuthorized
	brazil := apptest.Err(403, "forbidden", "Access Denied, this API is not available on your site: MLB")
	fulfil := apptest.Err(403, "forbidden", "fiscal documents are not available for Chilean packs shipped by fulfillment")
	cases := []struct {
		name  string
		pack  int
		token string
		want  string
		// which calls: all five unless only is set
		upload, list, del, billing bool
	}{
		{"stranger", packMLA, tok(stranger), notAuthorized, true, true, true, true},
		{"buyer may not change", packMLA, tok(buyer), sellerOnly, true, false, true, true},
		{"brazilian caller", packMLB, tok(brSeller), brazil, true, true, true, true},
		{"brazilian pack, foreign caller", packMLB, tok(seller), brazil, true, true, true, true},
		{"chilean fulfilment pack", packFulfilment, tok(clSeller), fulfil, true, true, true, true},
		{"chilean fulfilment pack, buyer", packFulfilment, tok(clBuyer), fulfil, false, true, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := docsPath(c.pack)
			h := apptest.Bearer(c.token)
			if c.upload {
				upload(a, p, c.token, pdfFile("f.pdf")).Is(t, 403, c.want)
			}
			if c.list {
				a.Do("GET", p+"?access_token="+c.token, nil).Is(t, 403, c.want)
				want := c.want
				if want == notAuthorized {
					// A download names the caller and the document.
					want = apptest.Err(403, "forbidden", fmt.Sprintf("Access Denied for user with id : %s to the fiscal_document with id: x.", strings.TrimPrefix(c.token, "tok-")))
				}
				a.Do("GET", p+"/x", nil, h...).Is(t, 403, want)
			}
			if c.del {
				a.Do("DELETE", p, nil, h...).Is(t, 403, c.want)
			}
			if c.billing {
				a.Do("POST", p+"/billing_info", `{"text":"hola"}`, h...).Is(t, 403, c.want)
			}
		})
	}
	// Not fulfilment on the Chilean site: allowed.
	r := upload(a, docsPath(packMLC), tok(clSeller), pdfFile("cl.pdf"))
	r.HasStatus(t, 201)
}

type listAnswer struct {
	PackID int64 `json:"pack_id"`
	Docs   []struct {
		ID       string    `json:"id"`
		Date     time.Time `json:"date"`
		FileType string    `json:"file_type"`
		Filename string    `json:"filename"`
	} `json:"fiscal_documents"`
}

// testLifecycle walks the state table: none → 1 document → 2 → 409s →
// deleted → empty list → 404 on a second delete, with both roles and both
// token carriers.
func testLifecycle(t *testing.T, a *apptest.App) {
	p := docsPath(orderAlone)
	sh, bh := apptest.Bearer(tok(seller)), apptest.Bearer(tok(buyer))
	noDocs := apptest.Err(404, "not_found", "The pack_fiscal_document with pack_id: 9004 does not exist")
	nothingToDelete := apptest.Err(404, "not_found", "Cannot delete. The pack: 9004 doesn't have a fiscal_document attached")
	a.Do("GET", p, nil, sh...).Is(t, 404, noDocs)
	a.Do("GET", p+"?access_token="+tok(buyer), nil).Is(t, 404, noDocs)
	a.Do("DELETE", p, nil, sh...).Is(t, 404, nothingToDelete)

	// none → 1 document (a lone PDF)
	r := upload(a, p, tok(seller), pdfFile("factura A-0001.pdf"))
	var up struct{ IDs []string }
	r.HasStatus(t, 201)
	if json.Unmarshal(r.Body, &up) != nil || len(up.IDs) != 1 || !strings.HasPrefix(up.IDs[0], "101_") || !uuidRE.MatchString(up.IDs[0][4:]) {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	pdfID := up.IDs[0][4:]
	wantKeys(t, r.Body, "ids")
	// same type again → 409 (state table)
	upload(a, p, tok(seller), pdfFile("again.pdf")).Is(t, 409, apptest.Err(409, "conflict", "File Not allowed, a file already exists for the pack: 9004 and seller: 101 of the type: application/pdf"))
	// 1 → 2: the XML beside its stored PDF
	r = upload(a, p, tok(seller), part{"fiscal_document", "factura.xml", "text/xml", xmlBytes})
	r.HasStatus(t, 201)
	if json.Unmarshal(r.Body, &up) != nil || len(up.IDs) != 1 || !strings.HasPrefix(up.IDs[0], "101_") {
		t.Fatalf("xml upload: %d %s", r.Status, r.Body)
	}
	xmlID := up.IDs[0][4:]
	// a third file → 409
	upload(a, p, tok(seller), pdfFile("third.pdf")).Is(t, 409, apptest.Err(409, "conflict", "File Not allowed, the max amount of files already exist for the pack: 9004 and seller: 101"))

	// seller (header) and buyer (query) see both, with plain uuids
	for _, r := range []apptest.Response{a.Do("GET", p, nil, sh...), a.Do("GET", p+"?access_token="+tok(buyer), nil)} {
		r.HasStatus(t, 200)
		var l listAnswer
		r.JSON(t, &l)
		var raw struct {
			PackID json.RawMessage   `json:"pack_id"`
			Docs   []json.RawMessage `json:"fiscal_documents"`
		}
		r.JSON(t, &raw)
		wantKeys(t, r.Body, "pack_id", "fiscal_documents")
		if string(raw.PackID) != fmt.Sprint(orderAlone) { // an integer, not a string
			t.Fatalf("pack_id %s", raw.PackID)
		}
		for _, d := range raw.Docs {
			wantKeys(t, d, "id", "date", "file_type", "filename")
		}
		if l.PackID != orderAlone || len(l.Docs) != 2 || l.Docs[0].ID != pdfID || l.Docs[0].FileType != "application/pdf" ||
			l.Docs[0].Filename != "factura A-0001.pdf" || l.Docs[1].ID != xmlID || l.Docs[1].FileType != "application/xml" || l.Docs[0].Date.IsZero() {
			t.Fatalf("list: %d %s", r.Status, r.Body)
		}
	}
	// downloads, by either id form, either role
	for _, c := range []struct {
		id    string
		h     []string
		ct    string
		body  []byte
		fname string
	}{
		{pdfID, bh, "application/pdf", pdfBytes, `attachment; filename="factura A-0001.pdf"`},
		{"101_" + pdfID, sh, "application/pdf", pdfBytes, `attachment; filename="factura A-0001.pdf"`},
		{xmlID, bh, "application/xml", xmlBytes, `attachment; filename=factura.xml`},
	} {
		r := a.Do("GET", p+"/"+c.id, nil, c.h...)
		r.HasStatus(t, 200)
		if r.Header.Get("Content-Type") != c.ct || !bytes.Equal(r.Body, c.body) || r.Header.Get("Content-Disposition") != c.fname {
			t.Fatalf("download %s: %d %v %q", c.id, r.Status, r.Header, r.Body)
		}
	}
	noID := func(id string) string {
		return apptest.Err(400, "bad_request", "The fiscal_document with id: "+id+" does not exist", "fiscal_document_id", "pack 9004 has no fiscal document "+id+" the caller may see")
	}
	a.Do("GET", p+"/"+"00000000-0000-4000-8000-000000000000", nil, bh...).Is(t, 400, noID("00000000-0000-4000-8000-000000000000"))
	a.Do("GET", p+"/999_"+pdfID, nil, bh...).Is(t, 400, noID("999_"+pdfID))

	// delete: buyer refused; seller removes its documents (query carrier)
	a.Do("DELETE", p, nil, bh...).Is(t, 403, apptest.Err(403, "forbidden", "Access Denied, you are not authorized."))
	a.Do("DELETE", p+"?access_token="+tok(seller), nil).Is(t, 200, fmt.Sprintf(`{"message": "The fiscal_documents with the following ids: 101_%s, 101_%s were deleted"}`, pdfID, xmlID))
	// removed documents: an empty list, not a 404
	a.Do("GET", p, nil, sh...).Is(t, 200, fmt.Sprintf(`{"pack_id": %d, "fiscal_documents": []}`, orderAlone))
	a.Do("GET", p, nil, bh...).Is(t, 200, fmt.Sprintf(`{"pack_id": %d, "fiscal_documents": []}`, orderAlone))
	a.Do("GET", p+"/"+pdfID, nil, sh...).Is(t, 400, noID(pdfID))
	a.Do("DELETE", p, nil, sh...).Is(t, 404, nothingToDelete)

	// none → 2 documents in one request; the file gone from storage → 404
	r = upload(a, p, tok(seller), pdfFile("b.pdf"), xmlFile("b.xml"))
	r.HasStatus(t, 201)
	if json.Unmarshal(r.Body, &up) != nil || len(up.IDs) != 2 {
		t.Fatalf("pdf+xml: %d %s", r.Status, r.Body)
	}
	if err := a.Deps.Blobs.Delete(t.Context(), fmt.Sprintf("fiscal/%d/%s", orderAlone, up.IDs[0][4:])); err != nil {
		t.Fatal(err)
	}
	a.Do("GET", p+"/"+up.IDs[0][4:], nil, bh...).Is(t, 404, apptest.Err(404, "not_found", "The fiscal_document with id: "+up.IDs[0][4:]+" could not be retrieved from storage"))
	// one document deleted: the marketplace's sentence for one
	if err := a.Deps.Blobs.Put(t.Context(), fmt.Sprintf("fiscal/%d/%s", orderAlone, up.IDs[0][4:]), bytes.NewReader(pdfBytes), int64(len(pdfBytes)), "application/pdf"); err != nil {
		t.Fatal(err)
	}
	a.Do("DELETE", p, nil, sh...).OK(t, 200)
	r = upload(a, p, tok(seller), pdfFile("c.pdf"))
	r.HasStatus(t, 201)
	if json.Unmarshal(r.Body, &up) != nil || len(up.IDs) != 1 {
		t.Fatalf("pdf: %d %s", r.Status, r.Body)
	}
	a.Do("DELETE", p, nil, sh...).Is(t, 200, `{"message": "The fiscal_document with \"id\" : `+up.IDs[0]+` was deleted"}`)
}

func testUploadErrors(t *testing.T, a *apptest.App) {
	p := docsPath(packMLA)
	s := tok(seller)
	big := append(append([]byte{}, pdfBytes...), bytes.Repeat([]byte("x"), fiscal.MaxPDFSize+1-len(pdfBytes))...)
	cases := []struct {
		name   string
		parts  []part
		status int
		body   string
	}{
		{"missing part", []part{{"other", "a.pdf", "application/pdf", pdfBytes}}, 400,
			apptest.Err(400, "bad_request", "File cannot be empty")},
		{"empty file", []part{{"fiscal_document", "a.pdf", "application/pdf", nil}}, 400,
			apptest.Err(400, "bad_request", "File cannot be empty", "fiscal_document[0]", "file is empty")},
		{"empty file name", []part{{"fiscal_document", "", "application/pdf", pdfBytes}}, 400,
			apptest.Err(400, "bad_request", "Filename cannot be empty", "fiscal_document", "file name is empty")},
		{"type not allowed", []part{{"fiscal_document", "a.png", "image/png", pdfBytes}}, 400,
			apptest.Err(400, "bad_request", "File type: image/png is not allowed", "fiscal_document[0]", "file type not allowed")},
		{"pdf declared as xml", []part{{"fiscal_document", "a.xml", "application/xml", pdfBytes}}, 400,
			apptest.Err(400, "bad_request", "file a.xml is declared as xml but its content is pdf", "fiscal_document[0]", "declared type does not match the content")},
		{"xml with trailing garbage", []part{pdfFile("a.pdf"), {"fiscal_document", "a.xml", "text/xml", append(append([]byte{}, xmlBytes...), "junk"...)}}, 400,
			apptest.Err(400, "bad_request", "file a.xml is neither a PDF nor a well-formed XML document", "fiscal_document[1]", "file content not allowed")},
		{"1 MB + 1 byte", []part{{"fiscal_document", "big.pdf", "application/pdf", big}}, 400,
			apptest.Err(400, "bad_request", "File Not allowed, exceeds maximum size", "fiscal_document[0]", fmt.Sprintf("file big.pdf has %d bytes; a PDF may have at most %d", fiscal.MaxPDFSize+1, fiscal.MaxPDFSize))},
		{"three files", []part{pdfFile("a.pdf"), xmlFile("a.xml"), pdfFile("b.pdf")}, 400,
			apptest.Err(400, "bad_request", "Files Not allowed, you can upload only two files, one of each type")},
		{"two of a type", []part{pdfFile("a.pdf"), pdfFile("b.pdf")}, 409,
			apptest.Err(409, "conflict", "Files Not allowed, you can upload only one file of type: application/pdf")},
		{"lone xml", []part{xmlFile("a.xml")}, 400,
			apptest.Err(400, "bad_request", "a lone file must be a PDF; an XML is accepted only with its PDF, or once the pack holds it")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { upload(a, p, s, tc.parts...).Is(t, tc.status, tc.body) })
	}
	t.Run("not multipart", func(t *testing.T) {
		uploadRaw(a, p, s, "application/pdf", pdfBytes).Is(t, 400, apptest.Err(400, "bad_request", "File cannot be empty", "fiscal_document", "the body must be multipart/form-data with the file in the part fiscal_document"))
	})
	t.Run("body over the body limit", func(t *testing.T) {
		// fiber's Test reports fasthttp's refusal as an error; over a real
		// connection the client gets the rendered answer, sent as soon as
		// the Content-Length is read, before the body.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go a.HTTP.Listener(l) //nolint:errcheck // ends with the listener
		t.Cleanup(func() { l.Close() })
		// Only the head is sent: the answer must come without the body, which
		// is beyond the largest one any route takes (a message's attachment).
		conn, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: feria\r\nContent-Type: multipart/form-data; boundary=x\r\n"+
			"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n", p, s, messaging.MaxAttachmentSize+2<<20)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		apptest.Response{Status: res.StatusCode, Body: b}.Is(t, 400, apptest.Err(400, "bad_request", "request body too large"))
	})
	// nothing of the refused uploads is stored
	a.Do("GET", p, nil, apptest.Bearer(s)...).Is(t, 404, apptest.Err(404, "not_found", "The pack_fiscal_document with pack_id: 1001 does not exist"))
	t.Run("exactly 10^6 bytes", func(t *testing.T) {
		r := upload(a, p, s, part{"fiscal_document", "max.pdf", "", big[:1_000_000]})
		r.HasStatus(t, 201)
	})
	t.Run("pdf and xml beside a stored pdf", func(t *testing.T) {
		upload(a, p, s, pdfFile("a.pdf"), xmlFile("a.xml")).Is(t, 409, apptest.Err(409, "conflict", "File Not allowed, the max amount of files already exist for the pack: 1001 and seller: 101"))
	})
}

// testUploadBodies: a gzipped multipart body is read as fiber read it, any
// other encoding is refused, and each stored file is the one its request
// sent though the handler reuses its buffers from one upload to the next.
func testUploadBodies(t *testing.T, a *apptest.App) {
	p := docsPath(orderAlone)
	sh := apptest.Bearer(tok(seller))
	body, ct := multipartBody(pdfFile("zipped.pdf"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body)
	zw.Close()
	send := func(encoding string, b []byte) apptest.Response {
		req := httptest.NewRequest(http.MethodPost, p, bytes.NewReader(b))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Content-Encoding", encoding)
		req.Header.Set("Authorization", "Bearer "+tok(seller))
		return a.Send(req)
	}
	notMultipart := apptest.Err(400, "bad_request", "File cannot be empty", "fiscal_document", "the body must be multipart/form-data with the file in the part fiscal_document")
	send("br", body).Is(t, 400, notMultipart)
	send("gzip", body).Is(t, 400, notMultipart) // not gzip at all
	var up struct{ IDs []string }
	r := send("gzip", gz.Bytes())
	r.HasStatus(t, 201)
	if json.Unmarshal(r.Body, &up) != nil || len(up.IDs) != 1 {
		t.Fatalf("gzipped upload: %d %s", r.Status, r.Body)
	}
	pdfID := up.IDs[0]
	// A second upload, shorter, through the buffer the first one used.
	short := []byte(`<?xml version="1.0"?><a/>`)
	r = upload(a, p, tok(seller), part{"fiscal_document", "short.xml", "application/xml", short})
	r.HasStatus(t, 201)
	if json.Unmarshal(r.Body, &up) != nil || len(up.IDs) != 1 {
		t.Fatalf("xml upload: %d %s", r.Status, r.Body)
	}
	for id, want := range map[string][]byte{pdfID: pdfBytes, up.IDs[0]: short} {
		if r := a.Do("GET", p+"/"+id, nil, sh...).HasStatus(t, 200); !bytes.Equal(r.Body, want) {
			t.Fatalf("download %s: %d %q, want %q", id, r.Status, r.Body, want)
		}
	}
	a.Do("DELETE", p, nil, sh...).OK(t, 200)
}

func testBilling(t *testing.T, a *apptest.App) {
	p := docsPath(packMLA) + "/billing_info"
	sh := apptest.Bearer(tok(seller))
	// The contract's 500s of a body empty or unreadable, with the marketplace's
	// messages (they name no request: nothing went wrong inside).
	empty := apptest.Err(500, "internal_server_error", "The body of the request cannot be empty")
	unreadable := apptest.Err(500, "internal_server_error", "Error retrieving the body from the request")
	a.Do("POST", p, nil, sh...).Is(t, 500, empty)
	a.Do("POST", p, "  ", sh...).Is(t, 500, empty)
	a.Do("POST", p, "{not json", sh...).Is(t, 500, unreadable)
	a.Do("POST", p, `{"text": 5}`, sh...).Is(t, 500, unreadable)
	a.Do("POST", p, `{"text": ""}`, sh...).Is(t, 400, apptest.Err(400, "bad_request", "The text content cannot be empty", "text", "text is required"))
	a.Do("POST", p, `{}`, sh...).Is(t, 400, apptest.Err(400, "bad_request", "The text content cannot be empty", "text", "text is required"))
	a.Do("POST", p, map[string]string{"text": strings.Repeat("é", messaging.MaxBillingText+1)}, sh...).Is(t, 400,
		apptest.Err(400, "bad_request", fmt.Sprintf("The text content is too long, max characters allowed are: %d", messaging.MaxBillingText), "text",
			fmt.Sprintf("text has %d characters; at most %d are allowed", messaging.MaxBillingText+1, messaging.MaxBillingText)))
	for text, rule := range map[string][2]string{
		"Mandame tus datos por <a href='x'>acá</a>":   {"html", "html is not allowed in messages"},
		"Seguinos en instagram.com/tienda":            {"social_network_link", "links to social networks are not allowed in messages"},
		"Completá el formulario en https://bit.ly/x1": {"shortened_link", "shortened links are not allowed in messages"},
		"Dale idiota, mandá los datos":                {"offensive_language", "offensive language is not allowed in messages"},
	} {
		a.Do("POST", p, map[string]string{"text": text}, sh...).Is(t, 406, apptest.Err(406, "not_acceptable",
			"You cannot ask for the billing_info because the text is not valid. Check Messaging Post Sale documentation for more information", rule[0], rule[1]))
	}
	a.Do("POST", docsPath(packMuted)+"/billing_info", `{"text":"hola"}`, apptest.Bearer(tok(mutedSeller))...).Is(t, 403,
		apptest.Err(403, "forbidden", "You cannot ask for the billing_info because you are not allowed to use the messaging service"))

	a.Do("GET", "/messages/packs/1001", nil, sh...).Is(t, 200, `{"messages": [], "paging": {"total": 0, "offset": 0, "limit": 50}}`)
	text := strings.Repeat("ñ", 480) + " CUIT?"
	var ids []string
	for _, txt := range []string{text, "Segundo pedido: razón social y CUIT, por favor."} {
		r := a.Do("POST", p+"?access_token="+tok(seller), map[string]string{"text": txt})
		var ans struct{ Message string }
		r.JSON(t, &ans)
		wantKeys(t, r.Body, "message")
		id := strings.TrimSuffix(strings.TrimPrefix(ans.Message, "Message "), " sent to the buyer")
		r.HasStatus(t, 201)
		if !uuidRE.MatchString(id) {
			t.Fatalf("billing: %d %s", r.Status, r.Body)
		}
		ids = append(ids, id)
	}
	for _, h := range [][]string{sh, apptest.Bearer(tok(buyer))} {
		r := a.Do("GET", "/messages/packs/1001?limit=1", nil, h...).HasStatus(t, 200)
		var ans struct {
			Messages []struct {
				ID   string `json:"id"`
				From struct {
					UserID int64 `json:"user_id"`
				} `json:"from"`
				To struct {
					UserID int64 `json:"user_id"`
				} `json:"to"`
				Text string `json:"text"`
			}
			Paging struct{ Total, Offset, Limit int }
		}
		r.JSON(t, &ans)
		if len(ans.Messages) != 1 || ans.Messages[0].ID != ids[0] || ans.Messages[0].Text != text ||
			ans.Messages[0].From.UserID != seller || ans.Messages[0].To.UserID != buyer || ans.Paging.Total != 2 || ans.Paging.Limit != 1 {
			t.Fatalf("messages: %d %s", r.Status, r.Body)
		}
	}
	a.Do("GET", "/messages/packs/1001", nil, apptest.Bearer(tok(stranger))...).Is(t, 403, apptest.Err(403, "forbidden", "caller is neither the seller nor the buyer of the pack"))
}

// testCallerHasNoDocuments: the pack changed hands (its order now names
// another seller) after the first seller uploaded: the new seller has no
// documents in the pack (404 on list and delete), the buyer still sees them.
func testCallerHasNoDocuments(t *testing.T, a *apptest.App) {
	const pack, orderID = 1008, 9008
	a.MustLoad(map[string]any{"orders": []any{order(orderID, "MLA", seller, buyer, pack, "drop_off")}})
	p := docsPath(pack)
	r := upload(a, p, tok(seller), pdfFile("f.pdf"))
	r.HasStatus(t, 201)
	a.MustLoad(map[string]any{"orders": []any{order(orderID, "MLA", mutedSeller, buyer, pack, "drop_off")}})
	h := apptest.Bearer(tok(mutedSeller))
	a.Do("GET", p, nil, h...).Is(t, 404, apptest.Err(404, "not_found", "The pack_fiscal_document with pack_id: 1008 does not have any fiscal_document attached for the user_id: 601"))
	a.Do("DELETE", p+"?access_token="+tok(mutedSeller), nil).Is(t, 404, apptest.Err(404, "not_found", "Cannot delete. The pack: 1008 doesn't have a fiscal_document attached"))
	var l listAnswer
	r = a.Do("GET", p, nil, apptest.Bearer(tok(buyer))...)
	r.JSON(t, &l)
	r.HasStatus(t, 200)
	if l.PackID != pack || len(l.Docs) != 1 || !uuidRE.MatchString(l.Docs[0].ID) {
		t.Fatalf("buyer list: %d %s", r.Status, r.Body)
	}
	// The former seller is no longer a party to the pack.
	a.Do("GET", p, nil, apptest.Bearer(tok(seller))...).Is(t, 403, apptest.Err(403, "forbidden", "Access Denied, you are not authorized."))
}

// wantKeys fails unless body is a JSON object with exactly these keys
// (decoding into a struct would accept any letter case).
func wantKeys(t *testing.T, body []byte, keys ...string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not an object: %s", body)
	}
	if len(m) != len(keys) {
		t.Fatalf("keys of %s, want %v", body, keys)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Fatalf("key %q missing in %s", k, body)
		}
	}
}
