package fiscalapi_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// The world of these tests: users with fixed tokens, and packs.
const (
	seller, buyer, stranger = 101, 201, 301
	brSeller, brBuyer       = 401, 402
	clSeller, clBuyer       = 501, 502
	mutedSeller             = 601

	packMLA        = 1001 // seller 101, buyer 201, two orders
	packMLB        = 1002
	packFulfilment = 1003 // MLC, logistic_type fulfillment
	packMLC        = 1006 // MLC, drop_off
	orderAlone     = 9004 // pack_id null: the order is its own pack
	packMuted      = 1005 // seller 601 may not use messaging
	orderInPack    = 9001 // part of pack 1001
)

func tok(id int) string { return fmt.Sprintf("tok-%d", id) }

func user(id int, site string, messaging bool) map[string]any {
	return map[string]any{"id": id, "nickname": fmt.Sprintf("U%d", id), "site_id": site, "user_type": "normal",
		"tags": []string{}, "messaging_allowed": messaging, "access_token": tok(id)}
}

func category(site string) map[string]any {
	return map[string]any{"id": site + "1", "site_id": site, "name": "Facturables", "domain_id": site + "-THINGS",
		"shipping_preferences": map[string]any{"dimensions": map[string]any{"height": 10, "width": 20, "length": 30, "weight": 500},
			"logistics": []any{map[string]any{"mode": "me2", "types": []string{"drop_off"}}}, "restricted": false},
		"accepted_shipping_methods": []int{73328}, "compatibilities": nil}
}

func item(site string, sellerID int) map[string]any {
	return map[string]any{"id": fmt.Sprintf("%s%d", site, sellerID), "site_id": site, "seller_id": sellerID, "title": "Cosa",
		"category_id": site + "1", "domain_id": site + "-THINGS", "status": "active", "price": 100, "currency_id": "ARS",
		"available_quantity": 10, "listing_type_id": "gold_special", "condition": "new", "attributes": []any{}, "tags": []any{},
		"shipping": map[string]any{"mode": "me2", "local_pick_up": false, "free_shipping": false, "logistic_type": "drop_off",
			"methods": []any{}, "free_methods": []any{}}}
}

func order(id int, site string, sellerID, buyerID int, packID any, logistic string) map[string]any {
	return map[string]any{"id": id, "site_id": site, "seller_id": sellerID, "buyer_id": buyerID, "pack_id": packID,
		"status": "paid", "items": []any{map[string]any{"item_id": fmt.Sprintf("%s%d", site, sellerID), "quantity": 1, "unit_price": 100}}, "shipping": map[string]any{"id": id, "logistic_type": logistic},
		"has_claim": false, "compatibility_selection": nil}
}

// world loads users, then the categories, items and orders of the packs,
// through the sandbox.
func world(t testing.TB, a *apptest.App) {
	t.Helper()
	a.MustLoad(map[string]any{"users": []any{
		user(seller, "MLA", true), user(buyer, "MLA", true), user(stranger, "MLA", true),
		user(brSeller, "MLB", true), user(brBuyer, "MLB", true),
		user(clSeller, "MLC", true), user(clBuyer, "MLC", true),
		user(mutedSeller, "MLA", false),
	}})
	orders := []map[string]any{
		order(orderInPack, "MLA", seller, buyer, packMLA, "drop_off"),
		order(9002, "MLA", seller, buyer, packMLA, "drop_off"),
		order(9003, "MLB", brSeller, brBuyer, packMLB, "drop_off"),
		order(9005, "MLC", clSeller, clBuyer, packFulfilment, "fulfillment"),
		order(9006, "MLC", clSeller, clBuyer, packMLC, "drop_off"),
		order(orderAlone, "MLA", seller, buyer, nil, "drop_off"),
		order(9007, "MLA", mutedSeller, buyer, packMuted, "drop_off"),
	}
	world := map[string]any{"categories": []any{category("MLA"), category("MLB"), category("MLC")},
		"items":  []any{item("MLA", seller), item("MLA", mutedSeller), item("MLB", brSeller), item("MLC", clSeller)},
		"orders": orders}
	a.MustLoad(world)
}

// part is one multipart part.
type part struct {
	name, filename, contentType string
	data                        []byte
}

func pdfFile(name string) part { return part{"fiscal_document", name, "application/pdf", pdfBytes} }
func xmlFile(name string) part { return part{"fiscal_document", name, "application/xml", xmlBytes} }

var (
	pdfBytes = []byte("%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<<>>\n%%EOF\n")
	xmlBytes = []byte(`<?xml version="1.0" encoding="UTF-8"?><cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Total="100.00"/>`)
)

// upload sends the parts as multipart/form-data with the token as a header.
func upload(a *apptest.App, path, token string, parts ...part) apptest.Response {
	body, ct := multipartBody(parts...)
	return uploadRaw(a, path, token, ct, body)
}

// multipartBody is the parts as a multipart/form-data body and its
// Content-Type.
func multipartBody(parts ...part) ([]byte, string) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.name, p.filename))
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, _ := w.CreatePart(h)
		pw.Write(p.data)
	}
	w.Close()
	return body.Bytes(), w.FormDataContentType()
}

func uploadRaw(a *apptest.App, path, token, contentType string, body []byte) apptest.Response {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return a.Send(req)
}
