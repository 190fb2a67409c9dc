// Package fiscalapi serves area F: fiscal documents of packs and
// the billing-data request.
package fiscalapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/fiscalport"
)

// Part is the multipart part holding a file; repeat it for a second file.
const Part = "fiscal_document"

// Routes mounts the routes with full paths, each with its own
// authentication (other modules share the prefixes).
func Routes(app fiber.Router, svc fiscalport.Service, auth httpapi.Auth) {
	h := handlers{svc: svc}
	// No token: 403 access_token_not_granted (the contract); a bad token: 401.
	authed := auth.Required(httpapi.AuthErrors{Missing: account.ErrTokenNotGranted})
	for _, base := range []string{"/packs/:pack_id/fiscal_documents", "/packs//fiscal_documents"} {
		app.Post(base+"/billing_info", authed, h.billing)
		app.Post(base, authed, h.upload)
		app.Get(base, authed, h.list)
		app.Delete(base, authed, h.delete)
		app.Get(base+"/:fiscal_document_id", authed, h.download)
	}
}

type handlers struct{ svc fiscalport.Service }

func packParam(c *fiber.Ctx) string { return httpapi.Param(c, "pack_id") }

// upload reads the parts named fiscal_document. The app's body limit has
// already refused a body too large to be a legal upload, unread.
func (h handlers) upload(c *fiber.Ctx) error {
	files, bufs, err := readFiles(c)
	if err != nil {
		return err
	}
	ids, err := h.svc.Upload(c.UserContext(), packParam(c), files)
	if err != nil {
		// Not given back: after a failed store the storage client may
		// still be sending a file (net/http can read a request body after
		// RoundTrip returned), so a buffer is reused only after success.
		return err
	}
	for _, b := range bufs {
		putFileBuf(b)
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"ids": ids})
}

// fileBufs hold an upload's files while it runs. Before, fasthttp's
// pre-parse (ReadForm) copied each file into a buffer grown from 512
// bytes, the raw body was written out again from the form, and the handler
// copied the file once more: about 700 KB allocated per 100 KiB upload
// (157 KB now, BenchmarkUpload), and the garbage collector took 14% of
// feria's time on uploads. A buffer larger than a legal file is not kept.
var fileBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putFileBuf(b *bytes.Buffer) {
	if b.Cap() <= 2*fiscal.MaxPDFSize {
		b.Reset()
		fileBufs.Put(b)
	}
}

var errNotMultipart = fiscal.ErrFileMissing.WithCause(Part, "the body must be multipart/form-data with the file in the part fiscal_document")

// readFiles reads the parts named fiscal_document, each into a pooled
// buffer, with the rules of ReadForm that fiber applied: a part whose file
// name is empty is a plain value (refused here), a gzipped body is
// inflated and any other Content-Encoding refused, a malformed body is a
// missing file. Parts of other names are skipped unread.
func readFiles(c *fiber.Ctx) ([]fiscal.File, []*bytes.Buffer, error) {
	req := c.Request()
	boundary := string(req.Header.MultipartFormBoundary())
	if boundary == "" {
		return nil, nil, errNotMultipart
	}
	body := req.Body()
	switch ce := req.Header.ContentEncoding(); {
	case len(ce) == 0:
	case string(ce) == "gzip":
		var err error
		if body, err = req.BodyGunzip(); err != nil {
			return nil, nil, errNotMultipart
		}
	default:
		return nil, nil, errNotMultipart
	}
	var files []fiscal.File
	var bufs []*bytes.Buffer
	unnamed := false
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, errNotMultipart
		}
		if p.FormName() != Part {
			continue
		}
		name := p.FileName()
		if name == "" {
			unnamed = true
			continue
		}
		b := fileBufs.Get().(*bytes.Buffer)
		bufs = append(bufs, b)
		if _, err := b.ReadFrom(p); err != nil {
			return nil, nil, errNotMultipart
		}
		files = append(files, fiscal.File{Name: name, DeclaredType: p.Header.Get("Content-Type"), Data: b.Bytes()})
	}
	if unnamed {
		// A part sent with an empty file name.
		return nil, nil, fiscal.ErrFilename.WithCause(Part, "file name is empty")
	}
	return files, bufs, nil
}

type docJSON struct {
	ID       string    `json:"id"`
	Date     time.Time `json:"date"`
	FileType string    `json:"file_type"`
	Filename string    `json:"filename"`
}

func (h handlers) list(c *fiber.Ctx) error {
	packID, docs, err := h.svc.List(c.UserContext(), packParam(c))
	if err != nil {
		return err
	}
	out := make([]docJSON, len(docs))
	for i, d := range docs {
		// file_type is the MIME type, as the marketplace's list shows it.
		out[i] = docJSON{ID: d.ID, Date: d.DateCreated, FileType: d.FileType.ContentType(), Filename: d.Filename}
	}
	return c.JSON(fiber.Map{"pack_id": packID, "fiscal_documents": out})
}

// copyBufs are the buffers downloads copy through (io.Copy would make one
// per request).
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// download sends the file whole: files are at most 1 MB, and reading them
// inside the handler keeps the storage stream within the request, so that
// a storage failure is a 503 and never a truncated 200. The file is copied
// straight into the response's own (pooled) body buffer, not read into a
// slice of its own first.
func (h handlers) download(c *fiber.Ctx) error {
	d, err := h.svc.Download(c.UserContext(), packParam(c), httpapi.Param(c, "fiscal_document_id"))
	if err != nil {
		return err
	}
	defer d.Close()
	resp := c.Response()
	resp.ResetBody()
	buf := copyBufs.Get().(*[]byte)
	_, err = io.CopyBuffer(resp.BodyWriter(), d, *buf)
	copyBufs.Put(buf)
	if err != nil {
		resp.ResetBody()
		return fiscal.FileNotRetrieved(httpapi.Param(c, "fiscal_document_id")).Wrap(err)
	}
	c.Set(fiber.HeaderContentType, d.ContentType)
	c.Set(fiber.HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": d.Filename}))
	return nil
}

func (h handlers) delete(c *fiber.Ctx) error {
	ids, err := h.svc.Delete(c.UserContext(), packParam(c))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"message": fiscal.Deleted(ids)})
}

// The contract's answer to an empty or unreadable billing body: 500
// internal_server_error, with the marketplace's two messages.
var (
	errBillingEmpty      = kernel.E(kernel.Internal, "internal_server_error", "The body of the request cannot be empty")
	errBillingUnreadable = kernel.E(kernel.Internal, "internal_server_error", "Error retrieving the body from the request")
)

func (h handlers) billing(c *fiber.Ctx) error {
	body := c.Body()
	if len(strings.TrimSpace(string(body))) == 0 {
		return errBillingEmpty.Wrap(errors.New("empty body"))
	}
	// A missing or null text stays "": the service answers it as empty.
	var b struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return errBillingUnreadable.Wrap(err)
	}
	if err := httpapi.CheckText(body); err != nil {
		return err
	}
	m, err := h.svc.RequestBilling(c.UserContext(), packParam(c), b.Text)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"message": "Message " + m.ID + " sent to the buyer"})
}
