package messagingapi_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http/httptest"
	"net/textproto"
	"regexp"
	"strings"
	"testing"

	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/test/apptest"
)

var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

func upload(a *apptest.App, part, name string, data []byte, tok string) apptest.Response {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, part, name))
	h.Set("Content-Type", "application/octet-stream")
	pw, _ := w.CreatePart(h)
	pw.Write(data) //nolint:errcheck // in memory
	w.Close()
	req := httptest.NewRequest("POST", "/messages/attachments", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return a.Send(req)
}

var attachmentID = regexp.MustCompile(`^\{"id":"(101_[0-9a-f-]{36}\.png)"\}$`)

// A seller uploads a file and sends it to the buyer; the buyer reads the
// conversation, which marks the message read (for good), answers, and
// downloads the file; only the parties of the message may.
func TestSendAndRead(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		seller, buyer, stranger := apptest.Bearer("tok-101"), apptest.Bearer("tok-201"), apptest.Bearer("tok-301")
		path := "/messages/packs/1001/sellers/101?tag=post_sale"

		up := upload(a, "file", "foto ñ.png", png, "tok-101")
		up.HasStatus(t, 201)
		m := attachmentID.FindStringSubmatch(string(up.Body))
		if m == nil {
			t.Fatalf("upload: %s", up.Body)
		}
		file := m[1]
		// Before it is sent, the file is its uploader's only.
		a.Do("GET", "/messages/attachments/"+file, nil, buyer...).Is(t, 403, apptest.Err(403, "forbidden", "the caller may not read this attachment"))
		a.Do("GET", "/messages/attachments/"+file, nil, seller...).HasStatus(t, 200)

		sent := a.Do("POST", path, map[string]any{"from": map[string]any{"user_id": 101}, "to": map[string]any{"user_id": 201},
			"text": "Te adjunto la foto del paquete", "attachments": []string{file}}, seller...)
		var msg struct{ ID string }
		sent.JSON(t, &msg)
		at := "2026-11-20T12:00:00Z"
		want := func(id string, from, to int, text, read, attachments string, first bool) string {
			return fmt.Sprintf(`{"id":%q,"site_id":"MLA","from":{"user_id":%d},"to":{"user_id":%d},"status":"available","text":%q,
				"message_date":{"received":%[8]q,"available":%[8]q,"notified":%[8]q,"created":%[8]q,"read":%[5]s},
				"message_moderation":{"status":"clean","reason":null},"message_attachments":%[6]s,
				"message_resources":[{"id":"1001","name":"packs"},{"id":"101","name":"sellers"}],"conversation_first_message":%[7]t}`,
				id, from, to, text, read, attachments, first, at)
		}
		files := fmt.Sprintf(`[{"filename":%q,"original_filename":"foto ñ.png","type":"image/png","size":%d,"date_created":"2026-11-20T12:00:00Z"}]`, file, len(png))
		first := want(msg.ID, 101, 201, "Te adjunto la foto del paquete", "null", files, true)
		sent.Is(t, 201, first)

		// The seller's read marks nothing of the seller's; the buyer's does.
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:05:00Z"}).OK(t, 200)
		a.Do("GET", path, nil, seller...).Is(t, 200, `{"paging":{"total":1,"offset":0,"limit":50},"messages":[`+first+`]}`)
		a.Do("GET", path+"&mark_as_read=false", nil, buyer...).Is(t, 200, `{"paging":{"total":1,"offset":0,"limit":50},"messages":[`+first+`]}`)
		read := want(msg.ID, 101, 201, "Te adjunto la foto del paquete", `"2026-11-20T12:05:00Z"`, files, true)
		a.Do("GET", path+"&mark_as_read=true", nil, buyer...).Is(t, 200, `{"paging":{"total":1,"offset":0,"limit":50},"messages":[`+read+`]}`)
		a.Do("GET", "/messages/packs/1001", nil, buyer...).Is(t, 200, `{"paging":{"total":1,"offset":0,"limit":50},"messages":[`+read+`]}`)
		a.Do("GET", "/messages/"+msg.ID, nil, seller...).Is(t, 200, read)

		// The buyer answers, with no attachment.
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:10:00Z"}).OK(t, 200)
		at = "2026-11-20T12:10:00Z"
		reply := a.Do("POST", "/messages/packs/1001/sellers/101", map[string]any{"from": map[string]any{"user_id": 201}, "to": map[string]any{"user_id": 101},
			"text": "¡Gracias!"}, buyer...)
		var r struct{ ID string }
		reply.JSON(t, &r)
		reply.Is(t, 201, want(r.ID, 201, 101, "¡Gracias!", "null", "null", false))

		// The file, for both parties of its message and nobody else.
		for _, who := range [][]string{seller, buyer} {
			got := a.Do("GET", "/messages/attachments/"+file, nil, who...)
			got.HasStatus(t, 200)
			if !bytes.Equal(got.Body, png) || got.Header.Get("Content-Type") != "image/png" ||
				got.Header.Get("Content-Disposition") != `attachment; filename*=utf-8''foto%20%C3%B1.png` {
				t.Fatalf("download: %q %v", got.Body, got.Header)
			}
		}
		a.Do("GET", "/messages/attachments/"+file, nil, stranger...).Is(t, 403, apptest.Err(403, "forbidden", "the caller may not read this attachment"))
		a.Do("GET", "/messages/attachments/"+file, nil).Is(t, 403, apptest.Err(403, "access_token_not_granted", "access_token was not sent"))
		a.Do("GET", "/messages/attachments/101_nope.png", nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "attachment not found"))

		// Send's errors, in the order they are checked.
		body := func(from, to int, text string, files ...string) map[string]any {
			b := map[string]any{"from": map[string]any{"user_id": from}, "to": map[string]any{"user_id": to}, "text": text}
			if files != nil {
				b["attachments"] = files
			}
			return b
		}
		ok := body(101, 201, "hola")
		a.Do("POST", path, ok).Is(t, 403, apptest.Err(403, "access_token_not_granted", "access_token was not sent"))
		a.Do("POST", path, ok, apptest.Bearer("tok-nope")...).Is(t, 401, apptest.Err(401, "unauthorized", "invalid access token"))
		a.Do("POST", "/messages/packs/1001/sellers/101?tag=pre_sale", ok, seller...).Is(t, 400,
			apptest.Err(400, "bad_request", `tag must be post_sale, got "pre_sale"`, "tag", "tag must be post_sale"))
		a.Do("POST", "/messages/packs/1001/sellers/x", ok, seller...).Is(t, 400,
			apptest.Err(400, "bad_request", `seller_id must be a positive integer, got "x"`, "seller_id", "seller_id must be a positive integer"))
		a.Do("POST", path, `{"from":{"user_id":"101"}}`, seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "field from.user_id must be an integer, got string", "from.user_id", "from.user_id must be an integer"))
		a.Do("POST", path, ok, stranger...).Is(t, 403, apptest.Err(403, "forbidden", "caller is neither the seller nor the buyer of the pack"))
		a.Do("POST", "/messages/packs/4242/sellers/101", ok, seller...).Is(t, 404, apptest.Err(404, "not_found", "pack 4242 not found"))
		a.Do("POST", "/messages/packs/1001/sellers/301", ok, seller...).Is(t, 404, apptest.Err(404, "not_found", "pack 1001 has no conversation with seller 301"))
		a.Do("POST", path, ok, buyer...).Is(t, 400, apptest.Err(400, "bad_request", "from.user_id must be the caller", "from.user_id", "from.user_id is 101; the caller is 201"))
		a.Do("POST", path, body(101, 301, "hola"), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "to.user_id must be the other party of the pack: 201", "to.user_id", "to.user_id is 301"))
		a.Do("POST", path, body(101, 201, "  "), seller...).Is(t, 400, apptest.Err(400, "bad_request", "The text content cannot be empty", "text", "text is required"))
		a.Do("POST", path, body(101, 201, strings.Repeat("ñ", messaging.MaxMessageText+1)), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "The text content is too long, max characters allowed are: 350", "text", "text has 351 characters; at most 350 are allowed"))
		a.Do("POST", path, body(101, 201, "seguime en instagram.com/tienda"), seller...).Is(t, 406,
			apptest.Err(406, "not_acceptable", "links to social networks are not allowed in messages", "social_network_link", "links to social networks are not allowed in messages"))
		a.Do("POST", path, body(101, 201, "hola", make([]string, messaging.MaxMessageAttachments+1)...), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "a message carries at most 10 attachments", "attachments", "11 attachments sent"))
		a.Do("POST", path, body(101, 201, "hola", "101_nope.png"), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "attachment 101_nope.png not found", "attachments", "an attachment is sent by the user who uploaded it"))
		a.Do("POST", path, body(201, 101, "hola", file), buyer...).Is(t, 400,
			apptest.Err(400, "bad_request", "attachment "+file+" not found", "attachments", "an attachment is sent by the user who uploaded it"))
		a.Do("POST", path, body(101, 201, "hola", file), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "attachment "+file+" was sent already", "attachments", "an attachment is sent once"))
		again := attachmentID.FindStringSubmatch(string(upload(a, "file", "b.png", png, "tok-101").Body))[1]
		a.Do("POST", path, body(101, 201, "hola", again, again), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "attachment "+again+" was sent already", "attachments", "an attachment is sent once"))
		a.Do("GET", path+"&mark_as_read=yes", nil, seller...).Is(t, 400,
			apptest.Err(400, "bad_request", `mark_as_read must be true or false, got "yes"`, "mark_as_read", "mark_as_read must be true or false"))

		// Nothing refused was stored: the two messages, the unsent file.
		var conv struct{ Paging struct{ Total int } }
		a.Do("GET", path+"&mark_as_read=false", nil, seller...).JSON(t, &conv)
		if conv.Paging.Total != 2 {
			t.Fatalf("%d messages after the refused sends", conv.Paging.Total)
		}
		a.Do("GET", "/messages/attachments/"+again, nil, seller...).HasStatus(t, 200)
	})
}

// Every refused upload, by status and exact body.
func TestUploadErrors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		a.Do("POST", "/messages/attachments", nil).Is(t, 403, apptest.Err(403, "access_token_not_granted", "access_token was not sent"))
		a.Do("POST", "/messages/attachments", map[string]string{"file": "x"}, apptest.Bearer("tok-101")...).Is(t, 400,
			apptest.Err(400, "bad_request", "file is required", "file", "the body must be multipart/form-data with the file in the part file"))
		upload(a, "document", "a.png", png, "tok-101").Is(t, 400,
			apptest.Err(400, "bad_request", "file is required", "file", "the body must be multipart/form-data with the file in the part file"))
		upload(a, "file", "", png, "tok-101").Is(t, 400, apptest.Err(400, "bad_request", "file name is required", "file", "the part has no file name"))
		upload(a, "file", "virus.exe", png, "tok-101").Is(t, 400, apptest.Err(400, "bad_request",
			"file virus.exe is not an accepted attachment: jpg, jpeg, png, pdf or txt", "invalid_extension", "accepted extensions are jpg, jpeg, png, pdf or txt"))
		upload(a, "file", "foto.png", []byte("no soy una imagen"), "tok-101").Is(t, 400, apptest.Err(400, "bad_request",
			"file foto.png is named png but its content is not", "invalid_extension", "the content does not match the extension"))
		upload(a, "file", "nota.txt", nil, "tok-101").Is(t, 400, apptest.Err(400, "bad_request",
			"file nota.txt is empty", "invalid_size", "an attachment has at least one byte"))
		big := append(append([]byte{}, png...), make([]byte, messaging.MaxAttachmentSize+1-len(png))...)
		upload(a, "file", "grande.png", big, "tok-101").Is(t, 400, apptest.Err(400, "bad_request",
			"file grande.png is larger than 25000000 bytes, the most an attachment may have", "invalid_size", "an attachment may have at most 25000000 bytes"))
		// At the limit, and of every accepted kind.
		upload(a, "file", "grande.png", big[:messaging.MaxAttachmentSize], "tok-101").HasStatus(t, 201)
		for name, data := range map[string]string{"a.JPG": "\xff\xd8\xff\xe0", "b.jpeg": "\xff\xd8\xff\xdb", "c.pdf": "%PDF-1.4\n", "d.txt": "ñandú"} {
			upload(a, "file", name, []byte(data), "tok-201").HasStatus(t, 201)
		}
	})
}

// A world's messages and files are its own: sent, read and downloaded
// under /worlds/{name}, unknown to the default world.
func TestMessagesInAWorld(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		key := "msgs-world-key-0123456789"
		a.Sandbox("PUT", "/worlds/w1", map[string]any{"sandbox_key": key}).OK(t, 201)
		a.Do("POST", "/worlds/w1/sandbox/fixtures", map[string]any{
			"users": []any{map[string]any{"id": 101, "nickname": "W101", "site_id": "MLA", "access_token": "tok-w-101"},
				map[string]any{"id": 201, "nickname": "W201", "site_id": "MLA", "access_token": "tok-w-201"}},
			"categories": []any{map[string]any{"id": "MLA1", "site_id": "MLA", "name": "Cosas", "domain_id": "MLA-THINGS", "compatibilities": nil}},
			"items":      []any{map[string]any{"id": "MLA10", "site_id": "MLA", "seller_id": 101, "title": "Cosa", "category_id": "MLA1"}},
			"orders": []any{map[string]any{"id": 9001, "site_id": "MLA", "seller_id": 101, "buyer_id": 201, "pack_id": 1001, "status": "paid",
				"items": []any{map[string]any{"item_id": "MLA10", "quantity": 1, "unit_price": 100}}}},
		}, "X-Sandbox-Key", key).OK(t, 200)

		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		pw, _ := w.CreateFormFile("file", "foto.png")
		pw.Write(png) //nolint:errcheck // in memory
		w.Close()
		req := httptest.NewRequest("POST", "/worlds/w1/messages/attachments", &body)
		req.Header.Set("Content-Type", w.FormDataContentType())
		req.Header.Set("Authorization", "Bearer tok-w-101")
		var file struct{ ID string }
		a.Send(req).JSON(t, &file)
		path := "/worlds/w1/messages/packs/1001/sellers/101?tag=post_sale"
		a.Do("POST", path, map[string]any{"from": map[string]any{"user_id": 101}, "to": map[string]any{"user_id": 201},
			"text": "hola", "attachments": []string{file.ID}}, apptest.Bearer("tok-w-101")...).HasStatus(t, 201)
		var conv struct {
			Messages []struct {
				MessageDate struct{ Read *string } `json:"message_date"`
			}
		}
		a.Do("GET", path, nil, apptest.Bearer("tok-w-201")...).JSON(t, &conv)
		if len(conv.Messages) != 1 || conv.Messages[0].MessageDate.Read == nil {
			t.Fatalf("the world's conversation: %+v", conv)
		}
		got := a.Do("GET", "/worlds/w1/messages/attachments/"+file.ID, nil, apptest.Bearer("tok-w-201")...)
		if got.HasStatus(t, 200); !bytes.Equal(got.Body, png) {
			t.Fatalf("the world's file: %q", got.Body)
		}
		// The default world has neither.
		a.Do("GET", "/messages/attachments/"+file.ID, nil, apptest.Bearer("tok-101")...).Is(t, 404, apptest.Err(404, "not_found", "attachment not found"))
		a.Do("GET", "/messages/packs/1001/sellers/101?tag=post_sale", nil, apptest.Bearer("tok-101")...).Is(t, 200,
			`{"paging":{"total":0,"offset":0,"limit":50},"messages":[]}`)
	})
}
