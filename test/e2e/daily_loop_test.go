package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"
)

// TestSellersDailyLoop is an integration as a seller would write it: plain
// net/http and encoding/json against `feria all` with the demo world as
// `make run` loads it, nothing of feria's code but the harness that starts
// the binary. It makes the seller's day: a buyer's question, its answer and
// the seller's inbox; orders searched and noted; a file and a message to
// the buyer, who reads the conversation (marking it read) and the file;
// the shipment's items; the visits of the seller's listings. Every call
// must succeed.
func TestSellersDailyLoop(t *testing.T) {
	t.Parallel()
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "deploy", "demo", "fixtures.json"))
	if err != nil {
		t.Fatal(err)
	}
	base := startEmbedded(t, t.TempDir(), "FIXTURES_FILE="+fixtures).base
	c := &sellerClient{t: t, base: base, http: &http.Client{Timeout: 10 * time.Second}}
	const seller, buyer = "APP_USR-demo-seller", "APP_USR-demo-buyer"

	// Questions: the buyer asks, the seller answers and reads the inbox.
	var q struct {
		ID     int64  `json:"id"`
		Status string `json:"status"`
	}
	c.json("POST", "/questions", buyer, map[string]any{"item_id": "MLA1100", "text": "¿Tiene garantía?"}, &q)
	var answered struct {
		Status string `json:"status"`
		Answer struct {
			Text string `json:"text"`
		} `json:"answer"`
	}
	c.json("POST", "/answers", seller, map[string]any{"question_id": q.ID, "text": "Sí, 12 meses."}, &answered)
	if answered.Status != "ANSWERED" || answered.Answer.Text != "Sí, 12 meses." {
		t.Fatalf("answer: %+v", answered)
	}
	var inbox struct {
		Questions []struct {
			ID int64 `json:"id"`
		} `json:"questions"`
	}
	c.json("GET", "/questions/search?seller_id=123&status=ANSWERED", seller, nil, &inbox)
	if len(inbox.Questions) == 0 || inbox.Questions[0].ID != q.ID {
		t.Fatalf("the seller's answered questions: %+v, want %d first", inbox.Questions, q.ID)
	}

	// Orders: today's paid orders, and a note on one.
	var orders struct {
		Results []struct {
			ID     int64 `json:"id"`
			PackID int64 `json:"pack_id"`
		} `json:"results"`
	}
	c.json("GET", "/orders/search?seller=123&order.status=paid&sort=date_desc", seller, nil, &orders)
	if len(orders.Results) == 0 {
		t.Fatal("no paid order of seller 123 in the demo world")
	}
	order := orders.Results[0]
	var note struct {
		OrderID string `json:"order_id"`
	}
	c.json("POST", fmt.Sprintf("/orders/%d/notes", order.ID), seller, map[string]any{"note": "Llamar al comprador"}, &note)
	var notes []struct {
		Results []struct {
			Note string `json:"note"`
		} `json:"results"`
	}
	c.json("GET", fmt.Sprintf("/orders/%d/notes", order.ID), seller, nil, &notes)
	if len(notes) != 1 || len(notes[0].Results) == 0 || notes[0].Results[len(notes[0].Results)-1].Note != "Llamar al comprador" {
		t.Fatalf("notes of %d: %+v", order.ID, notes)
	}

	// Messages: a file and a message for the buyer of that order's pack.
	pack := order.PackID
	if pack == 0 {
		pack = order.ID
	}
	var file struct {
		ID string `json:"id"`
	}
	remito := []byte("Remito del pedido\n")
	c.upload("/messages/attachments", seller, "file", "remito.txt", remito, &file)
	conversation := fmt.Sprintf("/messages/packs/%d/sellers/123?tag=post_sale", pack)
	var sent struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	c.json("POST", conversation, seller, map[string]any{"from": map[string]any{"user_id": 123}, "to": map[string]any{"user_id": 456},
		"text": "Te envío el remito", "attachments": []string{file.ID}}, &sent)
	type message struct {
		ID          string `json:"id"`
		MessageDate struct {
			Read *string `json:"read"`
		} `json:"message_date"`
		Attachments []struct {
			Filename string `json:"filename"`
		} `json:"message_attachments"`
	}
	var conv struct {
		Messages []message `json:"messages"`
	}
	c.json("GET", conversation+"&mark_as_read=true", buyer, nil, &conv)
	var got *message
	for i := range conv.Messages {
		if conv.Messages[i].ID == sent.ID {
			got = &conv.Messages[i]
		}
	}
	if got == nil || got.MessageDate.Read == nil || len(got.Attachments) != 1 || got.Attachments[0].Filename != file.ID {
		t.Fatalf("the buyer's read of %s: %+v", sent.ID, conv.Messages)
	}
	if b := c.raw("GET", "/messages/attachments/"+url.PathEscape(file.ID), buyer); !bytes.Equal(b, remito) {
		t.Fatalf("the file the buyer reads: %q", b)
	}

	// The shipment of the order, and what it carries.
	var items []struct {
		ItemID   string `json:"item_id"`
		Quantity int    `json:"quantity"`
	}
	c.json("GET", "/shipments/40001/items", seller, nil, &items)
	if len(items) == 0 || items[0].ItemID == "" {
		t.Fatalf("items of shipment 40001: %+v", items)
	}

	// Visits of the seller's listings.
	var visits []struct {
		ItemID string `json:"item_id"`
	}
	c.json("GET", "/items/visits?ids=MLA1100,MLA1101&date_from=2026-11-15&date_to=2026-11-22", "", nil, &visits)
	if len(visits) != 2 {
		t.Fatalf("visits of two items: %+v", visits)
	}
	var mine struct {
		UserID int64 `json:"user_id"`
	}
	c.json("GET", "/users/123/items_visits?date_from=2026-11-01&date_to=2026-11-30", seller, nil, &mine)
	if mine.UserID != 123 {
		t.Fatalf("the seller's visits: %+v", mine)
	}
}

// sellerClient is the seller's HTTP client: bearer tokens, JSON in and out,
// and any answer that is not a 2xx fails the test.
type sellerClient struct {
	t    *testing.T
	base string
	http *http.Client
}

func (c *sellerClient) send(req *http.Request, token string) []byte {
	c.t.Helper()
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	if res.StatusCode/100 != 2 {
		c.t.Fatalf("%s %s: %d %s", req.Method, req.URL, res.StatusCode, b)
	}
	return b
}

// json sends body (none when nil) and decodes the answer into out.
func (c *sellerClient) json(method, path, token string, body, out any) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	b := c.send(req, token)
	if err := json.Unmarshal(b, out); err != nil {
		c.t.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
}

// upload posts one file as the multipart part named part.
func (c *sellerClient) upload(path, token, part, name string, data []byte, out any) {
	c.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	pw, err := w.CreateFormFile(part, name)
	if err != nil {
		c.t.Fatal(err)
	}
	pw.Write(data) //nolint:errcheck // a bytes.Buffer
	w.Close()
	req, err := http.NewRequest("POST", c.base+path, &body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	if err := json.Unmarshal(c.send(req, token), out); err != nil {
		c.t.Fatalf("POST %s: %v", path, err)
	}
}

// raw reads an answer's bytes.
func (c *sellerClient) raw(method, path, token string) []byte {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.send(req, token)
}
